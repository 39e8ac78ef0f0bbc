"""Mocha before 10 ignores ``--reporter-options output=FILE`` and prints its JSON report
on standard output (issue 35, item 5): rgr reads it there, among whatever the tests print.
The real Mocha 5 (installed from the registry into a temporary folder with npm, as
tests/e2e/toolchains.py installs the pinned runners) and the pinned current Mocha, which
writes the file."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest
from toolchains import ToolchainMissing, ensure_js_runners

from rgr.base.config import TestCommand
from rgr.base.proc import Completed, run
from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.base import Finished
from rgr.ecosystems.javascript.runner import Mocha, mocha_report_in

TIMEOUT = 300.0
MOCHA_5 = "5.2.0"

SPEC = """
const assert = require('assert');
describe('words', () => {
  it('splits', () => {
    console.log('{ not json');
    console.log(JSON.stringify({ printed: 'by a test' }));
    assert.deepStrictEqual('a b'.split(' '), ['a', 'b']);
  });
  it('splits', () => assert.strictEqual(1, 2));
  it.skip('later', () => {});
});
"""


@pytest.fixture(scope="module")
def mocha5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise ToolchainMissing("NOT VERIFIED: npm is not on PATH to install Mocha 5")
    folder = tmp_path_factory.mktemp("mocha5")
    (folder / "package.json").write_text('{"name": "m5", "version": "0.0.0", "private": true}')
    done = run([npm, "install", "--no-audit", "--no-fund", f"mocha@{MOCHA_5}"], cwd=folder,
               timeout=600.0)
    binary = folder / "node_modules" / ".bin" / "mocha"
    if done.returncode != 0 or done.timed_out or not binary.exists():
        raise ToolchainMissing(f"NOT VERIFIED: npm could not install mocha@{MOCHA_5}:\n"
                               f"{done.describe()}")
    return binary


def project(root: Path) -> Path:
    (root / "test").mkdir(parents=True)
    (root / "test" / "words.spec.js").write_text(textwrap.dedent(SPEC).lstrip())
    (root / "package.json").write_text(json.dumps({"scripts": {"test": "mocha"}}))
    return root


def run_mocha(root: Path, binary: Path) -> TestReport:
    cmd = TestCommand((str(binary),), "mocha", (), False, "test")
    return run_tests(cmd, root, timeout=TIMEOUT, env=dict(os.environ))


def own_stats(root: Path, binary: Path) -> dict[str, int]:
    done = run([str(binary), "--reporter=json"], cwd=root, timeout=TIMEOUT)
    report = mocha_report_in(done.stdout)
    assert report is not None, done.describe()
    stats: dict[str, int] = report["stats"]
    return stats


def test_mocha_5_report_is_read_from_stdout(tmp_path: Path, mocha5: Path) -> None:
    root = project(tmp_path)
    report = run_mocha(root, mocha5)
    assert report.report_error is None, report.output_excerpt
    assert {i: o.status for i, o in report.outcomes.items()} == {
        "words splits": "passed", "words splits #2": "failed", "words later": "skipped"}
    own = own_stats(root, mocha5)
    assert len(report.outcomes) == own["tests"] == 3
    assert (report.passed, report.failed, report.skipped) == (
        own["passes"], own["failures"], own["pending"])
    assert report.outcomes["words splits #2"].kind == "assertion"


def test_current_mocha_writes_the_file(tmp_path: Path) -> None:
    binary = ensure_js_runners() / ".bin" / "mocha"
    root = project(tmp_path)
    report = run_mocha(root, binary)
    assert {i: o.status for i, o in report.outcomes.items()} == {
        "test/words.spec.js::words splits": "passed",
        "test/words.spec.js::words splits #2": "failed",
        "test/words.spec.js::words later": "skipped"}, report.output_excerpt
    assert len(report.outcomes) == own_stats(root, binary)["tests"]


def test_the_report_is_found_among_other_lines() -> None:
    report = {"stats": {"tests": 1}, "tests": [{"title": "a {b}", "fullTitle": "x a {b}"}]}
    text = json.dumps(report, indent=2)
    noise = '{ "stats": broken\n{"printed": true}\nplain line\n'
    assert mocha_report_in(f"{noise}{text}\ntrailing words\n") == report
    assert mocha_report_in(text) == report
    assert mocha_report_in(noise) is None


def test_a_lint_that_fails_before_mocha_starts_is_no_load_error(tmp_path: Path) -> None:
    """deep-diff's `npm test` runs ESLint first (`pretest`): a new test file that breaks
    the project's lint rules stops the run before Mocha starts, naming the file. It did
    load: what failed is the lint, which the run's output says, not a test file that
    could not load (which in RED passes as a right RED's missing code, or is refused as
    tests-do-not-load)."""
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "ranges.js").write_text("var ranges = require('../ranges')\n")
    lint = (f"> deep-diff@1.0.2 lint\n> eslint index.js test\n\n\n{tmp_path}/test/ranges.js\n"
            "   1:34  error  Missing semicolon  semi\n\n"
            "✖ 1 problem (1 error, 0 warnings)\n")
    done = Completed(("npm", "test"), 1, lint, "", 2.0)
    cmd = TestCommand(("npm", "test"), "mocha", (), False, "detected from package.json")
    results = Mocha().read(Finished(cmd, done, tmp_path, tmp_path, 0.0))
    assert results.collection_errors == []
    assert results.report_error is not None and "no report" in results.report_error


def test_a_spec_that_cannot_load_is_still_named(tmp_path: Path) -> None:
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "ranges.js").write_text("var ranges = require('../ranges')\n")
    crash = (f"Error: Cannot find module '../ranges'\nRequire stack:\n"
             f"- {tmp_path}/test/ranges.js\n    at Module._resolveFilename\n")
    done = Completed(("npm", "test"), 1, "", crash, 2.0)
    cmd = TestCommand(("npm", "test"), "mocha", (), False, "detected from package.json")
    results = Mocha().read(Finished(cmd, done, tmp_path, tmp_path, 0.0))
    assert results.collection_errors == ["test/ranges.js"]
