"""``[sandbox] setup``: a working tree's dependencies installed by the project's own
command, sealed, once per state of the lockfiles, with only the registries reachable;
then shared read-only like any dependency folder. Real npm and the real npm registry,
real bubblewrap, the real `rgr verify`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import clean_env, git

PY = sys.executable
TEST = """const test = require('node:test');
const assert = require('node:assert');
const isNumber = require('is-number');

test('is-number is installed', () => {
  assert.strictEqual(isNumber(5), true);
});
"""


def rgr(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "rgr", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)


def project(root: Path, setup: str, hosts: list[str] | None = None) -> Path:
    """A node project whose test needs is-number, with a lockfile and no node_modules
    (as every fresh clone has it)."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({
        "name": "p", "version": "1.0.0", "private": True,
        "scripts": {"test": "node --test"}, "dependencies": {"is-number": "7.0.0"}}))
    npm = shutil.which("npm")
    assert npm is not None, "npm is needed: install Node.js 20 or later"
    done = subprocess.run([npm, "install", "--package-lock-only", "--no-audit", "--no-fund"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (root / "test").mkdir()
    (root / "test" / "num.test.js").write_text(TEST)
    (root / ".gitignore").write_text("node_modules/\n")
    config = f"[sandbox]\nsetup = {json.dumps(setup)}\n"
    if hosts is not None:
        config += f"setup_hosts = {json.dumps(hosts)}\n"
    (root / "tdd.toml").write_text(config)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Dev")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a node project")
    return root


def test_setup_installs_once_sealed_and_the_tests_see_it(tmp_path: Path) -> None:
    root = project(tmp_path / "p", "npm ci --no-audit --no-fund")
    env = clean_env(tmp_path / "home")
    first = rgr(["verify"], root, env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "setup: npm ci --no-audit --no-fund (once for these lockfiles; registries only: " \
        "registry.npmjs.org:443" in first.stdout, first.stdout
    assert (root / "node_modules" / "is-number" / "package.json").is_file()
    assert (root / ".git" / "rgr" / "setup-done").is_file()
    stamp = (root / "node_modules" / "is-number" / "package.json").stat().st_mtime_ns
    # The same lockfiles: not run again; the tests see the folder, shared read-only.
    done = rgr(["verify", "--json"], root, env)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["tests"]["passed"] == 1
    shown = {s["inside"] for s in report["sandbox"]["shown"] if s.get("inside")}
    assert "node_modules" in shown
    again = rgr(["verify"], root, env)
    assert "setup: " not in again.stdout + again.stderr
    assert (root / "node_modules" / "is-number" / "package.json").stat().st_mtime_ns == stamp
    # A changed lockfile runs it again.
    lock = json.loads((root / "package-lock.json").read_text())
    lock["name"] = "p2"
    (root / "package-lock.json").write_text(json.dumps(lock))
    git(root, "commit", "-qam", "rename")
    changed = rgr(["verify"], root, env)
    assert changed.returncode == 0 and "setup: npm ci" in changed.stdout, changed.stdout


def test_setup_reaches_only_the_registries(tmp_path: Path) -> None:
    """The same install with npm's registry not among setup_hosts: rgr's proxy refuses
    the connection, the setup fails, and the message names the hosts setting."""
    root = project(tmp_path / "p", "npm ci --no-audit --no-fund --fetch-retries=0",
                   hosts=["pypi.org:443"])
    done = rgr(["verify"], root, clean_env(tmp_path / "home"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[sandbox] setup `npm ci" in done.stderr and "failed" in done.stderr
    assert "setup_hosts" in done.stderr
    assert not (root / "node_modules" / "is-number").exists()
    assert not (root / ".git" / "rgr" / "setup-done").exists()


@pytest.mark.parametrize("command", ["sh -c 'echo changed >> package.json'"])
def test_a_setup_that_changes_tracked_files_is_refused(tmp_path: Path, command: str) -> None:
    root = project(tmp_path / "p", command)
    done = rgr(["verify"], root, clean_env(tmp_path / "home"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "changed tracked files (package.json)" in done.stderr, done.stderr
