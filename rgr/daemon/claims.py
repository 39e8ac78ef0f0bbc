"""Claims: which worker runs a job, as a compare-and-swap on ``refs/rgr/claims/<id>``.

A claim is created only if the ref is absent (or replaces exactly the expired claim the
worker read), renewed by its holder with a heartbeat (CAS from its own last value) and
deleted by its holder (CAS again). A worker that dies stops renewing; once
``heartbeat_at + lease_s`` has passed, any worker may replace it and resume the job from
its last handoff note. A worker whose renewal fails has lost the job and stops at once.
Clocks: a lease is judged by the reader's wall clock, so hosts sharing a remote need
clocks within a small fraction of the lease (NTP gives milliseconds).
"""

from __future__ import annotations

import os
import time
from dataclasses import replace

from rgr.daemon.hub import Hub, RefUpdate
from rgr.daemon.queue import CLAIMS, Claim, Job, host

DEFAULT_LEASE_S = 60.0


def new_claim(worker: str, lease_s: float) -> Claim:
    now = time.time()
    return Claim(worker=worker, host=host(), pid=os.getpid(),
                 claimed_at=now, heartbeat_at=now, lease_s=lease_s)


def try_claim(hub: Hub, job: Job, worker: str, lease_s: float) -> tuple[Claim, str] | None:
    """Claim ``job`` as read: free, or held by a worker that is gone. The claim and its
    blob id, or None when another worker was faster."""
    if job.claim is not None and not job.claim.gone():
        return None
    claim = new_claim(worker, lease_s)
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
