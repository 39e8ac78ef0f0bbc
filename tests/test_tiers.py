"""The test tiers hold together: every test file has a tier, every named file exists, every
end-to-end file has a time budget, and the budget account flags a file over its budget."""

from __future__ import annotations

import os

import pytest

from tests.conftest import MARK_HUNTERS, PROCESS_SUITES, REPO_ROOT, tier_of
from tests.timing_budgets import BudgetAccount, SlowFirst, auto_workers, budgets, tier_rank

TESTS = REPO_ROOT / "tests"
E2E_FILES = sorted(p.name for p in (TESTS / "e2e").glob("test_*.py"))


def test_every_file_the_tiers_name_exists() -> None:
    outside = {p.relative_to(TESTS).as_posix() for p in TESTS.rglob("test_*.py")
               if p.relative_to(TESTS).parts[0] not in ("e2e", "containers")}
    assert not PROCESS_SUITES - outside, sorted(PROCESS_SUITES - outside)
    assert not MARK_HUNTERS - set(E2E_FILES), sorted(MARK_HUNTERS - set(E2E_FILES))


def test_each_test_file_gets_one_tier() -> None:
    assert tier_of(TESTS / "store" / "test_notes.py") == "unit"
    assert tier_of(TESTS / "commands" / "test_serve.py") == "integration"
    assert tier_of(TESTS / "test_startup.py") == "integration"
    # by its path: a file of a process suite's name in another package is not one
    assert tier_of(TESTS / "test_serve.py") == "unit"
    assert tier_of(TESTS / "e2e" / "test_daemon.py") == "e2e"
    assert tier_of(TESTS / "containers" / "test_fleet_containers.py") == "containers"


@pytest.mark.skipif("PYTEST_XDIST_WORKER" not in os.environ,
                    reason="checks xdist's groups: run under pytest-xdist (-n 2), as the "
                           "default run does")
def test_grouped_tests_reach_xdists_scheduler_as_groups(request: pytest.FixtureRequest) -> None:
    """xdist sends a group to one worker by the "@group" suffix its worker adds to each
    grouped test's node id: every test given a group here carries it."""
    grouped = [item for item in request.session.items
               if item.get_closest_marker("xdist_group") is not None]
    if not grouped:
        pytest.skip("no grouped test was selected with this one")
    missing = [item.nodeid for item in grouped if "@" not in item.nodeid]
    assert not missing, missing[:5]


def test_every_end_to_end_file_has_a_budget_and_every_budget_a_file() -> None:
    limits = budgets()
    assert sorted(limits) == E2E_FILES


class _Report:
    def __init__(self, nodeid: str, when: str, duration: float) -> None:
        self.nodeid, self.when, self.duration = nodeid, when, duration


@pytest.mark.parametrize(("spent", "over"), [(100.0, False), (124.0, False), (126.0, True)])
def test_a_file_over_its_budget_is_named(spent: float, over: bool) -> None:
    account = BudgetAccount()
    account.pytest_runtest_logreport(_Report("tests/e2e/test_x.py::t", "call", spent))  # type: ignore[arg-type]
    account.pytest_runtest_logreport(_Report("tests/store/test_notes.py::t", "call", 999.0))  # type: ignore[arg-type]
    [(line, flagged)] = account.lines({"test_x.py": 100.0})
    assert flagged is over and ("OVER BUDGET" in line) is over and "test_x.py (1 tests)" in line


def test_a_full_sweep_lists_times_without_judging_them() -> None:
    account = BudgetAccount(full_sweep=True)
    account.pytest_runtest_logreport(_Report("tests/e2e/test_x.py::t", "call", 500.0))  # type: ignore[arg-type]
    [(line, flagged)] = account.lines({"test_x.py": 100.0}, judged=False)
    assert not flagged and "OVER" not in line


def test_a_file_with_no_budget_is_flagged() -> None:
    account = BudgetAccount()
    account.pytest_runtest_logreport(_Report("tests/e2e/test_new.py::t", "call", 1.0))  # type: ignore[arg-type]
    [(line, flagged)] = account.lines({})
    assert flagged and "no budget" in line


class _Gateway:
    def __init__(self, worker: str) -> None:
        self.id = worker


class _Node:
    def __init__(self, worker: str) -> None:
        self.gateway = _Gateway(worker)


def test_the_balance_counts_every_test_by_its_worker_and_the_idle_time() -> None:
    account = BudgetAccount()
    for worker, nodeid, seconds in (("gw0", "tests/e2e/test_x.py::t", 60.0),
                                    ("gw1", "tests/store/test_notes.py::t", 30.0),
                                    ("gw1", "tests/store/test_notes.py::u", 10.0)):
        report = _Report(nodeid, "call", seconds)
        report.node = _Node(worker)  # type: ignore[attr-defined]
        account.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    line = account.balance(wall=70.0)
    # 140 s of two workers' time, 100 s of it tests: 40 s idle
    assert "100 s of test time (gw0 60 s, gw1 40 s)" in line and "40 s idle (29%" in line


def test_the_slow_tiers_are_handed_out_first(request: pytest.FixtureRequest) -> None:
    """In the collection every end-to-end test comes before every process suite's, and
    those before the unit tests' (each tier in pytest-randomly's order)."""
    ranks = [tier_rank(item) for item in request.session.items]
    if len(set(ranks)) < 2:
        pytest.skip("one tier selected: run with tests of two tiers (the default run)")
    assert ranks == sorted(ranks)


class _Item:
    def __init__(self, name: str, tier: str | None) -> None:
        self.name, self.tier = name, tier

    def get_closest_marker(self, name: str) -> object:
        return name if name == self.tier else None


def test_slow_first_keeps_each_tiers_own_order() -> None:
    items = [_Item("u1", "unit"), _Item("e1", "e2e"), _Item("i1", "integration"),
             _Item("x", None), _Item("e2", "e2e"), _Item("u2", "unit")]
    SlowFirst().pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [i.name for i in items] == ["e1", "e2", "i1", "u1", "x", "u2"]


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 3), (4, 6), (3, 4)])
def test_auto_starts_one_and_a_half_workers_per_core(cores: int, workers: int) -> None:
    assert auto_workers(cores) == workers


def test_the_budgets_stretch_with_the_workers_sharing_a_core() -> None:
    """Three workers on two cores: a file's 130 s against a budget of 100 s is within
    the stretched 150 s (and its slack); with one worker per core it is over."""
    for share, over in ((1.5, False), (1.0, True)):
        account = BudgetAccount(workers_per_core=share)
        account.seconds["test_x.py"] = 130.0
        (line, flagged), = account.lines({"test_x.py": 100.0})
        assert flagged is over, line
