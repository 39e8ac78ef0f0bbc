"""A unittest project runs on its own virtualenv's python with unittest's own discovery
(issue 35, item 3): a real project in tmp_path with a real venv that has no pytest, a
``load_tests`` adding doctests, subtests; rgr's count is unittest's own "Ran N tests";
a RED importing code not written yet is a right RED; doctor names the interpreter and
says when the test command's runner is not the project's."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rgr.base.config import TestCommand
from rgr.check.guards import check_tests
from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.registry import detect_test_command, guess_runner
from rgr.store.handoff import Phase
from tests.conftest import Repo, clean_env, make_repo

TIMEOUT = 300.0

CALC = '''def add(a, b):
    """
    >>> add(1, 2)
    3
    >>> add(2, 2)
    4
    """
    return a + b


def double(a):
    """
    >>> double(4)
    8
    """
    return 2 * a
'''
TESTS = '''import doctest
import unittest

import calc


def load_tests(loader, tests, ignore):
    tests.addTests(doctest.DocTestSuite(calc))
    return tests


class TestCalc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(calc.add(1, 1), 2)

    def test_words(self):
        for word in ["a", "b", "c"]:
            with self.subTest(word=word):
                if word == "b":
                    self.skipTest("not b")
                self.assertTrue(word)

    @unittest.skip("later")
    def test_later(self):
        pass


class TestMore(unittest.TestCase):
    def test_add(self):
        self.assertEqual(calc.add(0, 0), 0)
'''
PROJECT = {
    ".gitignore": ".venv/\n__pycache__/\n",
    "setup.py": "from setuptools import setup\n\nsetup(name='calc', py_modules=['calc'])\n",
    "Makefile": "test:\n\tpython -m unittest discover\n",
    "calc.py": CALC,
    "tests/__init__.py": "",
    "tests/test_calc.py": TESTS,
}
EXISTING = {
    "tests/test_calc.py::TestCalc::test_add": "passed",
    "tests/test_calc.py::TestCalc::test_words": "passed",  # its skipped subtest: still ran
    "tests/test_calc.py::TestCalc::test_later": "skipped",
    "tests/test_calc.py::TestMore::test_add": "passed",
    "calc.py::calc.add": "passed",
    "calc.py::calc.double": "passed",
}


def unittest_project(tmp_path: Path) -> Repo:
    """The project, committed, with its own venv (no pytest in it: nothing installed)."""
    repo = make_repo(tmp_path)
    repo.commit("the project", PROJECT)
    done = subprocess.run([sys.executable, "-m", "venv", "--without-pip",
                           str(repo.path / ".venv")], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return repo


def own_count(root: Path, *args: str) -> int:
    """unittest's own count, in the project's venv: "Ran N tests"."""
    done = subprocess.run([str(root / ".venv" / "bin" / "python"), "-m", "unittest", *args],
                          cwd=root, capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    found = re.search(r"^Ran (\d+) tests?", done.stderr, re.MULTILINE)
    assert found, done.stderr
    return int(found.group(1))


def run(root: Path, cmd: TestCommand | None = None) -> TestReport:
    cmd = cmd or detect_test_command(root)
    assert cmd is not None
    return run_tests(cmd, root, timeout=TIMEOUT, env=dict(os.environ))


def statuses(report: TestReport) -> dict[str, str]:
    return {test_id: o.status for test_id, o in report.outcomes.items()}


def test_detected_and_run_on_the_projects_own_python(tmp_path: Path) -> None:
    repo = unittest_project(tmp_path)
    cmd = detect_test_command(repo.path)
    assert cmd is not None
    assert (cmd.argv, cmd.runner) == ((".venv/bin/python", "-m", "unittest", "discover"),
                                      "unittest")
    assert cmd.source == "detected from Makefile"
    assert not (repo.path / ".venv" / "bin" / "pytest").exists()
    report = run(repo.path)
    assert statuses(report) == EXISTING, report.output_excerpt
    assert len(report.outcomes) == own_count(repo.path, "discover") == 6
    assert report.all_passed and report.exit_code == 0
    assert repo.git("status", "--porcelain") == ""


def test_rgr_verify_counts_what_unittest_counts(tmp_path: Path) -> None:
    """Through the real CLI, sealed, on a pristine checkout of HEAD."""
    repo = unittest_project(tmp_path)
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=repo.path,
                          env=clean_env(tmp_path / "home"), capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    tests = json.loads(done.stdout)["tests"]
    assert tests["command"][:3] == [".venv/bin/python", "-m", "rgr_unittest"]
    counted = tests["passed"] + tests["failed"] + tests["errors"] + tests["skipped"]
    assert counted == own_count(repo.path) == 6
    assert (tests["passed"], tests["skipped"]) == (5, 1)


def test_subtests_and_duplicates_count_as_unittest_counts_them(tmp_path: Path) -> None:
    """A failing subtest fails its test (one test, as "Ran N" counts it); a test added
    twice to the suite runs twice and counts twice."""
    repo = unittest_project(tmp_path)
    repo.commit("more", {"tests/test_sub.py": '''import unittest


class TestSub(unittest.TestCase):
    def test_even(self):
        for n in [2, 3, 4]:
            with self.subTest(n=n):
                self.assertEqual(n % 2, 0)


def load_tests(loader, tests, pattern):
    tests.addTest(TestSub("test_even"))
    return tests
'''})
    report = run(repo.path)
    sub = "tests/test_sub.py::TestSub::test_even"
    assert statuses(report)[sub] == statuses(report)[f"{sub} #2"] == "failed"
    assert report.outcomes[sub].kind == "assertion"
    assert "n=3" in report.outcomes[sub].message
    assert len(report.outcomes) == own_count(repo.path) == 8


def test_a_red_importing_code_not_written_yet_is_right(tmp_path: Path) -> None:
    repo = unittest_project(tmp_path)
    before = run(repo.path)
    repo.commit("RED", {"tests/test_slug.py": "import unittest\n\nfrom slug import slugify\n"
                        "\n\nclass TestSlug(unittest.TestCase):\n    def test_slug(self):\n"
                        "        self.assertEqual(slugify('A B'), 'a-b')\n"})
    red = run(repo.path)
    assert red.collection_errors == ("tests/test_slug.py",), red.output_excerpt
    assert red.load_kinds == {"tests/test_slug.py": "missing-code"}
    assert statuses(red) == EXISTING  # every other module still runs
    assert check_tests(Phase.RED, before, red) == []
    repo.commit("GREEN", {"slug.py": "def slugify(text):\n"
                          "    return text.lower().replace(' ', '-')\n"})
    green = run(repo.path)
    assert green.all_passed and not green.collection_errors
    assert statuses(green) == {**EXISTING, "tests/test_slug.py::TestSlug::test_slug": "passed"}
    assert check_tests(Phase.GREEN, red, green) == []


def test_a_red_missing_its_own_helper_is_not(tmp_path: Path) -> None:
    repo = unittest_project(tmp_path)
    before = run(repo.path)
    repo.commit("RED", {"tests/test_slug.py": "import unittest\n\n"
                        "from tests.helpers import words\n"})
    red = run(repo.path)
    assert red.load_kinds == {"tests/test_slug.py": "test-error"}, red.output_excerpt
    assert [v.rule for v in check_tests(Phase.RED, before, red)] == ["tests-do-not-load"]


@pytest.mark.parametrize(("files", "argv"), [
    ({"tox.ini": "[testenv]\ncommands = python -m unittest discover -s tests -t .\n"},
     ("python3", "-m", "unittest", "discover", "-s", "tests", "-t", ".")),
    ({"README.md": "Run one: `python -m unittest tests.test_x`\n", "setup.py": ""},
     ("python3", "-m", "unittest", "discover")),
    ({"tests/test_x.py": "import unittest\n"}, ("python3", "-m", "unittest", "discover")),
    ({"tox.ini": "[testenv]\ncommands = python -m unittest\ndeps = pytest\n"}, ("pytest",)),
    ({"setup.py": "", "requirements-dev.txt": "pytest>=7\n",
      "tests/test_x.py": "import unittest\n"}, ("pytest",)),
    ({"setup.py": "", "tests/conftest.py": "", "tests/test_x.py": "import unittest\n"},
     ("pytest",)),
    ({"pyproject.toml": "[project]\nname = 'x'\n",
      "tests/test_x.py": "import unittest\n", "tests/test_y.py": "import pytest\n"},
     ("pytest",)),
    ({"pyproject.toml": "[project]\nname = 'x'\n"}, ("pytest",)),
], ids=["tox args kept", "docs: one module is not the suite", "tests import unittest",
        "pytest in tox", "pytest required", "a conftest", "a test imports pytest",
        "nothing says"])
def test_which_projects_are_unittests(tmp_path: Path, files: dict[str, str],
                                      argv: tuple[str, ...]) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    cmd = detect_test_command(tmp_path)
    assert cmd is not None and cmd.argv == argv


def test_a_configured_command_is_run_through_the_reporter(tmp_path: Path) -> None:
    repo = unittest_project(tmp_path)
    python = str(repo.path / ".venv" / "bin" / "python")
    words = (python, "-m", "unittest", "discover", "-p", "test_*.py")
    assert guess_runner(words) == "unittest"
    report = run(repo.path, TestCommand(words, "unittest", (), False, "test"))
    assert statuses(report) == EXISTING, report.output_excerpt
    shell = TestCommand(("/bin/sh", "-c", f"cd . && {python} -m unittest -q"), "unittest",
                        (), True, "test")
    assert statuses(run(repo.path, shell)) == EXISTING


def test_doctor_names_the_interpreter_and_one_outside_the_venv(tmp_path: Path) -> None:
    repo = unittest_project(tmp_path)
    env = clean_env(tmp_path / "home")

    def doctor() -> dict[str, object]:
        done = subprocess.run([sys.executable, "-m", "rgr", "doctor", "--json"],
                              cwd=repo.path, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        assert done.stdout, done.stderr
        report: dict[str, object] = json.loads(done.stdout)
        return report

    report = doctor()
    programs = report["programs"]
    assert isinstance(programs, list)
    (test,) = [p for p in programs if p["role"] == "test"]
    assert (test["name"], test["inside"]) == (".venv/bin/python", ".venv/bin/python")
    # Only the interpreter's warnings count here (no agent CLI is installed in this HOME:
    # doctor warns of that too, in rgr run's words).
    def interpreter_warnings() -> list[dict[str, str]]:
        warnings = report["warnings"]
        assert isinstance(warnings, list)
        return [w for w in warnings if "would stop at its agent" not in w["problem"]]

    assert interpreter_warnings() == []
    repo.commit("system python", {"tdd.toml": f'test_command = "{sys.executable} -m '
                                              'unittest"\n'})
    report = doctor()
    (warning,) = interpreter_warnings()
    assert f"{sys.executable}, outside the project's virtualenv .venv" in warning["problem"]


def test_failure_kinds_read_from_unittests_tracebacks(tmp_path: Path) -> None:
    repo = unittest_project(tmp_path)
    repo.commit("failing", {"tests/test_kinds.py": '''import unittest

import calc


class TestKinds(unittest.TestCase):
    def test_wrong(self):
        self.assertEqual(calc.add(1, 1), 3)

    def test_missing(self):
        self.assertEqual(calc.subtract(3, 1), 2)

    def test_raises_in_code(self):
        calc.add(1, None)
'''})
    report = run(repo.path)
    kinds = {i.rsplit("::", 1)[1]: (o.status, o.kind) for i, o in report.outcomes.items()
             if i.startswith("tests/test_kinds.py")}
    assert kinds == {"test_wrong": ("failed", "assertion"),
                     "test_missing": ("error", "missing-code"),
                     "test_raises_in_code": ("error", "assertion")}, report.output_excerpt


def test_the_reporter_runs_sealed_with_rgrs_install_hidden(tmp_path: Path) -> None:
    """Inside bubblewrap, with rgr's own install hidden: the reporter is copied into
    rgr's folder of the run, so the project's python finds it there."""
    import rgr.ecosystems
    from rgr.check.verify import Confinement
    from rgr.sandbox.policy import SandboxPolicy

    repo = unittest_project(tmp_path)
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    for folder in (home, tmp):
        folder.mkdir()
    python = repo.path / ".venv" / "bin" / "python"
    policy = SandboxPolicy(hide_paths=(Path(rgr.ecosystems.__file__).parent,))
    jail = policy.test_jail(repo_root=repo.path, checkout=repo.path, home=home, tmp=tmp,
                            executables=[python])
    cmd = detect_test_command(repo.path)
    assert cmd is not None
    report = run_tests(cmd, repo.path, timeout=TIMEOUT,
                       env={**os.environ, "HOME": str(home), "TMPDIR": str(tmp)},
                       confinement=Confinement(jail, tmp))
    assert statuses(report) == EXISTING, report.output_excerpt
