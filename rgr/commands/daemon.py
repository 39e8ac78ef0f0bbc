"""``rgr daemon`` and ``rgr daemon stop``."""

from __future__ import annotations

from rgr.commands.common import emit
from rgr.daemon.daemon import run_daemon
from rgr.daemon.jobs import stop_daemon
from rgr.daemon.worker import DaemonOptions
from rgr.store.workspace import Workspace


def start(ws: Workspace, options: DaemonOptions) -> int:
    return run_daemon(ws.root, options)


def stop(ws: Workspace) -> int:
    return emit(stop_daemon(ws))
