"""The opencode backend's parts that need no opencode: the session's config (the key in
that file only, the gateway's address in a sealed session, each phase's tools), the
environment opencode gets (no key, token or password variable at all), the events of
``--format json`` read into figures and an answer, and the native executable found
behind npm's command. The real opencode runs in tests/e2e/test_opencode_backend.py."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import pydantic
import pytest

from rgr.backends.base import SEALED_KEY, AgentRequest, AgentRunError
from rgr.backends.opencode import (
    SEALED_URL_VAR,
    OpencodeBackend,
    StreamState,
    native_executable,
    opencode_tools,
    stream_events,
    to_result,
)
from rgr.base.proc import Completed
from rgr.base.processes import REPO_MARK_VAR, SESSION_MARK_VAR

KEY = "sk-real-key-of-the-user"


class Answer(pydantic.BaseModel):
    summary: str


def _elf(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF" + b"\0" * 60)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _backend(tmp_path: Path, env: Mapping[str, str]) -> OpencodeBackend:
    return OpencodeBackend(str(_elf(tmp_path / "bin" / "opencode")), env=env)


def _request(tmp_path: Path, tools: tuple[str, ...]) -> AgentRequest:
    system = tmp_path / "system.md"
    system.write_text("You are the IMPLEMENTER.\n")
    return AgentRequest(prompt="Make it pass.", system_prompt_file=system, output_model=Answer,
                        tools=tools, allowed_tools=(), disallowed_tools=(), max_turns=7,
                        model="m1", cwd=tmp_path, timeout_s=60.0, session_id="sess-1")


@pytest.mark.parametrize(("tools", "offered"), [
    (("Read", "Write", "Edit", "Bash", "Grep", "Glob"), ["bash", "edit", "read", "write"]),
    (("Read", "Bash", "Grep", "Glob"), ["bash", "read"]),  # PLAN: nothing that writes
    (("Write",), ["edit", "write"]),  # the examiner: opencode's write needs edit on
    (("Read", "Grep"), ["grep", "read"]),  # no shell: its own search stays
])
def test_each_phase_gets_only_its_tools(tools: tuple[str, ...], offered: list[str]) -> None:
    assert opencode_tools(tools) == offered


def test_the_key_is_in_the_sessions_config_and_the_gateway_is_its_api(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": KEY,
           "OPENAI_BASE_URL": "https://llm.example/v1"}
    backend = _backend(tmp_path, env)
    config = backend.config(_request(tmp_path, ("Read", "Bash")), env, KEY)
    provider = config["provider"]["rgr"]
    assert provider["options"]["baseURL"] == "https://llm.example/v1"
    assert provider["options"]["apiKey"] == KEY
    assert provider["options"]["headers"] == {"x-rgr-session-id": "sess-1"}
    assert config["model"] == "rgr/m1" and list(provider["models"]) == ["m1"]
    agent = config["agent"]["rgr"]
    assert agent["prompt"] == "You are the IMPLEMENTER.\n" and agent["steps"] == 7
    assert agent["tools"] == {"*": False, "bash": True, "read": True}
    # sealed: the gateway gets the key, the session's config only the placeholder
    opened: list[tuple[str, Mapping[str, str]]] = []
    sealed = dict(env)
    assert backend.seal_api(sealed, lambda url, creds: opened.append((url, creds))
                            or "http://127.0.0.1:7001/v1") == []
    assert opened == [("https://llm.example/v1", {"authorization": f"Bearer {KEY}"})]
    assert sealed["OPENAI_API_KEY"] == SEALED_KEY
    config = backend.config(_request(tmp_path, ()), sealed, sealed["OPENAI_API_KEY"])
    assert config["provider"]["rgr"]["options"]["baseURL"] == "http://127.0.0.1:7001/v1"
    assert KEY not in json.dumps(config)


def test_opencode_gets_no_key_variable_not_even_the_placeholder(tmp_path: Path) -> None:
    source = {"PATH": "/usr/bin:/bin", "HOME": "/home/u", "OPENAI_API_KEY": SEALED_KEY,
              SEALED_URL_VAR: "http://127.0.0.1:7001/v1", "GITHUB_TOKEN": "t",
              "DB_PASSWORD": "p", "OPENCODE_CONFIG_CONTENT": "{}", SESSION_MARK_VAR: "s",
              REPO_MARK_VAR: "/r"}
    env = _backend(tmp_path, source)._env(tmp_path / "home", source)
    assert not [name for name in env if "KEY" in name or "TOKEN" in name
                or "PASSWORD" in name], env
    assert SEALED_KEY not in env.values() and SEALED_URL_VAR not in env
    assert "OPENCODE_CONFIG_CONTENT" not in env
    assert env[SESSION_MARK_VAR] == "s" and env[REPO_MARK_VAR] == "/r"
    assert env["XDG_CONFIG_HOME"].startswith(str(tmp_path / "home"))
    assert env["OPENCODE_DISABLE_PROJECT_CONFIG"] == "1"


def test_a_run_without_a_key_is_not_logged_in(tmp_path: Path) -> None:
    backend = _backend(tmp_path, {"PATH": "/usr/bin:/bin"})
    with pytest.raises(Exception) as caught:
        backend.run(_request(tmp_path, ()))
    assert getattr(caught.value, "kind", None) == "not_logged_in"


#: ``opencode run --format json`` as opencode-ai 1.18.33 printed it (trimmed): a tool
#: call, then the answer.
EVENTS = [
    {"type": "step_start", "sessionID": "ses_1", "part": {"type": "step-start"}},
    {"type": "tool_use", "sessionID": "ses_1",
     "part": {"type": "tool", "tool": "write", "state": {"status": "completed"}}},
    {"type": "step_finish", "sessionID": "ses_1", "part": {
        "type": "step-finish", "reason": "tool-calls", "cost": 0,
        "tokens": {"input": 2648, "output": 53, "reasoning": 0,
                   "cache": {"write": 0, "read": 100}}}},
    {"type": "step_start", "sessionID": "ses_1", "part": {"type": "step-start"}},
    {"type": "text", "sessionID": "ses_1", "part": {"type": "text", "text": '{"summary": "ok"}'}},
    {"type": "step_finish", "sessionID": "ses_1", "part": {
        "type": "step-finish", "reason": "stop", "cost": 0,
        "tokens": {"input": 2715, "output": 58, "reasoning": 4, "cache": {"read": 0}}}},
]


def _played(events: list[dict[str, object]]) -> StreamState:
    state = StreamState()
    for event in events:
        state.take(event)
    return state


def test_the_events_give_the_answer_and_the_figures(tmp_path: Path) -> None:
    state = _played(EVENTS)
    done = Completed(argv=["opencode"], returncode=0, stdout="", stderr="", duration_s=1.0)
    result = to_result(state, done, _request(tmp_path, ()), {}, state.figures("m1", 900))
    assert result.output == Answer(summary="ok") and result.backend == "opencode"
    assert (result.input_tokens, result.output_tokens) == (2648 + 2715, 53 + 58 + 4)
    assert result.cache_read_input_tokens == 100 and result.num_turns == 2
    assert result.cost_usd is None  # a provider of rgr's has no price: not reported


def test_an_error_event_is_classified(tmp_path: Path) -> None:
    state = _played([EVENTS[0], {"type": "error", "error": {
        "name": "APIError", "data": {"message": "Rate limit reached (429)"}}}])
    done = Completed(argv=["opencode"], returncode=1, stdout="", stderr="", duration_s=1.0)
    with pytest.raises(AgentRunError) as caught:
        to_result(state, done, _request(tmp_path, ()), {}, state.figures("m1", 900))
    assert caught.value.kind == "api_error" and caught.value.retryable


def test_the_native_executable_behind_npms_command(tmp_path: Path) -> None:
    modules = tmp_path / "node_modules"
    native = _elf(modules / "opencode-linux-x64" / "bin" / "opencode")
    launcher = modules / "opencode-ai" / "bin" / "opencode.exe"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/usr/bin/env node\n")  # install scripts did not run
    link = modules / ".bin" / "opencode"
    link.parent.mkdir()
    link.symlink_to("../opencode-ai/bin/opencode.exe")
    if os.uname().machine == "x86_64" and os.uname().sysname == "Linux":
        assert native_executable(str(link)) == str(native)
    _elf(launcher)  # its install script copied the executable in: that one is started
    assert native_executable(str(link)) == str(launcher)


def test_a_tool_call_reaches_the_run_folder_as_claudes_stream_shows_one() -> None:
    call = {"type": "tool_use", "part": {"tool": "bash", "callID": "c1", "state": {
        "status": "completed", "input": {"command": "pytest"}, "output": "1 passed"}}}
    used, result = stream_events(call)
    assert used["message"]["content"] == [
        {"type": "tool_use", "id": "c1", "name": "bash", "input": {"command": "pytest"}}]
    assert result["message"]["content"][0]["content"] == "1 passed"
    assert stream_events(EVENTS[4])[0]["message"]["content"][0]["text"] == '{"summary": "ok"}'
    assert stream_events(EVENTS[0]) == [EVENTS[0]]
