"""bench/verify_corpus.py's count of a Java project's distinct tests, without building a
project (the script runs outside the default suite): Surefire reports a test method run
twice under one class name twice (commons-collections4's BulkTest), rgr names it once by
its class and method, and a failing run of a repeated name is never counted passed."""

from __future__ import annotations

from pathlib import Path

from bench.corpus.projects import by_name
from bench.verify_corpus import Row, surefire_distinct_passed


def _report(folder: Path, name: str, cases: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"TEST-{name}.xml").write_text(
        f'<?xml version="1.0"?>\n<testsuite name="{name}">{cases}</testsuite>\n')


def test_a_method_run_twice_under_one_class_counts_once(tmp_path: Path) -> None:
    reports = tmp_path / "target" / "surefire-reports"
    inner = 'classname="p.AbstractMapTest$Inner"'
    _report(reports, "p.HashMapTest",
            f'<testcase {inner} name="testRemove"/><testcase {inner} name="testPut"/>'
            '<testcase classname="p.HashMapTest" name="testOwn"/>')
    _report(reports, "p.TreeMapTest",
            f'<testcase {inner} name="testRemove"/>'
            f'<testcase {inner} name="testPut"><failure message="x"/></testcase>'
            '<testcase classname="p.TreeMapTest" name="testSkipped"><skipped/></testcase>')
    # testRemove once, testOwn; testPut failed in one of its runs; the skipped one not
    assert surefire_distinct_passed(tmp_path) == 2


def test_no_reports_count_nothing(tmp_path: Path) -> None:
    assert surefire_distinct_passed(tmp_path) is None


def test_rgr_agrees_with_either_the_runs_or_the_distinct_tests() -> None:
    project = by_name("commons-collections4")

    def row(rgr_count: int, distinct: int | None) -> Row:
        return Row(project, 70010, True, 1.0, rgr_count, True, 1.0, "", own_distinct=distinct)

    assert row(60584, 60584).agree
    assert row(70010, 60584).agree
    assert not row(60583, 60584).agree
    assert not row(60584, None).agree
