"""Where the queue's refs live and how they change: compare-and-swap, nothing else.

``LocalHub`` is the repository itself: ``git update-ref --stdin`` applies every update
of a transaction only if each ref still holds the expected old value (all or nothing).
``RemoteHub`` is a remote several clones share: ``git push --atomic
--force-with-lease=<ref>:<expected>`` makes the server check the same thing under its
own ref locks, so of two clones racing for one ref exactly one wins. A lost race is a
normal answer (False), never an exception; git words it in many ways and every one of
them is recognised here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from rgr.base.errors import RgrError
from rgr.base.proc import Completed
from rgr.store.gitcli import Git

#: Every way git reports that a ref was not at the value the update expected.
LOST_RACE = ("non-fast-forward", "fetch first", "cannot lock ref", "but expected",
             "stale info", "reference already exists", "atomic push failed",
             "failed to update ref", "already exists", "rejected")
#: A server or a hook refusing the push for its own reasons: retrying will not help.
DECLINED = ("hook declined", "denied", "deny", "protected", "permission")
#: The remote cannot be reached at all.
UNREACHABLE = ("could not read from remote", "does not appear to be a git repository",
               "unable to access", "could not resolve host", "connection refused",
               "connection timed out", "no route to host", "network is unreachable",
               "connection reset", "did not answer within")

#: The refs the queue is made of (see rgr.daemon.queue): mirrored from a remote hub.
QUEUE_NAMESPACES = ("refs/rgr/queue/", "refs/rgr/state/", "refs/rgr/claims/")


class RemoteUnreachable(RgrError):
    """The shared remote cannot be reached; local work goes on."""

    category = "remote"


class RemoteRejected(RgrError):
    """The shared remote refused a push for a reason other than a lost race."""

    category = "remote"


@dataclass(frozen=True)
class RefUpdate:
    """Set ``ref`` to ``new`` (None: delete it) if it is at ``old`` (None: absent)."""

    ref: str
    new: str | None
    old: str | None


def answer(done: Completed) -> str:
    """What git said, and that it said nothing in time: a push or fetch killed at its
    timeout is a remote that does not answer (not one that refused, nor a lost race)."""
    late = f"\n(the remote did not answer within {done.duration_s:.0f} s)" if done.timed_out \
        else ""
    return done.stdout + done.stderr + late


def lost_race(text: str) -> bool:
    low = text.lower()
    return any(m in low for m in LOST_RACE) and not any(m in low for m in DECLINED)


def unreachable(text: str) -> bool:
    low = text.lower()
    return any(m in low for m in UNREACHABLE)


class Hub(Protocol):
    name: str
    git: Git

    def cas(self, updates: Sequence[RefUpdate]) -> bool: ...

    def refresh(self) -> None: ...


def _stdin_lines(updates: Sequence[RefUpdate], checked: bool = True) -> str:
    lines = []
    for u in updates:
        if u.new is None:
            lines.append(f"delete {u.ref}" + (f" {u.old}" if checked and u.old else ""))
        elif u.old is None and checked:
            lines.append(f"create {u.ref} {u.new}")
        else:
            lines.append(f"update {u.ref} {u.new}" + (f" {u.old}" if checked else ""))
    return "".join(line + "\n" for line in lines)


class LocalHub:
    """The refs of this repository, changed with ``git update-ref --stdin``."""

    name = "local"

    def __init__(self, git: Git) -> None:
        self.git = git

    def cas(self, updates: Sequence[RefUpdate]) -> bool:
        done = self.git.run("update-ref", "--stdin", input=_stdin_lines(updates))
        if done.returncode == 0:
            return True
        if lost_race(done.stderr):
            return False
        raise RgrError(f"git update-ref failed:\n{done.describe(1500)}")

    def refresh(self) -> None:
        return None


class RemoteHub:
    """A remote shared by several clones: pushes with a lease, fetches to mirror it."""

    def __init__(self, git: Git, remote: str) -> None:
        self.git = git
        self.name = remote

    def cas(self, updates: Sequence[RefUpdate]) -> bool:
        leases = [f"--force-with-lease={u.ref}:{u.old or ''}" for u in updates]
        specs = [f"{u.new}:{u.ref}" if u.new else f":{u.ref}" for u in updates]
        done = self.git.run("push", "--atomic", "--porcelain", "--no-verify", *leases,
                            self.name, *specs)
        text = answer(done)
        if done.returncode == 0 and not done.timed_out:
            # The remote moved: mirror it here so readers of this clone see it at once.
            self.git.run("update-ref", "--stdin", input=_stdin_lines(updates, checked=False))
            return True
        self._raise_if_broken(text, done.describe(1500), "push to")
        return False

    def refresh(self) -> None:
        specs = [f"+{ns}*:{ns}*" for ns in QUEUE_NAMESPACES]
        done = self.git.run("fetch", "--prune", "--no-tags", "--quiet", self.name, *specs)
        if done.returncode != 0:
            self._raise_if_broken(answer(done), done.describe(1500), "fetch from")

    def _raise_if_broken(self, text: str, described: str, doing: str) -> None:
        if unreachable(text):
            raise RemoteUnreachable(
                f"cannot {doing} the remote {self.name}:\n{described}",
                "check the remote's URL and the network; local work is kept and "
                "synced once it answers")
        if not lost_race(text):
            raise RemoteRejected(
                f"the remote {self.name} refused the update:\n{described}",
                "check the remote's permissions and hooks (the daemon needs to push "
                "refs/rgr/*, refs/notes/* and the job branches)")


def open_hub(git: Git, remote: str | None) -> Hub:
    return RemoteHub(git, remote) if remote else LocalHub(git)
