"""unittest: a Python project whose tests unittest runs, with the project's own
interpreter and unittest's own discovery.

**Which projects.** A Python project (one of pytest's markers, or ``test*.py`` files at
the top, in ``tests/`` or in ``test/``) is a unittest project when nothing of it names
pytest (its packaging and tool files, requirements, CI, tox, nox, Makefile, a
``conftest.py``, a test file importing pytest) and either ``python -m unittest`` is
written in its README, contributing guide, CI, tox, nox or Makefile (that line's
arguments are kept when they are plain words), or its test files import unittest. Any
mention of pytest keeps the project pytest's, as it was before this module.

**Which interpreter.** The project's virtualenv at its top (``.venv``, ``venv`` or
``env``, holding ``pyvenv.cfg``), as ``<venv>/bin/python``: the interpreter its
dependencies are installed in. Without one, ``python3`` (inside the sandbox a project
virtualenv's bin folder is first on PATH anyway).

**What rgr adds.** ``-m unittest`` becomes ``-m rgr_unittest``
(rgr.ecosystems.python.unittest_reporter, copied into rgr's folder of the run, found through
``PYTHONPATH``): unittest's own main program with a result class that writes one JSON
line per test, doctests a ``load_tests`` adds included. Test ids:
``tests/test_x.py::TestY::test_z``; a doctest ``calc.py::calc.add``. A subtest is part
of its test, as unittest counts it. A test module that does not import
(``unittest.loader._FailedTest``) is a load error of its file, with pytest's kinds:
code under test that does not exist yet is a right RED.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Iterator, Sequence
from functools import partial
from itertools import pairwise
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import (
    Finished,
    Guess,
    Occurrences,
    Plain,
    Results,
    Status,
    TestOutcome,
    detected,
    existing,
    json_lines,
    message,
    project_files_named,
    relative,
    report_lines,
)
from rgr.ecosystems.failure_kind import FailureKind
from rgr.ecosystems.python.pytest_runner import ECOSYSTEM as PYTEST_ECOSYSTEM
from rgr.ecosystems.python.pytest_runner import PYTHON_MARKERS, project_virtualenv, raised_kind

REPORTER = Path(__file__).with_name("unittest_reporter.py")
#: The reporter's module name in rgr's folder of the run.
REPORTER_MODULE = "rgr_unittest"
REPORT = "unittest.jsonl"
REPORT_ENV = "RGR_UNITTEST_REPORT"
#: unittest's exit code when it found no test (Python 3.12 and later).
NO_TESTS_RAN = 5

_PYTEST = re.compile(r"(?<![\w-])(pytest|py\.test)(?![\w])")
_UNITTEST_LINE = re.compile(r"(?<![\w/.-])(?:\S*/)?(?:python[\d.]*|py)\s+-m\s+unittest\b"
                            r"([^\n;&|`)\"']*)")
_PLAIN_WORD = re.compile(r"[\w./:=*-]+")
_IMPORTS_UNITTEST = re.compile(r"^\s*(import unittest\b|from unittest\b)", re.MULTILINE)
_IMPORTS_PYTEST = re.compile(r"^\s*(import pytest\b|from pytest\b)", re.MULTILINE)


class Unittest:
    name = "unittest"
    label = "unittest"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        folder = tmp / "unittest-reporter"
        folder.mkdir()
        shutil.copyfile(REPORTER, folder / f"{REPORTER_MODULE}.py")
        env["PYTHONPATH"] = ":".join(filter(None, (str(folder), env.get("PYTHONPATH"))))
        env[REPORT_ENV] = str(tmp / REPORT)
        return through_reporter(cmd.argv)

    def read(self, run: Finished) -> Results:
        results, lines = report_lines(run, REPORT, "unittest")
        if lines is None:
            return results
        occurrences = Occurrences()
        for event in json_lines(lines):
            if not isinstance(event, dict) or "testsRun" in event:
                continue
            text = str(event.get("message") or "")
            if "loadError" in event:
                file = _module_file(run.root, str(event["loadError"]), text)
                results.load_error(file, failure_kind(
                    TestOutcome(file, file, "error", text), run.root))
                continue
            file = relative(str(event.get("file") or ""), run.root)
            names = [str(n) for n in event.get("names") or []]
            raw_status = str(event.get("status"))
            status: Status = raw_status if raw_status in (  # type: ignore[assignment]
                "passed", "failed", "error", "skipped") else "error"
            test_id = occurrences.key("::".join(filter(None, [file, *names])))
            results.add(TestOutcome(test_id, existing(run.root, file), status,
                                    message(text)))
        results.classify(partial(failure_kind, root=run.root))
        results.no_tests = (not results.outcomes and not results.collection_errors
                            and run.done.returncode in (0, NO_TESTS_RAN))
        return results

    def fix(self) -> str:
        return ("make the test command run `<python> -m unittest ...` itself (rgr runs it "
                "through its reporter module), e.g. test_command = "
                '".venv/bin/python -m unittest discover"')


def through_reporter(argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` with ``-m unittest`` made ``-m rgr_unittest`` (in a ``sh -c`` script
    too)."""
    words = list(argv)
    for at in range(len(words) - 1):
        if words[at] == "-m" and words[at + 1] == "unittest":
            words[at + 1] = REPORTER_MODULE
            return tuple(words)
    if len(words) == 3 and words[1] == "-c":
        words[2] = re.sub(r"(\s-m\s+)unittest\b", rf"\g<1>{REPORTER_MODULE}", words[2])
    return tuple(words)


