"""Claims: which worker runs a job, as a compare-and-swap on ``refs/rgr/claims/<id>``.

A claim is created only if the ref is absent (or replaces exactly the expired claim the
worker read), renewed by its holder with a heartbeat (CAS from its own last value) and
deleted by its holder (CAS again). A worker that dies stops renewing; once
``heartbeat_at + lease_s`` has passed, any worker may replace it and resume the job from
its last handoff note. A worker whose renewal fails has lost the job and stops at once.
Clocks: a lease is judged by the reader's own monotonic clock, never by comparing the
holder's wall clock with the reader's: a claim is gone once the reader has seen the
very same claim record (its blob id) unchanged for longer than its lease. A holder's
heartbeat writes a new record every third of the lease, so a live holder never looks
gone, whatever its clock says; a holder whose clock is hours off is judged exactly like
one whose clock is right. The cost: a reader that just started waits one lease before
it takes a dead worker's job over. Never by a pid: workers on one host name may live in
separate PID namespaces (containers on the host network), where another's pid names
nothing. The one case needing no wait is always safe: a claim of an earlier daemon of
this very clone, which is dead since this daemon holds the clone's lock
(rgr.daemon.identity).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rgr.daemon.hub import Hub, RefUpdate
from rgr.daemon.identity import Identity
from rgr.daemon.queue import CLAIMS, Claim, Job, host

DEFAULT_LEASE_S = 60.0


def new_claim(worker: str, lease_s: float, me: Identity | None = None) -> Claim:
    now = time.time()
    return Claim(worker=worker, host=me.host if me else host(), pid=os.getpid(),
                 claimed_at=now, heartbeat_at=now, lease_s=lease_s,
                 instance=me.instance if me else "")


@dataclass
class LeaseWatch:
    """Which claims are gone, judged by this process's own clock (see the module)."""

    clock: Callable[[], float] = time.monotonic
    #: The daemon reading (its earlier instances in this clone are dead: no wait).
    me: Identity | None = None
    #: job id -> (the claim's blob id, when this process first saw it)
    seen: dict[int, tuple[str, float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def gone(self, job: Job) -> bool:
        claim, oid = job.claim, job.claim_oid
        if claim is None or oid is None:
            return True
        if self.me is not None and self.me.dead_predecessor(claim.host, claim.instance):
            return True  # an earlier daemon of this clone: no need to wait for its lease
        now = self.clock()
        with self.lock:
            first = self.seen.get(job.id)
            if first is None or first[0] != oid:
                self.seen[job.id] = (oid, now)
                return False
            return now - first[1] > claim.lease_s


def try_claim(hub: Hub, job: Job, worker: str, lease_s: float,
              gone: Callable[[Job], bool] | None = None,
              me: Identity | None = None) -> tuple[Claim, str] | None:
    """Claim ``job`` as read: free, or held by a worker that is gone (``gone``: a
    LeaseWatch's judgement; by default the claim's own, on wall clocks) as ``me``. The
    claim and its blob id, or None when another worker was faster."""
    if job.claim is not None and not (gone(job) if gone else job.claim.gone()):
        return None
    claim = new_claim(worker, lease_s, me)
    oid = hub.git.write_blob(claim.to_json())
    if hub.cas([RefUpdate(f"{CLAIMS}{job.id}", oid, job.claim_oid)]):
        return claim, oid
    return None


def heartbeat(hub: Hub, ident: int, claim: Claim, oid: str) -> tuple[Claim, str] | None:
    """Renew the lease; None when the claim is no longer ours (the job was taken over)."""
    renewed = replace(claim, heartbeat_at=time.time())
    new = hub.git.write_blob(renewed.to_json())
    if hub.cas([RefUpdate(f"{CLAIMS}{ident}", new, oid)]):
        return renewed, new
    return None


def release(hub: Hub, ident: int, oid: str) -> bool:
    return hub.cas([RefUpdate(f"{CLAIMS}{ident}", None, oid)])
