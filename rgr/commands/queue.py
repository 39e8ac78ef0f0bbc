"""``rgr queue``: add, list, cancel and retry the daemon's jobs (rgr.daemon.jobs, which
`rgr serve` calls too)."""

from __future__ import annotations

from rgr.commands.common import emit
from rgr.daemon import jobs
from rgr.store.workspace import Workspace


def add(ws: Workspace, feature: str, after: tuple[int, ...], refactor: bool,
        every: str | None, base: str | None, remote: str | None,
        max_budget_usd: float | None = None) -> int:
    return emit(jobs.add(ws, feature, after, refactor, every, base, remote, max_budget_usd))


def listing(ws: Workspace, as_json: bool, remote: str | None) -> int:
    return emit(jobs.listing(ws, remote), as_json)


def cancel(ws: Workspace, ident: int, remote: str | None) -> int:
    return emit(jobs.cancel(ws, ident, remote))


def retry(ws: Workspace, ident: int, remote: str | None,
          max_budget_usd: float | None = None) -> int:
    return emit(jobs.retry(ws, ident, remote, max_budget_usd))
