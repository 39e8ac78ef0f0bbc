"""Refactor mode under ``--max-budget-usd`` and ``--max-minutes``: a Backend that holds
every agent session (planner and patchers) to what is left of the invocation's limits.

TDD mode checks its limits inside the orchestrator's attempt loop; refactor mode's only
spending is its agent sessions, so the check sits in front of them, and the engine needs
no change: before a session starts, a spent budget or an elapsed time limit raises
LimitReached (nothing of the session has happened, the branch is at the last verified
batch, ``rgr resume`` continues); a session that does start gets the budget left through
claude's own ``--max-budget-usd`` and the time left as its timeout. Rope renames make no
agent call and cost nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from rgr.backends.base import (
    AgentRequest,
    AgentResult,
    AgentRunError,
    Backend,
    OpenGateway,
    usd,
)
from rgr.limits import LimitReached, Limits


class LimitedBackend:
    """``inner`` with the limits of one ``rgr refactor`` / ``rgr resume`` invocation."""

    def __init__(self, inner: Backend, limits: Limits) -> None:
        self.inner = inner
        self.limits = limits
        self.name = inner.name
        self.binary = inner.binary
        self.env_keep = inner.env_keep

    def api_urls(self, env: Mapping[str, str]) -> list[str]:
        return self.inner.api_urls(env)

    def seal_api(self, env: dict[str, str], open_gateway: OpenGateway) -> list[str]:
        return self.inner.seal_api(env, open_gateway)

    def prepare_home(self, home: Path, env: Mapping[str, str]) -> None:
        self.inner.prepare_home(home, env)

    def version(self) -> str:
        return self.inner.version()

    def check_login(self, cwd: Path) -> None:
        self.inner.check_login(cwd)

    def run(self, request: AgentRequest) -> AgentResult:
        hit = self.limits.before_attempt(starts_cycle=False)
        if hit is not None:
            raise LimitReached(
                hit.limit, f"refactor stopped before the next agent session: {hit.message}",
                f"`rgr resume` continues from the last verified batch (pass a higher "
                f"--{hit.limit}, or none)")
        request = dataclasses.replace(
            request, max_budget_usd=self.limits.remaining_budget_usd(),
            timeout_s=self.limits.agent_timeout_s(request.timeout_s))
        try:
            result = self.inner.run(request)
        except AgentRunError as exc:
            # A session that failed still cost what claude reports for it.
            self.limits.spent_usd += usd(exc.cost_usd)
            raise
        self.limits.spent_usd += usd(result.cost_usd)
        return result
