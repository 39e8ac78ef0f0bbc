"""Finding and stopping processes rgr started but no longer watches.

An agent's tool commands (a test run, a ``git commit``) run in sessions of their own,
so killing claude's process group misses them, and after a ``kill -9`` of rgr nobody
is left to kill anything. rgr therefore marks the environment of every agent it starts
(``RGR_AGENT_SESSION=<session id>``, ``RGR_AGENT_REPO=<work tree>``); every tool
process inherits the marks, and Linux shows them in ``/proc/<pid>/environ``.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

#: One agent session: killed when that session ends, however it ends.
SESSION_MARK_VAR = "RGR_AGENT_SESSION"
#: The repository an agent works in: whatever still carries it when a new run or resume
#: holds the run lock is an orphan of a run that died.
REPO_MARK_VAR = "RGR_AGENT_REPO"


def kill_marked_processes(var: str, value: str, grace_s: float = 2.0) -> list[int]:
    """Kill every process whose environment holds ``var=value``; the pids found.

    Linux only (it reads /proc/<pid>/environ of our own processes); elsewhere it finds
    nothing and the caller's process-group kill is all there is.
    """
    needle = f"{var}={value}".encode()
    pids = [pid for pid in _own_pids() if pid != os.getpid() and _environ_has(pid, needle)]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = [pid for pid in pids if _signal_group(pid, sig)]
        deadline = time.monotonic() + grace_s
        while alive and time.monotonic() < deadline:
            time.sleep(0.05)
            alive = [pid for pid in alive if _exists(pid)]
        if not alive:
            break
    return pids


def _own_pids() -> list[int]:
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    return [int(p.name) for p in proc.iterdir() if p.name.isdigit()]


def _environ_has(pid: int, needle: bytes) -> bool:
    try:
        return needle in (Path("/proc") / str(pid) / "environ").read_bytes().split(b"\0")
    except OSError:  # gone, or not ours
        return False


def _signal_group(pid: int, sig: signal.Signals) -> bool:
    """Signal ``pid``'s process group (never our own); False if it is already gone."""
    try:
        group = os.getpgid(pid)
        if group == os.getpgrp():
            os.kill(pid, sig)
        else:
            os.killpg(group, sig)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return False


def _exists(pid: int) -> bool:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    # A zombie is dead; it only waits for a parent (often init) to reap it.
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def kill_orphans(root: Path) -> list[int]:
    """Kill agent processes left working in ``root`` by an rgr that died; their pids.

    Only call this while holding the repository's run lock: then no live rgr owns them.
    """
    return kill_marked_processes(REPO_MARK_VAR, str(root))
