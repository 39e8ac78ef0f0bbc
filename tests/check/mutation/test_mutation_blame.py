"""Blame by evidence (rgr.check.mutation): a survivor on a line the tests run is RED's gap,
one on a line no test runs GREEN's over-implementation, and "remove it" is said only of
the latter. Real pytest runs on real git repositories."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rgr.base.config import AdequacyConfig, Config, TestCommand
from rgr.check.mutation.gate import Checkout, reexamine, subject_of
from rgr.check.mutation.verdicts import violations_of
from rgr.ecosystems.python import probe as python_probe
from rgr.store import git as rgr_git
from rgr.store.handoff import AdequacyNote, MutantFinding
from rgr.store.scratch import checkout_pristine
from tests.conftest import make_repo
from tests.gate_helpers import BARE_ENV, measure_commits

PYTEST = TestCommand((sys.executable, "-m", "pytest", "-q"), "pytest", (), False, "test")

STUB = "def fmt(value, digits):\n    raise NotImplementedError\n"
#: RED's test asks only for text: the width's effect is pinned by no test.
TEST = ("from fmt import fmt\n\n\ndef test_formats():\n"
        "    assert isinstance(fmt(1.25, 1), str)\n")
#: GREEN formats in a worker thread, where rgr's tracer (sys.settrace, the test's thread
#: only) sees no test run ``_one``'s line.
FULL = ("import threading\n\n\ndef fmt(value, digits):\n    box = []\n"
        "    worker = threading.Thread(target=lambda: box.append(_one(value, digits)))\n"
        "    worker.start()\n    worker.join()\n    return box[0]\n\n\n"
        "def _one(value, digits):\n    return f'{value:.{digits}f}'.rjust(8)\n")


def test_a_line_a_test_runs_unseen_by_the_tracer_is_reds_gap_not_code_to_remove(
        tmp_path: Path) -> None:
    """The width's mutant (8 -> 9) survives, on a line no traced test was seen running.
    Before, that made it uncovered and GREEN was told to remove the line; probed with
    every test, the line runs (the test calls fmt, whose thread runs it): its effect is
    what RED's test does not check."""
    repo = make_repo(tmp_path)
    base = repo.commit("test: fmt", {"fmt.py": STUB, "tests/test_fmt.py": TEST,
                                     "pytest.ini": "[pytest]\npythonpath = .\n"})
    tip = repo.commit("feat: fmt", {"fmt.py": FULL})
    note = measure_commits(repo, base, tip, PYTEST, start_env=BARE_ENV,
                           command_timeout=60, settings=AdequacyConfig(jobs=1))
    width = [m.status for m in note.mutants if (m.line, m.original) == (13, "8")]
    # a survivor of a line a test runs (CrossHair, where installed, may leave it
    # undecided: no types to explore with), never uncovered
    assert width in (["survived"], ["undecided"]), note
    assert note.uncovered == 0 and note.decision != "over-implemented", note
    assert violations_of(note) == []


def test_a_functions_header_is_probed_at_its_first_statement() -> None:
    source = "X = 1\n\n\ndef fmt(value, digits=2):\n    '''Doc.'''\n    return value\n"
    assert python_probe.run_line(source, 4) == 5
    assert python_probe.run_line(source, 1) == 1


def finding(line: int, status: str, tests: list[str]) -> MutantFinding:
    return MutantFinding.model_validate({
        "path": "fmt.py", "line": line, "col": 5, "operator": "constant",
        "original": "2", "replacement": "3", "status": status, "tests": tests})


def test_remove_it_is_said_only_of_lines_no_test_runs() -> None:
    """One gate, both kinds: GREEN is rejected for the unrun line only; the line a test
    runs is never named with "remove it"."""
    note = AdequacyNote(phase="GREEN", mode="reject", tried=2, survived=1, uncovered=1,
                        decision="over-implemented",
                        mutants=[finding(2, "survived", ["tests/test_fmt.py::test_x"]),
                                 finding(4, "uncovered", [])])
    violations = violations_of(note)
    assert [(v.rule, v.line) for v in violations] == [("over-implemented", 4)]


