"""ClaudeBackend against the real claude binary and the scripted fake model server.

Nothing is mocked: claude runs its real tools in a real git repository, and the only
stand-in is the model behind ANTHROPIC_BASE_URL.
"""

from __future__ import annotations

import re
import subprocess
import time
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
    claude_env,
    ensure_claude,
    init_repo,
    processes_running,
)

from rgr.backends.base import AgentRequest
from rgr.backends.claude import ClaudeBackend
from rgr.base.errors import BackendError
from rgr.fake_model import (
    CutStream,
    FakeModelServer,
    Hang,
    HttpError,
    SessionScript,
    Step,
    Text,
    bash,
    structured,
    write,
)

pytestmark = pytest.mark.e2e

SYSTEM_PROMPT = "You are the TESTER agent of rgr. Write one failing test and commit it."
TOOLS = ("Read", "Edit", "Write", "Bash", "Grep", "Glob")
ALLOWED = ("Read", "Edit", "Write", "Bash(git add:*)", "Bash(git commit:*)")


GOOD = {"summary": "added a failing test", "files": ["test_a.py"], "commit": {"message": "red"}}


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return ensure_claude()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo")


@pytest.fixture
def system_prompt(tmp_path: Path) -> Path:
    path = tmp_path / "tester.md"
    path.write_text(SYSTEM_PROMPT)
    return path


class Harness:
    """One fake server plus what a test needs to build requests against it."""

    def __init__(self, tmp_path: Path, claude: Path, repo: Path, system_prompt: Path) -> None:
        self.tmp_path = tmp_path
        self.backend = ClaudeBackend(str(claude))
        self.repo = repo
        self.system_prompt = system_prompt

    def request(
        self, server_url: str, extra_env: Mapping[str, str] | None = None, **changes: Any
    ) -> AgentRequest:
        base = AgentRequest(
            prompt="Write a failing test for the greeting feature and commit it.",
            system_prompt_file=self.system_prompt,
            output_model=Report,
            tools=TOOLS,
            allowed_tools=ALLOWED,
            disallowed_tools=(),
            max_turns=8,
            model=None,
            cwd=self.repo,
            timeout_s=60,
            session_id=str(uuid.uuid4()),
            env=claude_env(self.tmp_path / "home", server_url, extra_env),
        )
        return replace(base, **changes)

    def fail(
        self, steps: list[Step], extra_env: Mapping[str, str] | None = None, **changes: Any
    ) -> tuple[BackendError, FakeModelServer]:
        with FakeModelServer([SessionScript(steps)]) as server:
            request = self.request(server.url, extra_env, **changes)
            with pytest.raises(BackendError) as caught:
                self.backend.run(request)
        return caught.value, server


@pytest.fixture
def h(tmp_path: Path, claude_bin: Path, repo: Path, system_prompt: Path) -> Iterator[Harness]:
    yield Harness(tmp_path, claude_bin, repo, system_prompt)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


# -- success ---------------------------------------------------------------------------


def test_session_writes_commits_and_returns_validated_output(h: Harness) -> None:
    script = SessionScript(
        [
            write("test_a.py", "def test_greet():\n    assert greet() == 'hi'\n"),
            bash("git add test_a.py && git commit -q -m 'red: greeting'"),
            structured(GOOD),
        ],
        expect_system_contains="TESTER agent",
    )
    with FakeModelServer([script]) as server:
        request = h.request(server.url)
        result = h.backend.run(request)

    assert result.output == Report.model_validate(GOOD)
    assert result.session_id == request.session_id
    assert server.sessions == {request.session_id: 0}
    assert server.errors == []
    assert git(h.repo, "log", "-1", "--format=%s") == "red: greeting\n"
    assert git(h.repo, "show", "--name-only", "--format=", "HEAD") == "test_a.py\n"
    assert git(h.repo, "status", "--porcelain") == ""  # claude left nothing behind

    # claude's own accounting agrees with what the server reported.
    usage = server.usage[request.session_id]
    assert result.input_tokens == usage.input_tokens
    assert result.output_tokens == usage.output_tokens
    assert result.cost_usd is not None and result.cost_usd > 0
    assert result.backend == "claude" and result.model is not None
    assert result.num_turns >= 3
    assert result.permission_denials == ()

    scripted = [r for r in server.requests if r.script_index == 0]
    assert [r.turn for r in scripted] == [0, 1, 2]
    assert all(
        r.tools == ("Bash", "Edit", "Glob", "Grep", "Read", "StructuredOutput", "Write")
        for r in scripted
    )
    # --system-prompt-file + a short --tools list keep each call small (~11 KB, not ~80).
    assert scripted[0].body_bytes < 20_000


