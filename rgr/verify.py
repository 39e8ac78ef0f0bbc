"""Run the project's real test command and read per-test results from JUnit XML.

rgr never takes an agent's word for what the tests do: every phase ends with this run.

pytest is the runner verified end to end (tests/test_verify.py drives real pytest runs):
rgr appends ``--junitxml=<a temporary file outside the repository>`` and
``-p no:cacheprovider``, sets ``PYTHONDONTWRITEBYTECODE=1``, so a run leaves nothing in
the working tree, and derives test ids of the form ``tests/test_x.py::TestY::test_z[p]``.

Other runners (Maven, Gradle, npm, custom commands) are run as configured; their results
are read from the JUnit XML files matching ``TestCommand.junit_globs`` that were written
during the run. That path is implemented but not exercised against real Maven, Gradle or
Jest installs; without report globs only the exit code is known.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rgr import failpoints
from rgr.config import TestCommand
from rgr.proc import Completed, Launcher, bound, run

#: How much of the runner's combined output a report keeps (head and tail). The excerpt
#: goes into failure briefs and notes, so it must stay small whatever the tests print.
OUTPUT_EXCERPT_LIMIT = 8 * 1024

#: How much of one test's failure text is kept.
MESSAGE_LIMIT = 4 * 1024

#: Filesystem timestamps lag the wall clock (coarse kernel clocks, 1-2 s on some
#: filesystems), so a report written just after the run started can look older than it.
MTIME_SLACK_S = 1.0

PYTEST_NO_TESTS_COLLECTED = 5

Status = Literal["passed", "failed", "error", "skipped"]

# When one test id shows up twice (pytest reports a failing test and its teardown error
# as two testcases), the worse outcome wins.
_SEVERITY: Mapping[str, int] = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False  # not a pytest test class

    test_id: str
    file: str | None
    status: Status
    message: str


@dataclass(frozen=True)
class TestReport:
    __test__ = False

    argv: tuple[str, ...]
    exit_code: int
    duration_s: float
    timed_out: bool
    outcomes: Mapping[str, TestOutcome]
    collection_errors: tuple[str, ...]
    no_tests_collected: bool
    output_excerpt: str
    #: Why per-test results could not be read (no report written, garbled XML), or None.
    report_error: str | None = None
    #: The runner's whole output (stdout, then stderr; bounded like every capture), for
    #: the run artifacts. Briefs and notes use ``output_excerpt``.
    output: str = ""

    def _count(self, status: Status) -> int:
        return sum(1 for o in self.outcomes.values() if o.status == status)

    @property
    def passed(self) -> int:
        return self._count("passed")

    @property
    def failed(self) -> int:
        return self._count("failed")

    @property
    def errors(self) -> int:
        return self._count("error")

    @property
    def skipped(self) -> int:
        return self._count("skipped")

    @property
    def failing_ids(self) -> tuple[str, ...]:
        """Ids of the tests that failed or errored, sorted."""
        return tuple(sorted(i for i, o in self.outcomes.items() if o.status in ("failed", "error")))

    @property
    def all_passed(self) -> bool:
        """Green: nothing failed or broke, and the exit code agrees.

        An empty pytest project (exit code 5) counts as green: it is the baseline before
        the first test is written.
        """
        if self.timed_out or self.collection_errors or self.report_error is not None:
            return False
        if self.failed or self.errors:
            return False
        return self.exit_code == 0 or self.no_tests_collected


def report_to_json(report: TestReport) -> str:
    """The report for rgr's own files: the bounded excerpt, never the full output (which
    can be megabytes; the run folder keeps that)."""
    return json.dumps(dataclasses.asdict(dataclasses.replace(report, output="")))


def report_from_json(text: str) -> TestReport:
    """The inverse of :func:`report_to_json`; ValueError when ``text`` is not one."""
    data = json.loads(text)
    try:
        outcomes = {key: TestOutcome(**value) for key, value in data.pop("outcomes").items()}
        return TestReport(**{**data, "argv": tuple(data["argv"]), "outcomes": outcomes,
                             "collection_errors": tuple(data["collection_errors"])})
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a test report: {exc}") from exc


@dataclass(frozen=True)
class Confinement:
    """Where a test run happens when rgr seals it: inside ``launcher`` (the sandbox),
    with its report files under ``tmp`` (a folder the sandbox can write)."""

    launcher: Launcher
    tmp: Path


def run_tests(
    cmd: TestCommand, root: Path, *, timeout: float, env: Mapping[str, str] | None = None,
    confinement: Confinement | None = None,
) -> TestReport:
    """Run ``cmd`` in ``root`` for at most ``timeout`` seconds and report per test.

    ``env`` defaults to rgr's own environment. A runner that cannot be started raises
    CommandError (a setup problem, not a phase result); a timeout is a report with
    ``timed_out`` set.
    """
    child_env = dict(os.environ if env is None else env)
    # No __pycache__ directories in the user's tree (pytest's assertion rewriting
    # honours this too).
    child_env["PYTHONDONTWRITEBYTECODE"] = "1"
    if cmd.runner == "pytest":
        return _run_pytest(cmd, root, timeout, child_env, confinement)
    return _run_other(cmd, root, timeout, child_env, confinement)


# --------------------------------------------------------------------------- pytest


def _run_crashable(argv: tuple[str, ...], root: Path, timeout: float,
                   env: dict[str, str], confinement: Confinement | None) -> Completed:
    """The test command, with the fault-injection suite's two crash points around it."""
    done = run(argv, cwd=root, timeout=timeout, env=env,
               on_start=lambda: failpoints.hit("tests:spawned"),
               launcher=confinement.launcher if confinement else None)
    failpoints.hit("tests:finished")
    return done


