"""rgr's stand-in for ``python -m unittest``: the same program (unittest's own ``main``,
its own discovery, its own text output), with a result class that also writes one JSON
line per test to the file ``RGR_UNITTEST_REPORT`` names.

rgr copies this file into its folder of the run, puts that folder on ``PYTHONPATH`` and
runs ``<the project's python> -m rgr_unittest`` where the command said ``-m unittest``
(rgr.ecosystems.python.unittest_runner). It runs in the project's interpreter, inside the
sandbox: standard library only, nothing newer than Python 3.8.

Each line: ``{"file", "names", "status", "message"}`` for a test (a doctest that a
``load_tests`` added included: its file is the doctest's own), ``{"loadError": module,
"message"}`` for a test module that did not import (unittest runs it as a
``unittest.loader._FailedTest``), and last ``{"testsRun": n}``, unittest's own count.
A subtest is part of its test, as unittest counts it: a failing subtest fails the test,
a skipped one never makes it skipped. A line is written when its test stops, so a run
that dies half-way still tells what ran.

For the mutation gate (rgr.ecosystems.python.lines.collect, which sets
``RGR_MUTATION_TRACE_FILES`` and puts rgr's line tracer on ``PYTHONPATH`` as
``rgr_mutation_lines``): each test runs traced (which watched lines it ran, the types
of the values it passed), and after the suite, when it passed, each mutant runs in a
child forked from this process, facing only the tests that ran its line
(rgr.ecosystems.python.pytest_lines, shared with pytest). Test ids there are
``<file relative to the working directory>::<names>``, as rgr reads them.
"""

from __future__ import annotations

import json
import os
import sys
import unittest
from typing import Any

__unittest = True  # unittest hides this module's frames from tracebacks

REPORT_ENV = "RGR_UNITTEST_REPORT"
#: Set by the mutation gate's traced run (rgr.ecosystems.python.pytest_lines.FILES_ENV).
TRACE_FILES_ENV = "RGR_MUTATION_TRACE_FILES"
#: The line tracer's module name on PYTHONPATH (rgr.ecosystems.python.lines).
TRACER_MODULE = "rgr_mutation_lines"
_FAILED_TEST = "unittest.loader._FailedTest."
_SEVERITY = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


def _write(record: dict[str, Any]) -> None:
    path = os.environ.get(REPORT_ENV)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def _where(test: unittest.TestCase) -> tuple[str, list[str]]:
    """The test's file and its names below the module (class, method; a doctest's
    own dotted name)."""
    doctest = getattr(test, "_dt_test", None)
    if doctest is not None:
        return doctest.filename or "", [doctest.name]
    module_name = type(test).__module__
    module = sys.modules.get(module_name)
    test_id = test.id()
    rest = test_id[len(module_name) + 1:] if test_id.startswith(module_name + ".") else test_id
    return getattr(module, "__file__", None) or "", rest.split(".")


def _line_tracer() -> Any:
    """rgr's line tracer, when the gate asked for one and put it on the path; else
    None."""
    if not os.environ.get(TRACE_FILES_ENV):
        return None
    try:
        tracer = __import__(TRACER_MODULE)
    except ImportError:
        return None
    tracer.watch()
    # Only the tests that enter the watched code pay for tracing (before discovery
    # imports anything: the hook instruments the watched files as they load).
    tracer.hook_imports()
    return tracer


_TRACER = _line_tracer() if __name__ == "__main__" else None
#: Test id -> the test objects of that id, for the mutants' runs.
_TESTS: dict[str, list[unittest.TestCase]] = {}


def _test_id(test: unittest.TestCase) -> str:
    """``<file>::<names>``, the file relative to the working directory when it is
    below it (rgr reads ids so)."""
    file, names = _where(test)
    if file:
        below = os.path.relpath(file)
        if not below.startswith(os.pardir):
            file = below.replace(os.sep, "/")
    return "::".join([part for part in (file, *names) if part])


def _passes(groups: list[list[unittest.TestCase]]) -> bool:
    """Runs the tests in a mutant's child (as a suite: class and module fixtures set
    up again); whether all passed."""
    result = unittest.TestResult()
    unittest.TestSuite([test for group in groups for test in group]).run(result)
    return result.wasSuccessful()


class RecordingResult(unittest.TextTestResult):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._record: dict[str, Any] | None = None

    def startTest(self, test: unittest.TestCase) -> None:
        super().startTest(test)
        if test.id().startswith(_FAILED_TEST):
            self._record = {"loadError": test.id()[len(_FAILED_TEST):], "message": ""}
            return
        file, names = _where(test)
        self._record = {"file": file, "names": names, "status": "passed", "message": ""}
        if _TRACER is not None:
            test_id = _test_id(test)
            _TESTS.setdefault(test_id, []).append(test)
            _TRACER.start_test(test_id)

    def stopTest(self, test: unittest.TestCase) -> None:
        if _TRACER is not None:
            _TRACER.stop_test()
        super().stopTest(test)
        if self._record is not None:
            _write(self._record)
        self._record = None

    def _mark(self, test: unittest.TestCase | None, status: str, text: str) -> None:
        record = self._record
        if record is None or test is None:
            # setUpClass, setUpModule and their teardowns fail outside any test
            _write({"file": "", "names": [str(test)], "status": status, "message": text})
            return
        if _SEVERITY[status] >= _SEVERITY.get(record.get("status", "passed"), 0):
            record["status"] = status
        record["message"] = "\n".join(m for m in (record["message"], text) if m)

    def _text(self, err: Any, test: unittest.TestCase) -> str:
        """The traceback as unittest itself prints it (its own frames hidden)."""
        text: str = getattr(self, "_exc_info_to_string")(err, test)  # noqa: B009
        return text

    def _is_current(self, test: unittest.TestCase) -> bool:
        return self._record is not None and type(test).__name__ != "_ErrorHolder"

    def addError(self, test: unittest.TestCase, err: Any) -> None:
        super().addError(test, err)
        self._mark(test if self._is_current(test) else None, "error",
                   self._text(err, test))

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:
        super().addFailure(test, err)
        self._mark(test, "failed", self._text(err, test))

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        if type(test).__name__ == "_SubTest":
            return  # a skipped subtest: its test ran
        if self._record is not None and "status" in self._record:
            self._record["status"] = "skipped"
            self._record["message"] = str(reason)

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self._mark(test, "failed", "unexpected success (the test is marked expectedFailure)")

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase,
                   err: Any) -> None:
        super().addSubTest(test, subtest, err)
        if err is None:
            return
        failed = issubclass(err[0], test.failureException)
        self._mark(test, "failed" if failed else "error",
                   subtest.id() + "\n" + self._text(err, test))


class RecordingRunner(unittest.TextTestRunner):
    resultclass = RecordingResult

    def run(self, test: Any) -> Any:
        result = super().run(test)
        _write({"testsRun": result.testsRun})
        if _TRACER is not None:
            if result.wasSuccessful():
                _TRACER.run_mutants(_TESTS, _passes)
            _TRACER.write_out()
        return result


if __name__ == "__main__":
    # What ``python -m unittest`` does, with rgr's runner.
    sys.argv[0] = "python -m unittest"
    unittest.main(module=None, testRunner=RecordingRunner)