def test_model_flag_reaches_the_api(h: Harness) -> None:
    with FakeModelServer([SessionScript([structured(GOOD)])]) as server:
        h.backend.run(h.request(server.url, model="claude-sonnet-4-5"))
    assert {r.model for r in server.requests if r.script_index == 0} == {"claude-sonnet-4-5"}


def test_one_overloaded_answer_is_absorbed_by_claudes_own_retry(h: Harness) -> None:
    # One or two 529s followed by a good answer never reach rgr: claude retries.
    with FakeModelServer(
        [SessionScript([HttpError(529, "overloaded_error", "Overloaded"), structured(GOOD)])]
    ) as server:
        result = h.backend.run(h.request(server.url))
    assert result.output == Report.model_validate(GOOD)
    assert [r.status for r in server.requests if r.script_index == 0] == [529, 200]


def test_stream_events_arrive_as_they_happen_including_api_retries(h: Harness) -> None:
    seen: list[tuple[float, dict[str, Any]]] = []
    script = SessionScript([
        HttpError(529, "overloaded_error", "Overloaded"),
        write("test_a.py", "def test_greet():\n    assert greet() == 'hi'\n"),
        bash("git add test_a.py && git commit -q -m 'red: greeting'"),
        structured(GOOD),
    ])
    with FakeModelServer([script], latency_s=0.3) as server:
        request = h.request(server.url, on_event=lambda e: seen.append((time.monotonic(), e)))
        result = h.backend.run(request)
        finished = time.monotonic()
    kinds = [(e["type"], e.get("subtype")) for _, e in seen]
    assert kinds[0] == ("system", "init")
    assert ("system", "api_retry") in kinds
    retry = next(e for _, e in seen if e.get("subtype") == "api_retry")
    assert (retry["error_status"], retry["attempt"]) == (529, 1)
    tools = [b["name"] for _, e in seen if e["type"] == "assistant"
             for b in e["message"]["content"] if b["type"] == "tool_use"]
    assert tools == ["Write", "Bash", "StructuredOutput"]
    assert [e["type"] for _, e in seen].count("user") == 3  # one tool result each
    assert seen[-1][1] == result.raw and result.raw["type"] == "result"
    # read line by line while claude ran, not after it ended: the first tool call was
    # seen at least two model answers (0.3 s each) before the session finished
    first_tool = next(t for t, e in seen if e["type"] == "assistant")
    assert finished - first_tool > 0.5


def test_bash_outside_allowed_tools_is_denied_and_reported(h: Harness) -> None:
    with FakeModelServer([SessionScript([bash("touch pwned.txt"), structured(GOOD)])]) as server:
        result = h.backend.run(h.request(server.url))
    assert [d["tool_input"] for d in result.permission_denials] == [{"command": "touch pwned.txt"}]
    assert not (h.repo / "pwned.txt").exists()


# -- failures --------------------------------------------------------------------------


def test_persistent_overload_is_a_retryable_api_error(h: Harness) -> None:
    error, server = h.fail([HttpError(529, "overloaded_error", "Overloaded", times=5)])
    assert (error.kind, error.retryable) == ("api_error", True)
    assert "529" in error.message
    assert len([r for r in server.requests if r.status == 529]) == 2  # CLAUDE_CODE_MAX_RETRIES=1


@pytest.mark.parametrize(("status", "error_type"), [(429, "rate_limit_error"), (500, "api_error")])
def test_rate_limit_and_server_errors_are_retryable(
    h: Harness, status: int, error_type: str
) -> None:
    error, _ = h.fail([HttpError(status, error_type, f"boom {status}", times=5)])
    assert (error.kind, error.retryable) == ("api_error", True)
    assert str(status) in error.message


def test_bad_request_is_not_retryable(h: Harness) -> None:
    error, _ = h.fail([HttpError(400, "invalid_request_error", "tools.3: bad schema")])
    assert (error.kind, error.retryable) == ("api_error", False)
    assert "tools.3: bad schema" in error.message


def test_rejected_key_is_not_logged_in(h: Harness) -> None:
    error, _ = h.fail([HttpError(401, "authentication_error", "invalid x-api-key", times=5)])
    assert error.kind == "not_logged_in"
    assert error.hint is not None and "/login" in error.hint


