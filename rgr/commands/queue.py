"""``rgr queue``: add, list, cancel and retry the daemon's jobs (rgr.daemon.jobs, which
`rgr serve` calls too). Each returns the service's Outcome for rgr.cli to render."""

from __future__ import annotations

from rgr.base.outcome import Outcome
from rgr.daemon import jobs
from rgr.store.workspace import Workspace


def add(ws: Workspace, feature: str, after: tuple[int, ...], refactor: bool,
        every: str | None, base: str | None, remote: str | None,
        max_budget_usd: float | None = None) -> Outcome[None]:
    return jobs.add(ws, feature, after, refactor, every, base, remote, max_budget_usd)


def listing(ws: Workspace, remote: str | None) -> Outcome[list[dict[str, object]]]:
    return jobs.listing(ws, remote)


def cancel(ws: Workspace, ident: int, remote: str | None) -> Outcome[None]:
    return jobs.cancel(ws, ident, remote)


def retry(ws: Workspace, ident: int, remote: str | None,
          max_budget_usd: float | None = None) -> Outcome[None]:
    return jobs.retry(ws, ident, remote, max_budget_usd)
