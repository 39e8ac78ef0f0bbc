"""Blame by evidence end to end (issue 44, item 3): the real rgr CLI, the real claude,
real git, real pytest in bubblewrap; only the model is scripted.

RED tests ``fmt(value, digits=2)`` with the default digits only; GREEN writes the full
code (``digits = max(digits, 0)``: negative digits count as none). The survivors sit on a
line the test runs, so they are RED's gap, never GREEN's over-implementation: the gate
sends the run back to RED (GREEN is never rejected, "remove it" is never said), naming
the rule, the phase, each mutant at its ``file:line`` and an input that tells it apart;
RED's next try pins the argument and the run completes.

A GREEN that fakes it (a table keyed by the test's own inputs) leaves survivors inside
the fake, on a line the test runs: they are GREEN's fake-it debt, not RED's gap
(rgr.check.fakeit.blame). The gate passes with the debt open, RED is never sent back,
and the run stops for a person naming the debt instead of completing (a whole `rgr run`
of its own: in the full sweep; the rule's cheap tests are tests/check/fakeit/test_blame.py's).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from harness import sweep_only
from kata import git, make_project, notes_on_branch, rgr, rgr_env

from rgr.fake_model import FakeModelServer, SessionScript, bash, read, structured, write

pytestmark = pytest.mark.e2e

WHERE = "tests/e2e/test_referee_blame.py"

ITEM = "formats a number with two digits by default"
TEST_FILE = "tests/test_fmt.py"
CODE = "fmtlib.py"
#: RED's test: the default digits only, so nothing checks what ``digits`` does.
DEFAULT_ONLY = """def test_formats_with_two_digits_by_default():
    from fmtlib import fmt

    assert fmt(1.5) == "1.50"
"""
#: RED's next try pins the argument: none, and negative digits counting as none.
PINNED = DEFAULT_ONLY + """

def test_formats_with_the_digits_asked_for():
    from fmtlib import fmt

    assert fmt(2.25, 0) == "2"
    assert fmt(1.5, -1) == "2"
"""
FULL = 'def fmt(value, digits=2):\n    digits = max(digits, 0)\n    return f"{value:.{digits}f}"\n'


def commit(message: str, *paths: str) -> object:
    return bash(f"git add {' '.join(paths)} && git commit -q -m {json.dumps(message)}")


def plan(done: bool, item: str = ITEM, test_file: str = TEST_FILE,
         code: str = CODE) -> SessionScript:
    text = f"# Test list\n\n- [{'x' if done else ' '}] {item}\n"
    steps = [read("test-list.md")] if done else []
    steps += [write("test-list.md", text), commit("plan: fmt", "test-list.md"),
              structured({"currentTest": None} if done else {"currentTest": {
                  "description": item, "testFile": test_file, "implFile": code}})]
    return SessionScript(steps, expect_system_contains="You are the PLANNER", name="plan")


def red(content: str, again: bool = False, test_file: str = TEST_FILE) -> SessionScript:
    steps = [read(test_file)] if again else []
    steps += [write(test_file, content), commit("test: fmt", test_file),
              structured({"summary": "pinned digits" if again else "added a test"})]
    return SessionScript(steps, expect_system_contains="You are the TESTER", name="red")


def green(code: str = CODE, text: str = FULL) -> SessionScript:
    return SessionScript([write(code, text), commit("feat: fmt", code),
                          structured({"summary": "implemented fmt"})],
                         expect_system_contains="You are the IMPLEMENTER", name="green")


def refactor() -> SessionScript:
    return SessionScript([bash('git commit -q --allow-empty -m "refactor: nothing"'),
                          structured({"summary": "nothing to improve"})],
                         expect_system_contains="You are the REFACTORER", name="refactor")


def test_an_unpinned_argument_is_blamed_on_red_and_pinned_before_the_run_completes(
        tmp_path: Path) -> None:
    repo = make_project(tmp_path / "fmt")
    scripts = [plan(False), red(DEFAULT_ONLY), green(), red(PINNED, again=True), refactor(),
               plan(True)]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "format numbers"], repo, rgr_env(tmp_path / "home",
                                                                      server.url))
        out = done.stdout + done.stderr
        assert done.returncode == 0, out
        assert server.errors == [] and server.remaining == 0, server.errors
        prompts = [r.first_user_text for r in server.requests if r.first_user_text]
    # GREEN is never rejected and never told to remove a line its test runs.
    assert ": rejected:" not in out and "0 rejected attempt(s)" in out, out
    assert "remove it" not in out and not any("remove it" in p for p in prompts)
    # The run went back to RED, and said so: the rule, the phase blamed, each mutant.
    assert "test-too-weak" in out and "back to RED" in out, out
    notes: list[Any] = notes_on_branch(repo)
    assert [(n["phase"], n.get("nextPhase")) for n in notes[1:]] == [
        ("PLAN", "RED"), ("RED", "GREEN"), ("GREEN", "RED"), ("RED", "REFACTOR"),
        ("REFACTOR", "PLAN"), ("COMPLETE", None)]
    gate = notes[3]["adequacy"]
    assert gate["decision"] == "test-too-weak" and gate["phase"] == "GREEN"
    survivors = {(m["path"], m["line"], m["original"], m["replacement"]): m
                 for m in gate["mutants"] if m["status"] == "survived"}
    assert (CODE, 2, "0", "1") in survivors, gate["mutants"]
    assert all(m["tests"] for m in survivors.values())  # a test runs each: RED's gap
    # The strengthening RED was told each mutant by file:line, and an input telling it
    # apart, found from the test's own call.
    brief = next(p for p in prompts if "sent this cycle back to RED" in p)
    assert f"{CODE}:2:" in brief and "'0' -> '1'" in brief, brief
    told = survivors[(CODE, 2, "0", "1")]["tellingInput"]
    assert told.startswith("fmt(1.5, digits=0): the original returns"), told
    assert told in brief, brief
    # RED's next try killed them; nothing was rejected on the way.
    assert notes[4]["adequacy"]["decision"] == "pass", notes[4]["adequacy"]
    assert git(repo, "for-each-ref", "refs/rgr/attempts/").strip() == ""
    # The score where the user looks: history's row per gated phase, the report's sum.
    offline = rgr_env(tmp_path / "home", "http://127.0.0.1:9")
    history = rgr(["history"], repo, offline).stdout
    # GREEN's gate with its survivors, then the strengthening RED's with none (oldest first)
    (weak_killed, weak_of), (killed, of) = (
        (int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+) mutants killed", history))
    assert weak_killed < weak_of and killed == of, history
    report = " ".join(rgr(["report"], repo, offline).stdout.split())
    assert re.search(r"\d+/\d+ mutants of changed lines killed over 2 gated phase\(s\)",
                     report) and "test-too-weak" in report, report


FAKE_ITEM = "adds two and three"
FAKE_TEST_FILE = "tests/test_calc.py"
FAKE_CODE = "calc.py"
ADDS = """def test_adds_two_and_three():
    from calc import add

    assert add(2, 3) == 5
