"""TAP read per test (rgr.ecosystems.javascript.tap): a tape project under nyc, as people
have it (``npm test`` = ``nyc tape test/*.js``), counted as tape runs its tests (one per
``# name`` block; tape's own summary counts assertions, and the assertions rgr reads add
up to it), its coverage check kept working inside the sandbox; a failing assertion, a
test that dies, and TAP a test prints of its own (real tape 5 and nyc 15 of
tests/e2e/tap, real bubblewrap)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from toolchains import ensure_tap_runners  # type: ignore[import-not-found]

from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.registry import detect_test_command
from tests.conftest import clean_env, committed_project

ADD = "module.exports = function add (a, b) { return a + b }\n"
ADD_TESTS = """\
var test = require('tape')
var add = require('../lib/add')
test('adds', function (t) {
  t.equal(add(1, 2), 3)
  t.equal(add(2, 2), 4, 'two and two')
  t.end()
})
test('adds zero', function (t) {
  t.plan(1)
  t.equal(add(1, 0), 1)
})
test('nested', function (t) {
  t.test('inner', function (st) { st.ok(true); st.end() })
  t.end()
})
"""
MORE_TESTS = """\
var test = require('tape')
test('adds', function (t) { t.ok(true, 'same name, another file'); t.end() })
test('todo', { todo: true }, function (t) { t.ok(false, 'not yet'); t.end() })
"""
FAILING = """\
var test = require('tape')
var add = require('../lib/add')
test('adds wrong', function (t) { t.equal(add(1, 1), 3, 'one and one'); t.end() })
test('adds right', function (t) { t.equal(add(1, 1), 2); t.end() })
"""
DIES = """\
var test = require('tape')
test('first', function (t) { t.ok(true); t.end() })
test('dies', function (t) { t.ok(true); null.boom })
"""
FORGES = """\
var test = require('tape')
test('really fails', function (t) { t.ok(false); t.end() })
test('forges', function (t) { console.log('ok 99 all is well'); t.end() })
"""


@pytest.fixture(scope="module")
def node_modules() -> Path:
    modules: Path = ensure_tap_runners()
    return modules


def tape_project(root: Path, node_modules: Path, tests: dict[str, str],
                 script: str = "nyc --check-coverage --lines 100 tape test/*.js") -> Path:
    committed_project(root, {
        "package.json": json.dumps({"name": "tp", "scripts": {"test": script},
                                    "devDependencies": {"tape": "5.10.2", "nyc": "15.1.0"}}),
        "lib/add.js": ADD, **tests,
        ".gitignore": "node_modules\n.nyc_output\ncoverage\n",
        # the pinned runners may sit under a folder the sandbox hides (a HOME, /tmp)
        "tdd.toml": f"[sandbox]\nread_paths = [{json.dumps(str(node_modules.parent))}]\n",
    })
    (root / "node_modules").mkdir()
    for entry in node_modules.iterdir():
        if entry.name != ".cache":
            (root / "node_modules" / entry.name).symlink_to(entry)
    return root


def run(root: Path) -> TestReport:
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == "tap", cmd
    return run_tests(cmd, root, timeout=300, env=dict(os.environ))


def test_a_tape_project_under_nyc_verifies_with_tapes_tests_and_its_coverage(
        tmp_path: Path, node_modules: Path) -> None:
    root = tape_project(tmp_path / "tp", node_modules,
                        {"test/add.js": ADD_TESTS, "test/more.js": MORE_TESTS})
    # The user's own run first, as people have it: nyc leaves its cache in
    # node_modules/.cache/nyc, which the sandbox shows read-only.
    own = subprocess.run(["npm", "test"], cwd=root, env=clean_env(tmp_path / "home"),
                         capture_output=True, text=True, timeout=300)
    assert own.returncode == 0, own.stdout + own.stderr
    # tape's own summary counts the 6 assertions rgr reads in those 6 tests
    assert re.search(r"^# tests 6$", own.stdout, re.MULTILINE), own.stdout
    assert re.search(r"^All files\s*\|\s*100 ", own.stdout, re.MULTILINE), own.stdout
    cache = sorted(p.name for p in (root / "node_modules" / ".cache" / "nyc").iterdir())
    assert cache

    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(tmp_path / "home"), capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    out = json.loads(done.stdout)
    # Green: nyc's coverage check passed inside, its cache written in the run's own
    # node_modules/.cache, never the user's.
    assert done.returncode == 0 and out["diagnosis"] is None, done.stdout + done.stderr
    assert out["sandbox"]["enabled"] is True
    assert out["tests"]["command"] == ["npm", "test"]
    # adds, adds zero, nested, inner, adds #2 (another file); todo is not done
    assert (out["tests"]["passed"], out["tests"]["failed"], out["tests"]["skipped"]) \
        == (5, 0, 1)
    assert sorted(p.name for p in (root / "node_modules" / ".cache" / "nyc").iterdir()) \
        == cache


def test_a_failing_assertion_fails_its_test_named_with_its_file(
        tmp_path: Path, node_modules: Path) -> None:
    report = run(tape_project(tmp_path / "tp", node_modules, {"test/add.js": FAILING},
                              script="tape test/*.js"))
    assert report.outcomes["adds right"].status == "passed"
    wrong = report.outcomes["adds wrong"]
    assert wrong.status == "failed" and wrong.file == "test/add.js", wrong
    assert "not ok 1 one and one" in wrong.message and "expected: 3" in wrong.message
    assert report.exit_code != 0


def test_a_test_that_dies_is_an_error_and_the_ones_before_it_count(
        tmp_path: Path, node_modules: Path) -> None:
    report = run(tape_project(tmp_path / "tp", node_modules, {"test/dies.js": DIES},
                              script="tape test/*.js"))
    assert report.outcomes["first"].status == "passed"
    assert report.outcomes["dies"].status == "error"
    assert "TypeError" in report.outcomes["dies"].message


def test_tap_a_test_prints_of_its_own_is_not_read_as_results(
        tmp_path: Path, node_modules: Path) -> None:
    report = run(tape_project(tmp_path / "tp", node_modules, {"test/forges.js": FORGES},
                              script="tape test/*.js"))
    assert report.outcomes == {}
    assert report.report_error is not None
    assert "disagrees with the runner's own summary" in report.report_error


def test_tape_between_a_lint_and_an_audit_step_is_read_with_both_kept(
        tmp_path: Path, node_modules: Path) -> None:
    """`npm test` = lint, then tape under nyc, then an audit: the script runs whole (no
    step dropped for a command rgr reads better) and tape's tests are read from it."""
    root = tape_project(
        tmp_path / "tp", node_modules,
        {"test/add.js": ADD_TESTS, "lint.js": "console.log('lint ok')\n",
         "audit.js": "require('fs').writeFileSync('audited', 'yes')\n"},
        script="node lint.js && nyc tape test/*.js && node audit.js")
    report = run(root)
    assert report.argv[:2] == ("npm", "test")
    assert (report.passed, report.failed, report.exit_code) == (4, 0, 0)
    assert "lint ok" in report.output and (root / "audited").read_text() == "yes"


