"""A suite that writes into its own node_modules (a test patches a package): read-only
in the sandbox, so its tests fail there with EROFS. When that is the suite's only
failure, rgr applies a private writable copy of the package itself and says so first;
otherwise `rgr verify` names the folder and the setting, tried first. `[sandbox]
writable_copy` gives each test run a private copy, and the user's node_modules stays as
it was (real bubblewrap, real node)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from harness import sweep_only

from rgr.sandbox import read_only, writable_copy
from rgr.sandbox.toolchain import Shown, Toolchain
from rgr.store.handoff import HandoffState, Phase, SandboxNote
from rgr.store.workspace import open_workspace
from tests.conftest import clean_env, committed_project, git

WRITES_INTO_NODE_MODULES = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const modules = path.join(__dirname, '..', 'node_modules');

test('loads a fixture package linked into node_modules', () => {
  const link = path.join(modules, 'fixture');
  fs.rmSync(link, { force: true });
  fs.symlinkSync(path.join(__dirname, '..', 'fixtures', 'package'), link);
  assert.strictEqual(require('fixture'), 'fixture');
  fs.unlinkSync(link);
});

test('patches a file of a dependency', () => {
  fs.appendFileSync(path.join(modules, 'dep', 'index.js'), '\\n// patched\\n');
});

test('reads the dependency', () => {
  assert.strictEqual(require('dep'), 'original');
});
"""
ORIGINAL = "module.exports = 'original';\n"


def rgr_verify(root: Path, home: Path) -> tuple[int, dict[str, object]]:
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(home), capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    return done.returncode, json.loads(done.stdout)


def _patching_project(tmp_path: Path) -> Path:
    """A node:test suite that patches a package of its node_modules (and links a fixture
    package there), green in the user's own tree."""
    root = committed_project(tmp_path / "links", {
        "package.json": json.dumps({"name": "links", "scripts": {"test": "node --test"}}),
        ".gitignore": "node_modules/\n",
        "test/links.test.js": WRITES_INTO_NODE_MODULES,
        "fixtures/package/package.json": json.dumps({"name": "fixture"}),
        "fixtures/package/index.js": "module.exports = 'fixture';\n",
    })
    dep = root / "node_modules" / "dep"
    dep.mkdir(parents=True)
    (dep / "package.json").write_text(json.dumps({"name": "dep"}))
    (dep / "index.js").write_text(ORIGINAL)
    other = root / "node_modules" / "other"
    other.mkdir()
    (other / "index.js").write_text("module.exports = 'other';\n")
    # Green in the user's own tree (then put back as it was).
    own = subprocess.run(["node", "--test"], cwd=root, capture_output=True, text=True,
                         timeout=120)
    assert own.returncode == 0, own.stdout + own.stderr
    (dep / "index.js").write_text(ORIGINAL)
    return root


def test_a_write_into_a_package_as_the_only_failure_gets_a_private_copy_of_that_package(
        tmp_path: Path) -> None:
    root = _patching_project(tmp_path)
    modules = root / "node_modules"
    # The write into node_modules/dep is the suite's only failure in the sandbox: rgr
    # applies a private copy of that package alone, and says so before anything else.
    code, out = rgr_verify(root, tmp_path / "home")
    assert code == 0 and out["ok"] is True and out["diagnosis"] is None, out
    assert out["tests"]["passed"] == 3  # type: ignore[index]
    note = out["appliedNote"]
    assert isinstance(note, str), out
    assert note.startswith("note: rgr gives each test run a private writable copy of "
                           "node_modules/dep: "), note
    # EROFS for a user; run by root, the unprivileged user the sandbox runs the tests as
    # is refused by permission first (EACCES).
    assert "EROFS" in note or "EACCES" in note, note
    assert "with the copy it passes (3 passed). Cost: " in note, note
    assert 'writable_copy = ["node_modules/dep"]' in note, note
    assert out["sandbox"]["writableCopy"] == ["node_modules/dep"]  # type: ignore[index]
    # Every write went to a copy that died with its run: not a hard link, not a link.
    assert (modules / "dep" / "index.js").read_text() == ORIGINAL
    assert sorted(p.name for p in modules.iterdir()) == ["dep", "other"]

    # The setting rgr named: the same copy, tried first no more.
    (root / "tdd.toml").write_text('[sandbox]\nwritable_copy = ["node_modules/dep"]\n')
    git(root, "add", "tdd.toml")
    git(root, "commit", "-q", "-m", "the setting rgr named")
    code, out = rgr_verify(root, tmp_path / "home")
    assert code == 0 and out["diagnosis"] is None and out["appliedNote"] is None, out
    assert out["tests"]["passed"] == 3  # type: ignore[index]
    assert (modules / "dep" / "index.js").read_text() == ORIGINAL


