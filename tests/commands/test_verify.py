"""`rgr verify` is `rgr run`'s baseline (issue 35): on real projects, the two (and
`rgr doctor`) agree on whether a run can start from HEAD, and when it cannot, on the
cause and the fix, word for word. No agent runs: a stand-in claude answers ``--version``
and refuses the login, which is the first thing `rgr run` does after its baseline, so
"got as far as the login" is "the baseline was accepted"."""

from __future__ import annotations

import json
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import clean_env, committed_project, git

STUB_CLAUDE = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "2.1.197 (Claude Code, stand-in)"; exit 0; fi
echo '{"type":"result","subtype":"success","is_error":true,"result":"Not logged in"}'
exit 1
"""

PYTEST = json.dumps([sys.executable, "-m", "pytest", "-q"])
GOOD_TEST = "def test_adds():\n    assert 1 + 1 == 2\n"
NODE_TEST = """const test = require('node:test');
const assert = require('node:assert');
test('adds', () => assert.strictEqual(1 + 1, 2));
test('multiplies', () => assert.strictEqual(2 * 3, 6));
"""


def _commit(root: Path, files: dict[str, str]) -> Path:
    return committed_project(root, files)


def coverage_chained(root: Path) -> Path:
    """node's test runner, then a coverage step, in one npm script (the case reported:
    verify said `0 passed, 0 failed` and ok): read now, node's reporter reaching it
    through NODE_OPTIONS wherever the chain runs it."""
    return _commit(root, {
        "package.json": json.dumps({"name": "p", "version": "1.0.0", "private": True,
                                    "scripts": {"test": "node --test && node coverage.js"}}),
        "coverage.js": "console.log('coverage: 100%');\n",
        "test/math.test.js": NODE_TEST})


def own_script(root: Path) -> Path:
    """An npm test script of the project's own that prints what it likes: nothing rgr
    can read, and no runner to try instead."""
    return _commit(root, {
        "package.json": json.dumps({"name": "p", "version": "1.0.0", "private": True,
                                    "scripts": {"test": "node check.js"}}),
        "check.js": "console.log('all good');\n"})


def garbled_junit(root: Path) -> Path:
    """A command whose JUnit report rgr cannot parse."""
    write = "open('report.xml', 'w').write('<testsuite><testcase name=')"
    return _commit(root, {
        "tdd.toml": f"test_command = {json.dumps([sys.executable, '-c', write])}\n"
                    "junit_xml = [\"report.xml\"]\n",
        ".gitignore": "report.xml\n"})


def red_suite(root: Path) -> Path:
    return _commit(root, {"tdd.toml": f"test_command = {PYTEST}\n", "pytest.ini": "[pytest]\n",
                          "tests/test_math.py": GOOD_TEST + "\n\ndef test_breaks():\n"
                                                            "    assert 2 + 2 == 5\n"})


def no_tests_yet(root: Path) -> Path:
    """pytest says "no tests ran" (exit code 5): an empty suite, a valid green start."""
    return _commit(root, {"tdd.toml": f"test_command = {PYTEST}\n", "pytest.ini": "[pytest]\n",
                          "README.md": "nothing yet\n"})


def good_suite(root: Path) -> Path:
    return _commit(root, {"tdd.toml": f"test_command = {PYTEST}\n", "pytest.ini": "[pytest]\n",
                          "tests/test_math.py": GOOD_TEST})


Project = Callable[[Path], Path]

#: (project, the words of the refusal; None: a run starts from it)
CASES: list[tuple[Project, str | None]] = [
    (coverage_chained, None),
    (own_script, "rgr cannot see individual test results from `npm test` (an npm "
                 "test script rgr does not recognise"),
    (garbled_junit, "rgr cannot see individual test results from"),
    (red_suite, "the test suite is not green before rgr starts: "
                "tests/test_math.py::test_breaks"),
    (no_tests_yet, None),
    (good_suite, None),
]


def _checkout_named(diagnosis: dict[str, str]) -> dict[str, str]:
    return {key: re.sub(r"/\S+/tree/", "<checkout>/", text) for key, text in diagnosis.items()}


def _rgr(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rgr", *args], cwd=cwd, env=clean_env(home),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(("make", "refusal"), CASES, ids=[c[0].__name__ for c in CASES])
def test_verify_doctor_and_run_agree_on_the_baseline(
        tmp_path: Path, make: Project, refusal: str | None) -> None:
    if make in (coverage_chained, own_script) and shutil.which("npm") is None:
        pytest.fail("npm is needed: install Node.js 20 or later")
    root = make(tmp_path / "p")
    home = tmp_path / "home"
    stub = home / ".local" / "bin" / "claude"  # where rgr looks after PATH
    stub.parent.mkdir(parents=True)
    stub.write_text(STUB_CLAUDE)
    stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
    head = git(root, "rev-parse", "HEAD")

    verify = _rgr(["verify", "--json"], root, home)
    verify_text = _rgr(["verify"], root, home)
    doctor = _rgr(["doctor", "--json"], root, home)
    run = _rgr(["run", "--yes", "slugify"], root, home)
    seen = "\n".join(f"{d.args[3:]}: {d.returncode}\n{d.stdout}\n{d.stderr}"
                     for d in (verify, verify_text, doctor, run))
    assert "Traceback" not in seen, seen
    report = json.loads(verify.stdout)
    checked = json.loads(doctor.stdout)
    assert run.returncode == 1, seen  # the stand-in refuses the login, if nothing before
    if refusal is None:
        assert (verify.returncode, verify_text.returncode, doctor.returncode) == (0, 0, 0), seen
        assert report["ok"] is True and report["diagnosis"] is None
        assert checked["ok"] is True and checked["diagnosis"] is None
        assert "not logged in" in run.stderr.lower(), seen  # past the baseline
        return
    assert (verify.returncode, verify_text.returncode, doctor.returncode) == (1, 1, 1), seen
    assert report["ok"] is False and checked["ok"] is False
    problem, fix = report["diagnosis"]["problem"], report["diagnosis"]["fix"]
    assert problem.startswith(refusal), problem
    assert fix, report
    # (a report's path names the throwaway checkout each command made)
    assert _checkout_named(checked["diagnosis"]) == _checkout_named(report["diagnosis"])
    # run stops at the same place, with the same words, before the login (a paid request)
    stopped = _checkout_named({"problem": run.stderr})["problem"]
    assert _checkout_named({"problem": f"rgr: error: {problem}\n  fix: {fix}"})["problem"] \
        in stopped, seen
    assert "not logged in" not in run.stderr.lower(), seen
    assert f"error: {problem[:80]}" in verify_text.stdout, seen
    assert git(root, "rev-parse", "HEAD") == head
    assert git(root, "branch", "--list", "rgr/*") == ""


# ------------------------------------------- hints name where each value came from --


def _verify_json(root: Path, home: Path, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(home, env), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    diagnosis = json.loads(done.stdout)["diagnosis"]
    assert isinstance(diagnosis, dict), done.stdout
    return diagnosis


def test_a_missing_runner_names_the_variable_that_set_the_test_command(tmp_path: Path) -> None:
    """tdd.toml names a good command; TDD_TEST_COMMAND overrides it with a program that
    does not exist: the fix names the variable (editing tdd.toml would change nothing).
    Without the variable, tdd.toml's own missing program names tdd.toml."""
    root = good_suite(tmp_path / "p")
    home = tmp_path / "home"
    from_env = _verify_json(root, home, {"TDD_TEST_COMMAND": "no-such-runner -q"})
    assert "no-such-runner is not installed" in str(from_env["problem"]), from_env
    assert "set the environment variable TDD_TEST_COMMAND to the command" in \
        str(from_env["fix"]), from_env
    assert "in tdd.toml" not in str(from_env["fix"]), from_env
    (root / "tdd.toml").write_text('test_command = "no-such-runner -q"\n')
    git(root, "commit", "-qam", "a runner nobody installed")
    from_file = _verify_json(root, home, {})
    assert "set test_command in tdd.toml to the command" in str(from_file["fix"]), from_file


