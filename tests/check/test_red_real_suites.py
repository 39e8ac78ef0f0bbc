"""A right RED on a real project (issue 34, item 1): the new test file imports code that
does not exist yet while the project's other tests keep running and counting.

Real git repositories, the real pytest and the real Mocha (the pinned one of
tests/e2e/runners, as tests/ecosystems/test_failure_kind.py obtains it); the verdict is rgr's own
(rgr.check.guards on the commit and on the runner's report).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pygit2
import pytest
from toolchains import ensure_js_runners

from rgr.base.config import Config, TestCommand
from rgr.check.guards import check_scope, check_tests, hides_tests
from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.python.pytest_runner import CONTINUE_ON_COLLECTION_ERRORS, Pytest
from rgr.ecosystems.registry import detect_test_command, guess_runner
from rgr.store.handoff import Phase
from tests.conftest import Repo, make_repo

TIMEOUT = 300.0


def run(repo: Repo, cmd: TestCommand) -> TestReport:
    return run_tests(cmd, repo.path, timeout=TIMEOUT, env=dict(os.environ))


def commit(repo: Repo, phase: Phase, files: dict[str, str]) -> list[str]:
    """Commit ``files`` as ``phase`` and return the rules rgr's scope guards broke."""
    base = repo.head()
    head = repo.commit(phase.value, files)
    violations = check_scope(pygit2.Repository(str(repo.path)), Config(), phase,
                             pygit2.Oid(hex=base), pygit2.Oid(hex=head))
    return [v.rule for v in violations]


def passing(report: TestReport) -> set[str]:
    return {i for i, o in report.outcomes.items() if o.status == "passed"}


# ------------------------------------------------------------------ pytest

PROJECT = {
    "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['src']\n",
    "src/pkg/__init__.py": "",
    "src/pkg/words.py": "def words(text):\n    return text.split()\n\n\n"
                        "def count(text):\n    return len(words(text))\n",
    "tests/test_words.py": "from pkg.words import count, words\n\n\n"
                           "def test_words():\n    assert words('a b') == ['a', 'b']\n\n\n"
                           "def test_count():\n    assert count('a b c') == 3\n",
    "tests/test_more.py": "from pkg.words import words\n\n\n"
                          "class TestEmpty:\n    def test_empty(self):\n"
                          "        assert words('') == []\n",
    "tests/unit/test_unit.py": "import pkg\n\n\ndef test_package():\n    assert pkg\n",
}
EXISTING = {"tests/test_words.py::test_words", "tests/test_words.py::test_count",
            "tests/test_more.py::TestEmpty::test_empty",
            "tests/unit/test_unit.py::test_package"}
RED_FILE = "tests/test_ranges.py"
RED = "from pkg.ranges import clamp, span\n\n\n" \
      "def test_clamp():\n    assert clamp(5, 0, 3) == 3\n\n\n" \
      "def test_span():\n    assert span([1, 4]) == 3\n"
GREEN = "def clamp(value, low, high):\n    return max(low, min(value, high))\n\n\n" \
        "def span(values):\n    return max(values) - min(values)\n"

PYTHON_BIN = Path(sys.executable).parent


def pytest_commands() -> dict[str, TestCommand]:
    """The ways a project names pytest, as rgr turns them into a TestCommand."""
    def argv(*words: str) -> TestCommand:
        runner = guess_runner(words)
        assert runner == "pytest", words
        return TestCommand(words, runner, (), False, "test")
    return {
        "python -m pytest": argv(sys.executable, "-m", "pytest"),
        "pytest": argv(str(PYTHON_BIN / "pytest"), "-q"),
        "already continuing": argv(sys.executable, "-m", "pytest",
                                   CONTINUE_ON_COLLECTION_ERRORS),
        "a shell command": TestCommand(
            ("/bin/sh", "-c", f"cd . && {sys.executable} -m pytest -q"), "pytest", (), True,
            "test"),
    }


