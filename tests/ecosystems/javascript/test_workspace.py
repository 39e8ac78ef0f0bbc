"""A JavaScript workspace whose root test script runs every package's test script
(rgr.ecosystems.javascript.workspace): each package run in its folder by its own runner,
the per-test results merged with package-prefixed ids; rgr's counts equal the root
command's own. Real npm and node here (node:test packages need no install); a pnpm
workspace with Vitest from the registry is in tests/ecosystems/javascript/test_pnpm_workspace.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
from harness import sweep_only

from rgr.base.config import Config
from rgr.check.verify import run_tests
from rgr.ecosystems.base import TestOutcome
from rgr.ecosystems.javascript import workspace
from rgr.ecosystems.registry import configured_command, detect_test_command

ADD_TESTS = """
    const test = require('node:test');
    const assert = require('node:assert');
    test('adds', () => assert.strictEqual(1 + 2, 3));
    test.describe('zero', () => { test.it('is neutral', () => assert.strictEqual(1 + 0, 1)); });
"""
CALC_TESTS = """
    const test = require('node:test');
    const assert = require('node:assert');
    test('sums', () => assert.strictEqual([1, 2, 3].reduce((a, b) => a + b, 0), 6));
    test('fails', () => assert.strictEqual(1, 2));
    test('skipped', { skip: 'later' }, () => {});
