"""Named crash points, for the fault-injection suite (tests/e2e/test_kill_anywhere.py).

rgr calls :func:`hit` at the moments where a crash would hurt most: between an agent's
commit and its verification, between writing a note and moving a branch, in the
middle of a backoff wait. Normally that is one dictionary look-up and nothing happens.
With ``RGR_FAILPOINT=<name>`` (or ``<name>@<n>`` for the n-th time that point is
reached) in rgr's environment, rgr SIGKILLs itself there: no cleanup handler, no
``finally`` block and no flush runs, exactly as with ``kill -9`` or a power cut. The
same idea as FoundationDB's buggify or etcd's gofail, kept this small on purpose.

The variable is read from rgr's own process environment only; it is removed from the
environment rgr gives to agents and test runners (see :func:`scrub`).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping

VARIABLE = "RGR_FAILPOINT"

#: Every crash point rgr has, in the order a phase reaches them. The harness sweeps
#: these; a name not listed here is a typo and is refused when the variable is read.
POINTS = (
    "run:start-noted",          # rgr run: start commit and note exist, no branch moved
    "run:started",              # the run's branch points at the noted start commit
    "seal:folder-made",         # an attempt's scratch folder exists, nothing in it yet
    "phase:inflight-recorded",  # the in-flight record is written, no agent yet
    "agent:spawned",            # claude has been started (it is running)
    "agent:returned",           # claude exited; nothing checked yet
    "seal:before-import",       # the session is over, its commits not imported yet
    "seal:imported",            # the attempt's objects are in the repository, unrecorded
    "seal:checked-out",         # a pristine checkout for a test run exists, no run yet
    "tests:spawned",            # the test runner has been started (it is running)
    "tests:finished",           # the test runner exited; no verdict yet
    "notes:objects-written",    # the new notes commit exists, the ref is not moved yet
    "notes:ref-moved",          # the notes ref points at the new note
    "phase:noted",              # the phase's note is written, the branch not moved yet
    "phase:accepted",           # the branch is at the verified commit, record not cleared
    "attempt:kept",             # a rejected attempt has its ref, no note yet
    "attempt:noted",            # the rejected attempt is noted, record not cleared
    "retry:backoff",            # waiting before a retry after a backend-side failure
)

#: The daemon's own crash points (tests/e2e/test_daemon.py), apart from the run's: the
#: run sweep covers POINTS, a daemon is killed at these.
DAEMON_POINTS = (
    "daemon:claimed",           # the claim ref is ours, the job's state not yet running
    "daemon:child-done",        # an rgr child ended a phase; nothing pushed yet
    "daemon:branch-pushed",     # the job branch is on the hub, its notes not yet
    "daemon:landed",            # the base branch moved to the job, state not complete
)

#: The landing's crash points (``--integrate merge``), swept apart from DAEMON_POINTS
#: because only a daemon that integrates reaches them.
LAND_POINTS = (
    "land:verified",            # the full suite passed on the job's tip, base not pushed
    "land:pushing",             # the push of the base branch is under way (it dies too)
    "land:pushed",              # the base branch moved on the hub, nothing read back
)


def _armed(environ: Mapping[str, str]) -> tuple[str, int] | None:
    value = environ.get(VARIABLE, "").strip()
    if not value:
        return None
    name, _, nth = value.partition("@")
    if name not in (*POINTS, *DAEMON_POINTS, *LAND_POINTS):
        raise ValueError(f"{VARIABLE}={value!r}: unknown crash point; known: {', '.join(POINTS)}")
    return name, int(nth) if nth else 1


_ARMED = _armed(os.environ)
_hits: dict[str, int] = {}


def hit(name: str) -> None:
    """Crash here (SIGKILL, no cleanup) if this point is armed and its turn has come."""
    if _ARMED is None or _ARMED[0] != name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if _hits[name] == _ARMED[1]:
        os.kill(os.getpid(), signal.SIGKILL)


def scrub(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without the crash-point variable, for the processes rgr starts."""
    return {key: value for key, value in environ.items() if key != VARIABLE}
