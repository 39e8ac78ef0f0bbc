"""The mutation gate on unittest suites (real ``python -m unittest`` runs through rgr's
reporter, rgr.ecosystems.unittest_reporter): rgr's line tracer runs there as under
pytest, so a mutant faces only the tests that run its line, in a child forked from the
traced run, a line no test runs is ``uncovered`` without a probe, and CrossHair gets the
types of the values the tests passed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rgr.base.config import TestCommand
from rgr.check.mutation import lines as coverage_lines
from rgr.store.handoff import AdequacyNote
from tests.conftest import Repo, make_repo
from tests.gate_helpers import BARE_ENV, measure_commits

UNITTEST = TestCommand((sys.executable, "-m", "unittest", "discover", "-s", "tests",
                        "-t", "."), "unittest", (), False, "test")

STUB = "def add(a, b):\n    raise NotImplementedError\n"
HONEST = "def add(a, b):\n    return a + b\n"
OVER = "def add(a, b):\n    if a == 1337:\n        return 0\n    return a + b\n"
WEAK = "assertIsNotNone(add(2, 3))"
STRONG = "assertEqual(add(2, 3), 5)"
TEST = """import unittest

from calc import add


class AddTest(unittest.TestCase):
    def test_add(self):
        self.{check}


class OtherTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ready = True

    def test_other(self):
        self.assertTrue(self.ready)
"""


def project(tmp_path: Path, check: str, code: str) -> tuple[Repo, str, str]:
    repo = make_repo(tmp_path)
    base = repo.commit("test: add", {"calc.py": STUB, "tests/__init__.py": "",
                                     "tests/test_calc.py": TEST.format(check=check)})
    tip = repo.commit("feat: add", {"calc.py": code})
    return repo, base, tip


def gate(repo: Repo, base: str, tip: str) -> AdequacyNote:
    return measure_commits(repo, base, tip, UNITTEST, start_env=BARE_ENV,
                           command_timeout=60)


def test_an_honest_green_kills_every_mutant_on_the_traced_path(tmp_path: Path) -> None:
    note = gate(*project(tmp_path, STRONG, HONEST))
    assert note.tried == 2 and note.killed == 2, note
    assert note.decision == "pass" and note.remark is None, note


def test_a_survivor_names_only_the_test_that_runs_its_line(tmp_path: Path) -> None:
    note = gate(*project(tmp_path, WEAK, HONEST))
    survivors = {(m.original, m.replacement, m.status) for m in note.mutants}
    assert ("a + b", "a - b", "survived") in survivors, note
    assert all(m.tests == ["tests/test_calc.py::AddTest::test_add"]
               for m in note.mutants), note
    assert note.decision == "test-too-weak"


def test_a_line_no_test_runs_is_uncovered_without_a_probe(tmp_path: Path) -> None:
    note = gate(*project(tmp_path, STRONG, OVER))
    assert {m.line for m in note.mutants if m.status == "uncovered"} == {3}, note
    assert note.decision == "over-implemented"
    assert "no per-test line data" not in (note.remark or ""), note
    # The tests passed ints: CrossHair, typed by them, tells 1337 -> 1338 apart (an
    # input), where without the types it stayed undecided.
    line_2 = [m for m in note.mutants if m.line == 2 and m.original == "1337"]
    assert line_2 and all(m.status == "survived" and m.telling_input
                          for m in line_2), note


def test_without_the_tracer_survivors_lines_are_probed(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """Where the reporter cannot load rgr's tracer (here: installed under a name it does
    not import), each mutant runs the whole suite and each survivor's line is probed
    (rgr.check.mutation.python_probe): the line no test runs is still ``uncovered``."""
    monkeypatch.setattr(coverage_lines, "_PLUGIN", "rgr_lines_not_found")
    note = gate(*project(tmp_path, STRONG, OVER))
    assert "no per-test line data" in (note.remark or ""), note
    assert {m.line for m in note.mutants if m.status == "uncovered"} == {3}, note
    assert note.decision == "over-implemented"
