"""A test that ran before and is skipped after is judged from the runner's outcomes
(rgr.check.guards.silenced_tests), whatever silenced it: the skip markers matched on the
added lines (rgr.check.guards.SKIP_MARKERS) miss a module-level mark, node's
`{ skip: 'reason' }`, RSpec's `xit 'x' do`; the runner's report misses none. Ruby's
every way (RSpec's `xit`, `skip:` metadata, `skip '...'`, `pending`; Minitest's `skip`)
is judged the same way."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from toolchains import ensure_ruby_minitest, ensure_ruby_rspec

from rgr.base.config import TestCommand
from rgr.check import guards
from rgr.check.guards import SKIP_MARKERS, check_tests, step_fails
from rgr.check.verify import TestReport, run_tests
from rgr.store.handoff import Phase

PYTEST = TestCommand((sys.executable, "-m", "pytest", "-p", "no:randomly", "-p",
                      "no:cacheprovider"), "pytest", (), False, "test")
NODE = TestCommand(("node", "--test"), "node", (), False, "test")


def run(tree: Path, cmd: TestCommand, files: dict[str, str]) -> TestReport:
    for path, text in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text, encoding="utf-8")
    return run_tests(cmd, tree, timeout=120, env={**os.environ, "HOME": str(tree.parent)})


CALC_TEST = ("from calc import add\n\n"
             "def test_adds():\n    assert add(2, 3) == 5\n\n"
             "def test_adds_zero():\n    assert add(0, 3) == 3\n")


def test_a_refactor_skipping_a_module_by_its_mark_is_rejected(tmp_path: Path) -> None:
    before = run(tmp_path / "p", PYTEST, {"calc.py": "def add(a, b):\n    return a + b\n",
                                         "test_calc.py": CALC_TEST})
    assert before.passed == 2, before
    silencing = "import pytest\npytestmark = pytest.mark.skip(reason='later')\n"
    assert not SKIP_MARKERS.search(silencing)  # no marker the added lines show
    after = run(tmp_path / "p", PYTEST, {"test_calc.py": silencing + CALC_TEST})
    assert after.all_passed and after.skipped == 2, after
    rules = [(v.rule, v.path) for v in check_tests(Phase.REFACTOR, before, after)]
    assert rules == [("test-silenced", "test_calc.py")] * 2, rules


def test_green_skipping_reds_failing_test_from_the_code_is_rejected(tmp_path: Path) -> None:
    """GREEN may not edit tests, but code under test can raise pytest's Skipped (its
    base class is reachable without naming pytest): RED's failing test, skipped after,
    is silenced too."""
    before = run(tmp_path / "p", PYTEST, {"calc.py": "def add(a, b):\n    return 0\n",
                                         "test_calc.py": CALC_TEST})
    assert before.failed == 2, before
    code = ("import sys\n\ndef add(a, b):\n"
            "    raise sys.modules['_pytest.outcomes'].Skipped('later')\n")
    after = run(tmp_path / "p", PYTEST, {"calc.py": code})
    assert after.all_passed and after.skipped == 2, after
    assert {v.rule for v in check_tests(Phase.GREEN, before, after)} == {"test-silenced"}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_skip_metadata_with_a_reason_is_rejected(tmp_path: Path) -> None:
    test = ("const { test } = require('node:test');\n"
            "const assert = require('node:assert');\n"
            "test('adds', OPTIONS() => assert.strictEqual(1 + 2, 3));\n")
    before = run(tmp_path / "p", NODE, {"test/calc.test.js": test.replace("OPTIONS", "")})
    assert before.passed == 1, before
    skipped = test.replace("OPTIONS", "{ skip: 'later' }, ")
    assert not SKIP_MARKERS.search(skipped)
    after = run(tmp_path / "p", NODE, {"test/calc.test.js": skipped})
    assert after.all_passed and after.skipped == 1, after
    assert [v.rule for v in check_tests(Phase.REFACTOR, before, after)] == ["test-silenced"]


RSPEC = TestCommand(("rspec",), "rspec", (), False, "test")
MINITEST = TestCommand(("ruby", "-Ilib", "-Itest", "test/calc_test.rb"), "minitest", (),
                       False, "test")
RUBY_ADD = "def add(a, b) = a + b\n"
#: GREEN's cheat: the code is wrong, so a test still run would fail.
RUBY_WRONG = "def add(a, b) = a * b\n"
RSPEC_SPEC = """require_relative '../lib/calc'
RSpec.describe 'add' do
  HEAD
    BODY expect(add(2, 3)).to eq(5)
  end