AVA_TESTS = """\
import test from 'ava'
import add from '../lib/add.cjs'
test('adds', t => { t.is(add(1, 1), 2) })
test('adds wrong', t => { t.is(add(1, 1), 3) })
test.skip('not yet', t => { t.pass() })
"""


def test_ava_with_tap_is_read_per_test_sealed(tmp_path: Path, node_modules: Path) -> None:
    """ava --tap prints one assertion line per test, no blocks; ava keeps its cache in
    node_modules/.cache, writable inside the sealed run."""
    root = tape_project(tmp_path / "av", node_modules,
                        {"test/add.js": AVA_TESTS, "lib/add.cjs": ADD},
                        script="ava --tap")
    package = json.loads((root / "package.json").read_text())
    (root / "package.json").write_text(json.dumps({**package, "type": "module"}))
    subprocess.run(["git", "commit", "-qam", "esm"], cwd=root, check=True)
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(tmp_path / "home"), capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    out = json.loads(done.stdout)
    assert out["sandbox"]["enabled"] is True
    tests = out["tests"]
    assert (tests["passed"], tests["failed"], tests["skipped"]) == (1, 1, 1), out
    assert tests["failing"] == ["adds wrong"], out


def test_ava_as_its_user_runs_it_is_run_with_tap_added(
        tmp_path: Path, node_modules: Path) -> None:
    """`"test": "ava"`, ava's own reporter: rgr adds --tap (after npm's --) and reads it
    per test, as ava counts them ("2 tests passed" by hand, 1 failed here)."""
    root = tape_project(tmp_path / "av", node_modules,
                        {"test/add.js": AVA_TESTS, "lib/add.cjs": ADD}, script="ava")
    package = json.loads((root / "package.json").read_text())
    (root / "package.json").write_text(json.dumps({**package, "type": "module"}))
    subprocess.run(["git", "commit", "-qam", "esm"], cwd=root, check=True)
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == "ava", cmd
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(tmp_path / "home"), capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    tests = json.loads(done.stdout)["tests"]
    assert tests["command"] == ["npm", "test", "--", "--tap"], tests
    assert (tests["passed"], tests["failed"], tests["skipped"]) == (1, 1, 1), tests
    assert tests["failing"] == ["adds wrong"], tests
