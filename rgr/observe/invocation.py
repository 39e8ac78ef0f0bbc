"""One ``rgr run``/``rgr resume`` as its observers see it: the run folder, the console
view and the limits, wired into one observer for the orchestrator, and the outcome
recorded however the invocation ends (done, paused, stopped by a limit, failed, stopped
for a person, Ctrl-C, crashed)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

from rgr import __version__
from rgr.base.errors import NeedsAttention, PhaseFailed, RgrError
from rgr.observe.artifacts import RunArtifacts
from rgr.observe.events import InvocationFinished, InvocationStarted, Observers
from rgr.observe.limits import LimitReached, Limits, usd
from rgr.observe.summary import summarize
from rgr.observe.view import PlainView, make_view
from rgr.store.workspace import Workspace


class Invocation:
    """One `rgr run`/`rgr resume` as the observers see it: its outcome is recorded when
    it ends, however it ends."""

    def __init__(self, observer: Observers, view: PlainView, artifacts: RunArtifacts,
                 limits: Limits) -> None:
        self.observer = observer
        self.view = view
        self.artifacts = artifacts
        self.limits = limits
        self.outcome = "error"
        self.message: str | None = None


@contextmanager
def observed(ws: Workspace, command: str, run_id: str, feature: str | None,
             branch: str | None, limits: Limits, verbosity: int,
             new_run: bool = False) -> Iterator[Invocation]:
    """Artifacts, console view and limits for one invocation, wired as one observer.
    ``new_run``: the invocation starts a run, whose folder is removed again when it
    stops (refused or Ctrl-C) before any phase started: a start that did nothing leaves
    nothing behind (a crash keeps its folder, for the crash report)."""
    view = make_view(verbosity, title=f"rgr {command}: {feature or ''}",
                     limits=limits.as_dict())
    artifacts = RunArtifacts(ws.git_dir, run_id, ws.env)
    observer = Observers([artifacts, view, limits])
    inv = Invocation(observer, view, artifacts, limits)
    observer.emit(InvocationStarted(command=command, run_id=run_id, feature=feature,
                                    branch=branch, limits=limits.as_dict(),
                                    rgr_version=__version__))
    try:
        with view:
            yield inv
    except LimitReached as exc:
        inv.outcome, inv.message = "stopped", exc.message
        raise
    except PhaseFailed as exc:
        inv.outcome, inv.message = "failed", exc.message
        raise
    except NeedsAttention as exc:
        inv.outcome, inv.message = "needs-attention", exc.message
        raise
    except RgrError as exc:
        inv.outcome, inv.message = "error", exc.message
        raise
    except KeyboardInterrupt:
        inv.outcome, inv.message = "interrupted", "Ctrl-C"
        raise
    except Exception as exc:
        inv.outcome, inv.message = "crashed", f"{type(exc).__name__}: {exc}"
        raise
    finally:
        observer.emit(InvocationFinished(outcome=inv.outcome, message=inv.message,
                                         spent_usd=round(limits.spent_usd, 6)))
        artifacts.close()
        if view.tally.sessions or inv.outcome != "error":
            view.always(f"spent {view.tally.line()}")
        totals = summarize(artifacts.decoded())
        if len(totals["invocations"]) > 1:
            view.always(f"the whole run: ${totals['totals']['costUsd']:.4f} over "
                        f"{len(totals['invocations'])} invocations")
        if (new_run and inv.outcome in ("error", "interrupted") and not totals["phases"]
                and not view.tally.sessions):
            shutil.rmtree(artifacts.root, ignore_errors=True)
        else:
            view.always(f"run artifacts: {artifacts.root}")


def describe_limits(limits: Limits) -> str:
    parts = []
    if limits.max_budget_usd is not None:
        parts.append(f"{usd(limits.max_budget_usd)} budget")
    if limits.max_cycles is not None:
        parts.append(f"{limits.max_cycles} cycle(s)")
    if limits.max_minutes is not None:
        parts.append(f"{limits.max_minutes:g} minute(s)")
    return ", ".join(parts)
