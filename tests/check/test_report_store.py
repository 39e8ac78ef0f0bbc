"""Reports kept by tree id (rgr.check.report_store): a resumed run reuses one only when
the same test command made it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rgr.base.config import TestCommand
from rgr.check import report_store
from rgr.check.verify import TestReport

PYTEST = TestCommand(("python", "-m", "pytest", "-q"), "pytest", (), False, "detected")


def ran(*argv: str, runner: str = "pytest") -> TestReport:
    return TestReport(argv=argv, exit_code=0, duration_s=0.1, timed_out=False, outcomes={},
                      collection_errors=(), no_tests_collected=True, output_excerpt="",
                      runner=runner)


@pytest.mark.parametrize(("report", "made"), [
    # what the pytest runner runs: the command, its report options and paths added
    (ran("python", "-m", "pytest", "-q", "--junitxml=/tmp/x/junit.xml", "-p",
         "no:cacheprovider"), True),
    (ran("python", "-m", "pytest", "-q"), True),
    (ran("python", "-m", "pytest"), False),  # a word of the command missing
    (ran("python", "-q", "-m", "pytest"), False),  # its words in another order
    (ran("python", "-m", "pytest", "-q", runner="unittest"), False),  # another reader
    (ran("npx", "jest", "-q"), False),
])
def test_a_report_counts_only_for_the_command_that_made_it(report: TestReport,
                                                          made: bool) -> None:
    assert report_store.made_by(report, PYTEST) is made


def test_a_saved_report_loads_by_its_tree(tmp_path: Path) -> None:
    report = ran("python", "-m", "pytest", "-q")
    report_store.save(tmp_path, "a" * 40, report)
    assert report_store.load(tmp_path, "a" * 40) == report
    assert report_store.load(tmp_path, "b" * 40) is None


def test_a_saved_report_keeps_the_tests_it_found_flaky(tmp_path: Path) -> None:
    report = dataclasses.replace(ran("python", "-m", "pytest", "-q"), flaky=("t::test_x",))
    report_store.save(tmp_path, "a" * 40, report)
    assert report_store.load(tmp_path, "a" * 40) == report
