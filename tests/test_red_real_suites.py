"""A right RED on a real project (issue 34, item 1): the new test file imports code that
does not exist yet while the project's other tests keep running and counting.

Real git repositories, the real pytest and the real Mocha (the pinned one of
tests/e2e/runners, as tests/test_failure_kinds.py obtains it); the verdict is rgr's own
(rgr.check.guards on the commit and on the runner's report).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pygit2
import pytest
from conftest import Repo, make_repo

from rgr.base.config import Config, TestCommand, guess_runner
from rgr.check.guards import check_scope, check_tests
from rgr.check.runners.pytest_runner import CONTINUE_ON_COLLECTION_ERRORS, Pytest
from rgr.check.verify import TestReport, run_tests
from rgr.store.handoff import Phase

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
