"""The examiner in JavaScript (Vitest), end to end: the real rgr CLI, the real claude,
real git, the real Vitest in bubblewrap; only the model is scripted (the Python version,
with the hostile search for the hidden tests, is tests/e2e/test_examiner.py).

A feature built in part: the text asks for numbers and numbers written as strings, the
run plans, tests and builds the numbers only. The examiner is shown the feature and the
interface the run's tests use (``export function add(a, b)``, never its body); its
hidden Vitest file fails on strings; the planner is told the missing behaviour in words
(never the test's code or values), plans it, the run builds it, and the second
examination passes: the run completes. The honest half of the run passed the examiner's
first test at once (the same file, its other test).

One ``rgr run`` of eleven claude sessions and seven Vitest runs, about 60 s on two busy
cores: the full sweep runs it,
``RGR_FULL_SWEEP=1 .venv/bin/python -m pytest tests/e2e/test_examiner_js.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ecosystems import refactor, run_kata
from harness import sweep_only
from kata import NOTES, git
from vitest_calc import IMPL, TEST_1, calc, green, red
from vitest_calc import plan as plan_of

from rgr.fake_model import SessionScript, structured, write

pytestmark = pytest.mark.e2e

WHERE = "tests/e2e/test_examiner_js.py"

FEATURE = ("add(a, b) returns the sum of two numbers; it also accepts numbers written as "
           "strings, so add('2', '3') is 5")
TEST_2 = TEST_1 + "\nit('adds strings', () => {\n  expect(add('2', '3')).toEqual(5);\n});\n"
ITEMS = ["adds two numbers", "adds numbers written as strings"]
NUMBERS = "export function add(a, b) {\n  return a + b;\n}\n"
BOTH = "export function add(a, b) {\n  return Number(a) + Number(b);\n}\n"
ACCEPTANCE = ("import { describe, it, expect } from 'vitest';\n"
              "import { add } from './calc.js';\n\n"
              "describe('add', () => {\n"
              "  it('sums two integers', () => {\n"
              "    expect(add(4173, 9158)).toBe(13331);\n  });\n"
              "  it('sums numbers written as strings', () => {\n"
              "    expect(add('4173', '9158')).toBe(13331);\n  });\n});\n")
MISSING = "add accepts numbers written as strings and returns their sum"
DECLARED = [{"name": "sums two integers", "behaviour": "add returns the sum of two integers"},
            {"name": "sums numbers written as strings", "behaviour": MISSING}]


def plan(items: int, done: int) -> SessionScript:
    return plan_of(ITEMS, items, done)


def examiner() -> SessionScript:
    return SessionScript([write("rgr_acceptance.test.js", ACCEPTANCE),
                          structured({"tests": DECLARED})],
                         expect_system_contains="You are the EXAMINER", name="examiner")


@sweep_only(WHERE, "a JavaScript feature built in part")
def test_a_javascript_feature_built_in_part_is_sent_back_in_words_and_completed(
        tmp_path: Path) -> None:
    scripts = [plan(1, 0), red(TEST_1, False), green(NUMBERS), refactor(), plan(1, 1),
               examiner(),
               # sent back: the planner adds the missing behaviour
               plan(2, 1), red(TEST_2, True), green(BOTH), refactor(), plan(2, 2)]
    finished = run_kata(calc(), tmp_path / "calc", scripts, FEATURE, code=0,
                        extra_config='[adequacy]\nmode = "off"\n', examined=True)
    out = " ".join((finished.done.stdout + finished.done.stderr).split())
    assert "acceptance (on): fail: 1 of 2" in out, out
    assert "acceptance (on): pass: 2 of 2" in out, out
    # the examiner saw the feature and the signature, nothing of the code
    [asked] = {p for p in finished.prompts if "# rgr: acceptance tests" in p}
    assert FEATURE in asked, asked
    shown = asked.split("## Public interface")[1].split("Write `")[0]
    assert "export function add(a, b)" in shown, asked
    assert "a + b" not in shown and "return" not in shown and "Number" not in shown, shown
    assert "src/rgr_acceptance.test.js" in asked  # where its file goes
    # the planner after the examination was told the missing behaviour, in words only
    told = {p for p in finished.prompts if "Acceptance tests you cannot" in p}
    assert told and all(MISSING in " ".join(t.split()) for t in told)
    # (the values in their quoted or called form: a hex id may hold the digits)
    assert all("'4173'" not in t and "(4173" not in t for t in finished.prompts)
    repo = finished.repo
    head = git(repo, "rev-parse", "HEAD").strip()
    note = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", head))
    assert note["phase"] == "COMPLETE"
    acceptance = note["acceptance"]
    assert (acceptance["verdict"], acceptance["round"], acceptance["sessions"]) == (
        "pass", 2, 1)
    assert acceptance["file"] == "src/rgr_acceptance.test.js"
    assert [(t["name"], t["outcome"]) for t in acceptance["tests"]] == [
        ("sums two integers", "passed"), ("sums numbers written as strings", "passed")]
    assert acceptance["interface"] == ["# src/calc.js (module ./calc.js)",
                                       "export function add(a, b)"]
    logged = git(repo, "log", "--all", "-p", "--notes=*")
    assert "'4173'" not in logged and "(4173" not in logged
    assert (repo / IMPL).read_text() == BOTH
