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

from conftest import clean_env, committed_project, git
from harness import sweep_only
from toolchains import ensure_pnpm  # type: ignore[import-not-found]

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


@sweep_only("tests/test_pnpm_workspace.py", "pnpm installs Vitest from the registry")
def test_a_pnpm_workspace_with_root_vitest_projects_verifies_as_pnpm_test(
        tmp_path: Path) -> None:
    pnpm_bin = ensure_pnpm() / ".bin"
    home = tmp_path / "home"
    root = tmp_path / "ws"
    env = {**clean_env(home), "PATH": f"{pnpm_bin}{os.pathsep}{clean_env(home)['PATH']}"}
    committed_project(root, {
        "package.json": json.dumps({"name": "ws", "private": True,
                                    "scripts": {"test": "vitest run"},
                                    "devDependencies": {"vitest": "3.2.7"}}),
        "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
        "vitest.config.mts": ROOT_CONFIG,
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
    })
    installed = subprocess.run(["pnpm", "install"], cwd=root, env=env, capture_output=True,
                               text=True, timeout=900, stdin=subprocess.DEVNULL)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    git(root, "add", "pnpm-lock.yaml")  # a user commits the lockfile pnpm wrote
    git(root, "commit", "-q", "-m", "lockfile")
    # pnpm's layout: each package's node_modules links into the root's .pnpm store
    assert (root / "packages" / "calc" / "node_modules" / "@ws" / "add").is_symlink()
    own = subprocess.run(["pnpm", "test"], cwd=root, env=env, capture_output=True,
                         text=True, timeout=600, stdin=subprocess.DEVNULL)
    counted = re.search(r"Tests\s+(\d+) passed", re.sub(r"\x1b\[[0-9;]*m", "", own.stdout))
    assert own.returncode == 0 and counted, own.stdout + own.stderr
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)
    out = json.loads(done.stdout)
    assert done.returncode == 0 and out["diagnosis"] is None, done.stdout + done.stderr
    inside = {s.get("inside") for s in out["sandbox"]["shown"]}
    assert {"node_modules", "packages/add/node_modules",
            "packages/calc/node_modules"} <= inside, out["sandbox"]
    tests = out["tests"]
    assert (tests["passed"], tests["failed"]) == (int(counted.group(1)), 0) == (5, 0), out
