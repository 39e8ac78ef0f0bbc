"""The test tiers hold together: every test file has a tier, every named file exists, every
end-to-end file has a time budget, and the budget account flags a file over its budget."""

from __future__ import annotations

import os

import pytest
from conftest import MARK_HUNTERS, PROCESS_SUITES, REPO_ROOT, tier_of
from timing_budgets import BudgetAccount, budgets

TESTS = REPO_ROOT / "tests"
E2E_FILES = sorted(p.name for p in (TESTS / "e2e").glob("test_*.py"))


def test_every_file_the_tiers_name_exists() -> None:
    top = {p.name for p in TESTS.glob("test_*.py")}
    assert not PROCESS_SUITES - top, sorted(PROCESS_SUITES - top)
    assert not MARK_HUNTERS - top - set(E2E_FILES), sorted(MARK_HUNTERS - top - set(E2E_FILES))


def test_each_test_file_gets_one_tier() -> None:
    assert tier_of(TESTS / "test_notes.py") == "unit"
    assert tier_of(TESTS / "test_serve.py") == "integration"
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
    account.pytest_runtest_logreport(_Report("tests/test_notes.py::t", "call", 999.0))  # type: ignore[arg-type]
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
