"""The Codex backend's pure parts: stream mapping, failure classification, the strict
schema, the provider table, config and routing. The real binary is driven in
tests/e2e/test_codex_backend.py and test_codex_loop.py."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rgr.backends.codex import CodexBackend, classify_failure
from rgr.backends.codex_stream import StreamState, stream_reader
from rgr.backends.router import agent_backends, make_backend
from rgr.backends.strict_output import strict_schema
from rgr.base.config import CodexConfig, load_config
from rgr.base.errors import ConfigError
from rgr.base.proc import Completed
from rgr.fake_model import Text, bash, read, structured, write
from rgr.fake_model.responses import count_answers, translate
from rgr.loop.outputs import PhaseOutput, PlanOutput
from tests.conftest import REPO_ROOT

#: Lines codex-cli 0.169.0 printed in one session (tests/e2e saw them).
SESSION = [
    '{"type":"thread.started","thread_id":"t-1"}',
    '{"type":"turn.started"}',
    '{"type":"item.started","item":{"id":"item_1","type":"file_change","changes":'
    '[{"path":"/r/a.py","kind":"add"}],"status":"in_progress"}}',
    '{"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":'
    '[{"path":"/r/a.py","kind":"add"}],"status":"completed"}}',
    '{"type":"item.started","item":{"id":"item_2","type":"command_execution","command":'
    '"/bin/bash -lc \'false\'","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
    '{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":'
    '"/bin/bash -lc \'false\'","aggregated_output":"","exit_code":1,"status":"failed"}}',
    '{"type":"error","message":"Reconnecting... 1/5 (unexpected status 503 Service '
    'Unavailable: overloaded, url: http://x/v1/responses)"}',
    '{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":'
    '"{\\"summary\\": \\"ok\\"}"}}',
    '{"type":"turn.completed","usage":{"input_tokens":900,"cached_input_tokens":100,'
    '"cache_write_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":0}}',
]


def _play(lines: list[str]) -> tuple[StreamState, list[dict[str, Any]]]:
    state, events = StreamState(model="m"), []
    reader = stream_reader(state, events.append)
    for line in lines:
        reader(line)
    return state, events


def test_the_stream_maps_to_the_shape_the_views_read() -> None:
    state, events = _play(SESSION)
    assert [(e["type"], e.get("subtype")) for e in events] == [
        ("system", "init"), ("codex_turn.started", None),
        ("assistant", None), ("user", None), ("assistant", None), ("user", None),
        ("system", "api_retry"), ("assistant", None), ("system", "turn_completed")]
    calls = [b for e in events if e["type"] == "assistant"
             for b in e["message"]["content"] if b["type"] == "tool_use"]
    assert [(c["name"], c["input"].get("file_path") or c["input"].get("command"))
            for c in calls] == [("apply_patch", "/r/a.py"), ("Bash", "/bin/bash -lc 'false'")]
    results = [b for e in events if e["type"] == "user" for b in e["message"]["content"]]
    assert [r["is_error"] for r in results] == [False, True]
    retry = events[6]
    assert (retry["attempt"], retry["max_retries"], retry["error_status"]) == (1, 5, 503)
    assert all(e["backend"] == "codex" for e in events)
    assert (state.completed, state.turns, state.retries, state.thread_id) == (True, 2, 1, "t-1")
    assert state.final_message == '{"summary": "ok"}'


def test_usage_is_tokens_with_cached_input_apart_and_no_cost() -> None:
    state, _ = _play(SESSION)
    from rgr.backends.base import AgentRequest

    request = AgentRequest("p", Path("s"), PhaseOutput, (), (), (), 5, None, Path("."), 1.0,
                           "sid")
    figures = state.figures("m", 10)
    assert (figures.input_tokens, figures.output_tokens, figures.cache_read_input_tokens,
            figures.cache_creation_input_tokens) == (800, 50, 100, 0)
    assert (figures.cost_usd, figures.backend, figures.model) == (None, "codex", "m")
    # the record kept for the audit trail is codex's own, not a claude-shaped copy
    raw = state.result(request, "m", 10)
    assert raw["usage"] == {"input_tokens": 900, "cached_input_tokens": 100,
                            "cache_write_input_tokens": 0, "output_tokens": 50,
                            "reasoning_output_tokens": 0}
    assert "total_cost_usd" not in raw and raw["backend"] == "codex"


def test_a_line_that_is_not_json_is_passed_on_unparsed() -> None:
    state, events = _play(["thread 'main' panicked", '{"type":"thread.started"}'])
    assert events[0] == {"type": "rgr_unparsed", "line": "thread 'main' panicked",
                         "backend": "codex"}
    assert state.unparsed == 1 and state.started


@pytest.mark.parametrize(("failure", "kind", "retryable"), [
    ("unexpected status 401 Unauthorized: Incorrect API key provided", "not_logged_in", False),
    ("exceeded retry limit, last status: 429 Too Many Requests", "api_error", True),
    ("We're currently experiencing high demand, which may cause temporary errors.",
     "api_error", True),
    ("unexpected status 529 <unknown status code>: Overloaded", "api_error", True),
    ("stream disconnected before completion: Transport error", "api_error", True),
    ('{"error": {"message": "bad schema", "type": "invalid_request_error"}}', "api_error",
     False),
    ("something else entirely", "execution_error", False),
])
def test_turn_failures_are_classified(failure: str, kind: str, retryable: bool) -> None:
    state = StreamState(started=True, failure=failure)
    error = classify_failure(state, Completed(("codex",), 1, "", "", 0.1))
    assert (error.kind, error.retryable) == (kind, retryable)


def test_strict_schema_closes_objects_requires_all_and_drops_length_limits() -> None:
    plan = strict_schema(PlanOutput.model_json_schema())
    planned = plan["$defs"]["PlannedTest"]
    assert planned["additionalProperties"] is False
    assert planned["required"] == ["description", "testFile", "implFile"]
    assert "minLength" not in json.dumps(plan) and "maxLength" not in json.dumps(plan)
    # every property required, the optional way out as nullable (strict mode's rule)
    assert plan["required"] == ["cannotBeDoneHonestly", "currentTest"]
    assert {"type": "null"} in plan["properties"]["cannotBeDoneHonestly"]["anyOf"]
    # the pydantic model still holds its limits: rgr validates the answer with it
    with pytest.raises(ValueError):
        PhaseOutput.model_validate({"summary": ""})


def test_the_provider_table_is_valid_toml_and_keyless() -> None:
    backend = CodexBackend(env={"OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
                                "CODEX_API_KEY": "sk-secret"},
                           settings=CodexConfig(request_max_retries=2))
    table = tomllib.loads("p = " + backend._provider(None))["p"]
    assert table == {"name": "rgr", "base_url": "http://127.0.0.1:1/v1",
                     "env_key": "CODEX_API_KEY", "wire_api": "responses",
                     "supports_websockets": False, "request_max_retries": 2}
    argv = backend._base_argv(Path("/repo"), Path("/home"))
    assert "sk-secret" not in " ".join(argv)
    assert argv[argv.index("--sandbox") + 1] == "danger-full-access"


def test_only_codex_gets_the_key_and_only_under_its_own_name(tmp_path: Path) -> None:
    backend = CodexBackend(env={"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a",
                                "PATH": "/bin"})
    env = backend._env(tmp_path, None)
    assert env == {"PATH": "/bin", "CODEX_HOME": str(tmp_path), "CODEX_API_KEY": "sk-o"}


def test_backend_config_from_file_env_and_flag(tmp_path: Path) -> None:
    (tmp_path / "tdd.toml").write_text('backend = "codex"\n[codex]\nmodel = "gpt-5.5"\n')
    config = load_config(tmp_path, env={})
    assert config.backend == "codex" and config.codex.model == "gpt-5.5"
    assert load_config(tmp_path, env={"TDD_BACKEND": "claude"}).backend == "claude"
    assert load_config(tmp_path, env={}, flags={"backend": "claude"}).backend == "claude"
    (tmp_path / "tdd.toml").write_text('backend = "agy"\n')  # not a backend (docs/backends.md)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, env={})
    assert ("'backend' must be one of 'claude', 'codex', 'gemini', 'opencode'"
            in caught.value.message)
    (tmp_path / "tdd.toml").write_text("[codex]\nbase_uri = 'x'\n")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, env={})
    assert "unknown key [codex].base_uri" in caught.value.message


def test_an_agent_file_can_name_its_backend(tmp_path: Path) -> None:
    packaged = REPO_ROOT / "agents" / "implementer.toml"
    override = tmp_path / ".rgr" / "agents" / "implementer.toml"
    override.parent.mkdir(parents=True)
    override.write_text(packaged.read_text().replace('model = ""', 'backend = "codex"'))
    assert agent_backends(tmp_path) == ["codex"]
    router = make_backend(load_config(tmp_path, env={}), {}, tmp_path)
    assert (router.default, router.used, router.name) == ("claude", ["claude", "codex"],
                                                          "claude+codex")
    assert router.backend("codex").name == "codex"
    assert router.backend(None).name == "claude"


def test_scripts_translate_to_codex_tool_calls() -> None:
    offered = ("exec_command", "write_stdin", "apply_patch", "StructuredOutput")
    item = translate(write("a/b.py", "x = 1\n"), offered, "c1")
    assert item == {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch",
                    "input": "*** Begin Patch\n*** Add File: a/b.py\n+x = 1\n*** End Patch\n"}
    shell = translate(bash("git commit -qm x"), offered, "c2")
    assert shell["name"] == "exec_command"
    assert json.loads(shell["arguments"])["cmd"] == "git commit -qm x"
    assert json.loads(translate(read("f"), offered, "c3")["arguments"])["cmd"] == "cat f"
    answer = translate(structured({"summary": "s"}), offered, "c4")
    assert answer["type"] == "message" and answer["content"][0]["text"] == '{"summary": "s"}'
    assert translate(Text("hi"), offered, "c5")["content"][0]["text"] == "hi"
    # no apply_patch offered: the file is written by a shell command
    fallback = translate(write("f", "a'b\n"), ("exec_command",), "c6")
    assert "printf %s 'a'\"'\"'b\n' > f" in json.loads(fallback["arguments"])["cmd"]


def test_each_call_and_assistant_message_in_the_history_is_one_answer() -> None:
    history = [{"type": "message", "role": "developer"}, {"type": "message", "role": "user"},
               {"type": "function_call"}, {"type": "function_call_output"},
               {"type": "custom_tool_call"}, {"type": "custom_tool_call_output"},
               {"type": "reasoning"}, {"type": "message", "role": "assistant"}]
    assert count_answers(history) == 3


def test_codex_model_precedence_agent_then_codex_table_then_run_model() -> None:
    from dataclasses import replace

    from rgr.backends.base import AgentRequest

    backend = CodexBackend(settings=CodexConfig(model="gpt-5.5"), run_model="claude-sonnet")
    request = AgentRequest("p", Path("s"), PhaseOutput, (), (), (), 5, "claude-sonnet",
                           Path("."), 1.0, "sid")
    assert backend._model(request) == "gpt-5.5"  # tdd.toml's model is claude's
    assert backend._model(replace(request, model="o4")) == "o4"  # the agent file's own
    assert CodexBackend(run_model="x")._model(request) == "claude-sonnet"
    assert backend._model(replace(request, model=None)) == "gpt-5.5"


def test_login_mode_copies_only_the_login_into_the_session_home(tmp_path: Path) -> None:
    user = tmp_path / "user"
    (user / ".codex").mkdir(parents=True)
    (user / ".codex" / "auth.json").write_text('{"tokens": "t"}')
    (user / ".codex" / "config.toml").write_text('model = "mine"\n')
    seat = tmp_path / "seat"
    seat.mkdir()
    backend = CodexBackend(settings=CodexConfig(login=True))
    backend.prepare_home(seat, {"HOME": str(user)})
    assert sorted(p.name for p in (seat / ".codex").iterdir()) == ["auth.json"]
    assert ((seat / ".codex" / "auth.json").stat().st_mode & 0o777) == 0o600
    with backend._home({"HOME": str(seat)}) as home:
        assert home == seat / ".codex"
    assert backend.api_urls({}) == ["https://chatgpt.com/backend-api/codex",
                                    "https://auth.openai.com"]
    keyed = CodexBackend(env={"OPENAI_BASE_URL": "http://127.0.0.1:5/v1"})
    keyed.prepare_home(seat / "x", {"HOME": str(user)})
    assert not (seat / "x").exists()  # nothing of the user's without login = true
    assert keyed.api_urls({"OPENAI_BASE_URL": "http://127.0.0.1:5/v1"}) == [
        "http://127.0.0.1:5/v1"]


def test_npm_launcher_resolves_to_the_native_executable() -> None:
    from harness import ensure_codex

    from rgr.backends.codex import native_executable

    launcher = ensure_codex()  # node_modules/.bin/codex: npm's node launcher
    native = Path(native_executable(str(launcher), None))
    assert native.name == "codex" and native.parent.name == "bin"
    assert "codex-linux" in str(native) or "codex-darwin" in str(native)
    assert native_executable("/usr/bin/true", None) == "/usr/bin/true"


def test_a_status_marker_is_a_number_of_its_own_not_part_of_a_port() -> None:
    """A 503 from a model server on port 40133 once read as a login failure ("401")."""
    from rgr.backends.base import says_any
    from rgr.backends.codex import LOGIN_MARKERS, TRANSIENT_MARKERS

    text = "unexpected status 503 service unavailable: overloaded, url: http://127.0.0.1:40133/v1"
    assert not says_any(text, LOGIN_MARKERS)
    assert says_any(text, TRANSIENT_MARKERS)
    assert says_any("unexpected status 401 unauthorized", ("401",))
    assert not says_any("took 4015 ms", ("401",))