"""
#: GREEN fakes it: a table keyed by the test's own inputs. Its default (``0`` -> ``1``)
#: survives on a line the test runs, inside the fake.
FAKE_TABLE = "def add(a, b):\n    return {(2, 3): 5}.get((a, b), 0)\n"


@sweep_only(WHERE, "a whole `rgr run` (126 s at load 15-20)")
def test_survivors_inside_a_fake_are_greens_debt_not_a_weak_test_sent_back_to_red(
        tmp_path: Path) -> None:
    repo = make_project(tmp_path / "calc")
    where = {"item": FAKE_ITEM, "test_file": FAKE_TEST_FILE, "code": FAKE_CODE}
    scripts = [plan(False, **where), red(ADDS, test_file=FAKE_TEST_FILE),
               green(FAKE_CODE, FAKE_TABLE), refactor(), plan(True, **where)]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "add numbers"], repo, rgr_env(tmp_path / "home",
                                                                   server.url))
        out = " ".join((done.stdout + done.stderr).split())
        assert server.errors == [] and server.remaining == 0, server.errors
        prompts = [r.first_user_text for r in server.requests if r.first_user_text]
    # not completed: the debt stops the run for a person (exit 4), naming it
    assert done.returncode == 4, out
    assert "calc.py:2" in out and "fake-it debt is open" in out, out
    # the survivors were said to be the fake's, and RED was never sent back
    assert "inside fake-it special cases (calc.py:2 add): GREEN's fake-it debt, not a " \
           "weak test" in out, out
    assert "back to RED" not in out and ": rejected:" not in out, out
    assert not any("sent this cycle back to RED" in p for p in prompts)
    notes: list[Any] = notes_on_branch(repo)
    assert [(n["phase"], n.get("nextPhase")) for n in notes[1:]] == [
        ("PLAN", "RED"), ("RED", "GREEN"), ("GREEN", "REFACTOR"), ("REFACTOR", "PLAN"),
        ("PLAN", "PLAN")], notes
    gate = notes[3]["adequacy"]
    assert gate["phase"] == "GREEN" and gate["decision"] == "pass", gate
    survivors = [m for m in gate["mutants"] if m["status"] == "survived"]
    assert survivors and all(m["path"] == FAKE_CODE and m["line"] == 2 and m["tests"]
                             for m in survivors), gate["mutants"]
    assert "GREEN's fake-it debt, not a weak test" in gate["remark"], gate
    [debt] = notes[3]["fakeItDebt"]
    assert (debt["path"], debt["line"], debt["function"], debt["kind"], debt["status"]) == (
        FAKE_CODE, 2, "add", "input-table", "open"), debt
    assert notes[-1]["errorDetails"]["type"] == "needs-attention", notes[-1]
    assert git(repo, "for-each-ref", "refs/rgr/attempts/").strip() == ""