end
"""


@pytest.mark.parametrize(("head", "body"), [
    ("xit 'adds' do", ""),
    ("it 'adds', skip: 'later' do", ""),
    ("it 'adds' do", "skip 'later';"),
    # pending runs the example and expects it to fail: the wrong code makes it so
    ("it 'adds' do", "pending 'later';"),
], ids=["xit", "skip-metadata", "skip", "pending"])
def test_rspec_silencing_a_test_in_any_way_is_rejected(tmp_path: Path, head: str,
                                                       body: str) -> None:
    ensure_ruby_rspec()
    spec = RSPEC_SPEC.replace("HEAD", "it 'adds' do").replace("BODY ", "")
    before = run(tmp_path / "p", RSPEC, {"lib/calc.rb": RUBY_ADD, ".rspec": "",
                                         "spec/calc_spec.rb": spec})
    assert before.passed == 1, before
    spec = RSPEC_SPEC.replace("HEAD", head).replace("BODY", body)
    after = run(tmp_path / "p", RSPEC, {"lib/calc.rb": RUBY_WRONG, "spec/calc_spec.rb": spec})
    assert after.all_passed and after.skipped == 1, after
    rules = [(v.rule, v.path) for v in check_tests(Phase.REFACTOR, before, after)]
    assert rules == [("test-silenced", "spec/calc_spec.rb")], rules


def test_minitest_skip_is_rejected(tmp_path: Path) -> None:
    ensure_ruby_minitest()
    test = ("require 'minitest/autorun'\nrequire 'calc'\n"
            "class CalcTest < Minitest::Test\n"
            "  def test_adds\n    SKIP assert_equal 5, add(2, 3)\n  end\nend\n")
    before = run(tmp_path / "p", MINITEST, {"lib/calc.rb": RUBY_ADD,
                                           "test/calc_test.rb": test.replace("SKIP ", "")})
    assert before.passed == 1, before
    after = run(tmp_path / "p", MINITEST, {"lib/calc.rb": RUBY_WRONG,
                                          "test/calc_test.rb": test.replace("SKIP", "skip;")})
    assert after.all_passed and after.skipped == 1, after
    rules = [(v.rule, v.path) for v in check_tests(Phase.REFACTOR, before, after)]
    assert rules == [("test-silenced", "test/calc_test.rb")], rules


def test_a_skipped_test_staying_skipped_is_no_new_silence(tmp_path: Path) -> None:
    files = {"calc.py": "def add(a, b):\n    return a + b\n",
             "test_calc.py": "import pytest\npytestmark = pytest.mark.skip(reason='x')\n"
                             + CALC_TEST}
    before = run(tmp_path / "p", PYTEST, files)
    assert check_tests(Phase.REFACTOR, before, before) == []


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_reds_test_skipped_in_a_file_red_could_not_load_is_red_skipped(tmp_path: Path) -> None:
    """RED's test file does not load in RED's run (the module is missing), so a test it
    skips with node's option object first shows in GREEN's run: judged there from the
    runner's outcome, as RED's, at its line."""
    test = ("'use strict'\n\nconst test = require('node:test')\n"
            "const { add } = require('../calc')\n\n"
            "test('adds', (t) => {\n  t.assert.strictEqual(add(2, 3), 5)\n})\n\n"
            "test('adds zero', { skip: 'later' }, (t) => {\n"
            "  t.assert.strictEqual(add(0, 3), 3)\n})\n")
    red = run(tmp_path / "p", NODE, {"test/calc.test.js": test})
    assert red.collection_errors == ("test/calc.test.js",), red
    green = run(tmp_path / "p", NODE, {"calc.js": "module.exports = { add: (a, b) => a + b }\n"})
    assert green.all_passed and green.skipped == 1, green
    tree = tmp_path / "p"
    found = check_tests(Phase.GREEN, red, green,
                        read=lambda path: (tree / path).read_text(encoding="utf-8"))
    assert [(v.rule, v.path, v.line) for v in found] == [
        ("red-skipped", "test/calc.test.js", 10)], found


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_step_that_is_no_test_failing_is_no_test_failure(tmp_path: Path) -> None:
    """A command whose tests all pass and whose next step fails (c8's threshold, a type
    test) decides no test verdict: check_tests finds nothing, and the step's failure is
    said on its own (step_fails), after the mutation gate has spoken."""
    steps = TestCommand(("sh", "-c", "node --test && echo 'ERROR: Coverage for lines (90%) "
                         "does not meet global threshold (100%)' && exit 1"),
                        "node", (), False, "test")
    files = {"calc.js": "module.exports = { add: (a, b) => a + b }\n",
             "test/calc.test.js": "const test = require('node:test')\n"
                                  "const { add } = require('../calc')\n"
                                  "test('adds', (t) => t.assert.strictEqual(add(2, 3), 5))\n"}
    report = run(tmp_path / "p", steps, files)
    assert report.exit_code == 1 and report.passed == 1 and not report.all_passed, report
    assert check_tests(Phase.GREEN, report, report) == []
    said = step_fails(report)
    assert [v.rule for v in said] == ["command-step-fails"], said
    assert "does not meet global threshold" in said[0].message
    failing = run(tmp_path / "p", steps, {"calc.js": "module.exports = { add: () => 0 }\n"})
    assert [v.rule for v in check_tests(Phase.GREEN, report, failing)] == ["tests-fail"]
    assert step_fails(failing) == []


@pytest.mark.parametrize(("test_id", "line"), [
    ("test/test_percent.rb::TestPercent#test_formats_with_digits", 3),  # Minitest
    ("test/percent.test.js::formats with digits", 6),                    # a quoted name
    ("test/percent.test.js::handles #1 first", 7),                       # '#' in a name
])
def test_the_line_naming_a_test_is_found_whatever_names_it(test_id: str, line: int) -> None:
    text = ("class TestPercent < Minitest::Test\n  # formats\n"
            "  def test_formats_with_digits\n    skip\n  end\n"
            "test('formats with digits', () => {})\ntest('handles #1 first', () => {})\n")
    assert guards.line_naming(lambda _: text, "t", test_id) == line
