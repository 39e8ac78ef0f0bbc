"""node-tap (the ``tap`` package, TAP 14) read per test (rgr.ecosystems.javascript.tap):
its files and ``t.test`` subtests nest, each body indented under a ``# Subtest:`` header
and closed by its parent's ``ok`` line. rgr counts a subtest with no subtest of its own
as one test, and the points it reads add up to node-tap's own summary (``# { total: 8,
pass: 6, todo: 1, skip: 1 }``); a failing assertion deep down fails its test, named by
its path, and no parent is counted again (real node-tap 21 of tests/e2e/nodetap, real
bubblewrap)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from harness import sweep_only
from toolchains import ensure_node_tap  # type: ignore[import-not-found]

from tests.conftest import clean_env, committed_project

ADD = "module.exports = (a, b) => a + b\n"
ADD_TESTS = """\
const t = require('tap')
const add = require('../src/add')
t.test('adds', async t => {
  t.equal(add(1, 2), 3)
  t.equal(add(2, 2), 4)
})
t.test('group', async t => {
  t.test('inner one', async t => { t.equal(add(0, 0), 0) })
  t.test('inner two', async t => { t.ok(true) })
})
t.test('skipped', { skip: 'later' }, async t => {})
t.test('todo', { todo: true }, async t => {})
t.equal(add(5, 5), 10, 'top-level assertion')
"""
OTHER_TESTS = """\
const t = require('tap')
t.test('other', async t => { t.pass('fine') })
"""
FAILING_TESTS = """\
const t = require('tap')
t.test('broken', async t => {
  t.test('deep fail', async t => { t.equal(1, 2, 'one is two') })
  t.test('deep ok', async t => { t.ok(true) })
})
"""


@pytest.fixture(scope="module")
def node_modules() -> Path:
    modules: Path = ensure_node_tap()
    return modules


def node_tap_project(root: Path, node_modules: Path, tests: dict[str, str]) -> Path:
    committed_project(root, {
        "package.json": json.dumps({"name": "nt", "scripts": {"test": "tap"},
                                    "devDependencies": {"tap": "21.8.0"}}),
        "src/add.js": ADD, **tests, ".gitignore": "node_modules\n.tap\n",
        # the pinned runner may sit under a folder the sandbox hides (a HOME, /tmp)
        "tdd.toml": f"[sandbox]\nread_paths = [{json.dumps(str(node_modules.parent))}]\n",
    })
    (root / "node_modules").mkdir()
    for entry in node_modules.iterdir():
        if entry.name != ".cache":
            (root / "node_modules" / entry.name).symlink_to(entry)
    return root


def own_summary(root: Path, home: Path) -> dict[str, int]:
    """node-tap's own last words, run as its user runs it."""
    done = subprocess.run(["npm", "test"], cwd=root, env=clean_env(home),
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    found = re.search(r"^# \{ (.*) \}$", done.stdout, re.MULTILINE)
    assert found, done.stdout + done.stderr
    return {k: int(v) for k, v in (p.split(": ") for p in found.group(1).split(", "))}


def rgr_verify(root: Path, home: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(home), capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    out: dict[str, object] = json.loads(done.stdout)
    return out


def test_a_node_tap_project_verifies_per_subtest_as_node_tap_counts(
        tmp_path: Path, node_modules: Path) -> None:
    root = node_tap_project(tmp_path / "nt", node_modules,
                            {"test/add.test.js": ADD_TESTS, "test/other.test.js": OTHER_TESTS})
    assert own_summary(root, tmp_path / "home") == {"total": 8, "pass": 6, "todo": 1,
                                                    "skip": 1}
    out = rgr_verify(root, tmp_path / "home")
    assert out["diagnosis"] is None, out
    tests = out["tests"]
    assert isinstance(tests, dict)
    assert tests["command"] == ["npm", "test"]
    # adds (its 2 points one test), group::inner one, group::inner two, the top-level
    # assertion, other; skipped and todo: node-tap's 8 points in 7 tests
    assert (tests["passed"], tests["failed"], tests["skipped"]) == (5, 0, 2), out


@sweep_only("tests/ecosystems/javascript/test_node_tap.py",
            "a red suite: node-tap runs ~30 s a time")
def test_a_failing_assertion_deep_down_fails_its_own_subtest_only(
        tmp_path: Path, node_modules: Path) -> None:
    root = node_tap_project(tmp_path / "nt", node_modules,
                            {"test/fail.test.js": FAILING_TESTS,
                             "test/other.test.js": OTHER_TESTS})
    assert own_summary(root, tmp_path / "home") == {"total": 3, "pass": 2, "fail": 1}
    out = rgr_verify(root, tmp_path / "home")
    tests = out["tests"]
    assert isinstance(tests, dict)
    assert (tests["passed"], tests["failed"], tests["errors"]) == (2, 1, 0), out
    assert tests["failing"] == ["test/fail.test.js::broken::deep fail"], out