def _run_pytest(cmd: TestCommand, root: Path, timeout: float, env: dict[str, str],
                confinement: Confinement | None) -> TestReport:
    tmp_root = confinement.tmp if confinement else None
    with tempfile.TemporaryDirectory(prefix="rgr-junit-", dir=tmp_root) as tmp:
        xml_path = Path(tmp) / "junit.xml"
        extra = (f"--junitxml={xml_path}", "-p", "no:cacheprovider")
        argv = cmd.argv
        if cmd.shell:
            # The script's last word is not necessarily pytest's; the environment is.
            env["PYTEST_ADDOPTS"] = " ".join(
                filter(None, (env.get("PYTEST_ADDOPTS", ""), shlex.join(extra)))
            )
        else:
            argv = argv + extra
        done = _run_crashable(argv, root, timeout, env, confinement)
        outcomes: dict[str, TestOutcome] = {}
        collection_errors: list[str] = []
        report_error = None
        if not done.timed_out:  # a killed pytest writes no report; that is no extra error
            report_error = _read_pytest_results(done, xml_path, root, outcomes, collection_errors)
    no_tests = (
        not done.timed_out
        and report_error is None
        and not outcomes
        and not collection_errors
        and done.returncode in (0, PYTEST_NO_TESTS_COLLECTED)
    )
    return TestReport(
        argv=done.argv,
        exit_code=done.returncode,
        duration_s=done.duration_s,
        timed_out=done.timed_out,
        outcomes=outcomes,
        collection_errors=tuple(collection_errors),
        no_tests_collected=no_tests,
        output_excerpt=_excerpt(done.stdout, done.stderr),
        output=_whole(done.stdout, done.stderr),
        report_error=report_error,
    )


def _read_pytest_results(
    done: Completed,
    xml_path: Path,
    root: Path,
    outcomes: dict[str, TestOutcome],
    collection_errors: list[str],
) -> str | None:
    """Fill ``outcomes`` and ``collection_errors``; return why the report is unusable."""
    try:
        _read_pytest_xml(xml_path, root, outcomes, collection_errors)
        return None
    except ReportUnreadable as exc:
        # A broken conftest.py stops pytest before it writes a report (exit code 4); it
        # is a file that failed to import, like any other collection error.
        collection_errors.extend(_conftest_failures(done.stdout + done.stderr, root))
        if collection_errors:
            return None
        # A usage error writes no report either: say so, never "0 tests".
        return f"{exc} (pytest exit code {done.returncode})"


class ReportUnreadable(Exception):
    """A JUnit XML report is missing or not XML."""


def _parse_xml(path: Path) -> ET.Element:
    if path.is_symlink():
        # Written by code under test: it may point at any file rgr can read.
        raise ReportUnreadable(f"the JUnit XML report {path} is a symbolic link")
    try:
        return ET.parse(path).getroot()
    except FileNotFoundError:
        raise ReportUnreadable(f"no JUnit XML report was written to {path}") from None
    except (ET.ParseError, OSError) as exc:
        raise ReportUnreadable(f"the JUnit XML report {path} is unreadable: {exc}") from None


