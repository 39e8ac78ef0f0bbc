"""The board: every job of the queue with its state, worker, phase, cost and time,
read with rgr.daemon.queue (what `rgr queue` reads), and a fingerprint of the queue's
refs that tells a polling page whether anything changed."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from rgr.daemon.hub import QUEUE_NAMESPACES
from rgr.daemon.queue import TERMINAL, Job, Queue, describe_state

#: Every state a job can be in, in the order the board's filters list them.
STATES = ("queued", "running", "stopped", "complete", "failed", "needs-attention",
          "cancelled", "scheduled")


#: States a worker writes when it lets a job go.
WORKER_ENDED = ("stopped", "complete", "failed", "needs-attention")


@dataclass(frozen=True)
class Row:
    id: int
    kind: str
    feature: str
    state: str  # one of STATES
    state_text: str  # as `rgr queue` words it
    worker: str
    host: str
    phase: str
    cycle: str
    cost_usd: float
    elapsed_s: float | None
    #: For a running job, when its worker claimed it (the page counts on from there).
    since: float | None
    branch: str
    message: str
    can_cancel: bool


#: Rows per page of the board: a thousand rows cost a browser little, but the server
#: about half its budget to render (bench/serve_bench.py); the rest is a click away.
PAGE_SIZE = 200


@dataclass(frozen=True)
class Board:
    rows: list[Row]
    counts: dict[str, int]
    total: int
    shown: int  # jobs in the filter, all pages
    page: int
    pages: int

    @property
    def first(self) -> int:
        return (self.page - 1) * PAGE_SIZE + 1

    @property
    def last(self) -> int:
        return self.first + len(self.rows) - 1


def fingerprint(queue: Queue) -> str:
    """What every queue ref points at, hashed: one ``git for-each-ref``, no blob read.
    Any change a worker publishes (a state, a claim, a new job) changes it."""
    refs = queue.git.refs(*QUEUE_NAMESPACES)
    digest = hashlib.sha1(usedforsecurity=False)
    for name in sorted(refs):
        digest.update(f"{name} {refs[name]}\n".encode())
    return digest.hexdigest()


def _row(job: Job, now: float) -> Row:
    state, spec, claim = job.state, job.spec, job.claim
    since = claim.claimed_at if claim is not None and state.state == "running" else None
    if since is not None:
        elapsed: float | None = now - since
    elif state.state in TERMINAL and spec.created_at:
        elapsed = max(0.0, state.updated_at - spec.created_at)
    elif spec.created_at:
        elapsed = now - spec.created_at
    else:
        elapsed = None
    # The claim while there is one; once a worker ended it, the state names that worker
    # (a queued or cancelled job's state names who queued or cancelled it: no worker).
    worker = ""
    if claim is not None:
        worker = claim.worker
    elif state.runs and state.state in WORKER_ENDED:
        worker = state.by
    host = claim.host if claim is not None else worker.split(":", 1)[0]
    return Row(
        id=job.id, kind=spec.kind, feature=spec.feature, state=state.state,
        state_text=describe_state(job), worker=worker, host=host,
        phase=state.phase or "-", cycle="-" if state.cycle is None else str(state.cycle),
        cost_usd=state.cost_usd, elapsed_s=elapsed, since=since, branch=spec.branch,
        message=state.message if state.state in ("failed", "needs-attention") else "",
        can_cancel=state.state not in TERMINAL)


def read(queue: Queue, only: str | None, page: int = 1) -> Board:
    """The board now, newest job first; ``only``: the jobs in that state; ``page``: which
    PAGE_SIZE of them (1: the newest)."""
    jobs = queue.jobs()
    now = time.time()
    counts = dict.fromkeys(STATES, 0)
    for job in jobs:
        counts[job.state.state] = counts.get(job.state.state, 0) + 1
    shown = [j for j in reversed(jobs) if only is None or j.state.state == only]
    pages = max(1, -(-len(shown) // PAGE_SIZE))
    page = min(max(page, 1), pages)
    rows = [_row(j, now) for j in shown[(page - 1) * PAGE_SIZE:page * PAGE_SIZE]]
    return Board(rows, counts, len(jobs), len(shown), page, pages)
