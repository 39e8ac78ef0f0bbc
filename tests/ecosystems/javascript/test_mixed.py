"""A package whose tests mix node:test files and Jest files (rgr.ecosystems.javascript.mixed):
each file run by the runner that owns it, against the real node and Jest of
tests/e2e/runners; rgr's counts equal the two runners' own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from toolchains import ensure_js_runners  # type: ignore[import-not-found]

from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.javascript import mixed as js_mixed
from rgr.ecosystems.registry import detect_test_command

NODE_FILE = """
    const test = require('node:test');
    const assert = require('node:assert');
    test('adds', () => assert.strictEqual(1 + 1, 2));
    test('adds', () => assert.strictEqual(2 + 2, 4));
    test.describe('group', () => { test.it('inner', () => {}); });
"""
NODE_ESM_FILE = """
    import { test } from 'node:test';
    import assert from 'node:assert/strict';
    test('esm', () => assert.equal(1, 1));
"""
JEST_FILE = """
    describe('b', () => {
      it('works', () => expect(1).toBe(1));
      it('works', () => expect(2).toBe(2));
    });
    test('top', () => expect(true).toBe(true));
"""
JEST_GLOBALS_FILE = """
    const { test: check, expect: want } = require('@jest/globals');
    check('imported', () => want(1).toBe(1));
"""


def files(root: Path, contents: dict[str, str]) -> Path:
    for name, text in contents.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.fixture(scope="module")
def node_modules() -> Path:
    modules: Path = ensure_js_runners()
    return modules


def mixed(root: Path, node_modules: Path) -> Path:
    files(root, {
        "package.json": json.dumps({"name": "mix", "scripts": {"test": "jest"},
                                    "devDependencies": {"jest": "30.5.2"}}),
        "test/a.test.js": NODE_FILE, "test/esm.test.mjs": NODE_ESM_FILE,
        "test/b.test.js": JEST_FILE, "__tests__/globals.js": JEST_GLOBALS_FILE,
        "test/helpers.js": "module.exports = { one: 1 };\n",
        "src/index.js": "module.exports = {};\n",
    })
    (root / "node_modules").symlink_to(node_modules)
    return root


def run(root: Path) -> TestReport:
    cmd = detect_test_command(root)
    assert cmd is not None
    return run_tests(cmd, root, timeout=300, env=dict(os.environ))


def own_counts(root: Path, owners: js_mixed.Owners) -> tuple[int, int]:
    """What each runner itself counts, run by hand on its own files."""
    node = subprocess.run(["node", "--test", *owners.node], cwd=root, capture_output=True,
                          text=True, timeout=300)
    jest = subprocess.run(["npx", "jest", "--ci", "--runTestsByPath", *owners.jest],
                          cwd=root, capture_output=True, text=True, timeout=300)
    node_tests = re.search(r"^# tests (\d+)", node.stdout, re.MULTILINE)
    jest_tests = re.search(r"^Tests:.*?(\d+) total", jest.stderr, re.MULTILINE)
    assert node_tests and jest_tests, (node.stdout, jest.stderr)
    return int(node_tests.group(1)), int(jest_tests.group(1))


def test_each_file_goes_to_the_runner_it_imports_or_uses(tmp_path: Path) -> None:
    root = files(tmp_path, {
        "test/a.test.js": NODE_FILE, "test/esm.test.mjs": NODE_ESM_FILE,
        "test/dyn.test.js": "const t = await import('node:test');\n",
        "test/b.test.js": JEST_FILE, "__tests__/globals.js": JEST_GLOBALS_FILE,
        "test/helpers.js": "module.exports = { describe: 1 };\n",
        "test/v.test.js": "import { it, expect } from 'vitest';\nit('v', () => expect(1));\n",
        "src/index.js": "describe('not a test file', () => {});\n",
        "node_modules/x/test/x.test.js": "require('node:test');\n",
        "test/types.d.ts": "declare function test(name: string): void;\n",
    })
    found = js_mixed.owners(root)
    assert found.node == ("test/a.test.js", "test/dyn.test.js", "test/esm.test.mjs")
    assert found.jest == ("__tests__/globals.js", "test/b.test.js")
    assert found.mixed
    assert not js_mixed.owners(files(tmp_path / "one", {"test/a.test.js": NODE_FILE})).mixed


def test_a_file_the_runners_find_by_its_name_alone_is_run(tmp_path: Path) -> None:
    """``test.js`` at the root (node --test's ``**/test.js``, Jest's
    ``?(*.)+(spec|test).js``) and ``spec.js`` are test files in no test folder: a package
    with its node:test tests in ``test.js`` was counted short of its runners by those."""
    root = files(tmp_path, {
        "test.js": NODE_FILE, "lib/spec.js": JEST_FILE, "test/b.test.js": JEST_FILE,
        "src/testing.js": NODE_ESM_FILE, "contest.js": NODE_FILE,
    })
    found = js_mixed.owners(root)
    assert found.node == ("test.js",)
    assert found.jest == ("lib/spec.js", "test/b.test.js")


TAPE_FILE = """
    const test = require('tape');
    test('runs itself', (t) => { t.equal(1, 1); t.end(); });
