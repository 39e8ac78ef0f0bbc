"""``rgr daemon`` and ``rgr daemon stop``."""

from __future__ import annotations

from rgr.base.outcome import Outcome
from rgr.daemon.daemon import run_daemon
from rgr.daemon.jobs import stop_daemon
from rgr.daemon.worker import DaemonOptions
from rgr.store.workspace import Workspace


def start(ws: Workspace, options: DaemonOptions) -> Outcome[None]:
    """The daemon's workers say what they do as they go (rgr.daemon's logs); the
    Outcome is only its exit code."""
    return Outcome(exit_code=run_daemon(ws.root, options))


def stop(ws: Workspace) -> Outcome[None]:
    return stop_daemon(ws)
