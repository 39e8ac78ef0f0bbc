"""The limits of one ``rgr run`` or ``rgr resume``: money, cycles, wall-clock minutes.

Checked before every attempt of every phase (an agent's half-done work is never what a
stop leaves behind). Both budget and time are also enforced inside a session: each
agent gets what is left of the budget through claude's own ``--max-budget-usd``, which
claude checks after each model call (so a session can overshoot by one call), and what
is left of the time as its timeout. A session cut off either way is a rejected attempt
like any other; the check before the next attempt then stops the run.

Hitting a limit raises LimitReached after the orchestrator has recorded the reason on
the last verified commit's note; the branch stays there and ``rgr resume`` continues.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rgr.base.errors import RgrError
from rgr.observe.events import AgentCalled, Event

#: errorDetails.type of a note whose phase was stopped by a limit: ``limit-<name>``.
LIMIT_ERROR_PREFIX = "limit-"


class LimitReached(RgrError):
    """A run limit stopped the run between two attempts; ``rgr resume`` continues."""

    category = "limit"

    def __init__(self, limit: str, message: str, hint: str) -> None:
        super().__init__(message, hint)
        self.limit = limit


def usd(amount: float) -> str:
    """$5, $2.5, $0.005: as precise as the amount was given (up to 1/100 cent)."""
    return "$" + f"{amount:,.4f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class LimitHit:
    limit: str  # max-budget-usd | max-cycles | max-minutes
    message: str


@dataclass
class Limits:
    """Spending and progress of this invocation against its limits (None: no limit).

    An observer: it counts the cost of every agent call (failed ones included) from the
    ``AgentCalled`` events.
    """

    max_budget_usd: float | None = None
    max_cycles: int | None = None
    max_minutes: float | None = None
    clock: Callable[[], float] = time.monotonic
    started: float = field(default=0.0)
    spent_usd: float = 0.0
    cycles_started: int = 0

    def __post_init__(self) -> None:
        if not self.started:
            self.started = self.clock()

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.max_budget_usd, self.max_cycles,
                                           self.max_minutes))

    def as_dict(self) -> dict[str, Any]:
        return {"maxBudgetUsd": self.max_budget_usd, "maxCycles": self.max_cycles,
                "maxMinutes": self.max_minutes}

    def emit(self, event: Event) -> None:
        match event:
            case AgentCalled(cost_usd=cost):
                self.spent_usd += cost or 0.0

    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def remaining_s(self) -> float | None:
        """Seconds left before --max-minutes, or None without that limit."""
        if self.max_minutes is None:
            return None
        return max(0.0, self.max_minutes * 60 - self.elapsed_s())

    def agent_timeout_s(self, configured: float) -> float:
        """The timeout of the next agent session: the configured one, cut to the time
        left (at least 1 s: a session that gets no time is pointless)."""
        left = self.remaining_s()
        return configured if left is None else max(1.0, min(configured, left))

    def remaining_budget_usd(self) -> float | None:
        if self.max_budget_usd is None:
            return None
        return max(0.0, self.max_budget_usd - self.spent_usd)

    def before_attempt(self, starts_cycle: bool) -> LimitHit | None:
        """The limit that forbids the next attempt, or None (and then a new cycle is
        counted when ``starts_cycle``: the first attempt of a PLAN phase)."""
        if self.max_budget_usd is not None and self.spent_usd >= self.max_budget_usd:
            return LimitHit("max-budget-usd",
                            f"the budget of {usd(self.max_budget_usd)} is spent "
                            f"(${self.spent_usd:.4f} so far)")
        if self.max_minutes is not None and self.elapsed_s() >= self.max_minutes * 60:
            return LimitHit("max-minutes",
                            f"the time limit of {self.max_minutes:g} minute(s) is reached "
                            f"({self.elapsed_s() / 60:.1f} min elapsed)")
        if starts_cycle:
            if self.max_cycles is not None and self.cycles_started >= self.max_cycles:
                return LimitHit("max-cycles",
                                f"the limit of {self.max_cycles} cycle(s) is reached")
            self.cycles_started += 1
        return None
