"""The Gemini CLI backend end to end: the real ``gemini`` (npm @google/gemini-cli, the
pinned release) scripted by rgr.fake_model.gemini, under rgr's sandbox, judged by the
same checks as claude and codex (hostile.py): a cheating GREEN is rejected by rule,
code the agent runs cannot reach the user, the key stays out of the sandbox, and each
failure of the CLI is classified (missing binary, login, rate limit, timeout)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pydantic
import pytest
from harness import ensure_gemini, gemini_env, sweep_only
from hostile import (
    agent_key_hunted,
    code_attacks_contained,
    infra_tampering_rejected,
    put_by_patch,
)
from kata import CANARY_ENV

from rgr.backends.base import SEALED_KEY, AgentRequest, AgentResult, AgentRunError
from rgr.backends.gemini import GeminiBackend
from rgr.base.backend_names import GEMINI
from rgr.base.errors import BackendError
from rgr.base.processes import SESSION_MARK_VAR
from rgr.fake_model import Hang, HttpError, SessionScript, Step, bash, structured, write
from rgr.fake_model.gemini import GeminiModelServer

pytestmark = pytest.mark.e2e

WHERE = "tests/e2e/test_gemini_backend.py"


# The default run keeps the key hunt below, which runs an attack through gemini's own
# shell tool inside the jail; the rules these two check are the same for every backend
# and run by default on claude (files put by code) and codex (files put by patch, as
# gemini's are).
@sweep_only(WHERE, "the claude suite's cheating GREENs again on gemini")
def test_test_infrastructure_tampering_is_rejected_on_gemini(tmp_path: Path) -> None:
    """The four cheating GREENs of the claude suite (a conftest forcing passes, an edited
    test, a .pth, a test emptied of its assertion...), their files written by gemini's
    own write_file: rejected by the same rules, then the run completes honestly."""
    rules = infra_tampering_rejected(tmp_path, put_by_patch, GEMINI)
    assert "green-touches-tests" in rules


@sweep_only(WHERE, "the claude suite's 17 code attacks again on gemini")
def test_code_the_agent_runs_cannot_reach_the_user_on_gemini(tmp_path: Path) -> None:
    """The 17 code attacks of the claude suite, run through gemini's run_shell_command
    and the test command: nothing escapes the sandbox, and the dumped environment holds
    no key (hostile_run's checks)."""
    code_attacks_contained(tmp_path, GEMINI)


def test_the_gemini_key_is_not_in_the_sandbox(tmp_path: Path) -> None:
    """Code the agent runs hunts for GEMINI_API_KEY in every process's environment and
    the session's TMPDIR: the CLI holds only the placeholder (rgr's gateway adds the key
    as x-goog-api-key outside the sandbox), and nothing rgr writes holds the key."""
    said = agent_key_hunted(tmp_path, GEMINI, CANARY_ENV["GEMINI_API_KEY"])
    assert SEALED_KEY in said, "the attack did not find the CLI's placeholder"


# -- the backend alone: its answers and its failures, classified --------------------------


class Answer(pydantic.BaseModel):
    summary: str = pydantic.Field(min_length=1)


def _request(tmp_path: Path, timeout_s: float = 120.0) -> AgentRequest:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    system = tmp_path / "system.md"
    system.write_text("You are rgr's test agent.\n")
    return AgentRequest(prompt="Write a.py.", system_prompt_file=system, output_model=Answer,
                        tools=("Read", "Write", "Edit", "Bash"), allowed_tools=(),
                        disallowed_tools=(), max_turns=10, model=None, cwd=repo,
                        timeout_s=timeout_s, session_id=str(uuid.uuid4()))


def _run(tmp_path: Path, steps: list[Step],
         timeout_s: float = 120.0) -> tuple[AgentResult | BackendError, GeminiModelServer]:
    with GeminiModelServer([SessionScript(steps)]) as server:
        env = gemini_env(tmp_path / "home", server.url, {"TMPDIR": str(tmp_path)})
        backend = GeminiBackend(str(ensure_gemini()), env=env, max_attempts=2)
        try:
            return backend.run(_request(tmp_path, timeout_s)), server
        except BackendError as exc:
            return exc, server


def test_a_session_edits_files_and_answers_validated_json(tmp_path: Path) -> None:
    """One session writes a file, runs `env` through its shell and answers. The commands
    it runs get the CLI's environment without any *KEY*, *TOKEN* or *SECRET* variable
    (the session's settings turn on the CLI's own redaction): not the key, not even its
    name; rgr's process marks stay."""
    script = SessionScript([write("a.py", "x = 1\n"), bash("env"),
                            structured({"summary": "ok"})])
    with GeminiModelServer([script], keep_bodies=True) as server:
        env = gemini_env(tmp_path / "home", server.url,
                         {"TMPDIR": str(tmp_path), "RGR_TEST_SECRET_TOKEN": "s3cr3t"})
        backend = GeminiBackend(str(ensure_gemini()), env=env, max_attempts=2)
        result = backend.run(_request(tmp_path))
        bodies = [json.loads(body) for body in server.bodies]
        assert server.errors == []
    assert result.output == Answer(summary="ok") and result.backend == GEMINI
    assert (tmp_path / "repo" / "a.py").read_text() == "x = 1\n"
    assert result.num_turns == 3 and result.input_tokens > 0 and result.cost_usd is None
    # the shell's `env`, as the CLI sent it back to the model
    shown = json.dumps([part["functionResponse"] for body in bodies
                        for content in body["contents"] for part in content["parts"]
                        if "functionResponse" in part])
    assert "PATH=" in shown, shown
    assert "GEMINI_API_KEY" not in shown and "RGR_TEST_SECRET_TOKEN" not in shown, shown
    assert SESSION_MARK_VAR in shown, shown


def test_an_answer_the_model_refuses_is_invalid_output(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, [structured({"summary": ""})])
    assert isinstance(result, AgentRunError) and result.kind == "invalid_output", result


def test_a_rejected_key_is_not_logged_in(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, [HttpError(401, "unauthenticated", "API key not valid")])
    assert isinstance(result, AgentRunError) and result.kind == "not_logged_in", result


def test_a_rate_limit_is_a_retryable_api_error(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, [HttpError(429, "rate_limit", "Resource exhausted", times=50)])
    assert isinstance(result, AgentRunError), result
    assert result.kind == "api_error" and result.retryable, result


def test_a_model_that_never_answers_times_out(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, [Hang(60)], timeout_s=5)
    assert isinstance(result, BackendError) and result.kind == "timeout", result


def test_a_missing_binary_says_how_to_install(tmp_path: Path) -> None:
    backend = GeminiBackend(str(tmp_path / "no-such-gemini"), env={"PATH": "/usr/bin:/bin"})
    with pytest.raises(BackendError) as caught:
        backend.version()
    assert caught.value.kind == "missing_binary"
    assert "@google/gemini-cli@0.61.0" in (caught.value.hint or "")