def test_connection_refused_and_cut_stream_are_retryable(h: Harness) -> None:
    with FakeModelServer() as closed:
        url = closed.url  # a port that refuses once the server is gone
    request = h.request(url)
    with pytest.raises(BackendError) as refused:
        h.backend.run(request)
    assert (refused.value.kind, refused.value.retryable) == ("api_error", True)
    # the cause, in the release's own words: "ConnectionRefused" (2.1.197),
    # "Connection refused ... (ECONNREFUSED)" (2.1.330)
    assert re.search(r"connection ?refused", refused.value.message, re.IGNORECASE), \
        refused.value.message

    error, _ = h.fail([CutStream()])
    assert (error.kind, error.retryable) == ("api_error", True)


def test_text_without_structured_output(h: Harness) -> None:
    error, _ = h.fail([Text("I think I am done."), Text("Really done.")])
    assert error.kind == "no_structured_output"
    assert "Really done." in error.message


def test_max_turns(h: Harness) -> None:
    error, _ = h.fail(
        [bash("git status"), bash("git status"), bash("git status"), structured(GOOD)],
        max_turns=2,
        allowed_tools=("Bash(git status:*)",),
    )
    assert error.kind == "max_turns"
    assert "maximum number of turns (2)" in error.message


def test_max_budget(h: Harness) -> None:
    error, _ = h.fail(
        [bash("git status"), bash("git status"), structured(GOOD)],
        max_budget_usd=0.001,
        allowed_tools=("Bash(git status:*)",),
    )
    assert error.kind == "max_budget"


def test_output_that_fails_pydantic_validation(h: Harness) -> None:
    error, _ = h.fail([structured({"summary": "TODO"})], output_model=StrictReport)
    assert error.kind == "invalid_output"
    assert "summary: Value error, summary is a placeholder" in error.message


def test_output_that_never_matches_the_schema(h: Harness) -> None:
    # claude checks StructuredOutput against the schema itself and gives up after 5 tries.
    error, _ = h.fail([structured({"summary": 42})] * 6)
    assert error.kind == "invalid_output"


def test_reused_session_id_is_unparsable_output(h: Harness) -> None:
    session_id = str(uuid.uuid4())
    with FakeModelServer([SessionScript([structured(GOOD)])]) as server:
        h.backend.run(h.request(server.url, session_id=session_id))
        with pytest.raises(BackendError) as caught:
            h.backend.run(h.request(server.url, session_id=session_id))
    assert caught.value.kind == "unparsable_output"
    assert "already in use" in caught.value.message


def test_timeout_kills_the_whole_process_group(h: Harness) -> None:
    marker = f"sleep {uuid.uuid4().int % 10_000 + 10_000}"
    error, _ = h.fail(
        [bash(f"touch started && {marker}"), Hang(60)], allowed_tools=("Bash",),
        timeout_s=STARTED_WITHIN_S,
    )
    assert (error.kind, error.retryable) == ("timeout", True)
    assert (h.repo / "started").exists()  # the sleep was running when the timeout hit
    assert not processes_running(marker)


def test_missing_binary(tmp_path: Path, repo: Path, system_prompt: Path) -> None:
    backend = ClaudeBackend(str(tmp_path / "no-such-claude"))
    with pytest.raises(BackendError) as caught:
        backend.version()
    assert caught.value.kind == "missing_binary"
    assert caught.value.hint is not None and "npm install" in caught.value.hint


# -- version and login -----------------------------------------------------------------


def test_version_and_check_login(h: Harness, tmp_path: Path) -> None:
    # Its own cache: the version is kept under XDG_CACHE_HOME (rgr.backends.version_memo).
    quiet = claude_env(tmp_path / "home", "http://127.0.0.1:9")
    assert ClaudeBackend(h.backend.binary, env=quiet).version().startswith("2.1.")
    with FakeModelServer() as server:
        backend = ClaudeBackend(h.backend.binary, env=claude_env(tmp_path / "home", server.url))
        backend.check_login(h.repo)
        assert [r.step for r in server.requests if r.method == "POST"] == ["side"]
        assert server.remaining == 0 and server.errors == []

    env = claude_env(tmp_path / "home", "http://127.0.0.1:9")
    del env["ANTHROPIC_API_KEY"]
    with pytest.raises(BackendError) as caught:
        ClaudeBackend(h.backend.binary, env=env).check_login(h.repo)
    assert caught.value.kind == "not_logged_in"
