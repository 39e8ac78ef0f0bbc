"""JUnit XML: the reader every XML-writing runner shares (rgr.ecosystems.jvm.runner,
rgr.ecosystems.php.runner, rgr.ecosystems.javascript.bun), and the runner of any command rgr
does not recognise, read from where the user's ``junit_xml`` globs say.

Reports written into a build directory are read only when written during this run (by
modification time).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rgr.ecosystems.base import (
    Finished,
    Results,
    Status,
    TestOutcome,
    existing,
    message,
    relative,
)
from rgr.ecosystems.failure_kind import FailureKind, first_match

if TYPE_CHECKING:
    from rgr.base.config import TestCommand

#: Filesystem timestamps lag the wall clock (coarse kernel clocks, 1-2 s on some
#: filesystems), so a report written just after the run started can look older than it.
MTIME_SLACK_S = 1.0


class ReportUnreadable(Exception):
    """A report file is missing or garbled."""


def parse_xml(path: Path) -> ET.Element:
    if path.is_symlink():
        # Written by code under test: it may point at any file rgr can read.
        raise ReportUnreadable(f"the JUnit XML report {path} is a symbolic link")
    try:
        return ET.parse(path).getroot()
    except FileNotFoundError:
        raise ReportUnreadable(f"no JUnit XML report was written to {path}") from None
    except (ET.ParseError, OSError) as exc:
        raise ReportUnreadable(f"the JUnit XML report {path} is unreadable: {exc}") from None


def testcases(root_element: ET.Element) -> Iterator[ET.Element]:
    # <testsuites><testsuite>... or a bare <testsuite>: iter() handles both.
    return root_element.iter("testcase")


_STATUS_TAGS: tuple[tuple[str, Status], ...] = (
    ("error", "error"),
    ("failure", "failed"),
    ("skipped", "skipped"),
)


def status_of(case: ET.Element) -> tuple[Status, str]:
    for tag, status in _STATUS_TAGS:
        found = case.findall(tag)
        if found:
            # Several: pytest's subtests report into their test's testcase, before the
            # test's own report; a skip's reason is then the test's own (the last).
            return status, _message(found[-1] if status == "skipped" else found[0])
    return "passed", ""


def _message(element: ET.Element) -> str:
    summary = element.get("message", "").strip()
    details = (element.text or "").strip()
    return message(summary if not details or details == summary else f"{summary}\n{details}")


def fresh_reports(root: Path, globs: tuple[str, ...], *, since: float) -> list[Path]:
    """Report files matching ``globs`` written during this run (older ones are stale)."""
    found: set[Path] = set()
    for pattern in globs:
        for path in root.glob(pattern):
            try:
                if (path.is_file() and not path.is_symlink()
                        and path.stat().st_mtime >= since):
                    found.add(path)
            except OSError:
                continue  # deleted between glob and stat
    return sorted(found)


#: Where JVM test sources live, to name a test class's file.
_JVM_SOURCES = ("src/test/java", "src/test/kotlin", "src/test/groovy", "src/test/scala",
                "src/it/java")
_JVM_SUFFIXES = (".java", ".kt", ".groovy", ".scala")


def _jvm_file(root: Path, report: Path, classname: str) -> str | None:
    """``com.x.FooTest`` -> ``src/test/java/com/x/FooTest.java`` (of the report's module)."""
    outer = classname.split("$")[0].replace(".", "/")
    module = report.parent
    while module != root and module.name not in ("target", "build"):
        module = module.parent
    base = module.parent if module != root else root
    prefix = relative(str(base), root) if base != root else ""
    for sources in _JVM_SOURCES:
        for suffix in _JVM_SUFFIXES:
            rel = "/".join(p for p in (prefix, sources, outer + suffix) if p)
            if existing(root, rel):
                return rel
    return None


def read_reports(run: Finished, reports: list[Path], results: Results, *, jvm: bool,
                 by_file: bool = False) -> None:
    for report in reports:
        try:
            cases = list(testcases(parse_xml(report)))
        except ReportUnreadable as exc:
            results.report_error = str(exc)
            continue
        for case in cases:
            results.add(_outcome(run.root, report, case, jvm=jvm, by_file=by_file))
    results.classify(failure_kind)


#: JUnit XML's failure texts: the exception's class and message, then its stack (JUnit 4
#: and 5, TestNG, kotlin.test, PHPUnit, nextest's panics).
_KINDS: tuple[tuple[re.Pattern[str], FailureKind], ...] = (
    (re.compile(r"TestTimedOutException|test timed out after|timed out after \d+|"
                r"\bTimeoutException\b"), "timeout"),
    (re.compile(r"AssertionError|AssertionFailedError|ComparisonFailure|"
                r"ExpectationFailedException|Failed asserting|MultipleFailuresError|"
                r"assertion (`[^`]*` )?failed"), "assertion"),
    (re.compile(r"UnsupportedOperationException|NotImplementedError|NoSuchMethodError|"
                r"NoSuchFieldError|AbstractMethodError|Call to undefined (method|function)|"
                r"not (yet )?implemented"), "missing-code"),
)


def failure_kind(outcome: TestOutcome) -> FailureKind:
    """Why a JUnit XML testcase failed, from the exception its text names; a missing
    class or method usually stops the compile (a load error), so what is left is mostly
    an assertion, a stub that throws, or a timeout. Anything else: ``unknown``."""
    return first_match(outcome.message, _KINDS)


def _outcome(root: Path, report: Path, case: ET.Element, *, jvm: bool,
             by_file: bool) -> TestOutcome:
    classname, name = case.get("classname", ""), case.get("name", "")
    status, text = status_of(case)
    file = case.get("file")
    if file:
        file = relative(file, root)
    elif jvm and classname:
        file = _jvm_file(root, report, classname)
    if file and (by_file or not classname):
        test_id = f"{file}::{name}"
    else:
        test_id = f"{classname}::{name}" if classname else name
    return TestOutcome(test_id, file, status, text)


class JUnitGlobs:
    """Any command, its results read from the JUnit XML files ``junit_xml`` names."""

    name = "junit"
    label = "JUnit XML (junit_xml globs)"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        return cmd.argv

    def read(self, run: Finished) -> Results:
        results = Results()
        if not run.cmd.junit_globs:
            # Only the exit code is known: enough for a refactor gate, not for a TDD run,
            # whose baseline refuses it (rgr.check.verify.require_results).
            return results
        reports = fresh_reports(run.root, run.cmd.junit_globs, since=run.started - MTIME_SLACK_S)
        read_reports(run, reports, results, jvm=False)
        results.no_tests = (run.done.returncode == 0 and results.report_error is None
                            and not results.outcomes)
        return results

    def fix(self) -> str:
        return ("set junit_xml in tdd.toml to the JUnit XML files your test command writes, "
                "or set test_command to a runner rgr knows (see docs/runners.md)")


class CustomCommand(JUnitGlobs):
    name = "custom"
    label = "a command rgr does not recognise"
