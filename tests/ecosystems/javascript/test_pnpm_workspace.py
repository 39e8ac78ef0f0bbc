"""A pnpm workspace as people have it (root ``package.json``, ``pnpm-workspace.yaml``,
``packages/*``, one package depending on another with ``workspace:*``, Vitest from the
npm registry, installed by the pinned pnpm of tests/e2e/pnpm): ``rgr verify`` counts the
tests as ``pnpm test`` does, sealed, with no configuration beyond showing the pinned
pnpm (full sweep: the install fetches Vitest from the registry)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from harness import sweep_only
from toolchains import ensure_pnpm  # type: ignore[import-not-found]

from tests.conftest import clean_env, committed_project, git

ROOT_CONFIG = """\
import { defineConfig } from 'vitest/config'
export default defineConfig({ test: { projects: ['packages/*'] } })
"""
ADD_TESTS = """\
import { describe, expect, test } from 'vitest'
import { add } from '../src/add'
describe('add', () => {
  test('adds', () => { expect(add(1, 2)).toBe(3) })
  test('adds zero', () => { expect(add(1, 0)).toBe(1) })
})
"""
TOTAL = """\
import { add } from '@ws/add'
export const total = (xs: number[]): number => xs.reduce(add, 0)
"""
TOTAL_TESTS = """\
import { expect, test } from 'vitest'
import { total } from '../src/total'
test('sums', () => { expect(total([1, 2, 3])).toBe(6) })
test('empty is zero', () => { expect(total([])).toBe(0) })
test('one', () => { expect(total([4])).toBe(4) })
"""


def package(name: str, **more: object) -> str:
    return json.dumps({"name": name, "version": "1.0.0", "type": "module",
                       "scripts": {"test": "vitest run"},
                       "devDependencies": {"vitest": "3.2.7"}, **more})


def installed_workspace(tmp_path: Path, root_package: dict[str, object],
                        files: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """The workspace (add and calc, Vitest's, plus ``files``) installed by the pinned
    pnpm from the npm registry, its lockfile committed; and the environment to run in."""
    pnpm_bin = ensure_pnpm() / ".bin"
    home = tmp_path / "home"
    root = tmp_path / "ws"
    env = {**clean_env(home), "PATH": f"{pnpm_bin}{os.pathsep}{clean_env(home)['PATH']}"}
    committed_project(root, {
        "package.json": json.dumps({"name": "ws", "private": True, **root_package}),
        "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
        "packages/add/package.json": package("@ws/add", main="src/add.ts"),
        "packages/add/src/add.ts": "export const add = (a: number, b: number): number => "
                                   "a + b\n",
        "packages/add/test/add.test.ts": ADD_TESTS,
        "packages/calc/package.json": package("@ws/calc",
                                              dependencies={"@ws/add": "workspace:*"}),
        "packages/calc/src/total.ts": TOTAL, "packages/calc/test/total.test.ts": TOTAL_TESTS,
        ".gitignore": "node_modules\n",
        # the pinned pnpm sits in this checkout, which may be under a hidden folder
        "tdd.toml": f"[sandbox]\nread_paths = [{json.dumps(str(pnpm_bin.parent.parent))}]\n",
        **files,
    })
    installed = subprocess.run(["pnpm", "install"], cwd=root, env=env, capture_output=True,
                               text=True, timeout=900, stdin=subprocess.DEVNULL)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    git(root, "add", "pnpm-lock.yaml")  # a user commits the lockfile pnpm wrote
    git(root, "commit", "-q", "-m", "lockfile")
    # pnpm's layout: each package's node_modules links into the root's .pnpm store
    assert (root / "packages" / "calc" / "node_modules" / "@ws" / "add").is_symlink()
    return root, env


def verified(root: Path, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)
    out: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == 0 and out["diagnosis"] is None, done.stdout + done.stderr
    return out


@sweep_only("tests/ecosystems/javascript/test_pnpm_workspace.py",
            "pnpm installs Vitest from the registry")
def test_a_pnpm_workspace_with_root_vitest_projects_verifies_as_pnpm_test(
        tmp_path: Path) -> None:
    root, env = installed_workspace(
        tmp_path, {"scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "3.2.7"}},
        {"vitest.config.mts": ROOT_CONFIG})
    own = subprocess.run(["pnpm", "test"], cwd=root, env=env, capture_output=True,
                         text=True, timeout=600, stdin=subprocess.DEVNULL)
    counted = re.search(r"Tests\s+(\d+) passed", re.sub(r"\x1b\[[0-9;]*m", "", own.stdout))
    assert own.returncode == 0 and counted, own.stdout + own.stderr
    out = verified(root, env)
    inside = {s.get("inside") for s in out["sandbox"]["shown"]}
    assert {"node_modules", "packages/add/node_modules",
            "packages/calc/node_modules"} <= inside, out["sandbox"]
    tests = out["tests"]
    assert (tests["passed"], tests["failed"]) == (int(counted.group(1)), 0) == (5, 0), out


NODE_TESTS = """\
const test = require('node:test')
const assert = require('node:assert')
test('pads', () => assert.strictEqual('7'.padStart(3, '0'), '007'))
test('trims', () => assert.strictEqual(' a '.trim(), 'a'))
"""


LINT = "node -e \"console.log('lint ok')\""


@sweep_only("tests/ecosystems/javascript/test_pnpm_workspace.py",
            "pnpm installs Vitest from the registry")
@pytest.mark.parametrize("script", ["pnpm -r test", "pnpm -r test && pnpm lint"])
def test_a_pnpm_workspace_whose_root_runs_pnpm_r_test_verifies_as_pnpm_r_test(
        tmp_path: Path, script: str) -> None:
    """`pnpm -r test` at the root (alone, or before a lint step the run keeps): each
    package by its own runner (Vitest in two, node's in a third), the per-test results
    merged, as many as pnpm's own run counts."""
    root, env = installed_workspace(
        tmp_path, {"scripts": {"test": script, "lint": LINT}}, {
            "packages/text/package.json": json.dumps({"name": "@ws/text", "version": "1.0.0",
                                                     "scripts": {"test": "node --test"}}),
            "packages/text/test/text.test.js": NODE_TESTS,
        })
    own = subprocess.run(["pnpm", "test"], cwd=root, env=env, capture_output=True,
                         text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert ("lint ok" in own.stdout) == ("lint" in script), own.stdout
    text = re.sub(r"\x1b\[[0-9;]*m", "", own.stdout)
    vitest = [int(n) for n in re.findall(r"Tests\s+(\d+) passed", text)]
    node = [int(n) for n in re.findall(r"# pass (\d+)", text)]
    assert own.returncode == 0 and len(vitest) == 2 and len(node) == 1, own.stdout
    out = verified(root, env)
    tests = out["tests"]
    assert (tests["passed"], tests["failed"]) == (sum(vitest) + sum(node), 0) == (7, 0), out