@pytest.mark.parametrize("how", list(pytest_commands()))
def test_a_pytest_red_importing_code_not_written_yet_keeps_every_other_test(
        tmp_path: Path, how: str) -> None:
    """pytest would stop the session at the new file's import error and hide every test
    of the project (test-removed); rgr's run goes on, so the RED is right and the project's
    tests are run and passing beside it."""
    cmd = pytest_commands()[how]
    repo = make_repo(tmp_path)
    repo.commit("the project", PROJECT)
    before = run(repo, cmd)
    assert passing(before) == EXISTING and before.all_passed, before.output_excerpt

    assert commit(repo, Phase.RED, {RED_FILE: RED}) == []
    red = run(repo, cmd)
    assert red.collection_errors == (RED_FILE,), red.output_excerpt
    assert red.load_kinds == {RED_FILE: "missing-code"}
    assert passing(red) == EXISTING == set(red.outcomes), red.output_excerpt
    assert check_tests(Phase.RED, before, red) == []

    assert commit(repo, Phase.GREEN, {"src/pkg/ranges.py": GREEN}) == []
    green = run(repo, cmd)
    assert green.all_passed and not green.collection_errors
    assert passing(green) == EXISTING | {f"{RED_FILE}::test_clamp", f"{RED_FILE}::test_span"}
    assert check_tests(Phase.GREEN, red, green) == []


@pytest.mark.parametrize(("source", "kind"), [
    ("from tests.helpers import numbers\n\n\ndef test_x():\n    assert numbers\n",
     "test-error"),
    ("import json\n\njson.loads('{')\n\n\ndef test_x():\n    pass\n", "unknown"),
])
def test_any_other_load_error_beside_running_tests_is_still_no_red(
        tmp_path: Path, source: str, kind: str) -> None:
    """The other tests now run, and the file that does not load is judged as before."""
    repo = make_repo(tmp_path)
    repo.commit("the project", PROJECT)
    cmd = pytest_commands()["python -m pytest"]
    before = run(repo, cmd)
    repo.commit("RED", {RED_FILE: source})
    red = run(repo, cmd)
    assert passing(red) == EXISTING, red.output_excerpt
    assert red.load_kinds.get(RED_FILE, "unknown") == kind
    assert [v.rule for v in check_tests(Phase.RED, before, red)] == ["tests-do-not-load"]


def test_the_flag_reaches_pytest_however_it_is_run(tmp_path: Path) -> None:
    """The runner's own words: on the argv of a command, in PYTEST_ADDOPTS for a shell
    script (whose last word need not be pytest's); ``uv run pytest`` is pytest too."""
    uv = TestCommand(("uv", "run", "pytest"), guess_runner(("uv", "run", "pytest")), (),
                     False, "test")
    assert uv.runner == "pytest"
    env: dict[str, str] = {}
    argv = Pytest().prepare(uv, tmp_path / "a", env)
    assert argv[:3] == ("uv", "run", "pytest") and CONTINUE_ON_COLLECTION_ERRORS in argv
    shell = pytest_commands()["a shell command"]
    env = {"PYTEST_ADDOPTS": "-q"}
    assert Pytest().prepare(shell, tmp_path / "b", env) == shell.argv
    assert env["PYTEST_ADDOPTS"].startswith("-q ")
    assert CONTINUE_ON_COLLECTION_ERRORS in env["PYTEST_ADDOPTS"].split()


# ------------------------------------------------------------------ Mocha and node's runner

WORDS_CJS = "module.exports = { words: (text) => text.split(' ') };\n"
WORDS_ESM = "export const words = (text) => text.split(' ');\n"
WORDS_TEST = """describe('words', () => {
  it('splits', () => assert.deepStrictEqual(words('a b'), ['a', 'b']));
  it('keeps one', () => assert.deepStrictEqual(words('a'), ['a']));
});
"""
RANGES_TEST = """describe('ranges', () => {
  it('clamps', () => assert.strictEqual(clamp(5, 0, 3), 3));
});
"""
CJS_HEAD = "const assert = require('assert');\n"
ESM_HEAD = "import assert from 'assert';\n"
#: Each project: package.json, its code and existing test, RED's file (header + test),
#: and the code GREEN writes.
MOCHA_CASES: dict[str, tuple[dict[str, object], dict[str, str], str, dict[str, str]]] = {
    "CommonJS, missing module": (
        {"scripts": {"test": "mocha"}},
        {"src/words.js": WORDS_CJS,
         "test/words.test.js": CJS_HEAD + "const { words } = require('../src/words');\n"
                               + WORDS_TEST},
        CJS_HEAD + "const { clamp } = require('../src/ranges.js');\n",
        {"src/ranges.js": "module.exports = { clamp: (v, lo, hi) => "
                          "Math.max(lo, Math.min(v, hi)) };\n"}),
    "CommonJS, missing export": (
        {"scripts": {"test": "mocha"}},
        {"src/words.js": WORDS_CJS,
         "test/words.test.js": CJS_HEAD + "const { words } = require('../src/words');\n"
                               + WORDS_TEST},
        CJS_HEAD + "const { clamp } = require('../src/words.js');\n",
        {"src/words.js": "module.exports = { words: (text) => text.split(' '),\n"
                         "  clamp: (v, lo, hi) => Math.max(lo, Math.min(v, hi)) };\n"}),
    "ESM, missing module": (
        {"type": "module", "scripts": {"test": "mocha"}},
        {"src/words.js": WORDS_ESM,
         "test/words.test.js": ESM_HEAD + "import { words } from '../src/words.js';\n"
                               + WORDS_TEST},
        ESM_HEAD + "import { clamp } from '../src/ranges.js';\n",
        {"src/ranges.js": "export const clamp = (v, lo, hi) => Math.max(lo, Math.min(v, hi));\n"}),
    "ESM, missing export": (
        {"type": "module", "scripts": {"test": "mocha"}},
        {"src/words.js": WORDS_ESM, "src/ranges.js": "export const span = () => 0;\n",
         "test/words.test.js": ESM_HEAD + "import { words } from '../src/words.js';\n"
                               + WORDS_TEST},
        ESM_HEAD + "import { clamp } from '../src/ranges.js';\n",
        {"src/ranges.js": "export const span = () => 0;\n"
                          "export const clamp = (v, lo, hi) => Math.max(lo, Math.min(v, hi));\n"}),
}
MOCHA_EXISTING = {"test/words.test.js::words splits", "test/words.test.js::words keeps one"}


