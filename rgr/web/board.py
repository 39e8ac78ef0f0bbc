"""The board: every run in the repository, newest first, each linking to its page: the
queue's jobs with their state, worker, phase, cost and time, read with rgr.daemon.queue
(what `rgr queue` reads), and the runs no job made (`rgr run`, `rgr refactor`: read
from their notes by rgr.web.local_runs); and a fingerprint of the queue's refs and the
notes ref that tells a polling page whether anything changed."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from rgr.daemon.hub import QUEUE_NAMESPACES
from rgr.daemon.queue import TERMINAL, Job, Queue, describe_state
from rgr.store.workspace import Workspace
from rgr.web.local_runs import LocalRun
from rgr.web.local_runs import read as read_local_runs

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
    #: Its page (/jobs/N, or /runs/<commit> for a run no job made), the row's HTML id,
    #: and what its first cell says (the job's number, the run's short id).
    link: str = ""
    anchor: str = ""
    label: str = ""


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


def fingerprint(queue: Queue, notes_tip: str | None = None) -> str:
    """What every queue ref points at, and the notes ref (a run's new handoff), hashed:
    one ``git for-each-ref``, no blob read. Any change a worker publishes (a state, a
    claim, a new job) or a run's note changes it."""
    refs = queue.git.refs(*QUEUE_NAMESPACES)
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(f"notes {notes_tip}\n".encode())
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
        can_cancel=state.state not in TERMINAL, link=f"/jobs/{job.id}", anchor=f"job-{job.id}",
        label=str(job.id))


def _run_row(run: LocalRun, now: float) -> Row:
    start = run.started.timestamp() if run.started else None
    end = run.finished.timestamp() if run.finished else None
    running = run.state == "running"
    elapsed: float | None = None
    if start is not None:
        elapsed = now - start if running else (end - start if end is not None else None)
    return Row(
        id=0, kind=run.kind, feature=run.feature, state=run.state, state_text=run.state_text,
        worker="", host="", phase=run.phase, cycle=run.cycle, cost_usd=run.cost_usd,
        elapsed_s=elapsed, since=start if running else None, branch=run.branch,
        message=run.message, can_cancel=False, link=f"/runs/{run.commit}",
        anchor=f"run-{run.run_id[:8]}", label=run.run_id[:8])


def read(queue: Queue, only: str | None, page: int = 1, ws: Workspace | None = None
         ) -> Board:
    """The board now, newest first: the queue's jobs and, given ``ws``, the runs no job
    made; ``only``: those in that state; ``page``: which PAGE_SIZE of them (1: the
    newest)."""
    jobs = queue.jobs()
    local = read_local_runs(ws, {j.spec.branch for j in jobs}) if ws is not None else []
    now = time.time()
    counts = dict.fromkeys(STATES, 0)
    for state in [j.state.state for j in jobs] + [r.state for r in local]:
        counts[state] = counts.get(state, 0) + 1
    # Newest first by when each began (a job when it was queued); jobs of one second in
    # the order they were queued, newest first.
    entries: list[tuple[float, int, Job | LocalRun]] = [
        *((j.spec.created_at or 0.0, j.id, j) for j in jobs),
        *((r.started.timestamp() if r.started else 0.0, 0, r) for r in local)]
    entries.sort(key=lambda e: (e[0], e[1]), reverse=True)
    shown = [e[2] for e in entries if only is None or _state_of(e[2]) == only]
    pages = max(1, -(-len(shown) // PAGE_SIZE))
    page = min(max(page, 1), pages)
    rows = [_row(e, now) if isinstance(e, Job) else _run_row(e, now)
            for e in shown[(page - 1) * PAGE_SIZE:page * PAGE_SIZE]]
    return Board(rows, counts, len(jobs) + len(local), len(shown), page, pages)


def _state_of(entry: Job | LocalRun) -> str:
    return entry.state.state if isinstance(entry, Job) else entry.state