def test_a_blame_examined_again_sends_a_line_a_test_runs_back_to_red(
        tmp_path: Path) -> None:
    """GREEN rejected twice for the same survivor (rgr.tdd.engine): the gate examines the
    blame again with the whole command in a fresh process. A finding called uncovered
    on a line the test runs (the width, run in a worker thread) becomes RED's gap."""
    (tmp_path / "repo").mkdir()
    repo = make_repo(tmp_path / "repo")
    base = repo.commit("test: fmt", {"fmt.py": STUB, "tests/test_fmt.py": TEST,
                                     "pytest.ini": "[pytest]\npythonpath = .\n"})
    tip = repo.commit("feat: fmt", {"fmt.py": FULL})
    pygit = rgr_git.open_repo(repo.path)
    base_commit, tip_commit = (rgr_git.resolve_commit(pygit, c) for c in (base, tip))

    @contextmanager
    def open_checkout(label: str) -> Iterator[Checkout]:
        with tempfile.TemporaryDirectory(prefix=f"{label}-") as folder:
            tree = Path(folder) / "tree"
            checkout_pristine(pygit, tip_commit.id, tree)
            yield tree, None, {**BARE_ENV, "HOME": folder}

    subject = subject_of(pygit, Config(), "GREEN", base_commit, tip_commit)
    blamed = finding(13, "uncovered", []).updated(col=40, original="8", replacement="9")
    unrun = finding(99, "uncovered", [])  # names no mutant of the source: left as it is
    note = AdequacyNote(phase="GREEN", mode="reject", tried=2, uncovered=2,
                        decision="over-implemented", mutants=[blamed, unrun])
    again = reexamine(subject, note, {blamed.describe()}, AdequacyConfig(), PYTEST,
                      open_checkout, 60)
    assert [(m.line, m.status) for m in again.mutants] == [(13, "survived"),
                                                           (99, "uncovered")], again
    assert again.survived == 1 and again.uncovered == 1, again


UNITS_STUB = "def parse(text):\n    raise NotImplementedError\n"
#: RED's tests leave the hour unit out: ``_UNITS``'s 3600 is read by ``parse`` (which
#: the tests call), its value checked by no test.
UNITS_TEST = ("from units import parse\n\n\ndef test_seconds():\n"
              "    assert parse('90s') == 90\n\n\ndef test_minutes():\n"
              "    assert parse('2m') == 120\n")
UNITS = ('_UNITS = {"s": 1, "m": 60, "h": 3600}\nUNREAD = 7\n\n\n'
         "def parse(text):\n    return int(text[:-1]) * _UNITS[text[-1]]\n")


def test_a_module_table_a_tested_function_reads_is_reds_gap_and_an_unread_value_greens(
        tmp_path: Path) -> None:
    """Both statements run only when the module loads. ``_UNITS``'s hour survives, but
    a test runs ``parse``, which reads it: the value is on the tests' path, unchecked
    (RED's). ``UNREAD`` is read by nothing: code no test asks for (GREEN's)."""
    repo = make_repo(tmp_path)
    base = repo.commit("test: parse", {"units.py": UNITS_STUB,
                                       "tests/test_units.py": UNITS_TEST,
                                       "pytest.ini": "[pytest]\npythonpath = .\n"})
    tip = repo.commit("feat: parse", {"units.py": UNITS})
    note = measure_commits(repo, base, tip, PYTEST, start_env=BARE_ENV,
                           command_timeout=60, settings=AdequacyConfig(jobs=1))
    by_line: dict[int, set[str]] = {}
    for mutant in note.mutants:
        by_line.setdefault(mutant.line, set()).add(mutant.status)
    assert by_line == {1: {"survived"}, 2: {"uncovered"}}, note
    assert {(v.rule, v.line) for v in violations_of(note)} == {("over-implemented", 2)}


COUNTER_STUB = "class Counter:\n    pass\n"
#: RED's test never asks for a name never added: ``get(name, 0)``'s 0 is unchecked.
COUNTER_TEST = ("from counter import Counter\n\n\ndef test_counts():\n"
                "    c = Counter()\n    c.add('a')\n    assert c.count('a') == 1\n")
COUNTER = ("class Counter:\n    def __init__(self):\n        self._n = {}\n\n"
           "    def add(self, name):\n        self._n[name] = self._n.get(name, 0) + 1\n\n"
           "    def count(self, name):\n        return self._n.get(name, 0)\n")


def test_a_survivor_crosshair_cannot_decide_on_a_line_the_tests_run_is_reds_gap(
        tmp_path: Path) -> None:
    """``count``'s default (0 -> 1) survives on a line the test runs; a method is beyond
    CrossHair and the telling-input search, so nothing proves it equivalent: a survivor,
    test-too-weak (RED), not an ``undecided`` remark that lets the weak test pass."""
    repo = make_repo(tmp_path)
    base = repo.commit("test: counter", {"counter.py": COUNTER_STUB,
                                         "tests/test_counter.py": COUNTER_TEST,
                                         "pytest.ini": "[pytest]\npythonpath = .\n"})
    tip = repo.commit("feat: counter", {"counter.py": COUNTER})
    note = measure_commits(repo, base, tip, PYTEST, start_env=BARE_ENV,
                           command_timeout=60, settings=AdequacyConfig(jobs=1))
    default = [m.status for m in note.mutants if (m.line, m.original) == (9, "0")]
    assert default == ["survived"], note
    assert note.undecided == 0 and note.decision == "test-too-weak", note