@pytest.fixture(scope="module")
def node_modules() -> Path:
    return ensure_js_runners()


def js_repo(tmp_path: Path, node_modules: Path, package: dict[str, object],
            files: dict[str, str]) -> Repo:
    repo = make_repo(tmp_path)
    (repo.path / ".gitignore").write_text("node_modules\n")
    (repo.path / "node_modules").symlink_to(node_modules)
    repo.commit("the project", {".gitignore": "node_modules\n",
                                "package.json": json.dumps(package), **files})
    return repo


@pytest.mark.parametrize("case", list(MOCHA_CASES))
def test_a_mocha_red_of_code_not_written_yet_is_right(tmp_path: Path, node_modules: Path,
                                                      case: str) -> None:
    package, project, head, code = MOCHA_CASES[case]
    repo = js_repo(tmp_path, node_modules, package, project)
    cmd = detect_test_command(repo.path)
    assert cmd is not None and cmd.runner == "mocha"
    before = run(repo, cmd)
    assert passing(before) == MOCHA_EXISTING and before.all_passed, before.output_excerpt

    assert commit(repo, Phase.RED, {"test/ranges.test.js": head + RANGES_TEST}) == []
    red = run(repo, cmd)
    assert check_tests(Phase.RED, before, red) == [], red.output_excerpt
    if red.collection_errors:
        # Mocha stops at a spec file that does not load: every test is hidden, as in a
        # Go package, and GREEN's run is held against the report before RED.
        assert red.load_kinds == {"test/ranges.test.js": "missing-code"}
        assert hides_tests(red)
    else:  # the missing name is undefined at the test's call: an ordinary failing test
        assert passing(red) == MOCHA_EXISTING
        assert red.outcomes["test/ranges.test.js::ranges clamps"].kind == "missing-code"
    assert commit(repo, Phase.GREEN, code) == []
    green = run(repo, cmd)
    assert green.all_passed and passing(green) == MOCHA_EXISTING | {
        "test/ranges.test.js::ranges clamps"}, green.output_excerpt
    hidden = hides_tests(red)
    assert check_tests(Phase.GREEN, before if hidden else red, green,
                       red_report=red if hidden else None) == []


@pytest.mark.parametrize(("package", "head"), [
    ({"scripts": {"test": "mocha"}}, CJS_HEAD + "const { clamp } = require('range-clamp');\n"),
    ({"type": "module", "scripts": {"test": "mocha"}},
     ESM_HEAD + "import { clamp } from 'range-clamp';\n"),
    ({"scripts": {"test": "mocha"}},
     CJS_HEAD + "const { clamp } = require('./helpers.test.js');\n"),
], ids=["CommonJS package", "ESM package", "test helper"])
def test_a_mocha_red_missing_a_package_or_helper_is_rejected(
        tmp_path: Path, node_modules: Path, package: dict[str, object], head: str) -> None:
    """A package that is not installed (not relative, not in the repository) or a test
    helper that is not there: GREEN, which writes code, cannot bring either."""
    esm = package.get("type") == "module"
    repo = js_repo(tmp_path, node_modules, package, {
        "src/words.js": WORDS_ESM if esm else WORDS_CJS,
        "test/words.test.js": (ESM_HEAD + "import { words } from '../src/words.js';\n" if esm
                               else CJS_HEAD + "const { words } = require('../src/words');\n")
                              + WORDS_TEST})
    cmd = detect_test_command(repo.path)
    assert cmd is not None
    before = run(repo, cmd)
    repo.commit("RED", {"test/ranges.test.js": head + RANGES_TEST})
    red = run(repo, cmd)
    assert red.load_kinds == {"test/ranges.test.js": "test-error"}, red.output_excerpt
    assert [v.rule for v in check_tests(Phase.RED, before, red)] == ["tests-do-not-load"]