"""


def package(name: str, test: str | None = "node --test") -> str:
    scripts = {"test": test} if test else {}
    return json.dumps({"name": name, "version": "1.0.0", "scripts": scripts})


def workspace_at(root: Path, root_script: str, *, pnpm: bool) -> Path:
    files = {
        "package.json": json.dumps({"name": "ws", "private": True,
                                    "scripts": {"test": root_script},
                                    **({} if pnpm else {"workspaces": ["packages/*",
                                                                       "tools/*"]})}),
        "packages/add/package.json": package("@ws/add"),
        "packages/add/test/add.test.js": ADD_TESTS,
        "packages/calc/package.json": package("@ws/calc"),
        "packages/calc/test/calc.test.js": CALC_TESTS,
        "packages/docs/package.json": package("@ws/docs", test=None),
        "tools/lint/package.json": package("@ws/lint"),
        "tools/lint/test/lint.test.js": "require('node:test')('lints', () => {});\n",
    }
    if pnpm:
        files["pnpm-workspace.yaml"] = ("packages:\n  - 'packages/*'  # the libraries\n"
                                        "  - tools/*\n  - '!tools/lint'\n")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.mark.parametrize("script", ["pnpm -r test", "pnpm --recursive run test",
                                    "npm test --workspaces", "npm run test -ws",
                                    "yarn workspaces run test"])
def test_the_root_script_running_every_package_is_a_workspace(script: str) -> None:
    assert workspace.runs_every_package(script.split())


@pytest.mark.parametrize("script", ["pnpm test", "npm test", "pnpm -r build",
                                    "npm test --workspace=a", "yarn test"])
def test_other_scripts_are_not(script: str) -> None:
    assert not workspace.runs_every_package(script.split())


def test_pnpm_globs_choose_packages_with_a_test_script(tmp_path: Path) -> None:
    root = workspace_at(tmp_path, "pnpm -r test", pnpm=True)
    # docs has no test script (pnpm -r test skips it); '!tools/lint' leaves lint out
    assert workspace.package_folders(root) == ["packages/add", "packages/calc"]
    assert workspace.package_folders(workspace_at(tmp_path / "npm", "npm test -ws",
                                                  pnpm=False)) == [
        "packages/add", "packages/calc", "tools/lint"]


def test_an_npm_workspace_is_counted_as_npm_test_workspaces_counts(tmp_path: Path) -> None:
    root = workspace_at(tmp_path, "npm test --workspaces", pnpm=False)
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == workspace.NAME
    report = run_tests(cmd, root, timeout=120)
    assert report.report_error is None, report.output
    by_status: dict[str, set[str]] = {}
    for outcome in report.outcomes.values():
        by_status.setdefault(outcome.status, set()).add(outcome.test_id)
    assert by_status == {
        "passed": {"packages/add/test/add.test.js::adds",
                   "packages/add/test/add.test.js::zero::is neutral",
                   "packages/calc/test/calc.test.js::sums",
                   "tools/lint/test/lint.test.js::lints"},
        "failed": {"packages/calc/test/calc.test.js::fails"},
        "skipped": {"packages/calc/test/calc.test.js::skipped"},
    }, report.output
    assert report.outcomes["packages/calc/test/calc.test.js::fails"].file == \
        "packages/calc/test/calc.test.js"
    assert report.exit_code != 0
    # npm's own run of the same script: node's summaries, summed over the packages
    own = subprocess.run(["npm", "test", "--workspaces"], cwd=root, capture_output=True,
                         text=True, timeout=120, stdin=subprocess.DEVNULL)
    counts = [int(n) for n in re.findall(r"^# (?:pass|fail|skipped) (\d+)", own.stdout,
                                         re.MULTILINE)]
    assert own.returncode != 0 and sum(counts) == len(report.outcomes) == 6, own.stdout


def test_a_configured_recursive_command_is_the_workspace_runner(tmp_path: Path) -> None:
    root = workspace_at(tmp_path, "pnpm -r test", pnpm=True)
    config = Config(test_command="pnpm -r test")
    assert configured_command(config, root).runner == workspace.NAME
    assert configured_command(Config(test_command="npm test"), root).runner == workspace.NAME


@pytest.mark.parametrize(("test_id", "file", "merged"), [
    ("test/x.test.js::adds", "test/x.test.js", "packages/a/test/x.test.js::adds"),
    ("test/tape.js", "test/tape.js", "packages/a/test/tape.js"),  # node ran a whole file
    ("adds", "test/x.js", "packages/a::adds"),  # a TAP test, named alone
    ("adds", None, "packages/a::adds"),
])
def test_ids_name_the_package(test_id: str, file: str | None, merged: str) -> None:
    assert workspace.workspace_id("packages/a", TestOutcome(test_id, file, "passed", "")) \
        == merged


def test_a_package_whose_runner_rgr_cannot_read_is_named(tmp_path: Path) -> None:
    root = workspace_at(tmp_path, "npm test --workspaces", pnpm=False)
    (root / "packages" / "docs" / "package.json").write_text(
        package("@ws/docs", test="echo checked"))
    cmd = detect_test_command(root)
    assert cmd is not None
    report = run_tests(cmd, root, timeout=120)
    # the other packages ran, but a run with one package unread is not refereed: it is
    # blind as a whole (rgr refuses it), naming the package
    assert "> packages/add: npm test" in report.output
    assert report.outcomes == {} and report.report_error is not None
    assert report.report_error.startswith("packages/docs: its test script gave no "
                                          "per-test results"), report.report_error


@pytest.mark.parametrize(("script", "before", "after"), [
    ("pnpm -r test && pnpm lint", (), ("pnpm lint",)),
    ("npm run build && npm test --workspaces && npm run lint", ("npm run build",),
     ("npm run lint",)),
    ("pnpm -r test", (), ()),
])
def test_a_compound_root_script_is_its_test_step_and_the_others(
        script: str, before: tuple[str, ...], after: tuple[str, ...]) -> None:
    assert workspace.script_steps(script) == workspace.Steps(before, after)


@pytest.mark.parametrize("script", ["pnpm -r test || true", "pnpm -r test; pnpm lint",
                                    "pnpm lint && eslint .", "pnpm -r test && pnpm -r test"])
def test_a_script_joined_otherwise_is_no_workspaces(script: str) -> None:
    assert workspace.script_steps(script) is None


def test_a_compound_root_script_reads_the_tests_and_runs_its_other_steps(
        tmp_path: Path) -> None:
    """`npm test --workspaces && npm run lint`: the tests read per test as npm counts
    them, the lint step run after them as the script runs it; a lint that fails after
    green tests makes the run red, as it makes `npm test` fail."""
    root = workspace_at(tmp_path, "npm test --workspaces && npm run lint", pnpm=False)
    (root / "packages/calc/test/calc.test.js").write_text(
        "require('node:test')('sums', () => {});\n")
    # (npm's own run stops at a package without a test script)
    (root / "packages/docs/package.json").unlink()
    data = json.loads((root / "package.json").read_text())
    data["scripts"]["lint"] = ("node -e \"console.log('linted'); "
                               "process.exit(+process.env.LINT_FAILS || 0)\"")
    (root / "package.json").write_text(json.dumps(data))
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == workspace.NAME
    assert "its other steps (npm run lint) run as the script runs them" in cmd.source
    report = run_tests(cmd, root, timeout=120)
    assert report.report_error is None and report.all_passed, report.output
    assert report.passed == 4 and "linted" in report.output, report.output
    own = subprocess.run(["npm", "test"], cwd=root, capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    counts = [int(n) for n in re.findall(r"^# pass (\d+)", own.stdout, re.MULTILINE)]
    assert own.returncode == 0 and sum(counts) == 4 and "linted" in own.stdout, own.stdout

    failing = run_tests(cmd, root, timeout=120, env={**_env(), "LINT_FAILS": "1"})
    assert failing.passed == 4 and failing.failed == 0 and failing.exit_code != 0
    assert not failing.all_passed, failing.output



@sweep_only("tests/ecosystems/javascript/test_workspace.py")
def test_a_step_before_the_tests_that_fails_stops_the_script_there(tmp_path: Path) -> None:
    """As it stops npm's (the mechanism is the test above's)."""
    root = workspace_at(tmp_path, "npm run lint && npm test --workspaces", pnpm=False)
    data = json.loads((root / "package.json").read_text())
    data["scripts"]["lint"] = "node -e \"process.exit(3)\""
    (root / "package.json").write_text(json.dumps(data))
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == workspace.NAME
    stopped = run_tests(cmd, root, timeout=120)
    assert stopped.outcomes == {} and stopped.report_error == (
        "the test script's step before the tests, `npm run lint`, failed (exit 3), so no "
        "package's tests ran"), stopped.output


def _env() -> dict[str, str]:
    return dict(os.environ)
