"""JavaScript tools write their caches inside ``node_modules``, which the sandbox shows
read-only: Vite 6+ bundles a TypeScript config into ``node_modules/.vite-temp``, Vitest
keeps its results in ``node_modules/.vite/vitest``. A sealed run gets those folders
writable and fresh (rgr.sandbox.tool_caches_inside), so a Vitest project with a
``vitest.config.mts`` passes `rgr verify` as it passes its own command, with no
configuration; and a write the runner itself makes into a package (outside any test) is
diagnosed by `verify` and `doctor` as a read-only write, its fix tried first (real
bubblewrap, the pinned Vitest of tests/e2e/runners)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest
from toolchains import ensure_js_runners

from rgr.base.proc import run
from rgr.ecosystems.registry import resolve_test_command
from rgr.sandbox import tool_caches_inside
from rgr.sandbox.sealer import open_sealer
from rgr.sandbox.toolchain import Shown, Toolchain
from rgr.store.workspace import open_workspace
from tests.conftest import clean_env, committed_project, git
from tests.fake_backend import FakeBackend

CONFIG = """\
import { defineConfig } from 'vitest/config'
const environment: string = 'node'
export default defineConfig({ test: { environment } })
"""
#: A config that writes into one of the project's packages when it loads.
CONFIG_WRITING_A_PACKAGE = """\
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'
const stamp: string = join(process.cwd(), 'node_modules', 'stamp', 'loaded')
writeFileSync(stamp, 'yes')
export default defineConfig({ test: { environment: 'node' } })
"""
SOURCE = "export const add = (a: number, b: number): number => a + b\n"
TESTS = """\
import { describe, expect, test } from 'vitest'
import { add } from '../src/add'
describe('add', () => {
  test('adds', () => { expect(add(1, 2)).toBe(3) })
  test('adds zero', () => { expect(add(1, 0)).toBe(1) })
})
test('adds negatives', () => { expect(add(-1, -2)).toBe(-3) })
"""


@pytest.fixture(scope="module")
def runners() -> Path:
    modules: Path = ensure_js_runners()
    return modules


def vite_project(root: Path, runners: Path, config: str) -> Path:
    """A TypeScript Vitest project as `npm create vite` makes one, its node_modules the
    pinned runners' packages (each entry a link, as pnpm's are)."""
    committed_project(root, {
        "package.json": json.dumps({"name": "vp", "type": "module",
                                    "scripts": {"test": "vitest run"},
                                    "devDependencies": {"vitest": "3.2.7",
                                                        "typescript": "5.9.3"}}),
        "vitest.config.mts": config, "src/add.ts": SOURCE, "test/add.test.ts": TESTS,
        ".gitignore": "node_modules\n",
        # the pinned runners may sit under a folder the sandbox hides (a HOME, /tmp)
        "tdd.toml": f"[sandbox]\nread_paths = [{json.dumps(str(runners.parent))}]\n",
    })
    modules = root / "node_modules"
    modules.mkdir()
    for entry in runners.iterdir():
        if not entry.name.startswith(".vite"):
            (modules / entry.name).symlink_to(entry)
    return root


def rgr_verify(root: Path, home: Path) -> tuple[int, dict[str, object]]:
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(home), capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    return done.returncode, json.loads(done.stdout)


def own_count(root: Path, home: Path) -> int:
    """The project's own command, as its user runs it: Vitest's "Tests  N passed"."""
    done = subprocess.run(["npm", "test"], cwd=root, env=clean_env(home),
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.search(r"Tests\s+(\d+) passed", re.sub(r"\x1b\[[0-9;]*m", "", done.stdout))
    assert found, done.stdout
    return int(found.group(1))


def test_a_vitest_project_with_a_typescript_config_verifies_as_its_own_command(
        tmp_path: Path, runners: Path) -> None:
    root = vite_project(tmp_path / "vp", runners, CONFIG)
    code, out = rgr_verify(root, tmp_path / "home")
    assert code == 0 and out["diagnosis"] is None, out
    assert out["sandbox"]["enabled"] is True  # type: ignore[index]
    # Vite's bundled config and Vitest's results went to the run's own folders: the
    # user's node_modules is as it was.
    assert not [p.name for p in (root / "node_modules").iterdir() if not p.is_symlink()]
    tests = out["tests"]
    assert isinstance(tests, dict)
    assert (tests["passed"], tests["failed"]) == (own_count(root, tmp_path / "home"), 0) \
        == (3, 0)


def test_a_config_that_writes_into_a_package_gets_a_copy_of_it_applied_and_said(
        tmp_path: Path, runners: Path) -> None:
    root = vite_project(tmp_path / "vp", runners, CONFIG_WRITING_A_PACKAGE)
    stamp = root / "node_modules" / "stamp"
    stamp.mkdir()
    (stamp / "package.json").write_text(json.dumps({"name": "stamp"}))
    # the write is the only failure: rgr applies a copy of that package itself
    code, out = rgr_verify(root, tmp_path / "home")
    assert code == 0 and out["diagnosis"] is None, out
    note = out["appliedNote"]
    assert isinstance(note, str), out
    assert note.startswith("note: rgr gives each test run a private writable copy of "
                           "node_modules/stamp: the test command itself writes into "
                           "node_modules, which the sandbox shows read-only"), note
    assert "EROFS" in note and "node_modules/stamp/loaded" in note, note
    assert "with the copy it passes (3 passed)" in note, note
    assert 'writable_copy = ["node_modules/stamp"]' in note, note
    assert not (stamp / "loaded").exists()

    (root / "tdd.toml").write_text(
        (root / "tdd.toml").read_text() + 'writable_copy = ["node_modules/stamp"]\n')
    git(root, "commit", "-q", "-am", "the setting rgr named")
    code, out = rgr_verify(root, tmp_path / "home")
    assert code == 0 and out["diagnosis"] is None and out["appliedNote"] is None, out
    assert not (stamp / "loaded").exists()


def _toolchain(user: Path, *inside: str) -> Toolchain:
    return Toolchain(shown=tuple(Shown(user / rel, "a dependency folder", rel)
                                 for rel in inside))


def test_the_checkouts_node_modules_links_the_users_entries_and_keeps_no_cache_of_theirs(
        tmp_path: Path) -> None:
    user = tmp_path / "user"
    modules = user / "node_modules"
    for folder in ("a", ".bin", ".pnpm/x", ".cache/nyc", ".vite-temp"):
        (modules / folder).mkdir(parents=True)
    (modules / ".cache" / "nyc" / "old.js").write_text("stale\n")
    (modules / ".modules.yaml").write_text("pnpm\n")
    (modules / "rel").symlink_to(".pnpm/x")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    binds = tool_caches_inside.bind_into(_toolchain(user, "node_modules"), checkout)
    # one bind: the user's folder at its own path, read-only inside
    assert binds == ((modules, modules),)
    made = checkout / "node_modules"
    assert (made / "a").readlink() == modules / "a"
    assert (made / ".modules.yaml").readlink() == modules / ".modules.yaml"
    # pnpm's relative link made again as it is, leading into the linked .pnpm
    assert str((made / "rel").readlink()) == ".pnpm/x"
    for cache in tool_caches_inside.CACHE_NAMES:
        assert (made / cache).is_dir() and not (made / cache).is_symlink()
        assert list((made / cache).iterdir()) == []
    assert (modules / ".cache" / "nyc" / "old.js").read_text() == "stale\n"


def test_a_folder_the_checkout_has_or_a_link_on_the_way_is_left_alone(
        tmp_path: Path) -> None:
    user = tmp_path / "user"
    for rel in ("node_modules/a", "packages/p/node_modules/b"):
        (user / rel).mkdir(parents=True)
    checkout = tmp_path / "checkout"
    (checkout / "node_modules").mkdir(parents=True)  # committed, or a writable copy
    (checkout / "packages").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").mkdir()
    toolchain = _toolchain(user, "node_modules", "packages/p/node_modules")
    assert tool_caches_inside.bind_into(toolchain, checkout) == ()
    assert list((checkout / "node_modules").iterdir()) == []
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_an_agents_own_vitest_loads_the_config_in_its_session_with_the_packages_read_only(
        tmp_path: Path, runners: Path) -> None:
    """An agent session (PLAN, RED, GREEN, REFACTOR) runs the suite itself (`npx
    vitest`): in its scratch copy too, Vite's bundled config and Vitest's results go to
    the copy's own cache folders, the packages stay read-only, and `git add -A` commits
    none of it (real bubblewrap, the session's own jail)."""
    root = vite_project(tmp_path / "vp", runners, CONFIG)
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    sealer = open_sealer(ws, FakeBackend(), resolve_test_command(ws.config, ws.root),
                         lambda _line: None)
    assert sealer.policy is not None
    vitest = str(runners / "vitest" / "vitest.mjs")
    with sealer.seat(ws.repo.head.peel(pygit2.Commit), "agent") as seat:
        launched = run(["node", vitest, "run"], cwd=seat.cwd, env=seat.env, timeout=300,
                       launcher=seat.launcher)
        out = re.sub(r"\x1b\[[0-9;]*m", "", launched.stdout + launched.stderr)
        assert launched.returncode == 0, out
        assert re.search(r"Tests\s+3 passed", out), out
        # a package is still the user's, read-only
        write = run(["node", "-e", "require('fs').writeFileSync("
                     "'node_modules/vitest/package.json', '')"],
                    cwd=seat.cwd, env=seat.env, timeout=60, launcher=seat.launcher)
        assert write.returncode != 0 and "EROFS" in write.stderr, write.stderr
        git(seat.cwd, "add", "-A")
        assert git(seat.cwd, "status", "--porcelain") == ""
    assert not [p.name for p in (root / "node_modules").iterdir() if not p.is_symlink()]
