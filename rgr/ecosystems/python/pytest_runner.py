"""pytest: ``--junitxml`` into rgr's directory, test ids ``tests/test_x.py::TestY::test_z[p]``.

rgr also passes ``-p no:cacheprovider`` (and the caller sets ``PYTHONDONTWRITEBYTECODE``)
so a run leaves nothing in the working tree, and ``--continue-on-collection-errors``:
without it pytest ends the whole session at one module that does not import
("Interrupted: N errors during collection"), so a RED test file importing code not written
yet would hide every other test of the project, which rgr would then see removed. A shell
command gets the options through ``PYTEST_ADDOPTS``: the script's last word is not
necessarily pytest's.

Subtests (the ``subtests`` fixture, unittest's ``self.subTest``) report into their test's
testcase in the XML, where a skipped subtest looks like a skipped test. A test is its own
outcome: it fails when a subtest failed (the XML says so), and is skipped only when it
skipped itself, which rgr's plugin (rgr.ecosystems.python.pytest_own_outcomes, in rgr's folder of
the run) tells beside the XML.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import (
    ContentJudge,
    Finished,
    Guess,
    Plain,
    Results,
    TestOutcome,
    ToolHome,
)
from rgr.ecosystems.failure_kind import FailureKind, is_test_module, is_test_path
from rgr.ecosystems.junit import ReportUnreadable, parse_xml, status_of, testcases
from rgr.ecosystems.python import conftest_rules, lines
from rgr.ecosystems.python.pytest_own_outcomes import OUTCOMES_ENV

PYTEST_NO_TESTS_COLLECTED = 5
#: Every other test module still runs and counts when one does not import.
CONTINUE_ON_COLLECTION_ERRORS = "--continue-on-collection-errors"

#: The plugin's module name in the run's folder (unlikely to be a project's own module).
_PLUGIN = "rgr_pytest_own_outcomes"


class Pytest:
    name = "pytest"
    label = "pytest"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        extra = (f"--junitxml={tmp / 'junit.xml'}", "-p", "no:cacheprovider",
                 CONTINUE_ON_COLLECTION_ERRORS)
        _add_plugin(tmp, env)
        if cmd.shell:
            env["PYTEST_ADDOPTS"] = " ".join(
                filter(None, (env.get("PYTEST_ADDOPTS", ""), shlex.join(extra))))
            return cmd.argv
        return cmd.argv + extra

    def read(self, run: Finished) -> Results:
        results = Results()
        try:
            _read_xml(run.tmp / "junit.xml", run.root, results)
            _own_outcomes(run.tmp / "own-outcomes.json", results)
            results.classify(failure_kind)
        except ReportUnreadable as exc:
            # A broken conftest.py stops pytest before it writes a report (exit code 4);
            # it is a file that failed to import, like any other collection error.
            for file in _conftest_failures(run.output, run.root):
                results.load_error(file)
            if not results.collection_errors:
                # A usage error writes no report either: say so, never "0 tests".
                results.report_error = f"{exc} (pytest exit code {run.done.returncode})"
        results.no_tests = (
            results.report_error is None and not results.outcomes
            and not results.collection_errors
            and run.done.returncode in (0, PYTEST_NO_TESTS_COLLECTED))
        return results

    def fix(self) -> str:
        return "make sure the test command runs pytest and that pytest can write --junitxml"


def _read_xml(path: Path, root: Path, results: Results) -> None:
    for case in testcases(parse_xml(path)):
        classname, name = case.get("classname", ""), case.get("name", "")
        status, message = status_of(case)
        if classname == "pytest" and name == "internal":
            raise ReportUnreadable(f"pytest crashed with an internal error: {message}")
        if not classname:
            # A module-level problem: pytest names the module, e.g. "tests.test_x".
            file = _module_file(root, name.split("."))
            if status == "error":
                # A module that does not import because the code under test does not
                # exist yet is a right RED; any other load error is not.
                results.load_error(file, load_kind(file, message))
                continue
            results.add(TestOutcome(file, file, status, message))  # skipped module
            continue
        file, classes = _split_classname(root, classname.split("."))
        test_id = "::".join([file, *classes, name])
        known_file = file if _exists(root, file) else None
        results.add(TestOutcome(test_id, known_file, status, message))


# ------------------------------------------------------------------ why a test failed

_FIXTURE_NOT_FOUND = re.compile(r"fixture '[^']+' not found")
_NOT_IN_CALL = re.compile(r"^failed on (setup|teardown) with ")
_TIMEOUT = re.compile(r"^(Failed: )?Timeout \(?>|^\+{3,} Timeout \+{3,}$", re.MULTILINE)
#: pytest's location lines, ``path:line: ExceptionType`` (``--tb=long``, the default) or
#: ``path:line: in function`` (``--tb=short``); the last is where it was raised.
_RAISED_AT = re.compile(r"^(\S[^\n]*?\.py):\d+: (?:in \w+|(\w+(?:\.\w+)*))$", re.MULTILINE)
_SUMMARY_TYPE = re.compile(r"^(?:failed on \w+ with \")?(\w+(?:\.\w+)*)(?::|\n|$)")
_MISSING_MODULE = re.compile(r"No module named '([\w.]+)'|cannot import name '\w+' from "
                             r"'([\w.]+)'|module '([\w.]+)' has no attribute")
_MISSING_MEMBER = re.compile(r"'\w+' object has no attribute|type object '\w+' has no "
                             r"attribute|name '\w+' is not defined")
_BAD_CALL = re.compile(r"takes no arguments|takes \d+ positional argument|unexpected keyword "
                       r"argument|missing \d+ required|object is not callable")


def failure_kind(outcome: TestOutcome) -> FailureKind:
    """Why a pytest test failed, from its JUnit testcase: the report's text (pytest's
    long representation, whose ``E`` lines and ``path:line: Type`` lines say what was
    raised where) and whether it broke in setup or teardown instead of the test itself.

    A fixture that does not exist, or any error while setting the test up that is not
    missing code, is the test's own; so is a missing module named like test code
    (``tests.helpers``, ``test_utils``). ImportError, AttributeError and NameError that
    name anything else are missing code, as is NotImplementedError and a call the code
    under test does not accept yet (TypeError at the test's call). Anything else raised
    inside code that is not a test is the code under test misbehaving: ``assertion``.
    """
    text = outcome.message
    if _FIXTURE_NOT_FOUND.search(text):
        return "test-error"
    if _TIMEOUT.search(text):
        return "timeout"
    raised = _RAISED_AT.findall(text)
    where, exc = raised[-1] if raised else (None, "")
    if not exc and (summary := _SUMMARY_TYPE.match(text)):
        exc = summary.group(1)
    kind = raised_kind(exc.rsplit(".", 1)[-1], where, text)
    if _NOT_IN_CALL.match(text) and kind != "missing-code":
        return "test-error"
    return kind


#: The exception line of pytest's long representation: ``E   ModuleNotFoundError: ...``.
_EXCEPTION_LINE = re.compile(r"^E\s+(\w+(?:\.\w+)*): ", re.MULTILINE)


def load_kind(file: str, message: str) -> FailureKind:
    """Why the test module ``file`` did not import (its JUnit error's text): a module or
    name that is not test code and does not exist yet is ``missing-code``; a missing
    test-only module is ``test-error``; anything else (a syntax error, code that raises
    while importing) is no kind rgr accepts in a RED."""
    raised = _EXCEPTION_LINE.findall(message)
    return raised_kind(raised[-1].rsplit(".", 1)[-1] if raised else "", file, message)


def raised_kind(exc: str, where: str | None, text: str) -> FailureKind:
    """The kind of exception ``exc`` (its class's short name) raised in file ``where``
    (relative), its report's text ``text`` naming what was missing."""
    in_test = where is not None and is_test_path(where)
    if exc in ("AssertionError", "Failed") or text.startswith("assert "):
        return "assertion"
    if exc in ("ModuleNotFoundError", "ImportError", "AttributeError"):
        missing = _MISSING_MODULE.search(text)
        if missing is not None:
            module = next(group for group in missing.groups() if group)
            return "test-error" if is_test_module(module) else "missing-code"
        if exc == "AttributeError" and _MISSING_MEMBER.search(text):
            return "missing-code"
        return "unknown"
    if exc in ("NameError", "NotImplementedError"):
        return "missing-code"
    if exc == "TypeError" and in_test and _BAD_CALL.search(text):
        return "missing-code"
    if exc in ("SyntaxError", "IndentationError"):
        return "test-error" if in_test else "unknown"
    if where is not None and not in_test:
        return "assertion"
    return "unknown"


def _add_plugin(tmp: Path, env: dict[str, str]) -> None:
    """rgr.ecosystems.python.pytest_own_outcomes in ``tmp``, where the run's pytest finds it: a
    ``pytest11`` entry point of a dist-info folder on PYTHONPATH (pytest loads those by
    itself). Not ``-p``: where PYTHONPATH does not reach pytest (a script that sets its
    own), ``-p`` would stop the run on an import error; an entry point that is not found
    is only a plugin not loaded."""
    folder = tmp / "pytest-plugin"
    info = folder / f"{_PLUGIN}-0.dist-info"
    info.mkdir(parents=True)
    shutil.copyfile(Path(__file__).with_name("pytest_own_outcomes.py"),
                    folder / f"{_PLUGIN}.py")
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {_PLUGIN}\nVersion: 0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[pytest11]\nrgr = {_PLUGIN}\n",
                                          encoding="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(folder), env.get("PYTHONPATH"))))
    env[OUTCOMES_ENV] = str(tmp / "own-outcomes.json")


def _own_outcomes(path: Path, results: Results) -> None:
    """A test that ran subtests and did not skip itself is not skipped: its subtests'
    skips (in its testcase in the XML) made it look so. A failure stays a failure.
    Without the plugin's file (the plugin did not load) the XML is all there is."""
    try:
        told = json.loads(path.read_text(encoding="utf-8"))
        with_subtests, skipped = set(told["subtests"]), set(told["skipped"])
    except (OSError, ValueError, KeyError, TypeError):
        return
    for test_id in with_subtests - skipped:
        outcome = results.outcomes.get(test_id)
        if outcome is not None and outcome.status == "skipped":
            results.outcomes[test_id] = TestOutcome(test_id, outcome.file, "passed", "")


_CONFTEST_FAILURE = re.compile(r"ImportError while loading conftest '([^']+)'")


def _conftest_failures(output: str, root: Path) -> list[str]:
    found = []
    for raw in dict.fromkeys(_CONFTEST_FAILURE.findall(output)):
        path = Path(raw)
        try:
            found.append(path.resolve().relative_to(root.resolve()).as_posix())
        except ValueError:
            found.append(raw)  # a conftest above the project root
    return found


def _split_classname(root: Path, parts: list[str]) -> tuple[str, list[str]]:
    """``tests.test_x.TestY`` -> (``tests/test_x.py``, [``TestY``]).

    The split is ambiguous from the string alone (directories may contain dots, classes
    nest), so the longest prefix that is a file in ``root`` is the module. Without one,
    trailing capitalised names are taken as classes.
    """
    for cut in range(len(parts), 0, -1):
        candidate = "/".join(parts[:cut]) + ".py"
        if _exists(root, candidate):
            return candidate, parts[cut:]
    cut = len(parts)
    while cut > 1 and parts[cut - 1][:1].isupper():
        cut -= 1
    return "/".join(parts[:cut]) + ".py", parts[cut:]


def _module_file(root: Path, parts: list[str]) -> str:
    file, _ = _split_classname(root, parts)
    package_init = "/".join([*parts, "__init__.py"])
    if not _exists(root, file) and _exists(root, package_init):
        return package_init
    return file


def _exists(root: Path, relative: str) -> bool:
    return (root / relative).is_file()


#: Where a project keeps its own virtualenv, at its top.
VENV_FOLDERS = (".venv", "venv", "env")


def project_virtualenv(root: Path) -> str | None:
    """The project's own virtualenv folder (relative to ``root``), or None: where its
    dependencies, and the test runner they bring, are installed."""
    for folder in VENV_FOLDERS:
        if (root / folder / "pyvenv.cfg").is_file() and (root / folder / "bin").is_dir():
            return folder
    return None


#: Files that make a folder a Python project whose tests pytest runs.
PYTHON_MARKERS = ("pytest.ini", "pyproject.toml", "setup.py", "setup.cfg", "tox.ini")
_PYTEST_NAME = re.compile(r"(pytest|py\.test)(-?[\d.]+)?")


class Python(Plain):
    name = "Python (pytest)"
    runners = (Pytest(),)
    # pytest's --junitxml is always rgr's own
    reads_junit_xml_itself = frozenset({"pytest"})
    loads_file_by_file = frozenset({"pytest"})
    test_config_globs = (
        "**/conftest.py", "**/pytest.ini", "**/tox.ini", "**/setup.cfg", "**/pyproject.toml",
        "**/sitecustomize.py", "**/usercustomize.py", "**/*.pth", "**/.coveragerc",
        "**/noxfile.py")
    # a conftest.py of fixtures and helpers is test code; one that hooks collection or
    # reporting is configuration (rgr.ecosystems.python.conftest_rules)
    judged_by_content = (ContentJudge("conftest.py", conftest_rules.refusal,
                                      conftest_rules.__file__, test_code=True),)
    tool_homes = (ToolHome("pyenv", "PYENV_ROOT", ".pyenv", ("PYENV_VERSION",)),)
    # pip's user configuration (an index, no-index, find-links): a suite that builds
    # environments (tox, nox) or installs a package reads it
    home_config = (".config/pip/pip.conf", ".pip/pip.conf")
    lockfiles = ("uv.lock", "poetry.lock", "Pipfile.lock", "requirements.txt", "pyproject.toml")
    # pytest reads these from the environment: extra options, plugins to load. Not
    # PYTEST_DISABLE_PLUGIN_AUTOLOAD: rgr's own reporter and line tracer reach pytest as
    # entry-point plugins (below), which that variable would silently turn off.
    runner_variables = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")
    # rgr's line tracer is a pytest plugin (rgr.ecosystems.python.pytest_lines)
    traced_runners = frozenset({"pytest"})
    line_tracer = lines.TRACER

    def select_tests(self, cmd: TestCommand, tests: Sequence[str]) -> TestCommand | None:
        """pytest's node ids, added to a command line of its own (a shell script may
        not pass them on)."""
        if cmd.runner != "pytest" or cmd.shell or not tests:
            return None
        return TestCommand(cmd.argv + tuple(tests), cmd.runner, cmd.junit_globs, cmd.shell,
                           cmd.source)

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        for name in PYTHON_MARKERS:
            if (root / name).is_file():
                return TestCommand(argv=("pytest",), runner="pytest", junit_globs=(),
                                   shell=False, source=f"detected from {name}")
        return None

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        return "pytest" if any(_PYTEST_NAME.fullmatch(n) for n in names) else None


ECOSYSTEM = Python()