@sweep_only("tests/sandbox/test_writable_copy.py")
def test_the_applied_copy_is_said_first_and_a_failure_of_the_suites_own_refuses_it(
        tmp_path: Path) -> None:
    """The mechanism is the test above's; this one reads the text and the refusal."""
    root = _patching_project(tmp_path)
    text = subprocess.run([sys.executable, "-m", "rgr", "verify"], cwd=root,
                          env=clean_env(tmp_path / "home"), capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    # after the log's timestamped lines, the verdict opens with it
    verdict = [line for line in text.stdout.splitlines()
               if not re.match(r"\d\d:\d\d:\d\d ", line)]
    assert text.returncode == 0 and verdict[0].startswith(
        "note: rgr gives each test run a private writable copy of node_modules/dep"), text.stdout

    # A failure of the suite's own besides: no copy applied, the refusal names both.
    (root / "test" / "own.test.js").write_text(
        "require('node:test')('own', () => { throw new Error('its own failure'); });\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a failing test of its own")
    code, out = rgr_verify(root, tmp_path / "home")
    assert code == 1 and out["appliedNote"] is None, out
    diagnosis = out["diagnosis"]
    assert isinstance(diagnosis, dict), out
    assert "because they write into node_modules, which it shows read-only" in (
        diagnosis["problem"]), diagnosis
    assert "with a writable copy of node_modules those tests pass" in (
        diagnosis["problem"]), diagnosis
    assert (root / "node_modules" / "dep" / "index.js").read_text() == ORIGINAL


def _toolchain(*inside: str) -> Toolchain:
    return Toolchain(shown=tuple(Shown(Path("/repo") / rel, "a dependency folder", rel)
                                 for rel in inside))


def test_only_a_write_refused_in_a_dependency_folder_is_read_as_one() -> None:
    node = ("EROFS: read-only file system, symlink '/w/tree/test/fixtures/transport' -> "
            "'/w/tree/packages/a/node_modules/transport'")
    python = "OSError: [Errno 30] Read-only file system: '/w/tree/.venv/lib/x.pth'"
    found = read_only.find([("t1", "boom\n" + node), ("t2", node), ("t3", "assert 1 == 2")],
                           _toolchain("node_modules", "packages/a/node_modules", ".venv"))
    assert found is not None
    assert (found.folder, found.tests) == ("packages/a/node_modules", ("t1", "t2"))
    assert found.example == node
    assert read_only.find([("p", python)], _toolchain(".venv")) == read_only.ReadOnlyWrite(
        ".venv", ("p",), python, ("lib",))
    # the package written into: a copy of it alone may serve
    patched = "Error: EROFS: read-only file system, open '/w/tree/node_modules/dep/index.js'"
    assert read_only.find([("p", patched)], _toolchain("node_modules")).entries == ("dep",)
    # A read-only write elsewhere (the repository's alias), a plain failure, or a folder
    # that is already a writable copy: not this cause.
    elsewhere = "EROFS: read-only file system, open '/repo/src/out.txt'"
    assert read_only.find([("e", elsewhere)], _toolchain("node_modules")) is None
    assert read_only.find([("t3", "assert 1 == 2")], _toolchain("node_modules")) is None
    assert read_only.find([("t2", node)], _toolchain("packages/a/node_modules"),
                          copied=["packages/a/node_modules"]) is None


def test_the_runners_own_write_is_read_in_its_whole_output() -> None:
    """No failing test says it, the run's output does: Vite 7's mkdir of its config's
    bundle (node's recursive mkdir says ENOENT in a read-only folder), the runner's."""
    output = ("Error: ENOENT: no such file or directory, mkdir "
              "'/w/tree/node_modules/.vite-temp'\n    at loadConfigFromBundledFile")
    found = read_only.find_in_run([("t1", "assert 1 == 2")], output,
                                  _toolchain("node_modules"))
    assert found is not None and found.by_the_runner and found.folder == "node_modules"
    assert found.example.startswith("Error: ENOENT")
    # a failing test's own message comes first; a missing file read is no write
    by_a_test = read_only.find_in_run(
        [("t1", "EROFS: read-only file system, open '/w/tree/node_modules/x'")], output,
        _toolchain("node_modules"))
    assert by_a_test is not None and by_a_test.tests == ("t1",)
    assert read_only.find_in_run([], "ENOENT: no such file or directory, open "
                                 "'/w/tree/node_modules/x'", _toolchain("node_modules")) is None


def test_a_link_committed_on_the_way_takes_no_copy_out_of_the_checkout(tmp_path: Path) -> None:
    # the checkout's files are the agent's: `packages -> <elsewhere>` must not carry the
    # copy, made outside the sandbox, to where the link points
    user = tmp_path / "user" / "packages" / "a" / "node_modules"
    user.mkdir(parents=True)
    (user / "dep.js").write_text("module.exports = 1\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "packages").symlink_to(elsewhere)
    toolchain = Toolchain(shown=(Shown(user, "a dependency folder",
                                       inside="packages/a/node_modules"),))
    assert writable_copy.copy_into(toolchain, ["packages/a/node_modules"], checkout) == []
    assert list(elsewhere.iterdir()) == []
    # without the link, the same folder is copied where it belongs
    (checkout / "packages").unlink()
    assert writable_copy.copy_into(toolchain, ["packages/a/node_modules"], checkout) == [
        "packages/a/node_modules"]
    assert (checkout / "packages/a/node_modules/dep.js").read_text() == "module.exports = 1\n"


def test_a_resumed_run_finds_the_copies_its_start_applied(tmp_path: Path) -> None:
    """The start note keeps what rgr applied itself; a resume (and a landing check) of
    that run reads it back through the run's later notes, and nothing from another
    run's."""
    root = committed_project(tmp_path / "r", {"a.txt": "a\n"})
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    start = str(ws.repo.head.target)
    ws.notes.write(start, HandoffState(
        phase=Phase.REFACTOR, run_id="r1", sandbox=SandboxNote(
            enabled=True, writable_copy=["node_modules/dep"])))
    (root / "a.txt").write_text("b\n")
    git(root, "commit", "-q", "-am", "a phase")
    phase = str(ws.repo.head.target)
    ws.notes.write(phase, HandoffState(phase=Phase.RED, run_id="r1"))
    git(root, "commit", "-q", "--allow-empty", "-m", "unnoted")
    tip = str(ws.repo.head.target)
    started = ws.notes.run_start(tip, "r1")
    assert started is not None and started.sandbox is not None
    assert started.sandbox.writable_copy == ["node_modules/dep"]
    assert ws.notes.run_start(phase, "r2") is None
