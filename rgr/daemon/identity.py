"""Who a daemon is in the claims it writes: a random id made at every start, never a
process id.

Containers on the host's network (``podman run --network host``, Kubernetes'
``hostNetwork: true``) share one host name, each in its own PID namespace: a pid read
from another worker's claim names nothing (or some unrelated process) here. So a claim
carries the holder's ``instance``, a random id drawn when its daemon started, and a
claim is judged gone only by its lease (rgr.daemon.claims.LeaseWatch), with one
exception that is always safe: a claim written by an earlier daemon *of this very
clone* is dead, because this daemon holds the clone's daemon lock (one daemon per clone
at a time). The clone keeps the last few instances that ran in it, in
``<git dir>/rgr/daemon-instances``; a clone copied into each container (a path the
recipe does not take) carries only instances that ran before the copy, all of them
gone. A daemon restarted after a ``kill -9`` thus takes its own jobs back at once; a
claim of an old rgr (no instance) waits for its lease.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

#: In the git dir: the instances of the daemons that ran in this clone, newest last.
INSTANCES = Path("rgr") / "daemon-instances"
#: How many earlier instances a clone remembers (one is enough unless a daemon died
#: before it claimed anything: then the one before it may still hold a claim).
REMEMBERED = 16


def new_instance() -> str:
    """A random id: 64 bits, so two workers started anywhere never share one."""
    return secrets.token_hex(8)


@dataclass(frozen=True)
class Identity:
    """This daemon in claims: its host name (shown to people), its random instance, and
    the instances of the earlier daemons of its clone (dead: this one holds the lock)."""

    host: str
    instance: str = field(default_factory=new_instance)
    predecessors: frozenset[str] = frozenset()

    def worker(self, number: int) -> str:
        """A worker thread's name in claims and states: unique across every host, pid
        namespace and restart."""
        return f"{self.host}:{os.getpid()}:{self.instance}:{number}"

    def dead_predecessor(self, host: str, instance: str) -> bool:
        """A claim written by an earlier daemon of this clone on this host."""
        return bool(instance) and instance != self.instance and host == self.host \
            and instance in self.predecessors


def start(git_dir: Path, host: str) -> Identity:
    """A new instance for the daemon starting in this clone (called under its daemon
    lock), recorded for the daemons that follow it here."""
    path = git_dir / INSTANCES
    try:
        earlier = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    except OSError:
        earlier = []
    me = Identity(host)
    kept = [*earlier[-(REMEMBERED - 1):], me.instance]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    partial.write_text("".join(f"{i}\n" for i in kept))
    partial.replace(path)
    return Identity(host, me.instance, frozenset(earlier))