# ------------------------------------------------------------------ why a test failed

_RAISED = re.compile(r"^(\w+(?:\.\w+)*)(?::\s|:?$)", re.MULTILINE)
_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+', re.MULTILINE)


def failure_kind(outcome: TestOutcome, root: Path | None = None) -> FailureKind:
    """Why a unittest test failed, from its traceback: the last exception line says what
    was raised, the last frame where (pytest's rules, rgr.ecosystems.python.pytest_runner)."""
    text = outcome.message
    raised = [m for m in _RAISED.findall(text) if m not in ("Traceback", "During")]
    exc = raised[-1].rsplit(".", 1)[-1] if raised else ""
    frames = _FRAME.findall(text)
    where = relative(frames[-1], root) if frames and root is not None else (
        frames[-1] if frames else None)
    return raised_kind(exc, where, text)


def _module_file(root: Path, module: str, text: str) -> str:
    """The file of a test module that did not import: the frame of its traceback that
    is that module, else its dotted name as a path."""
    tail = module.replace(".", "/")
    for file in project_files_named(text, root):
        if file.endswith((f"{tail}.py", f"{tail}/__init__.py")):
            return file
    package = f"{tail}/__init__.py"
    return package if (root / package).is_file() else f"{tail}.py"


# --------------------------------------------------------------------------- detection

def interpreter(root: Path) -> str:
    """The project's virtualenv's python, else ``python3``."""
    venv = project_virtualenv(root)
    return f"{venv}/bin/python" if venv is not None else "python3"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError:
        return ""


def _tool_files(root: Path) -> Iterator[Path]:
    """Files that say how a project is built, tested and checked."""
    for name in ("pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "noxfile.py",
                 "Makefile", "Pipfile", ".gitlab-ci.yml", "conftest.py", "pytest.ini",
                 "tests/conftest.py", "test/conftest.py"):
        if (root / name).is_file():
            yield root / name
    for pattern in ("requirements*.txt", "requirements/*.txt", ".github/workflows/*.y*ml"):
        yield from sorted(root.glob(pattern))


def _doc_files(root: Path) -> Iterator[Path]:
    for pattern in ("README*", "CONTRIBUTING*", "docs/*.md", "docs/*.rst"):
        yield from sorted(p for p in root.glob(pattern) if p.is_file())


def _test_files(root: Path) -> list[Path]:
    found = [*root.glob("test*.py"), *root.glob("tests/**/test*.py"),
             *root.glob("test/**/test*.py")]
    return sorted(p for p in found if p.is_file() and ".venv" not in p.parts)[:200]


def _uses_pytest(root: Path, tests: list[Path]) -> bool:
    if any(p.name in ("conftest.py", "pytest.ini") for p in _tool_files(root)):
        return True
    if any(_PYTEST.search(_read(p)) for p in _tool_files(root)):
        return True
    return any(_IMPORTS_PYTEST.search(_read(p)) for p in tests)


def _written_command(root: Path) -> tuple[tuple[str, ...], str] | None:
    """The arguments of a ``python -m unittest`` line in the project's tool files or
    docs, and the file; a line whose arguments are not plain words gives none."""
    docs = set(_doc_files(root))
    for path in (*_tool_files(root), *docs):
        found = _UNITTEST_LINE.search(_read(path))
        if found is None:
            continue
        try:
            words = tuple(shlex.split(found.group(1)))
        except ValueError:
            words = ()
        if not all(_PLAIN_WORD.fullmatch(w) for w in words) or (
                # docs show one module run as often as the whole suite
                path in docs and words[:1] != ("discover",)):
            words = ()
        return words, path.relative_to(root).as_posix()
    return None


class PythonUnittest(Plain):
    name = "Python (unittest)"
    runners = (Unittest(),)
    # a module that does not import is one _FailedTest; every other module still runs
    loads_file_by_file = frozenset({"unittest"})
    # One Python, whichever runner: the same interpreter homes (pyenv).
    tool_homes = PYTEST_ECOSYSTEM.tool_homes
    home_config = PYTEST_ECOSYSTEM.home_config
    lockfiles = PYTEST_ECOSYSTEM.lockfiles
    # rgr's reporter runs the suite under rgr's line tracer
    # (rgr.ecosystems.python.unittest_reporter)
    traced_runners = frozenset({"unittest"})
    line_tracer = PYTEST_ECOSYSTEM.line_tracer

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        tests = _test_files(root)
        if not tests and not any((root / m).is_file() for m in PYTHON_MARKERS):
            return None
        if _uses_pytest(root, tests):
            return None
        written = _written_command(root)
        if written is not None:
            args, source = written
        elif tests and all(_IMPORTS_UNITTEST.search(_read(p)) for p in tests):
            args, source = (), "its test files (they import unittest, nothing names pytest)"
        else:
            return None
        return detected((interpreter(root), "-m", "unittest", *(args or ("discover",))),
                        "unittest", source)

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        pairs = pairwise(words)
        return "unittest" if any(a == "-m" and b == "unittest" for a, b in pairs) else None


ECOSYSTEM = PythonUnittest()
