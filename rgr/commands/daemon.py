"""``rgr daemon`` and ``rgr daemon stop``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rgr.base.ui import esc, make_console
from rgr.daemon.daemon import common_git_dir, request_stop, run_daemon
from rgr.daemon.worker import DaemonOptions
from rgr.store.gitcli import Git, git_env
from rgr.store.workspace import Workspace

if TYPE_CHECKING:
    from rich.console import Console


def start(ws: Workspace, options: DaemonOptions) -> int:
    return run_daemon(ws.root, options)


def stop(ws: Workspace, out: Console | None = None) -> int:
    holder = request_stop(common_git_dir(Git(ws.root, git_env(ws.env))))
    (out or make_console()).print(f"asked the daemon ({esc(holder)}) to stop at the next "
                                  "phase boundary; its jobs stay resumable")
    return 0
