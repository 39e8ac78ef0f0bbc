"""``rgr report``: the final account of the run at HEAD, and what to do with it.

Printed at the end of a completed ``rgr run``/``rgr resume`` too. ``--integrate merge``
fast-forwards the branch the run started from, ``--integrate pr`` opens a pull request
through ``gh`` (rgr.branches.integrate.accept, which `rgr serve` calls too), ``--integrate
none`` (the default) leaves it; rejecting is ``rgr rollback``.
"""

from __future__ import annotations

from rgr.base.outcome import Outcome
from rgr.base.ui import make_console
from rgr.branches import integrate
from rgr.commands.common import emit, sayer
from rgr.observe.report import RunReport, collect
from rgr.observe.report_text import text
from rgr.store.workspace import Workspace


def run(ws: Workspace, as_json: bool, mode: str = "none", into: str | None = None) -> int:
    report = collect(ws)
    if as_json:
        if mode != "none":
            integrate.accept(ws, report, mode, into, sayer(make_console(stderr=True)))
        return emit(Outcome(data=report.to_json()), as_json=True)
    _account(ws, report, mode, into)
    return 0


def at_end_of_run(ws: Workspace, mode: str, into: str | None = None) -> int:
    """After a completed run or resume (after an empty line): the report, then the
    integration asked for."""
    sayer()("")
    _account(ws, collect(ws), mode, into)
    return 0


def _account(ws: Workspace, report: RunReport, mode: str, into: str | None) -> None:
    emit(Outcome(text(report, decision=mode == "none")))
    if mode != "none":
        say = sayer()
        say("")
        integrate.accept(ws, report, mode, into, say)
