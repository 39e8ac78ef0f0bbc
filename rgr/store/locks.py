"""The run lock (one rgr run or resume per repository) and stale-lock detection.

rgr's own lock is ``<git dir>/rgr/run.lock``, created with O_EXCL and holding the
holder's pid, host and command, so a refusal can name who holds it and a lock left by a
process that died (kill -9, a power cut) is recognised as stale instead of blocking
forever. git's own ``*.lock`` files carry no pid: one is stale only when no live process
has it open, which on Linux ``/proc/*/fd`` tells.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from rgr.base.errors import LockedError

RUN_LOCK = Path("rgr") / "run.lock"

#: A git lock younger than this may belong to a git that is just starting: leave it.
MIN_STALE_AGE_S = 2.0


@dataclass(frozen=True)
class LockInfo:
    pid: int
    host: str
    command: str
    started: float

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.started))
        return f"pid {self.pid} on {self.host} (`{self.command}`, since {when})"


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a running process. A zombie is not: it has exited and holds
    nothing, but stays until its parent reaps it, which after a ``kill -9`` of a whole
    process tree can be long (the orphan goes to an init that may not reap at once)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (not Linux): the signal check is all there is
    state = stat.rpartition(")")[2].split()[:1]
    return state not in (["Z"], ["X"])


def read_lock_info(path: Path) -> LockInfo | None:
    try:
        data = json.loads(path.read_text())
        return LockInfo(int(data["pid"]), str(data["host"]), str(data["command"]),
                        float(data["started"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def run_lock_is_stale(path: Path) -> bool:
    """A run lock whose holder is dead (on this host), or that cannot be read and is old."""
    info = read_lock_info(path)
    if info is None:
        try:
            return time.time() - path.stat().st_mtime > MIN_STALE_AGE_S
        except FileNotFoundError:
            return False
    return info.host == socket.gethostname() and not pid_alive(info.pid)


@contextmanager
def run_lock(git_dir: Path, command: str, lock: Path = RUN_LOCK,
             busy: str = "another rgr is working on this repository") -> Iterator[LockInfo]:
    """Hold the repository's run lock (or another lock of rgr's, ``lock``) for the
    duration of the block."""
    path = git_dir / lock
    path.parent.mkdir(parents=True, exist_ok=True)
    info = LockInfo(os.getpid(), socket.gethostname(), command, time.time())
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if run_lock_is_stale(path):
                # The holder is dead: take over. Renaming first makes the takeover
                # atomic if two new runs race for the same stale lock.
                stale = path.with_suffix(f".stale-{os.getpid()}")
                try:
                    os.rename(path, stale)
                    stale.unlink()
                except FileNotFoundError:
                    pass
                continue
            holder = read_lock_info(path)
            who = holder.describe() if holder else "another process"
            raise LockedError(
                f"{busy}: {who}",
                "wait for it to finish; if that process is gone, run `rgr repair-notes --apply`",
            ) from None
        with os.fdopen(fd, "w") as handle:
            json.dump(asdict(info), handle)
        break
    else:
        raise LockedError(f"could not take the run lock {path}")
    try:
        yield info
    finally:
        current = read_lock_info(path)
        if current is not None and current.pid == info.pid:
            path.unlink(missing_ok=True)


def open_by_any_process(path: Path) -> bool:
    """Whether a live process has ``path`` open (Linux /proc; elsewhere assume yes)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    target = str(path.resolve())
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                try:
                    if os.readlink(fd) == target:
                        return True
                except OSError:
                    continue
        except OSError:
            continue
    return False


def find_git_locks(git_dir: Path) -> list[Path]:
    """git's own lock files that exist now: index, HEAD, config, packed-refs, refs."""
    found = [
        git_dir / name
        for name in ("index.lock", "HEAD.lock", "config.lock", "packed-refs.lock")
        if (git_dir / name).exists()
    ]
    refs = git_dir / "refs"
    if refs.is_dir():
        found.extend(sorted(refs.rglob("*.lock")))
    return found


def git_lock_is_stale(path: Path) -> bool:
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return False
    return age >= MIN_STALE_AGE_S and not open_by_any_process(path)


def clear_stale_git_locks(git_dir: Path, wait_s: float = MIN_STALE_AGE_S) -> list[Path]:
    """Remove git's lock files that no live process holds; the ones removed.

    A git killed mid-write (an agent's ``git commit`` when rgr died) leaves
    ``index.lock`` behind and every later git command fails. A lock some live process
    has open is left alone and refused with its name: that git is still working. A
    young unheld lock may be a git between closing and renaming it: wait and look again.
    """
    removed: list[Path] = []
    deadline = time.monotonic() + wait_s + 1.0
    for lock in find_git_locks(git_dir):
        while True:
            if open_by_any_process(lock):
                raise LockedError(
                    f"{lock} is held by a running process: a git command is working in "
                    "this repository",
                    "wait for it to finish, then run the command again")
            if git_lock_is_stale(lock):
                lock.unlink(missing_ok=True)
                removed.append(lock)
                break
            if not lock.exists():
                break
            if time.monotonic() >= deadline:
                raise LockedError(f"{lock} appeared moments ago and is not held by any "
                                  "process", "run the command again in a few seconds")
            time.sleep(0.1)
    return removed
