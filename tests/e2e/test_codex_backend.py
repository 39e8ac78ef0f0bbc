"""CodexBackend against the real codex binary and the scripted Responses API server.

Nothing is mocked but the model: codex runs its real shell and apply_patch tools in a
real git repository. One stand-in binary (a script printing garbage) shows what a
malformed stream does, since the real codex cannot be made to print one.
"""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from harness import (
    STARTED_WITHIN_S,
    Report,
    StrictReport,
    codex_env,
    ensure_codex,
    init_repo,
    processes_running,
)

from rgr.backends.base import AgentRequest
from rgr.backends.codex import CodexBackend
from rgr.base.config import CodexConfig
from rgr.base.errors import BackendError
from rgr.fake_model import CutStream, Hang, HttpError, SessionScript, Step, Text, bash, structured
from rgr.fake_model import write as write_file
from rgr.fake_model.responses import FAKE_MODEL, ResponsesModelServer

pytestmark = pytest.mark.e2e

SYSTEM_PROMPT = "You are the TESTER agent of rgr. Write one failing test and commit it."

#: Fast retries: codex's own retry budget, so each error test takes about a second. The
#: model: one whose tools are plain function calls (codex's default model gets its tools
#: through a JavaScript "code mode" the scripted server does not speak).
FAST = CodexConfig(request_max_retries=1, stream_max_retries=1, stream_idle_timeout_ms=5000,
                   model=FAKE_MODEL)


GOOD = {"summary": "added a failing test", "files": ["test_a.py"],
        "commit": {"message": "red"}, "note": None}


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return ensure_codex()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo")