def _read_pytest_xml(
    path: Path, root: Path, outcomes: dict[str, TestOutcome], collection_errors: list[str]
) -> None:
    for case in _testcases(_parse_xml(path)):
        classname, name = case.get("classname", ""), case.get("name", "")
        status, message = _status(case)
        if classname == "pytest" and name == "internal":
            raise ReportUnreadable(f"pytest crashed with an internal error: {message}")
        if not classname:
            # A module-level problem: pytest names the module, e.g. "tests.test_x".
            file = _module_file(root, name.split("."))
            if status == "error":
                collection_errors.append(file)
                continue
            _merge(outcomes, TestOutcome(file, file, status, message))  # skipped module
            continue
        file, classes = _split_classname(root, classname.split("."))
        test_id = "::".join([file, *classes, name])
        known_file = file if _exists(root, file) else None
        _merge(outcomes, TestOutcome(test_id, known_file, status, message))


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


def _merge(outcomes: dict[str, TestOutcome], outcome: TestOutcome) -> None:
    previous = outcomes.get(outcome.test_id)
    if previous is None:
        outcomes[outcome.test_id] = outcome
        return
    worse, other = sorted((previous, outcome), key=lambda o: -_SEVERITY[o.status])
    message = "\n".join(m for m in (worse.message, other.message) if m)
    outcomes[outcome.test_id] = TestOutcome(worse.test_id, worse.file, worse.status, message)


# --------------------------------------------------------------------------- XML helpers


def _testcases(root_element: ET.Element) -> Iterator[ET.Element]:
    # <testsuites><testsuite>... or a bare <testsuite>: iter() handles both.
    return root_element.iter("testcase")


_STATUS_TAGS: tuple[tuple[str, Status], ...] = (
    ("error", "error"),
    ("failure", "failed"),
    ("skipped", "skipped"),
)


def _status(case: ET.Element) -> tuple[Status, str]:
    for tag, status in _STATUS_TAGS:
        child = case.find(tag)
        if child is not None:
            return status, _message(child)
    return "passed", ""


def _message(element: ET.Element) -> str:
    summary = element.get("message", "").strip()
    details = (element.text or "").strip()
    text = summary if not details or details == summary else f"{summary}\n{details}".strip()
    return bound(text, MESSAGE_LIMIT)


def _whole(stdout: str, stderr: str) -> str:
    return stdout if not stderr.strip() else f"{stdout}\n--- stderr ---\n{stderr}"


def _excerpt(stdout: str, stderr: str) -> str:
    text = stdout if not stderr.strip() else f"{stdout}\n--- stderr ---\n{stderr}"
    return bound(text, OUTPUT_EXCERPT_LIMIT)


# --------------------------------------------------------------------------- other runners


def _run_other(cmd: TestCommand, root: Path, timeout: float, env: dict[str, str],
               confinement: Confinement | None) -> TestReport:
    started = time.time()
    done = _run_crashable(cmd.argv, root, timeout, env, confinement)
    outcomes: dict[str, TestOutcome] = {}
    report_error = None
    reports = _fresh_reports(root, cmd.junit_globs, since=started - MTIME_SLACK_S)
    for report in reports:
        try:
            for case in _testcases(_parse_xml(report)):
                _merge(outcomes, _generic_outcome(case))
        except ReportUnreadable as exc:
            if not done.timed_out:  # a killed runner may leave half a file behind
                report_error = str(exc)
    no_tests = (
        bool(cmd.junit_globs)
        and not done.timed_out
        and done.returncode == 0
        and report_error is None
        and not outcomes
    )
    return TestReport(
        argv=done.argv,
        exit_code=done.returncode,
        duration_s=done.duration_s,
        timed_out=done.timed_out,
        outcomes=outcomes,
        collection_errors=(),
        no_tests_collected=no_tests,
        output_excerpt=_excerpt(done.stdout, done.stderr),
        output=_whole(done.stdout, done.stderr),
        report_error=report_error,
    )


def _fresh_reports(root: Path, globs: tuple[str, ...], *, since: float) -> list[Path]:
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


def _generic_outcome(case: ET.Element) -> TestOutcome:
    classname, name = case.get("classname", ""), case.get("name", "")
    status, message = _status(case)
    test_id = f"{classname}::{name}" if classname else name
    return TestOutcome(test_id, case.get("file"), status, message)
