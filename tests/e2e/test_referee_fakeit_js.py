"""Fake-it debt and GREEN's cheats in JavaScript (Vitest), end to end: the real rgr CLI,
the real claude, real git, the real Vitest in bubblewrap; only the model is scripted
(the Python version is tests/e2e/test_referee_fakeit.py).

The calc kata (``add``), its tests ``expect(add(2, 3)).toEqual(5)`` and, to
triangulate, ``expect(add(1, 1)).toEqual(2)``:

* a GREEN that returns 5, never triangulated, stops the run as needs-attention naming
  src/calc.js:2 and what would pay it; the constant never completes;
* the same fake-it, triangulated by the plan's second test, completes with no rejection
  and the debt paid;
* a GREEN whose ``add`` returns an object whose ``asymmetricMatch`` always holds (what
  Vitest's ``toEqual`` asks) is rejected as ``always-equal`` at its line; the retry that
  looks the answer up in a module-level table keyed by the test's inputs is noted as
  GREEN's ``input-table`` debt, and the run stops on it.

Each case is one ``rgr run`` of five to nine claude sessions (about 20 to 50 s on two
busy cores). The default run samples the last case, which also shows the stop on open
debt naming file:line; the full sweep runs all three:
``RGR_FULL_SWEEP=1 .venv/bin/python -m pytest tests/e2e/test_referee_fakeit_js.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ecosystems import refactor, run_kata
from harness import sweep_only
from kata import NOTES, git, notes_on_branch
from vitest_calc import IMPL, TEST_1, calc, green, red
from vitest_calc import plan as plan_of

from rgr.fake_model import SessionScript

pytestmark = pytest.mark.e2e

WHERE = "tests/e2e/test_referee_fakeit_js.py"

TEST_2 = TEST_1 + "\nit('adds one and one', () => {\n  expect(add(1, 1)).toEqual(2);\n});\n"
ITEMS = ["adds two and three", "adds one and one"]

FAKE = "export function add(a, b) {\n  return 5;\n}\n"
HONEST = "export function add(a, b) {\n  return a + b;\n}\n"
ALWAYS_EQUAL = "export function add(a, b) {\n  return { asymmetricMatch: () => true };\n}\n"
TABLE = ("const SUMS = { '2,3': 5 };\n\nexport function add(a, b) {\n"
         "  return SUMS[`${a},${b}`];\n}\n")


def plan(items: int, done: int) -> SessionScript:
    return plan_of(ITEMS, items, done)


def run(scripts: list[SessionScript], tmp_path: Path, code: int) -> tuple[Path, str]:
    """``rgr run`` of the calc project against ``scripts``, which must all be used;
    it must exit ``code``. The repository and rgr's output, one space between words."""
    finished = run_kata(calc(), tmp_path / "calc", scripts, "add numbers", code)
    return finished.repo, " ".join((finished.done.stdout + finished.done.stderr).split())


def head_note(repo: Path) -> dict[str, object]:
    head = git(repo, "rev-parse", "HEAD").strip()
    note: dict[str, object] = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", head))
    return note


def debt_of(note: dict[str, object]) -> list[tuple[object, ...]]:
    debt = note["fakeItDebt"]
    assert isinstance(debt, list)
    return [(d["path"], d["line"], d["kind"], d["value"], d["status"]) for d in debt]


@sweep_only(WHERE, "a constant never triangulated")
def test_a_constant_never_triangulated_stops_naming_its_line(tmp_path: Path) -> None:
    repo, out = run([plan(1, 0), red(TEST_1, False), green(FAKE), refactor(), plan(1, 1)],
                    tmp_path, code=4)
    assert "src/calc.js:2 add returns the constant 5 (from src/calc.test.js:5)" in out, out
    assert "a test of add with other values than (2, 3)" in out
    assert "feature complete" not in out
    note = head_note(repo)
    assert (note["phase"], note["nextPhase"]) == ("PLAN", "PLAN")
    assert note["errorDetails"]["type"] == "needs-attention"  # type: ignore[index]
    assert debt_of(note) == [("src/calc.js", 2, "constant", "5", "open")]
    assert "return 5;" in (repo / IMPL).read_text()
    assert all(n["phase"] != "COMPLETE" for n in notes_on_branch(repo))


@sweep_only(WHERE, "an honest fake-it, triangulated")
def test_an_honest_fake_it_that_a_later_test_triangulates_completes(tmp_path: Path) -> None:
    repo, out = run([plan(2, 0), red(TEST_1, False), green(FAKE), refactor(), plan(2, 1),
                     red(TEST_2, True), green(HONEST), refactor(), plan(2, 2)],
                    tmp_path, code=0)
    assert ": rejected:" not in out and "0 rejected attempt(s)" in out, out
    notes = notes_on_branch(repo)
    assert notes[-1]["phase"] == "COMPLETE"
    assert all(n["retryCount"] == 0 for n in notes if "retryCount" in n), notes
    first_green = next(n for n in notes if n["phase"] == "GREEN")
    assert debt_of(first_green) == [("src/calc.js", 2, "constant", "5", "open")]
    [paid] = notes[-1]["fakeItDebt"]  # type: ignore[misc]
    assert paid["status"] == "paid" and paid["paidBy"].startswith("GREEN cycle 2"), paid


def test_an_always_equal_result_and_a_table_of_the_tests_inputs_are_greens_cheats(
        tmp_path: Path) -> None:
    repo, out = run([plan(1, 0), red(TEST_1, False), green(ALWAYS_EQUAL), green(TABLE),
                     refactor(), plan(1, 1)], tmp_path, code=4)
    assert "always-equal" in out and "asymmetricMatch returns a constant" in out, out
    [kept] = git(repo, "for-each-ref", "--format=%(refname)", "refs/rgr/attempts/").split()
    rejected = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", kept))
    assert rejected["phase"] == "GREEN" or rejected["nextPhase"] == "GREEN", rejected
    assert rejected["errorDetails"]["type"] == "always-equal", rejected["errorDetails"]
    assert "src/calc.js:2" in json.dumps(rejected["errorDetails"]), rejected["errorDetails"]
    table = ("src/calc.js:1 add looks its answer up in a table keyed by {\"2,3\"} "
             "(from src/calc.test.js:5)")
    assert table in out, out
    green_note = next(n for n in notes_on_branch(repo) if n["phase"] == "GREEN")
    assert debt_of(green_note) == [("src/calc.js", 1, "input-table", '{"2,3"}', "open")]
    assert head_note(repo)["errorDetails"]["type"] == "needs-attention"  # type: ignore[index]
