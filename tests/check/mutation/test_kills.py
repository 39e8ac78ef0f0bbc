"""A kill is a test outcome, never an exit code (rgr.check.mutation.kills): a mutant is
killed only when a test that passed in the same run without the mutation fails with it.
A step of the test command that is no test (a coverage threshold over a narrowed suite)
fails the run mutated or not, and kills nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from toolchains import ensure_c8

from rgr.base.config import AdequacyConfig
from rgr.check.mutation.kills import judges, noticed
from rgr.check.verify import Status, TestOutcome, TestReport, run_tests
from tests.gate_helpers import committed, detected_command, measure_commits


def report(exit_code: int = 0, timed_out: bool = False, errors: tuple[str, ...] = (),
           **statuses: Status) -> TestReport:
    outcomes = {key: TestOutcome(key, "t.js", status, "") for key, status in statuses.items()}
    return TestReport(("npm", "test"), exit_code, 0.1, timed_out, outcomes, errors, False, "")


BASELINE = report(exit_code=1, a="passed", b="passed", c="skipped")


def test_an_exit_code_alone_kills_nothing() -> None:
    assert judges(BASELINE)  # its tests pass: a coverage threshold failed it
    assert not noticed(BASELINE, report(exit_code=1, a="passed", b="passed", c="skipped"))
    assert not noticed(BASELINE, report(exit_code=0, a="passed", b="passed", c="failed"))


def test_a_test_that_passed_unmutated_and_fails_or_vanishes_kills() -> None:
    assert noticed(BASELINE, report(exit_code=1, a="passed", b="failed"))
    assert noticed(BASELINE, report(exit_code=1, a="error", b="passed"))
    assert noticed(BASELINE, report(exit_code=1, a="passed"))  # the process ended early
    assert noticed(BASELINE, report(exit_code=1, timed_out=True))


def test_a_selection_kills_by_its_own_tests_or_a_run_that_no_longer_loads() -> None:
    assert not noticed(BASELINE, report(exit_code=1, a="passed"), selected=True)
    assert noticed(BASELINE, report(exit_code=1, a="failed"), selected=True)
    assert noticed(BASELINE, report(exit_code=2, errors=("t.py",)), selected=True)


def test_a_baseline_with_a_failing_test_or_none_passing_cannot_judge() -> None:
    assert not judges(report(exit_code=1, a="passed", b="failed"))
    assert not judges(report(exit_code=1))
    assert not judges(report(exit_code=1, a="passed", errors=("t.js",)))


#: A formatter whose project checks coverage at 100 % (`c8 --100 node --test`): the test
#: of util.js covers what format.js does not use, so the suite narrowed to format.js's
#: test fails the threshold with no mutation at all. format's test only asks for text.
C8_PROJECT = {
    "package.json": json.dumps({"name": "fmt", "private": True,
                                "scripts": {"test": "c8 --100 node --test"}}),
    "lib/util.js": "function pad(text, width) {\n"
                   "  return text.length >= width ? text : ' '.repeat(width - text.length)"
                   " + text;\n}\n"
                   "function clamp(value, low, high) {\n"
                   "  return Math.min(Math.max(value, low), high);\n}\n"
                   "module.exports = { pad, clamp };\n",
    "test/util.test.js": "const { test } = require('node:test');\n"
                         "const assert = require('node:assert');\n"
                         "const { pad, clamp } = require('../lib/util');\n"
                         "test('pads', () => assert.strictEqual(pad('1', 3), '  1'));\n"
                         "test('keeps long text', () => "
                         "assert.strictEqual(pad('1234', 3), '1234'));\n"
                         "test('clamps', () => assert.strictEqual(clamp(5, 0, 3), 3));\n",
    "test/format.test.js": "const { test } = require('node:test');\n"
                           "const assert = require('node:assert');\n"
                           "const { format } = require('../lib/format');\n"
                           "test('formats', () => "
                           "assert.ok(format(1.5, 1).trim().length > 0));\n",
    "lib/format.js": "const { pad } = require('./util');\n"
                     "function format(value, digits) {\n  return pad('1.5', 8);\n}\n"
                     "module.exports = { format };\n",
}
FULL_FORMAT = ("const { pad } = require('./util');\n"
               "function format(value, digits) {\n"
               "  const text = value.toFixed(digits);\n"
               "  return pad(text, 8);\n}\n"
               "module.exports = { format };\n")


def test_a_coverage_threshold_failing_the_narrowed_run_kills_no_mutant(
        tmp_path: Path) -> None:
    """Before, every mutant run of the narrowed suite failed c8's threshold and counted
    as killed: the gate said "all killed" of a weak test. Judged per test, the width's
    mutant (8 -> 9) survives both the narrowed and the whole run."""
    modules = ensure_c8()
    repo, base, head = committed(tmp_path, C8_PROJECT, {"lib/format.js": FULL_FORMAT})
    command = detected_command(repo)
    tree, home = tmp_path / "phase", tmp_path / "phase-home"
    for path, text in {**C8_PROJECT, "lib/format.js": FULL_FORMAT}.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text, encoding="utf-8")
    home.mkdir()
    (tree / "node_modules").symlink_to(modules)
    phase = run_tests(command, tree, timeout=120, env={**os.environ, "HOME": str(home)})
    assert phase.all_passed and phase.passed == 4, phase
    note = measure_commits(repo, base, head, command, settings=AdequacyConfig(jobs=1),
                           node_modules=modules, baseline=phase)
    assert note.decision == "test-too-weak", note
    assert [(m.line, m.original, m.replacement, m.status) for m in note.mutants] == [
        (4, "8", "9", "survived")], note
    assert note.killed == 1, note  # `return undefined`: the test's .trim() throws


def test_a_mutant_that_stops_its_tests_loading_is_unviable_where_its_language_may_not_build(
        ) -> None:
    """The gate asks the language (``MutationSyntax.may_not_build``): a Go mutant whose
    run loaded no test did not build (``unviable``, never killed); a JavaScript one
    that parses, and any Python one, was noticed by the tests no longer running."""
    from rgr.check.mutation import textual
    from rgr.check.mutation.gate import _status_of
    from rgr.ecosystems import registry
    from rgr.ecosystems.python.mutants import mutants_of

    assert {s.language for s in registry.mutation_syntax() if s.may_not_build} == {
        "go", "rust", "java"}
    baseline = report(a="passed")
    stopped = report(exit_code=1, errors=("calc",))
    go = textual.mutants_of("calc.go", "package calc\n\nfunc Add(a, b int) int {\n"
                            "\treturn a + b\n}\n", {4})[0]
    script = textual.mutants_of("calc.js", "function add(a, b) {\n  return a + b;\n}\n",
                                {2})[0]
    python = mutants_of("calc.py", "def add(a, b):\n    return a + b\n", {2})[0]
    assert _status_of(go, stopped, baseline, selected=False) == "unviable"
    assert _status_of(script, stopped, baseline, selected=False) == "killed"
    assert _status_of(python, stopped, baseline, selected=False) == "killed"
    assert registry.tree_mutation("pkg/calc.py") is not None
    assert registry.tree_mutation("calc.go") is None
