"""rgr counts what the runner counts (issue 35, item 4): tests titled alike in one file
are each a test (Mocha, node's runner, Jest, Vitest), node's subtests, todo and skipped
tests count, and pytest's parametrized cases are one test each. Real runners (the pinned
ones of tests/e2e/runners, the pytest running this suite) on real projects; the runner's
own count is read from its own output."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from toolchains import ensure_js_runners

from rgr.base.config import TestCommand
from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.registry import detect_test_command

TIMEOUT = 300.0


@pytest.fixture(scope="module")
def node_modules() -> Path:
    return ensure_js_runners()


def project(root: Path, files: dict[str, str], node_modules: Path | None = None) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))
    if node_modules is not None:
        (root / "node_modules").symlink_to(node_modules)
    return root


def run(root: Path, cmd: TestCommand | None = None) -> TestReport:
    cmd = cmd or detect_test_command(root)
    assert cmd is not None
    return run_tests(cmd, root, timeout=TIMEOUT, env=dict(os.environ))


def own_output(root: Path, *argv: str) -> str:
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"})
    return done.stdout + done.stderr


def by_status(report: TestReport) -> dict[str, int]:
    return {"passed": report.passed, "failed": report.failed, "error": report.errors,
            "skipped": report.skipped}


MOCHA_SPEC = """
const assert = require('assert');
describe('dup', () => {
  it('same', () => {});
  it('same', () => { assert.strictEqual(1, 2); });
  it.skip('same', () => {});
  it('other', () => {});
});
describe('dup', () => { it('same', () => {}); });
it('top', () => {});
it('top', () => {});
"""


def test_mocha_tests_titled_alike_each_count(tmp_path: Path, node_modules: Path) -> None:
    root = project(tmp_path, {"package.json": json.dumps({"scripts": {"test": "mocha"}}),
                              "test/a.spec.js": MOCHA_SPEC}, node_modules)
    report = run(root)
    own = json.loads(own_output(root, str(node_modules / ".bin" / "mocha"),
                                "--reporter=json"))["stats"]
    assert len(report.outcomes) == own["tests"] == 7, report.output_excerpt
    assert by_status(report) == {"passed": own["passes"], "failed": own["failures"],
                                 "error": 0, "skipped": own["pending"]}
    ids = "test/a.spec.js::dup same"
    assert [report.outcomes[i].status for i in (ids, f"{ids} #2", f"{ids} #3", f"{ids} #4")
            ] == ["passed", "failed", "skipped", "passed"]
    assert report.failing_ids == (f"{ids} #2",)


NODE_TESTS = """
const { test, describe, it } = require('node:test');
test('same', () => {});
test('same', () => {});
test('parent', async (t) => {
  await t.test('child', () => {});
  await t.test('child', () => {});
});
test.todo('later');
test('todo inside', { todo: true }, () => { throw new Error('not yet'); });
test.skip('skipped');
describe('suite', () => {
  it('one', () => {});
  it('one', () => {});
  describe('inner', () => { it('deep', () => {}); });
});
"""


def test_node_runner_counts_what_node_counts(tmp_path: Path) -> None:
    """Duplicate names (top level, subtests, inside a describe) were merged: node's
    own ``# tests`` is the count, todo and skipped tests included."""
    root = project(tmp_path, {"package.json": json.dumps({"scripts": {"test": "node --test"}}),
                              "test/a.test.js": NODE_TESTS})
    report = run(root)
    own = own_output(root, "node", "--test", "--test-reporter=tap")
    tests = int(re.search(r"^# tests (\d+)", own, re.MULTILINE).group(1))  # type: ignore[union-attr]
    skipped = sum(int(n) for n in re.findall(r"^# (?:skipped|todo) (\d+)", own, re.MULTILINE))
    assert len(report.outcomes) == tests == 11, report.output_excerpt
    assert by_status(report)["skipped"] == skipped == 3
    assert {"test/a.test.js::same", "test/a.test.js::same #2",
            "test/a.test.js::parent::child #2", "test/a.test.js::suite::one #2"
            } <= set(report.outcomes)


def test_a_file_without_node_tests_has_the_same_id_in_every_checkout(tmp_path: Path) -> None:
    """node names a file with no node:test test in it (pino's tape files, a plain
    script) after its absolute path: as an id that changed with every checkout, RED saw
    each such file removed and a new one passing. Its id is its path in the project."""
    files = {"package.json": json.dumps({"scripts": {"test": "node --test"}}),
             "test/script.test.js": "require('assert').strictEqual(1, 1);\n"}
    first = run(project(tmp_path / "one", files))
    second = run(project(tmp_path / "two", files))
    assert set(first.outcomes) == set(second.outcomes) == {
        "test/script.test.js::test/script.test.js"}, first.output_excerpt
    assert first.passed == 1


@pytest.mark.parametrize("runner", ["jest", "vitest"])
def test_jest_and_vitest_tests_titled_alike_each_count(tmp_path: Path, node_modules: Path,
                                                       runner: str) -> None:
    head = "import { it, expect } from 'vitest';\n" if runner == "vitest" else ""
    package = ({"type": "module", "scripts": {"test": "vitest run"}} if runner == "vitest"
               else {"scripts": {"test": "jest"}})
    root = project(tmp_path, {"package.json": json.dumps(package),
                              "src/a.test.js": head + "it('same', () => expect(1).toBe(1));\n"
                                                      "it('same', () => expect(1).toBe(2));\n"},
                   node_modules)
    report = run(root)
    assert {i: o.status for i, o in report.outcomes.items()} == {
        "src/a.test.js::same": "passed", "src/a.test.js::same #2": "failed"}, \
        report.output_excerpt


def test_pytest_parametrized_cases_count_as_pytest_counts_them(tmp_path: Path) -> None:
    root = project(tmp_path, {
        "pytest.ini": "[pytest]\n",
        "tests/test_params.py": """
            import pytest

            @pytest.mark.parametrize("n", [1, 1, 2, 3])
            def test_small(n):
                assert n < 3

            @pytest.mark.parametrize("word", ["a", "a b"], ids=["same", "same"])
            def test_words(word):
                assert word

            class TestKinds:
                @pytest.mark.parametrize("x", [pytest.param(0, marks=pytest.mark.skip), 1])
                def test_x(self, x):
                    assert x
        """})
    report = run(root, TestCommand((sys.executable, "-m", "pytest"), "pytest", (), False,
                                   "test"))
    own = own_output(root, sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                     "-p", "no:randomly")
    counted = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped)", own)}
    assert len(report.outcomes) == sum(counted.values()) == 8, report.output_excerpt
    assert by_status(report) == {"passed": counted["passed"], "failed": counted["failed"],
                                 "error": 0, "skipped": counted["skipped"]}