class Harness:
    def __init__(self, tmp_path: Path, codex: Path, repo: Path) -> None:
        self.tmp_path = tmp_path
        self.codex = codex
        self.repo = repo
        self.system_prompt = tmp_path / "tester.md"
        self.system_prompt.write_text(SYSTEM_PROMPT)

    def env(self, url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        return codex_env(self.tmp_path / "home", url, extra)

    def backend(self, url: str, settings: CodexConfig = FAST,
                extra: Mapping[str, str] | None = None) -> CodexBackend:
        return CodexBackend(str(self.codex), env=self.env(url, extra), settings=settings)

    def request(self, url: str, **changes: Any) -> AgentRequest:
        base = AgentRequest(
            prompt="Write a failing test for the greeting feature and commit it.",
            system_prompt_file=self.system_prompt, output_model=Report, tools=(),
            allowed_tools=(), disallowed_tools=(), max_turns=8, model=None, cwd=self.repo,
            timeout_s=60, session_id=str(uuid.uuid4()), env=self.env(url))
        return replace(base, **changes)

    def fail(self, steps: list[Step], settings: CodexConfig = FAST,
             **changes: Any) -> tuple[BackendError, ResponsesModelServer]:
        with ResponsesModelServer([SessionScript(steps)]) as server, \
                pytest.raises(BackendError) as caught:
            self.backend(server.url, settings).run(self.request(server.url, **changes))
        return caught.value, server


@pytest.fixture
def h(tmp_path: Path, codex_bin: Path, repo: Path) -> Iterator[Harness]:
    yield Harness(tmp_path, codex_bin, repo)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


# -- success ---------------------------------------------------------------------------


def test_session_patches_commits_and_returns_validated_output(h: Harness) -> None:
    events: list[dict[str, Any]] = []
    script = SessionScript([
        write_file("test_a.py", "def test_greet():\n    assert greet() == 'hi'\n"),
        bash("git add test_a.py && git commit -q -m 'test: greet'"),
        structured(GOOD),
    ], expect_system_contains="You are the TESTER")
    with ResponsesModelServer([script]) as server:
        request = h.request(server.url, on_event=events.append, model=FAKE_MODEL)
        settings = FAST.model_copy(update={"model": "gpt-5.1-codex"})
        result = h.backend(server.url, settings).run(request)
        assert server.errors == [] and server.remaining == 0
        posts = [r for r in server.requests if r.method == "POST"]
    assert isinstance(result.output, Report) and result.output.commit.message == "red"
    # codex reports tokens, not cost: None, never a made-up $0
    assert (result.backend, result.model, result.cost_usd) == ("codex", FAKE_MODEL, None)
    assert result.session_id == request.session_id and result.num_turns == 2
    assert result.input_tokens > 0 and result.output_tokens > 0
    # its own record keeps codex's terms, not a claude-shaped copy
    assert "total_cost_usd" not in result.raw and result.raw["usage"]["input_tokens"] > 0
    assert git(h.repo, "log", "-1", "--format=%s").strip() == "test: greet"
    assert (h.repo / "test_a.py").read_text().endswith("== 'hi'\n")
    # the real tools ran: apply_patch for the file, the shell for the commit
    assert [r.step for r in posts] == ["tool_call"] * 3
    assert all(r.model == FAKE_MODEL for r in posts)  # the request's model wins
    # the stream arrives mapped to the shape the views read, the codex line kept
    kinds = [(e["type"], e.get("subtype")) for e in events]
    assert kinds[0] == ("system", "init") and kinds[-2:] == [("system", "turn_completed"),
                                                             ("result", "success")]
    tools = [b["name"] for e in events if e["type"] == "assistant"
             for b in e["message"]["content"] if b["type"] == "tool_use"]
    assert tools == ["apply_patch", "Bash"]
    assert all(e["backend"] == "codex" for e in events)
    assert all("codex" in e for e in events[:-1])  # the line codex printed, kept


def test_first_request_carries_our_prompt_only(h: Harness, tmp_path: Path) -> None:
    """No AGENTS.md, skills, plugins or web search in the context; the user's own
    ~/.codex (config and login) is never read; the key stays away from the tools."""
    (h.repo / "AGENTS.md").write_text("REPO-AGENTS-MD-MUST-NOT-REACH-THE-MODEL\n")
    user_codex = tmp_path / "home" / ".codex"
    user_codex.mkdir(parents=True)
    (user_codex / "config.toml").write_text('model = "user-model-must-not-be-used"\n')
    script = SessionScript([bash("env > env.txt"), structured(GOOD)])
    with ResponsesModelServer([script]) as server:
        h.backend(server.url).run(h.request(server.url))
        first = next(r for r in server.requests if r.method == "POST")
    assert first.system.startswith(SYSTEM_PROMPT)
    assert "REPO-AGENTS-MD" not in first.system and "skills" not in first.system.lower()
    assert set(first.tools) == {"exec_command", "write_stdin", "apply_patch",
                                "StructuredOutput"}
    assert first.model != "user-model-must-not-be-used"
    assert first.body_bytes < 8 * 1024, first.body_bytes
    seen = (h.repo / "env.txt").read_text()
    assert "sk-proj-fake-key" not in seen and "CODEX_API_KEY" not in seen
    assert "RGR_AGENT_SESSION=" in seen  # the mark that lets rgr kill leftovers


def test_a_websocket_upgrade_is_refused_and_codex_falls_back_to_http(h: Harness) -> None:
    settings = FAST.model_copy(update={"config": [
        "model_providers.rgr.supports_websockets=true"]})
    with ResponsesModelServer([SessionScript([structured(GOOD)])]) as server:
        result = h.backend(server.url, settings).run(h.request(server.url))
        steps = [(r.method, r.step, r.status) for r in server.requests]
    assert result.output.model_dump()["summary"] == GOOD["summary"]
    assert ("GET", "websocket", 426) in steps
    assert ("POST", "tool_call", 200) in steps


def test_one_overload_is_absorbed_by_codex_request_retry(h: Harness) -> None:
    steps = [HttpError(503, "server_error", "overloaded"), structured(GOOD)]
    with ResponsesModelServer([SessionScript(steps)]) as server:
        result = h.backend(server.url).run(h.request(server.url))
        answered = [(r.step, r.status) for r in server.requests]
    assert isinstance(result.output, Report)
    assert answered == [("http_error", 503), ("tool_call", 200)]


def test_a_dropped_stream_is_retried_by_codex_and_reported_as_an_api_retry(
        h: Harness) -> None:
    events: list[dict[str, Any]] = []
    with ResponsesModelServer([SessionScript([CutStream(), structured(GOOD)])]) as server:
        result = h.backend(server.url).run(h.request(server.url, on_event=events.append))
    assert isinstance(result.output, Report)
    retries = [e for e in events if e.get("subtype") == "api_retry"]
    assert [(r["attempt"], r["max_retries"]) for r in retries] == [(1, 1)]
    assert "stream disconnected" in retries[0]["error"]
    assert result.raw["api_retries"] == 1


# -- errors ----------------------------------------------------------------------------


def test_rejected_key_is_not_logged_in(h: Harness) -> None:
    error, _ = h.fail([HttpError(401, "invalid_api_key", "Incorrect API key provided")])
    assert (error.kind, error.retryable) == ("not_logged_in", False)


@pytest.mark.parametrize("step", [
    HttpError(429, "rate_limit_exceeded", "Rate limit reached"),
    HttpError(500, "server_error", "boom"),
    HttpError(503, "server_error", "overloaded"),
    CutStream(),
], ids=["429", "500", "503", "cut-stream"])
def test_rate_limits_overload_and_dropped_streams_are_retryable(
        h: Harness, step: Step) -> None:
    error, _ = h.fail([step])
    assert (error.kind, error.retryable) == ("api_error", True), error.message


def test_bad_request_is_not_retryable(h: Harness) -> None:
    error, _ = h.fail([HttpError(400, "invalid_request_error", "bad schema")])
    assert (error.kind, error.retryable) == ("api_error", False)
    assert "bad schema" in error.message


def test_text_without_json_is_no_structured_output(h: Harness) -> None:
    error, _ = h.fail([Text("I think I am done.")])
    assert error.kind == "no_structured_output" and "I think I am done" in error.message


def test_output_that_fails_pydantic_validation(h: Harness) -> None:
    error, _ = h.fail([structured({"summary": "TODO"})], output_model=StrictReport)
    assert error.kind == "invalid_output" and "placeholder" in error.message


def test_max_turns_stops_the_session(h: Harness) -> None:
    steps: list[Step] = [bash(f"echo {i}") for i in range(5)]
    error, _ = h.fail([*steps, structured(GOOD)], max_turns=2)
    assert error.kind == "max_turns"


def test_timeout_kills_codex_and_its_commands(h: Harness) -> None:
    marker = f"sleep {uuid.uuid4().int % 10_000 + 20_000}"
    error, _ = h.fail([bash(f"touch started && {marker}"), Hang(60)], timeout_s=STARTED_WITHIN_S)
    assert (error.kind, error.retryable) == ("timeout", True)
    assert (h.repo / "started").exists()
    assert not processes_running(marker)


def test_a_hung_model_is_a_timeout(h: Harness) -> None:
    settings = FAST.model_copy(update={"stream_idle_timeout_ms": 60_000})
    error, _ = h.fail([Hang(30)], settings, timeout_s=3)
    assert (error.kind, error.retryable) == ("timeout", True)


def test_missing_key_is_not_logged_in_before_codex_starts(h: Harness) -> None:
    env = h.env("http://127.0.0.1:9")
    del env["CODEX_API_KEY"]
    backend = CodexBackend(str(h.codex), env=env, settings=FAST)
    with pytest.raises(BackendError) as caught:
        backend.check_login(h.repo)
    assert caught.value.kind == "not_logged_in" and "CODEX_API_KEY" in caught.value.message


def test_missing_binary_and_unsupported_version(h: Harness, tmp_path: Path) -> None:
    with pytest.raises(BackendError) as caught:
        CodexBackend(str(tmp_path / "no-such-codex"), env=h.env("http://x")).version()
    assert caught.value.kind == "missing_binary" and "npm install" in str(caught.value.hint)
    old = tmp_path / "old-codex"
    old.write_text("#!/bin/sh\necho 'codex-cli 0.1.0'\n")
    old.chmod(0o755)
    with pytest.raises(BackendError) as caught:
        CodexBackend(str(old), env=h.env("http://x")).version()
    assert caught.value.kind == "unsupported_version" and "0.169.0" in caught.value.message


def test_malformed_stream_is_unparsable_output(h: Harness, tmp_path: Path) -> None:
    # The real codex writes its JSONL itself; a stand-in shows what garbage does.
    fake = tmp_path / "garbage-codex"
    fake.write_text("#!/bin/sh\ncat >/dev/null\necho 'panicked at src/main.rs'\nexit 101\n")
    fake.chmod(0o755)
    backend = CodexBackend(str(fake), env=h.env("http://127.0.0.1:9"), settings=FAST)
    events: list[dict[str, Any]] = []
    with pytest.raises(BackendError) as caught:
        backend.run(h.request("http://127.0.0.1:9", on_event=events.append))
    assert caught.value.kind == "unparsable_output" and "panicked" in caught.value.message
    assert events and events[0]["type"] == "rgr_unparsed"


def test_version_and_check_login(h: Harness) -> None:
    with ResponsesModelServer() as server:
        backend = h.backend(server.url)
        assert backend.version().startswith("codex-cli 0.")
        backend.check_login(h.repo)
        assert [r.step for r in server.requests if r.method == "POST"] == ["side"]
        assert server.errors == []