def test_a_blind_runner_from_the_variable_says_to_change_the_variable(tmp_path: Path) -> None:
    root = good_suite(tmp_path / "p")
    home = tmp_path / "home"
    refused = _verify_json(root, home, {"TDD_TEST_COMMAND": "true"})
    assert str(refused["problem"]).startswith("rgr cannot see individual test results from "
                                              "`true` (a command rgr does not recognise; "
                                              "TDD_TEST_COMMAND; "), refused
    assert str(refused["fix"]).endswith("(this test command comes from the environment "
                                        "variable TDD_TEST_COMMAND: change it there)"), refused
    # the same blind command in tdd.toml: named as the committed file, not rgr's snapshot
    (root / "tdd.toml").write_text('test_command = "true"\n')
    git(root, "commit", "-qam", "a blind test command")
    head = git(root, "rev-parse", "HEAD")[:8]
    from_file = _verify_json(root, home, {})
    assert f"(a command rgr does not recognise; tdd.toml as committed at {head}; " in \
        str(from_file["problem"]), from_file
    assert ".git/rgr" not in str(from_file["problem"])
    assert "change it there" not in str(from_file["fix"]), from_file


def test_a_timed_out_baseline_names_the_timeout_where_it_was_set(tmp_path: Path) -> None:
    root = _commit(tmp_path / "p", {
        "tdd.toml": f"test_command = {PYTEST}\ncommand_timeout = 60\n",
        "pytest.ini": "[pytest]\n",
        "tests/test_slow.py": "import time\n\ndef test_slow():\n    time.sleep(30)\n"})
    home = tmp_path / "home"
    refused = _verify_json(root, home, {"TDD_COMMAND_TIMEOUT": "2"})
    assert refused["problem"] == ("the test suite is not green before rgr starts: the test "
                                  "command did not finish within 2s"), refused
    assert str(refused["fix"]).endswith("raise the environment variable TDD_COMMAND_TIMEOUT"), \
        refused


