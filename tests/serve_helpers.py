"""Helpers for the `rgr serve` tests: a run made of real commits and notes (written
with the git CLI, as rgr writes them), a run folder beside it, and `rgr serve` started
as a real subprocess with the URL it prints.

The browser tests (tests/e2e/test_serve_browser.py) use real runs of rgr and claude;
these hand-made ones let the HTTP tests check every page without an agent.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import Repo, clean_env

RUN_ID = "5f0c1d2e-aaaa-4bbb-8ccc-000000000001"


@dataclass
class MadeRun:
    marker: str
    plan: str
    red: str
    green: str
    refactor: str
    done: str
    attempt: str
    attempt_ref: str
    costs: list[float]


def _note(repo: Repo, commit: str, phase: str, cycle: int, **fields: object) -> None:
    follows = {"PLAN": "RED", "RED": "GREEN", "GREEN": "REFACTOR", "REFACTOR": "PLAN",
               "COMPLETE": "COMPLETE"}
    data: dict[str, object] = {
        "phase": phase, "nextPhase": follows[phase], "cycleNumber": cycle,
        "currentTest": None, "completedTests": [], "pendingTests": [], "testResult": None,
        "error": None, "errorDetails": None, "retryCount": 0, "schemaVersion": 1,
        "mode": "tdd", "runId": RUN_ID, "branch": "rgr/slugify", "startBranch": "main",
        "startedAt": "2026-11-20T10:00:00Z", "finishedAt": "2026-11-20T10:00:30Z",
    }
    data.update(fields)
    repo.note_cli(commit, json.dumps(data, indent=2) + "\n")


def _agent(cost: float, model: str = "claude-opus-4-8") -> dict[str, object]:
    return {"backend": "claude", "sessionId": "s", "model": model, "numTurns": 4,
            "costUsd": cost, "durationMs": 4000, "inputTokens": 1000, "outputTokens": 100,
            "permissionDenials": 0, "promptVersion": "v1"}


def make_run(repo: Repo, feature: str = "slugify words", test_name: str = "lowercases",
             summary: str = "added one failing test") -> MadeRun:
    """A complete one-cycle run on branch rgr/slugify from main, with one rejected
    GREEN attempt kept under refs/rgr/attempts/ and a run folder with the test output
    and a refused tool call."""
    base = repo.head()
    repo.git("switch", "-q", "-c", "rgr/slugify")
    marker = repo.commit("rgr: start")
    _note(repo, marker, "REFACTOR", 0, nextPhase="PLAN", feature=feature, baseCommit=base,
          testResult="PASS")
    plan = repo.commit("plan: slugify", {"test-list.md": f"# Test list\n\n- [ ] {test_name}\n"})
    _note(repo, plan, "PLAN", 1, feature=feature, agent=_agent(0.05),
          currentTest={"description": test_name, "testFile": "tests/test_slug.py"},
          pendingTests=[test_name])
    red = repo.commit("test: lowercases", {"tests/test_slug.py":
                                           "from slug import slug\n\ndef test_lower():\n"
                                           "    assert slug('A') == 'a'\n"})
    _note(repo, red, "RED", 1, feature=feature, agent=_agent(0.06), testResult="FAIL",
          summary=summary, currentTest={"description": test_name,
                                        "testFile": "tests/test_slug.py"},
          tests={"command": ["pytest"], "exitCode": 1, "durationS": 0.4, "passed": 0,
                 "failed": 1, "errors": 0, "skipped": 0,
                 "failing": ["tests/test_slug.py::test_lower"]})
    # the rejected GREEN attempt: it weakened the test
    attempt = repo.commit("feat: cheat", {"tests/test_slug.py": "def test_lower():\n"
                                                               "    assert True\n"})
    attempt_ref = f"refs/rgr/attempts/{RUN_ID}/c1-GREEN-a1"
    repo.git("update-ref", attempt_ref, attempt)
    _note(repo, attempt, "GREEN", 1, feature=feature, nextPhase="GREEN", agent=_agent(0.04),
          error="test-modified: tests/test_slug.py changed in GREEN",
          errorDetails={"type": "test-modified",
                        "message": "tests/test_slug.py: GREEN may not change a test"},
          baseCommit=red, summary="rejected attempt kept at c1-GREEN-a1")
    repo.git("reset", "-q", "--hard", red)
    green = repo.commit("feat: slug", {"slug.py": "def slug(text):\n    return text.lower()\n"})
    _note(repo, green, "GREEN", 1, feature=feature, agent=_agent(0.07), testResult="PASS",
          retryCount=1, tests={"command": ["pytest"], "exitCode": 0, "durationS": 0.3,
                               "passed": 1, "failed": 0, "errors": 0, "skipped": 0,
                               "failing": []})
    refactor = repo.commit("refactor: nothing")
    _note(repo, refactor, "REFACTOR", 1, feature=feature, agent=_agent(0.03),
          completedTests=[test_name])
    done = repo.commit("plan: done", {"test-list.md": f"# Test list\n\n- [x] {test_name}\n"})
    _note(repo, done, "COMPLETE", 1, feature=feature, agent=_agent(0.02),
          completedTests=[test_name], finishedAt="2026-11-20T10:05:00Z",
          fakeItDebt=[{"path": "slug.py", "line": 2, "function": "slug", "kind": "constant",
                       "value": "'a'", "test": "tests/test_slug.py::test_lower",
                       "inputs": "'A'", "status": "paid", "paidBy": "GREEN cycle 2 (0123abcd)"},
                      {"path": "slug.py", "line": 4, "function": "slug",
                       "kind": "input-branch", "value": "'<b>'", "test": "t.py::test_b",
                       "inputs": "'<b>'", "status": "open"}],
          acceptance={"mode": "on", "verdict": "fail", "round": 1, "file": "tests/"
                      "test_rgr_acceptance.py", "stored": "/home/u/.local/state/rgr/x",
                      "sha256": "ab" * 32, "commit": done, "sessions": 1, "costUsd": 0.03,
                      "tests": [{"name": "test_lower", "behaviour": "slug lowercases",
                                 "outcome": "passed"},
                                {"name": "test_dash", "behaviour": "slug joins <words> "
                                 "with dashes", "outcome": "failed"}]})
    _run_folder(repo, red, attempt)
    return MadeRun(marker, plan, red, green, refactor, done, attempt, attempt_ref,
                   [0.05, 0.06, 0.04, 0.07, 0.03, 0.02, 0.03])


def _run_folder(repo: Repo, red: str, attempt: str) -> None:
    """events.jsonl as rgr.observe.artifacts writes it, for the RED phase and the rejected
    attempt: a test run with its output file, a result.json with a refused call."""
    folder = repo.path / ".git" / "rgr" / "runs" / RUN_ID
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "003.txt").write_text(
        "F\nE   ModuleNotFoundError: No module named 'slug'\n1 failed in 0.1s\n")
    attempt_dir = folder / "attempts" / "005-c1-GREEN-a1"
    attempt_dir.mkdir(parents=True)
    (attempt_dir / "result.json").write_text(json.dumps({"permission_denials": [
        {"tool_name": "Bash", "tool_input": {"command": "curl http://example.com"}}]}))
    events = [
        {"type": "attempt_started", "phase": "RED", "cycle": 1, "attempt": 1,
         "dir": "attempts/001-c1-RED-a1", "seq": 1},
        {"type": "agent_call", "phase": "RED", "cycle": 1, "attempt": 1, "seq": 2},
        {"type": "test_run", "exitCode": 1, "outputFile": "tests/003.txt", "seq": 3},
        {"type": "guard_verdict", "ok": True, "commit": red, "violations": [], "seq": 4},
        {"type": "attempt_started", "phase": "GREEN", "cycle": 1, "attempt": 1,
         "dir": "attempts/005-c1-GREEN-a1", "seq": 5},
        {"type": "agent_call", "phase": "GREEN", "cycle": 1, "attempt": 1,
         "permissionDenials": 1, "seq": 6},
        {"type": "guard_verdict", "ok": False, "commit": attempt, "seq": 7,
         "violations": [{"rule": "test-modified", "message": "no", "path": None}]},
    ]
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str  # as printed, with ?token= when there is one

    @property
    def base(self) -> str:
        return self.url.split("?", 1)[0].rstrip("/")


@contextmanager
def serve(cwd: Path, home: Path, *args: str,
          env: Mapping[str, str] | None = None) -> Iterator[Served]:
    """`rgr serve --port 0 ARGS` in ``cwd`` until the block ends (then SIGTERM). Its
    stderr goes to ``home/serve.log``, not a pipe nobody drains (a server logging
    tracebacks into a full pipe would hang rather than fail)."""
    home.mkdir(parents=True, exist_ok=True)
    log = (home / "serve.log").open("a")
    process = subprocess.Popen(
        [sys.executable, "-m", "rgr", "serve", "--port", "0", *args], cwd=cwd,
        env=clean_env(home, env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=log, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = re.search(r"(http://\S+)", first)
        if found is None:
            process.kill()
            process.wait()
            raise AssertionError(f"rgr serve printed no URL: {first!r} "
                                 f"{(home / 'serve.log').read_text()}")
        yield Served(process, found.group(1))
        errors = (home / "serve.log").read_text()
        assert "Traceback" not in errors, errors
    finally:
        log.close()
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    text: str


def http(url: str, data: bytes | None = None, headers: Mapping[str, str] | None = None,
         ) -> Answer:
    """One request, no redirect followed, whatever the status."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, data=data, headers=dict(headers or {}))
    try:
        with opener.open(request, timeout=30) as response:
            return Answer(response.status, {k.lower(): v for k, v in response.headers.items()},
                          response.read().decode("utf-8", "replace"))
    except urllib.error.HTTPError as error:
        return Answer(error.code, {k.lower(): v for k, v in error.headers.items()},
                      error.read().decode("utf-8", "replace"))


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "no form with a CSRF token on the page"
    return found.group(1)


def environ_without(*names: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in names}