"""
TSTYCHE_FILE = """
    import { expect, test } from 'tstyche';
    import { mock } from 'node:test';
    test('types', () => { expect<number>().type.toBe<number>(); });
"""


def test_tape_files_are_nodes_type_tests_nobodys_typescript_apart(tmp_path: Path) -> None:
    """A tape or tap file runs its own tests (node --test and borp run it as one test),
    type tests belong to their own tool, and node's TypeScript files are set apart (run
    only where node strips types)."""
    root = files(tmp_path, {
        "test/a.test.js": NODE_FILE, "test/b.test.js": JEST_FILE,
        "test/browser.test.js": TAPE_FILE,
        "test/tap.test.mjs": "import t from 'tap';\nt.test('x', async () => {});\n",
        "test/types/pino.tst.ts": TSTYCHE_FILE,
        "test/types/other.tst.ts": "import { expectType } from 'tsd';\nexpect(1);\n",
        "test/typed.test.ts": "import test from 'node:test';\ntest('t', () => {});\n",
    })
    found = js_mixed.owners(root)
    assert found.node == ("test/a.test.js", "test/browser.test.js", "test/tap.test.mjs")
    assert found.jest == ("test/b.test.js",)
    assert found.node_typescript == ("test/typed.test.ts",)
    typescript_only = js_mixed.owners(files(tmp_path / "ts", {
        "test/typed.test.ts": "import test from 'node:test';\n", "test/b.test.js": JEST_FILE}))
    assert typescript_only.mixed and not typescript_only.node


def node_strips_types() -> bool:
    return subprocess.run(["node", "-e", "process.exit(process.features.typescript ? 0 : 1)"],
                          capture_output=True, timeout=60).returncode == 0


def test_a_mixed_package_is_read_file_by_file_and_counts_as_its_runners_do(
        tmp_path: Path, node_modules: Path) -> None:
    root = mixed(tmp_path, node_modules)
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == js_mixed.NAME, cmd
    assert "mix node:test and Jest" in cmd.source
    # node's own discovery finds TypeScript files only where it strips types
    files(root, {"test/typed.test.ts": "import test from 'node:test';\n"
                                       "test('typed', (): void => {});\n"})
    typed = {"test/typed.test.ts::typed"} if node_strips_types() else set()
    report = run(root)
    assert report.all_passed, report.output_excerpt
    assert set(report.outcomes) == {
        "test/a.test.js::adds", "test/a.test.js::adds #2", "test/a.test.js::group::inner",
        "test/esm.test.mjs::esm",
        "test/b.test.js::b::works", "test/b.test.js::b::works #2", "test/b.test.js::top",
        "__tests__/globals.js::imported",
    } | typed
    node, jest = own_counts(root, js_mixed.owners(root))
    assert report.passed == node + jest + len(typed) == 8 + len(typed)


def test_files_added_after_detection_are_run_by_their_own_runner(
        tmp_path: Path, node_modules: Path) -> None:
    """A RED phase's new test file is split again at the next run."""
    root = mixed(tmp_path, node_modules)
    files(root, {
        "test/new_node.test.js": """
            const test = require('node:test');
            const assert = require('node:assert');
            test('not yet', () => assert.strictEqual(require('../src/index.js').two, 2));
        """,
        "test/new_jest.test.js": "test('not yet either', () => expect(3).toBe(4));\n",
        "test/broken.test.js": "require('node:test');\nrequire('../src/missing.js');\n",
    })
    report = run(root)
    assert report.outcomes["test/new_node.test.js::not yet"].status == "failed"
    assert report.outcomes["test/new_jest.test.js::not yet either"].status == "failed"
    assert report.outcomes["test/b.test.js::top"].status == "passed"
    assert report.collection_errors == ("test/broken.test.js",)
    assert report.load_kinds["test/broken.test.js"] == "missing-code"
    assert report.exit_code != 0


def test_rgr_verify_runs_a_mixed_package_sealed(tmp_path: Path, node_modules: Path) -> None:
    """As `rgr run`'s baseline runs it: a pristine checkout, inside the sandbox."""
    from tests.conftest import clean_env, git

    root = files(tmp_path / "mix", {
        "package.json": json.dumps({"name": "mix", "scripts": {"test": "jest"},
                                    "devDependencies": {"jest": "30.5.2"}}),
        "test/a.test.js": NODE_FILE, "test/b.test.js": JEST_FILE,
        ".gitignore": "node_modules\n",
        # the pinned runners may sit under a folder the sandbox hides (a HOME, /tmp)
        "tdd.toml": f"[sandbox]\nread_paths = [{json.dumps(str(node_modules.parent))}]\n",
    })
    (root / "node_modules").mkdir()
    for entry in node_modules.iterdir():
        (root / "node_modules" / entry.name).symlink_to(entry)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=D", "-c", "user.email=d@e", "commit", "-q", "-m", "mixed")
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(tmp_path / "home"), capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    out = json.loads(done.stdout)
    assert done.returncode == 0 and out["diagnosis"] is None, done.stdout + done.stderr
    assert out["sandbox"]["enabled"] is True
    assert (out["tests"]["passed"], out["tests"]["failed"]) == (6, 0)