@pytest.mark.parametrize(("env", "flags", "setting"), [
    ({}, {}, "test_command in tdd.toml"),
    ({"TDD_TEST_COMMAND": "pytest -x"}, {}, "the environment variable TDD_TEST_COMMAND"),
    ({"TDD_TEST_COMMAND": "pytest -x"}, {"test_command": "pytest -q"},
     "the --test-command option"),
])
def test_the_test_commands_setting_travels_with_it(
        tmp_path: Path, env: dict[str, str], flags: dict[str, object], setting: str) -> None:
    from rgr.base.config import load_config
    from rgr.ecosystems.registry import resolve_test_command

    (tmp_path / "tdd.toml").write_text('test_command = "pytest"\n')
    command = resolve_test_command(load_config(tmp_path, env=env, flags=flags), tmp_path)
    assert command.setting == setting
    # detected (nothing set): changed by setting one in tdd.toml
    (tmp_path / "tdd.toml").unlink()
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "jest"}}))
    detected = resolve_test_command(load_config(tmp_path, env={}), tmp_path)
    assert detected.source == "detected from package.json"
    assert detected.setting == "test_command in tdd.toml"


def test_a_missing_codex_names_the_variable_that_set_its_path(tmp_path: Path) -> None:
    from rgr.backends.router import make_backend
    from rgr.base.config import load_config
    from rgr.base.errors import BackendError

    missing = str(tmp_path / "nowhere" / "codex")
    for env, setting in [({"TDD_CODEX_BINARY": missing}, "the environment variable "
                          "TDD_CODEX_BINARY"), ({}, "codex_binary in tdd.toml")]:
        (tmp_path / "tdd.toml").write_text(f'backend = "codex"\ncodex_binary = "{missing}"\n')
        config = load_config(tmp_path, env={**env, "HOME": str(tmp_path)})
        backend = make_backend(config, {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
                               tmp_path)
        with pytest.raises(BackendError) as raised:
            backend.version()
        assert raised.value.hint is not None
        assert raised.value.hint.endswith(f"or set {setting}"), raised.value.hint


def test_a_sealed_run_keeps_the_users_pytest_variables(tmp_path: Path) -> None:
    """pytest reads options from PYTEST_ADDOPTS: the sealed baseline keeps it (and only
    the runner's own variables), so it runs as the user's `pytest` in that shell does."""
    root = _commit(tmp_path / "p", {"tdd.toml": f"test_command = '{sys.executable} -m pytest -q'\n",
                                    "tests/test_two.py": (
        "import os\n\n\ndef test_keep():\n    assert 'SECRET_TOKEN' not in os.environ\n\n\n"
        "def test_drop():\n    pass\n")})
    home = tmp_path / "home"
    for addopts, passed in (("-k keep", 1), ("", 2)):
        done = subprocess.run(
            [sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
            env=clean_env(home, {"PYTEST_ADDOPTS": addopts, "SECRET_TOKEN": "s"}),
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert json.loads(done.stdout)["tests"]["passed"] == passed, done.stdout