@pytest.mark.parametrize(("package", "head", "kind"), [
    ({}, "const { clamp } = require('../src/ranges.js');\n", "missing-code"),
    ({"type": "module"}, "import { clamp } from '../src/ranges.js';\n", "missing-code"),
    ({"type": "module"}, "import { clamp } from '../src/words.js';\n", "missing-code"),
    ({}, "const { clamp } = require('range-clamp');\n", "test-error"),
], ids=["CommonJS module", "ESM module", "ESM export", "package"])
def test_node_test_runner_reads_why_a_file_did_not_load(
        tmp_path: Path, node_modules: Path, package: dict[str, object], head: str,
        kind: str) -> None:
    esm = package.get("type") == "module"
    body = ("import test from 'node:test';\nimport assert from 'node:assert';\n" if esm else
            "const test = require('node:test');\nconst assert = require('node:assert');\n")
    repo = js_repo(tmp_path, node_modules, {**package, "scripts": {"test": "node --test"}}, {
        "src/words.js": WORDS_ESM if esm else WORDS_CJS,
        "test/words.test.js": body + (
            "import { words } from '../src/words.js';\n" if esm
            else "const { words } = require('../src/words');\n")
        + "test('splits', () => assert.deepStrictEqual(words('a b'), ['a', 'b']));\n"})
    cmd = detect_test_command(repo.path)
    assert cmd is not None and cmd.runner == "node"
    before = run(repo, cmd)
    assert passing(before) == {"test/words.test.js::splits"}, before.output_excerpt
    repo.commit("RED", {"test/ranges.test.js": body + head
                        + "test('clamps', () => assert.strictEqual(clamp(5, 0, 3), 3));\n"})
    red = run(repo, cmd)
    assert red.load_kinds == {"test/ranges.test.js": kind}, red.output_excerpt
    assert passing(red) == {"test/words.test.js::splits"}
    rules = [v.rule for v in check_tests(Phase.RED, before, red)]
    assert rules == ([] if kind == "missing-code" else ["tests-do-not-load"])


@pytest.mark.parametrize("runner", ["vitest", "jest"])
@pytest.mark.parametrize(("head", "kind"), [
    ("{clamp} from './words.js'", "missing-code"),
    ("{clamp} from 'range-clamp'", "test-error"),
], ids=["missing export", "missing package"])
def test_vitest_and_jest_judge_an_export_and_a_package_alike(
        tmp_path: Path, node_modules: Path, runner: str, head: str, kind: str) -> None:
    """A name the project's module does not export yet is missing code however the
    runner reports it (at load or at the call); a package that is not installed is not."""
    names, module = head.split(" from ")
    esm = runner == "vitest"
    line = (f"import {{ it, expect }} from 'vitest';\nimport {names} from {module};\n" if esm
            else f"const {names} = require({module});\n")
    repo = js_repo(tmp_path, node_modules,
                   {"type": "module", "scripts": {"test": "vitest run"}} if esm
                   else {"scripts": {"test": "jest"}},
                   {"src/words.js": WORDS_ESM if esm else WORDS_CJS})
    cmd = detect_test_command(repo.path)
    assert cmd is not None and cmd.runner == runner
    repo.commit("RED", {"src/ranges.test.js": line
                        + "it('clamps', () => { expect(clamp(5, 0, 3)).toBe(3); });\n"})
    red = run(repo, cmd)
    found = red.load_kinds.get("src/ranges.test.js") or red.outcomes[
        "src/ranges.test.js::clamps"].kind
    assert found == kind, red.output_excerpt
    rules = {v.rule for v in check_tests(Phase.RED, empty(), red)}
    assert rules == (set() if kind == "missing-code" else {"tests-do-not-load"}), rules


def empty() -> TestReport:
    return TestReport(argv=(), exit_code=5, duration_s=0.0, timed_out=False, outcomes={},
                      collection_errors=(), no_tests_collected=True, output_excerpt="")
