"""A run's limits (rgr.observe.limits): the agent-call budget, cycles and time, and the
precision of a cost."""

from __future__ import annotations

import pytest

from rgr.observe.events import (
    AgentCalled,
    Where,
)
from rgr.observe.limits import Limits, usd

# -- limits ---------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_budget_limit_counts_every_agent_call() -> None:
    limits = Limits(max_budget_usd=0.1)
    assert limits.remaining_budget_usd() == 0.1
    where = Where("RED", 1, 1, "s1")
    limits.emit(AgentCalled(where=where, cost_usd=0.06, ok=False))
    assert limits.before_attempt(False) is None
    assert limits.remaining_budget_usd() == pytest.approx(0.04)
    limits.emit(AgentCalled(where=where, cost_usd=0.05, ok=True))
    limits.emit(AgentCalled(where=where, cost_usd=None, ok=True))  # codex: no cost
    hit = limits.before_attempt(False)
    assert hit is not None and hit.limit == "max-budget-usd"
    assert "$0.1 is spent ($0.1100 so far)" in hit.message
    assert limits.remaining_budget_usd() == 0.0


def test_cycle_and_time_limits() -> None:
    clock = Clock()
    limits = Limits(max_cycles=2, max_minutes=1.5, clock=clock)
    assert limits.before_attempt(True) is None  # cycle 1
    assert limits.before_attempt(False) is None  # RED, GREEN ... of cycle 1
    assert limits.before_attempt(True) is None  # cycle 2
    hit = limits.before_attempt(True)
    assert hit is not None and hit.limit == "max-cycles"
    clock.now += 89
    assert limits.before_attempt(False) is None
    clock.now += 1
    hit = limits.before_attempt(False)
    assert hit is not None and hit.limit == "max-minutes"
    assert Limits().before_attempt(True) is None and not Limits().active


def test_usd_keeps_the_precision_given() -> None:
    assert [usd(5), usd(2.5), usd(0.005), usd(0.12345)] == ["$5", "$2.5", "$0.005", "$0.1235"]
