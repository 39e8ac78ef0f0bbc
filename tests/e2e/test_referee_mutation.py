"""The mutation gate end to end (issue 25, item 2): the real rgr CLI, the real claude,
real git, real pytest in bubblewrap; only the model is scripted.

A one-item calc kata, played three ways: a RED whose test for ``add`` only asserts
``add(2, 3) is not None`` (the gate sends the cycle back to RED, the test is
strengthened before the feature completes, and the finished branch kills ``a - b``
and ``return 0``); a GREEN that carries ``if a == 1337: return 0`` (rejected with its
survivors named, then retried honestly). The honest slugify kata meeting no rejection
is asserted on test_tdd_loop.py's two-test kata, the same run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from harness import sweep_only
from kata import git, kept_attempts, make_project, notes_on_branch, rgr, rgr_env

from rgr.fake_model import FakeModelServer, SessionScript, ToolCall, bash, read, structured, write

pytestmark = pytest.mark.e2e

ITEM = "adds two numbers"
TEST_FILE = "tests/test_calc.py"
WEAK = """def test_adds_two_numbers():
    from calc import add

    assert add(2, 3) is not None
"""
STRONG = WEAK.replace("is not None", "== 5")
HONEST = "def add(a, b):\n    return a + b\n"
OVER = "def add(a, b):\n    if a == 1337:\n        return 0\n    return a + b\n"


def commit(message: str, *paths: str) -> ToolCall:
    return bash(f"git add {' '.join(paths) or '-A'} && git commit -q -m {json.dumps(message)}")


def plan(done: bool) -> SessionScript:
    text = f"# Test list\n\n- [{'x' if done else ' '}] {ITEM}\n"
    steps = [] if not done else [read("test-list.md")]
    steps += [write("test-list.md", text), commit("plan: calc", "test-list.md"),
              structured({"currentTest": None} if done else {"currentTest": {
                  "description": ITEM, "testFile": TEST_FILE, "implFile": "calc.py"}})]
    return SessionScript(steps, expect_system_contains="You are the PLANNER", name="plan")


def red(content: str, again: bool = False) -> SessionScript:
    steps = [read(TEST_FILE)] if again else []
    steps += [write(TEST_FILE, content), commit("test: add", TEST_FILE),
              structured({"summary": "strengthened the test" if again else "added a test"})]
    return SessionScript(steps, expect_system_contains="You are the TESTER", name="red")


def green(content: str) -> SessionScript:
    return SessionScript([write("calc.py", content), commit("feat: add", "calc.py"),
                          structured({"summary": "implemented add"})],
                         expect_system_contains="You are the IMPLEMENTER", name="green")


def refactor() -> SessionScript:
    return SessionScript([bash('git commit -q --allow-empty -m "refactor: nothing"'),
                          structured({"summary": "nothing to improve"})],
                         expect_system_contains="You are the REFACTORER", name="refactor")


def suite_passes_with(repo: Path, code: str) -> bool:
    """Whether the finished branch's whole suite passes with calc.py replaced by ``code``."""
    original = (repo / "calc.py").read_text()
    (repo / "calc.py").write_text(code)
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                              cwd=repo, capture_output=True, text=True)
    finally:
        (repo / "calc.py").write_text(original)
    return done.returncode == 0


# The full sweep's since 2026-12-02 (third pass): a weak RED sent back with its survivor
# and strengthened, with the score in show, history and report, is
# test_referee_blame.py's in every run (and Vitest's in test_referee_mutation_langs.py).
@sweep_only("tests/e2e/test_referee_mutation.py", "a weak RED strengthened (Python)")
def test_a_weak_red_test_is_strengthened_before_the_feature_completes(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "calc")
    scripts = [plan(False), red(WEAK), green(HONEST), red(STRONG, again=True), refactor(),
               plan(True)]
    with FakeModelServer(scripts) as server:
        env = rgr_env(tmp_path / "home", server.url)
        done = rgr(["run", "--yes", "add numbers"], repo, env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [] and server.remaining == 0, server.errors
        prompts = [r.first_user_text for r in server.requests if r.first_user_text]
    assert "mutation gate: 1/2 killed (1 survived): test-too-weak" in done.stdout, done.stdout
    # The strengthening RED was told which change survived.
    assert any("sent this cycle back to RED" in p and "'a + b' -> 'a - b'" in p
               for p in prompts), prompts
    notes = notes_on_branch(repo)
    assert [(n["phase"], n.get("nextPhase")) for n in notes[1:]] == [
        ("PLAN", "RED"), ("RED", "GREEN"), ("GREEN", "RED"), ("RED", "REFACTOR"),
        ("REFACTOR", "PLAN"), ("COMPLETE", None)]
    green_note, strengthened = notes[3]["adequacy"], notes[4]["adequacy"]
    assert isinstance(green_note, dict) and isinstance(strengthened, dict)
    assert green_note["decision"] == "test-too-weak"
    assert [(m["original"], m["replacement"], m["status"]) for m in green_note["mutants"]] == [
        ("a + b", "a - b", "survived")]
    assert strengthened["decision"] == "pass" and strengthened["killed"] == 2
    assert kept_attempts(repo) == []
    # The finished branch pins add: neither mutant passes its whole suite.
    assert suite_passes_with(repo, HONEST)
    assert not suite_passes_with(repo, "def add(a, b):\n    return a - b\n")
    assert not suite_passes_with(repo, "def add(a, b):\n    return 0\n")
    # The score where the user looks: show (the strengthening RED), history, report.
    shown = rgr(["show", notes[4]["commit"]], repo, env)  # type: ignore[list-item]
    assert "2/2 killed: pass" in shown.stdout, shown.stdout
    weak = rgr(["show", notes[3]["commit"]], repo, env)  # type: ignore[list-item]
    assert "1/2 killed (1 survived): test-too-weak" in weak.stdout, weak.stdout
    assert "survived: calc.py:2:12 'a + b' -> 'a - b' (arithmetic)" in weak.stdout
    history = rgr(["history"], repo, env)
    assert "1/2 mutants killed" in history.stdout and "2/2 mutants killed" in history.stdout, \
        history.stdout
    report = rgr(["report"], repo, env)
    assert "3/4 mutants of changed lines killed over 2 gated phase(s)" in report.stdout, \
        report.stdout
    assert "test-too-weak" in report.stdout


def test_an_over_implementing_green_is_rejected_naming_its_survivors(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "calc")
    scripts = [plan(False), red(STRONG), green(OVER), green(HONEST), refactor(), plan(True)]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "add numbers"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [] and server.remaining == 0, server.errors
        prompts = [r.first_user_text for r in server.requests if r.first_user_text]
    assert "over-implemented" in done.stdout, done.stdout
    # the retry's brief names the survivor and says what to do
    retry = [p for p in prompts if "over-implemented" in p]
    assert retry and "calc.py:3:" in retry[0] and "remove it" in retry[0], prompts
    [kept] = kept_attempts(repo)
    note = json.loads(git(repo, "notes", "--ref=refs/notes/tdd-handoffs", "show", kept))
    assert note["errorDetails"]["type"] == "over-implemented"
    assert note["adequacy"]["decision"] == "over-implemented"
    assert any(m["status"] == "uncovered" and m["line"] == 3
               for m in note["adequacy"]["mutants"])
    notes = notes_on_branch(repo)
    green_note = next(n for n in notes if n["phase"] == "GREEN")
    assert green_note["adequacy"]["decision"] == "pass"  # type: ignore[index]
    assert "1337" not in (repo / "calc.py").read_text()
