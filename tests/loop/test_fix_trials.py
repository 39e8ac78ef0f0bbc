"""A JavaScript suite rgr cannot read: before a fix is shown, rgr tries it in the sandbox
(rgr.loop.fix_trials) and shows only one that reads the tests, else what it found and
the settings to write. `rgr verify` and `rgr doctor` say what `rgr run` would."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from toolchains import ensure_js_runners  # type: ignore[import-not-found]

from tests.conftest import clean_env, committed_project, git

NODE_TESTS = ("const test = require('node:test');\n"
              "test('one', () => {});\ntest('one', () => {});\ntest('two', () => {});\n")


def project(root: Path, package: dict[str, object], contents: dict[str, str]) -> Path:
    return committed_project(root, {"package.json": json.dumps(package), **contents},
                             "a package")


def rgr(args: list[str], cwd: Path, home: Path,
        extra: dict[str, str] | None = None) -> tuple[int, dict[str, object]]:
    done = subprocess.run([sys.executable, "-m", "rgr", *args, "--json"], cwd=cwd,
                          env=clean_env(home, extra), capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    return done.returncode, json.loads(done.stdout)


def test_node_tests_behind_a_chain_get_the_fix_that_was_tried(tmp_path: Path) -> None:
    # node's runner started by a script of the project's own: nothing in `npm test`
    # says how it runs its tests (a chain that names `node --test` is read as it is).
    runs_node = ("require('child_process').execFileSync(process.execPath, ['--test'], "
                 "{stdio: 'inherit'});\n")
    root = project(tmp_path / "chain",
                   {"name": "chain", "scripts": {"test": "node run-tests.js"}},
                   {"test/a.test.js": NODE_TESTS, "run-tests.js": runs_node})
    code, out = rgr(["verify"], root, tmp_path / "home")
    assert code == 1 and out["ok"] is False
    diagnosis = out["diagnosis"]
    assert isinstance(diagnosis, dict)
    assert "rgr cannot see individual test results from `npm test`" in diagnosis["problem"]
    assert "`node --test` reads 3 tests (3 passed" in diagnosis["problem"]
    assert diagnosis["fix"] == 'set test_command = "node --test" in tdd.toml'
    # The fix works as shown, and counts as node itself does.
    own = subprocess.run(["node", "--test"], cwd=root, capture_output=True, text=True,
                         timeout=300)
    assert re.search(r"^# tests 3$", own.stdout, re.MULTILINE), own.stdout
    (root / "tdd.toml").write_text('test_command = "node --test"\n')
    git(root, "add", "tdd.toml")
    git(root, "commit", "-q", "-m", "rgr's fix")
    code, out = rgr(["verify"], root, tmp_path / "home")
    assert code == 0 and out["diagnosis"] is None
    assert out["tests"]["passed"] == 3  # type: ignore[index]


def test_with_nothing_to_try_doctor_asks_for_the_settings(tmp_path: Path) -> None:
    """A home-made runner: no runner in the script or the dependencies, no node:test
    file. The hint names the variable that set the command, not tdd.toml."""
    root = project(tmp_path / "custom",
                   {"name": "custom", "scripts": {"test": "node test/run.js"}},
                   {"test/run.js": "console.log('2 checks ok');\n"})
    code, out = rgr(["doctor"], root, tmp_path / "home",
                    {"TDD_TEST_COMMAND": "npm test"})
    assert code == 1
    diagnosis = out["diagnosis"]
    assert isinstance(diagnosis, dict)
    assert ("rgr found no other command to try (no runner in the test script or among "
            "the dependencies, no file importing node:test)") in diagnosis["problem"]
    assert "junit_xml" in diagnosis["fix"] and "test_command" in diagnosis["fix"]
    assert "TDD_TEST_COMMAND" in diagnosis["fix"]


@pytest.fixture(scope="module")
def node_modules() -> Path:
    modules: Path = ensure_js_runners()
    return modules


def test_a_tried_command_that_reads_nothing_is_not_suggested(
        tmp_path: Path, node_modules: Path) -> None:
    """Jest among the dependencies, but no Jest test: `npx jest` is tried, finds none,
    and is not shown as a fix."""
    root = project(tmp_path / "jestless",
                   {"name": "jestless", "scripts": {"test": "node test/run.js"},
                    "devDependencies": {"jest": "30.5.2"}},
                   {"test/run.js": "console.log('2 checks ok');\n",
                    ".gitignore": "node_modules\n"})
    # A folder of its own (a linked node_modules is not shared into checkouts), its
    # entries linked to the pinned runners: nothing is fetched from the registry.
    (root / "node_modules").mkdir()
    for entry in node_modules.iterdir():
        (root / "node_modules" / entry.name).symlink_to(entry)
    code, out = rgr(["verify", "--no-sandbox"], root, tmp_path / "home")
    assert code == 1
    diagnosis = out["diagnosis"]
    assert isinstance(diagnosis, dict)
    assert "none reads the tests: `npx jest` finds no tests" in diagnosis["problem"]
    assert "npx jest" not in diagnosis["fix"]
    assert "junit_xml" in diagnosis["fix"]
