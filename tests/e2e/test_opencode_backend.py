"""The opencode backend end to end: the real ``opencode`` (npm opencode-ai, the pinned
release in tests/e2e/opencode) scripted by rgr.fake_model.chat: a full kata under
rgr's sandbox in which code the agent runs hunts for the API key (the key stays out of
the sandbox, the examiner's tests out of the agent's reach), one session alone (its
tools, its answer, its environment without a key variable), and each failure of the
CLI classified (missing binary, login, rate limit, timeout)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pydantic
import pytest
from harness import ensure_opencode, opencode_env, sweep_only
from hostile import (
    agent_key_hunted,
    code_attacks_contained,
    infra_tampering_rejected,
    put_by_patch,
)
from kata import OPENCODE_CANARY_KEY

from rgr.backends.base import SEALED_KEY, AgentRequest, AgentResult, AgentRunError
from rgr.backends.opencode import OpencodeBackend
from rgr.base.backend_names import OPENCODE
from rgr.base.errors import BackendError
from rgr.base.processes import SESSION_MARK_VAR
from rgr.fake_model import Hang, HttpError, SessionScript, Step, bash, structured, write
from rgr.fake_model.chat import ChatModelServer

pytestmark = pytest.mark.e2e

WHERE = "tests/e2e/test_opencode_backend.py"

#: The key rgr's environment holds in these tests: it must reach no request, no file
#: the agent can read and nothing rgr writes.
KEY = OPENCODE_CANARY_KEY


# Every test that starts the real opencode is in the full sweep: opencode costs 5.5-8 s
# of CPU per session (40-60 s of wall time on this shared 2-core machine), and its
# first use installs its 177 MB platform package (20-40 s with npm's cache warm, about
# 48 s cold), more than the ~30 s the default run may gain. The default run covers the
# mechanisms without it: the session's config, environment and events
# (tests/backends/test_opencode.py), the scripted server (tests/fake_model/test_chat.py), the
# missing binary below.
@sweep_only(WHERE, "a whole kata on opencode, the key hunted in RED")
def test_the_opencode_key_is_not_in_the_sandbox(tmp_path: Path) -> None:
    """The one-test kata through `rgr run --backend opencode`, examiner on: code the
    agent runs in RED hunts for the key in every process's environment and every file
    of the session's TMPDIR (where the session's opencode.json is). It finds the
    placeholder in that file, never the key (rgr's gateway adds it outside the
    sandbox); the run completes and nothing rgr wrote holds a canary."""
    said = agent_key_hunted(tmp_path, OPENCODE, KEY)
    assert SEALED_KEY in said, "the attack did not find the config's placeholder"
    assert "OPENAI_API_KEY=" not in said, "a key variable reached the agent's commands"


@sweep_only(WHERE, "the claude suite's cheating GREENs again on opencode")
def test_test_infrastructure_tampering_is_rejected_on_opencode(tmp_path: Path) -> None:
    """The four cheating GREENs of the claude suite, their files written by opencode's
    own write tool: rejected by the same rules, then the run completes honestly."""
    rules = infra_tampering_rejected(tmp_path, put_by_patch, OPENCODE)
    assert "green-touches-tests" in rules


@sweep_only(WHERE, "the claude suite's 17 code attacks again on opencode")
def test_code_the_agent_runs_cannot_reach_the_user_on_opencode(tmp_path: Path) -> None:
    """The 17 code attacks of the claude suite (the examiner's tests and the user's
    files among their targets), run through opencode's bash and the test command:
    nothing escapes the sandbox, and the dumped environment holds no key."""
    code_attacks_contained(tmp_path, OPENCODE)


# -- the backend alone: its answers and its failures, classified --------------------------


class Answer(pydantic.BaseModel):
    summary: str = pydantic.Field(min_length=1)


def _request(tmp_path: Path, timeout_s: float = 120.0,
             tools: tuple[str, ...] = ("Read", "Write", "Edit", "Bash")) -> AgentRequest:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    system = tmp_path / "system.md"
    system.write_text("You are rgr's test agent.\n")
    return AgentRequest(prompt="Write a.py.", system_prompt_file=system, output_model=Answer,
                        tools=tools, allowed_tools=(), disallowed_tools=(), max_turns=10,
                        model=None, cwd=repo, timeout_s=timeout_s,
                        session_id=str(uuid.uuid4()))


def _env(tmp_path: Path, url: str, **extra: str) -> dict[str, str]:
    return opencode_env(tmp_path / "home", url,
                        {"TMPDIR": str(tmp_path), "OPENAI_API_KEY": KEY, **extra})


def _run(tmp_path: Path, steps: list[Step],
         timeout_s: float = 120.0) -> tuple[AgentResult | BackendError, ChatModelServer]:
    with ChatModelServer([SessionScript(steps)]) as server:
        backend = OpencodeBackend(str(ensure_opencode()), env=_env(tmp_path, server.url))
        try:
            return backend.run(_request(tmp_path, timeout_s)), server
        except BackendError as exc:
            return exc, server


@sweep_only(WHERE, "the real opencode")
def test_a_session_edits_files_and_answers_validated_json(tmp_path: Path) -> None:
    """One session writes a file, runs `env` through its shell and answers. opencode is
    offered only the phase's tools; the key is sent to the API and held nowhere else:
    the commands get no key variable (not even a placeholder), nor any other secret."""
    script = SessionScript([write("a.py", "x = 1\n"), bash("env"),
                            structured({"summary": "ok"})])
    with ChatModelServer([script], keep_bodies=True) as server:
        env = _env(tmp_path, server.url, RGR_TEST_SECRET_TOKEN="s3cr3t")
        backend = OpencodeBackend(str(ensure_opencode()), env=env)
        result = backend.run(_request(tmp_path))
        bodies = [json.loads(body) for body in server.bodies]
        requests = server.requests
        assert server.errors == []
    assert result.output == Answer(summary="ok") and result.backend == OPENCODE
    assert (tmp_path / "repo" / "a.py").read_text() == "x = 1\n"
    assert result.num_turns == 3 and result.input_tokens > 0 and result.cost_usd is None
    sessions = [r for r in requests if r.script_index is not None]
    assert {r.session_id for r in requests} == {sessions[0].session_id}
    # a GPT model (the default, gpt-5.5) gets opencode's apply_patch for write and edit
    assert sessions[0].tools == ("apply_patch", "bash", "read", "StructuredOutput")
    # the shell's `env`, as opencode sent it back to the model
    shown = json.dumps([m for body in bodies for m in body["messages"] if m["role"] == "tool"])
    assert "PATH=" in shown and SESSION_MARK_VAR in shown, shown
    for secret in ("OPENAI_API_KEY", KEY, SEALED_KEY, "RGR_TEST_SECRET_TOKEN", "s3cr3t"):
        assert secret not in shown, secret
    assert not list(tmp_path.glob("rgr-opencode-*")), "the session's folder was left"


@sweep_only(WHERE, "the real opencode")
def test_an_answer_the_model_refuses_is_invalid_output(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, [structured({"summary": ""})])
    assert isinstance(result, AgentRunError) and result.kind == "invalid_output", result


@sweep_only(WHERE, "the real opencode")
def test_a_rejected_key_is_not_logged_in(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, [HttpError(401, "invalid_api_key", "Incorrect API key")])
    assert isinstance(result, AgentRunError) and result.kind == "not_logged_in", result


@sweep_only(WHERE, "the real opencode")
def test_a_rate_limit_is_a_retryable_api_error(tmp_path: Path) -> None:
    """opencode retries a 429 itself, backing off (about 2 minutes here) before it
    gives up with an error event."""
    result, _ = _run(tmp_path, [HttpError(429, "rate_limit", "Rate limit reached", times=50)])
    assert isinstance(result, AgentRunError), result
    assert result.kind == "api_error" and result.retryable, result


@sweep_only(WHERE, "the real opencode")
def test_a_model_that_never_answers_times_out(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, [Hang(60)], timeout_s=8)
    assert isinstance(result, BackendError) and result.kind == "timeout", result


def test_a_missing_binary_says_how_to_install(tmp_path: Path) -> None:
    backend = OpencodeBackend(str(tmp_path / "no-such-opencode"), env={"PATH": "/usr/bin:/bin"})
    with pytest.raises(BackendError) as caught:
        backend.version()
    assert caught.value.kind == "missing_binary"
    assert "opencode-ai@1.18.33" in (caught.value.hint or "")


@sweep_only(WHERE, "the real opencode")
def test_the_repository_under_work_cannot_change_rgrs_agent(tmp_path: Path) -> None:
    """An opencode.json in the repository (which an agent could commit) naming its own
    prompt for rgr's agent and its own instructions, and an AGENTS.md: none of them
    reaches the model; rgr's system prompt does."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "opencode.json").write_text(json.dumps(
        {"agent": {"rgr": {"prompt": "EVIL-PROJECT-PROMPT"}}, "instructions": ["EVIL.md"]}))
    (repo / "EVIL.md").write_text("EVIL-INSTRUCTIONS\n")
    (repo / "AGENTS.md").write_text("EVIL-AGENTS-MD\n")
    with ChatModelServer([SessionScript([structured({"summary": "ok"})])],
                         keep_bodies=True) as server:
        backend = OpencodeBackend(str(ensure_opencode()), env=_env(tmp_path, server.url))
        backend.run(_request(tmp_path, tools=("Read", "Bash")))
        sent = b"\n".join(server.bodies).decode()
    assert "You are rgr's test agent." in sent
    for planted in ("EVIL-PROJECT-PROMPT", "EVIL-INSTRUCTIONS", "EVIL-AGENTS-MD"):
        assert planted not in sent, planted
