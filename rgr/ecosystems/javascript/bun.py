"""Bun's own test runner, ``bun test``: found from ``bun.lock``, ``bun.lockb`` or
``bunfig.toml`` (or named by a test script), read from the JUnit XML it writes into rgr's
directory (``--reporter=junit --reporter-outfile``).

Ids are ``<file>::<describe>::...::<title>``, as for the other JavaScript runners. A file
that does not load has no testcase in the XML: bun prints it on the output as
``<file>:`` followed by ``# Unhandled error between tests`` and the error, which names a
missing module the way node does (rgr.ecosystems.javascript.runner reads its kind).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import (
    Finished,
    Guess,
    Plain,
    Results,
    TestOutcome,
    ToolHome,
    detected,
    existing,
    message,
    relative,
    with_args,
)
from rgr.ecosystems.javascript.runner import failure_kind
from rgr.ecosystems.junit import ReportUnreadable, parse_xml, status_of

REPORT = "bun.xml"
#: A test file that did not load: its name on a line of its own, then bun's heading.
_LOAD_ERROR = re.compile(
    r"^(?P<file>[^\s:]+\.[cm]?[jt]sx?):\n\s*\n# Unhandled error between tests\n-+\n"
    r"(?P<why>(?:(?!-{3,}).*\n?)*)", re.MULTILINE)


class BunTest:
    name = "bun"
    label = "bun test"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        return with_args(cmd.argv, ("--reporter=junit", f"--reporter-outfile={tmp / REPORT}"))

    def read(self, run: Finished) -> Results:
        results = Results()
        for found in _LOAD_ERROR.finditer(run.output):
            file = relative(found.group("file"), run.root)
            why = message(found.group("why"))
            results.load_error(file, failure_kind(TestOutcome(file, file, "error", why),
                                                  run.root))
        try:
            report = parse_xml(run.tmp / REPORT)
        except ReportUnreadable as exc:
            if not results.collection_errors:
                results.report_error = f"bun test wrote no readable JUnit report ({exc}; " \
                                       f"exit code {run.done.returncode})"
            results.no_tests = "No tests found" in run.output
            if results.no_tests:
                results.report_error = None
            return results
        for suite in report.findall("testsuite"):
            _read_suite(suite, [], run.root, results)
        results.classify(partial(failure_kind, root=run.root))
        results.no_tests = (not results.outcomes and not results.collection_errors
                            and "No tests found" in run.output)
        return results

    def fix(self) -> str:
        return ("make the test script end with `bun test` (rgr appends its JUnit reporter "
                "options to it), or set test_command to `bun test`")


def _read_suite(suite: ET.Element, describes: list[str], root: Path,
                results: Results) -> None:
    """A file's suite (``describes`` empty: the file is no ``describe``) or a
    ``describe`` block inside it."""
    for case in suite.findall("testcase"):
        file = relative(case.get("file", ""), root)
        status, text = status_of(case)
        test_id = "::".join([file, *describes, case.get("name", "")])
        results.add(TestOutcome(test_id, existing(root, file), status, text))
    for inner in suite.findall("testsuite"):
        _read_suite(inner, [*describes, inner.get("name", "")], root, results)


class Bun(Plain):
    name = "Bun (bun test)"
    runners = (BunTest(),)
    loads_file_by_file = frozenset({"bun"})
    test_config_globs = ("**/bunfig.toml",)
    tool_homes = (ToolHome("bun", "BUN_INSTALL", ".bun"),)

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        for name in ("bunfig.toml", "bun.lock", "bun.lockb"):
            if (root / name).is_file():
                return detected(("bun", "test"), "bun", name)
        return None

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        return "bun" if "bun" in names and "test" in words else None


ECOSYSTEM = Bun()
