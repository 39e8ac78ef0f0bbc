"""``rgr report``: the final account of the run at HEAD, and what to do with it.

Said at the end of a completed ``rgr run``/``rgr resume`` too. ``--integrate merge``
fast-forwards the branch the run started from, ``--integrate pr`` opens a pull request
through ``gh`` (rgr.branches.integrate.accept, which `rgr serve` calls too), ``--integrate
none`` (the default) leaves it; rejecting is ``rgr rollback``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rgr.base.outcome import Outcome
from rgr.branches import integrate
from rgr.observe.report import RunReport, collect
from rgr.observe.report_text import text
from rgr.store.workspace import Workspace

if TYPE_CHECKING:
    from rgr.base.outcome import Say


def run(ws: Workspace, say: Say, mode: str = "none",
        into: str | None = None) -> Outcome[dict[str, object]]:
    """The account as the Outcome's text and data; with an integration, the account is
    said first (before the integration, which may fail) and the Outcome keeps the data."""
    report = collect(ws)
    if mode == "none":
        return Outcome(text(report, decision=True), report.to_json())
    _account(ws, report, mode, into, say)
    return Outcome(data=report.to_json())


def at_end_of_run(ws: Workspace, mode: str, into: str | None, say: Say) -> Outcome[None]:
    """After a completed run or resume (after an empty line): the report, then the
    integration asked for, said as they come."""
    say("")
    _account(ws, collect(ws), mode, into, say)
    return Outcome()


def _account(ws: Workspace, report: RunReport, mode: str, into: str | None,
             say: Say) -> None:
    for item in text(report, decision=mode == "none"):
        say(item)
    if mode != "none":
        say("")
        integrate.accept(ws, report, mode, into, say)
