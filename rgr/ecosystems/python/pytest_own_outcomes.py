"""A pytest plugin rgr puts beside a pytest run: which tests ran subtests, and which of
those were skipped themselves.

JUnit XML cannot say it. pytest's subtests (the ``subtests`` fixture, built in from
pytest 9, the pytest-subtests plugin before; unittest's ``self.subTest``) report into
their test's testcase: a subtest's ``<skipped>`` sits beside the test's own outcome,
written the same way. A test that passed with one skipped subtest and a test skipped
itself give the same testcase. This plugin writes, when the session ends, a JSON file
(``RGR_PYTEST_OWN_OUTCOMES``): ``{"subtests": [node ids], "skipped": [node ids]}``, the
tests that ran subtests and those of them whose own report (setup, call or teardown) was
a skip. rgr.ecosystems.python.pytest_runner reads it beside the XML.

Copied into rgr's folder of the run and loaded through an entry point of a dist-info
folder beside it on PYTHONPATH (pytest loads the ``pytest11`` entry points it finds): a
command that drops PYTHONPATH, or PYTEST_DISABLE_PLUGIN_AUTOLOAD, leaves it out without
an error, and rgr then reads the XML alone. It runs in the project's interpreter, which
may be older than rgr's: standard library only, nothing newer than Python 3.8.
"""

from __future__ import annotations

import json
import os
from typing import Any

#: The variable naming the file to write.
OUTCOMES_ENV = "RGR_PYTEST_OWN_OUTCOMES"

#: A subtest's report class: pytest 9's, the pytest-subtests plugin's.
_SUBTEST_REPORTS = ("SubtestReport", "SubTestReport")

_with_subtests: dict[str, None] = {}  # node ids, in the order seen
_skipped: set[str] = set()


def pytest_runtest_logreport(report: Any) -> None:
    if type(report).__name__ in _SUBTEST_REPORTS:
        _with_subtests[report.nodeid] = None
    elif report.skipped:
        _skipped.add(report.nodeid)


def pytest_sessionfinish(session: Any) -> None:
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: its reports reach the controller, which writes
    path = os.environ.get(OUTCOMES_ENV)
    if not path:
        return
    with open(path, "w", encoding="utf-8") as file:
        json.dump({"subtests": list(_with_subtests),
                   "skipped": [node for node in _with_subtests if node in _skipped]}, file)
