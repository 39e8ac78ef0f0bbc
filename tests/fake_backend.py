"""The one mocked boundary of the in-process tests: an agent session. Everything else
(git, the scratch copies, the notes, the test runs) is real."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rgr.backends.base import AgentRequest, AgentResult
from tests.conftest import git

#: What a fake session does in its scratch copy (request.cwd), then answers.
Session = Callable[[AgentRequest], AgentResult]


def answer(request: AgentRequest, cost: float = 0.01, **output: Any) -> AgentResult:
    """The fake session's result: ``output`` (a phase's ``summary: done`` when none is
    given) validated as the request asks, and the typed figures every backend fills
    (3 turns, 10 ms, 100 tokens in, 20 out)."""
    answered = request.output_model.model_validate(output or {"summary": "done"})
    return AgentResult(
        session_id=request.session_id, output=answered,
        backend="fake", model="fake-model", num_turns=3, duration_ms=10, input_tokens=100,
        output_tokens=20, cost_usd=cost, raw={"fake": True})


class FakeBackend:
    """Runs each session as the next function of ``sessions``: a few lines of git in
    the scratch copy stand in for the agent."""

    name = "fake"
    binary = "fake"
    env_keep: tuple[str, ...] = ()

    def __init__(self, *sessions: Session) -> None:
        self.sessions = list(sessions)
        self.requests: list[AgentRequest] = []

    def version(self) -> str:
        return "1"

    def api_urls(self, env: object) -> list[str]:
        return []

    def seal_api(self, env: object, open_gateway: object) -> list[str]:
        return []

    def prepare_home(self, home: Path, env: object) -> None:
        return None

    def check_login(self, cwd: Path) -> None:
        return None

    def run(self, request: AgentRequest) -> AgentResult:
        self.requests.append(request)
        return self.sessions.pop(0)(request)


# -- scripted phases of the calc kata: each session writes its files and commits -------

def commits(files: dict[str, str], message: str, **output: object) -> Session:
    def session(request: AgentRequest) -> AgentResult:
        for name, text in files.items():
            (request.cwd / name).write_text(text)
        git(request.cwd, "add", "-A")
        git(request.cwd, "commit", "-q", "--allow-empty", "-m", message)
        return answer(request, **(output or {"summary": "done"}))
    return session


def plans(listing: str, description: str | None) -> Session:
    test = None if description is None else {
        "description": description, "testFile": "test_calc.py", "implFile": "calc.py"}
    return commits({"test-list.md": listing}, "plan: update the list", currentTest=test)


def one_cycle(listing: str, item: str, test: str, impl: str) -> list[Session]:
    return [plans(listing, item), commits({"test_calc.py": test}, "test: " + item),
            commits({"calc.py": impl}, "feat: " + item), commits({}, "refactor: nothing")]
