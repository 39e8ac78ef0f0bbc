"""The job queue, all of it in git refs (no database, no file that matters).

Layout (every value is a small JSON blob a ref points at; ``<id>`` is 1, 2, 3 ...)::

    refs/rgr/queue/<id>    the job's spec, written once: kind (run | refactor), feature,
                           after (ids), every (cron), base branch, branch, created
    refs/rgr/state/<id>    the job's state, replaced by compare-and-swap: queued,
                           running, stopped, complete, failed, needs-attention,
                           cancelled, scheduled (a schedule); phase, cycle, cost, tip
    refs/rgr/claims/<id>   who runs it: worker, host, pid, instance (rgr.daemon.identity),
                           heartbeat, lease; created only if absent, renewed and deleted
                           only by CAS
    refs/heads/rgr/<slug>  the job's branch; its handoff notes stay where every rgr
                           run keeps them, refs/notes/tdd-handoffs

Why refs and not a notes ref for the state: a state change must be a compare-and-swap
on that one job (a job completes exactly once), and a notes ref is one value for all
jobs whose merges keep both sides of a conflict. Blobs are pushed and fetched like any
object, so ``git push <remote> 'refs/rgr/*'`` and a fetch carry the whole queue.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, TypeVar

from rgr.base.errors import RgrError
from rgr.daemon.hub import Hub, RefUpdate
from rgr.store.gitcli import Git

QUEUE = "refs/rgr/queue/"
STATE = "refs/rgr/state/"
CLAIMS = "refs/rgr/claims/"

KINDS = ("run", "refactor")
#: Finished for good: never claimed again.
TERMINAL = ("complete", "failed", "needs-attention", "cancelled")
#: Waiting for a worker.
RUNNABLE = ("queued", "stopped")
#: Ended without completing; `rgr queue retry` queues them again.
FAILED = ("failed", "needs-attention")


_T = TypeVar("_T")

#: `rgr queue add` packs the refs every this many jobs (the daemon packs them too).
PACK_EVERY = 100


class QueueError(RgrError):
    """Bad input to a queue command, or a job that cannot change as asked."""

    category = "queue"


def _build(cls: type[_T], data: dict[str, Any]) -> _T:
    """``cls(**data)``; fields a newer rgr added are dropped (the slow path)."""
    try:
        return cls(**data)
    except TypeError:
        fields = cls.__dataclass_fields__  # type: ignore[attr-defined]
        return cls(**{k: v for k, v in data.items() if k in fields})


@dataclass(slots=True)  # not frozen: 10,000 of them are built per read
class JobSpec:
    id: int
    kind: str
    feature: str
    base: str
    branch: str
    after: tuple[int, ...] = ()
    every: str | None = None
    schedule_of: int | None = None
    created_at: float = 0.0
    created_by: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def parse(cls, text: str) -> JobSpec:
        data = json.loads(text)
        data["after"] = tuple(data.get("after") or ())
        return _build(cls, data)


@dataclass(slots=True)  # not frozen: 10,000 of them are built per read
class JobState:
    state: str
    updated_at: float = 0.0
    by: str = ""
    message: str = ""
    phase: str | None = None
    cycle: int | None = None
    cost_usd: float = 0.0
    tip: str | None = None
    next_at: float | None = None
    fired: int = 0
    runs: int = 0  # how many times a worker has claimed it (takeovers count)
    #: The job's own budget (`rgr queue add/retry --max-budget-usd`), against cost_usd:
    #: every agent session of the job, rejected ones and merge fixes included.
    max_budget_usd: float | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def parse(cls, text: str) -> JobState:
        return _build(cls, json.loads(text))


@dataclass(slots=True)  # not frozen: 10,000 of them are built per read
class Claim:
    worker: str  # host:pid:instance:n, unique per worker thread
    host: str
    pid: int  # for people: in another PID namespace it names nothing
    claimed_at: float
    heartbeat_at: float
    lease_s: float
    #: The holder daemon's random id (rgr.daemon.identity); "" in a claim of an older
    #: rgr, which only its lease can show gone.
    instance: str = ""

    @property
    def expires_at(self) -> float:
        return self.heartbeat_at + self.lease_s

    def expired(self, now: float | None = None) -> bool:
        return (now if now is not None else time.time()) > self.expires_at

    def gone(self) -> bool:
        """The lease ran out, by the wall clocks (a daemon judges by its own clock
        instead: rgr.daemon.claims.LeaseWatch). Never by the holder's pid: a worker in
        another PID namespace on this host name (containers on the host network) would
        look dead while it works."""
        return self.expired()

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def parse(cls, text: str) -> Claim:
        return _build(cls, json.loads(text))


@dataclass
class Job:
    spec: JobSpec
    state: JobState
    state_oid: str | None
    claim: Claim | None = None
    claim_oid: str | None = None
    blocked_by: list[int] = field(default_factory=list)

    @property
    def id(self) -> int:
        return self.spec.id


def host() -> str:
    """This machine's name in claims: ``RGR_DAEMON_HOST`` (a container's stable name,
    or a test's second "machine"), else the host name."""
    return os.environ.get("RGR_DAEMON_HOST") or socket.gethostname()


def who() -> str:
    return f"{host()}:{os.getpid()}"


class Queue:
    """Reads and changes the queue through ``hub`` (this repository or a remote)."""

    def __init__(self, git: Git, hub: Hub) -> None:
        self.git = git
        self.hub = hub

    # -- reading ---------------------------------------------------------------------

    def jobs(self) -> list[Job]:
        """Every job, oldest first: one ``for-each-ref`` per namespace reads the refs
        and their records together.

        Claims are read before states: a worker ends a job's state before it releases
        the claim, so a job that finishes between the two reads shows as finished (its
        claim not yet gone), never as running with nobody holding it."""
        specs: dict[int, JobSpec] = {}
        states: dict[int, tuple[JobState, str]] = {}
        claims: dict[int, tuple[Claim, str]] = {}
        for prefix in (QUEUE, CLAIMS, STATE):
            records = [(int(ref[len(prefix):]), oid, text)
                       for ref, (oid, text) in self.git.ref_blobs(prefix).items()
                       if ref[len(prefix):].isdigit()]
            for n, oid, data in zip(*_parse_all(records), strict=True):
                if data is None:
                    continue  # a damaged record is shown as missing, never crashes a reader
                try:
                    if prefix == QUEUE:
                        data["after"] = tuple(data.get("after") or ())
                        specs[n] = _build(JobSpec, data)
                    elif prefix == STATE:
                        states[n] = (_build(JobState, data), oid)
                    else:
                        claims[n] = (_build(Claim, data), oid)
                except TypeError:
                    continue
        jobs = []
        for n in sorted(specs):
            state, state_oid = states.get(n, (JobState("queued"), None))
            claim, claim_oid = claims.get(n, (None, None))
            jobs.append(Job(specs[n], state, state_oid, claim, claim_oid))
        by_id = {j.id: j for j in jobs}
        for job in jobs:
            job.blocked_by = [d for d in job.spec.after
                              if d not in by_id or by_id[d].state.state != "complete"]
        return jobs

    def job(self, ident: int) -> Job:
        for job in self.jobs():
            if job.id == ident:
                return job
        raise QueueError(f"there is no job {ident} in the queue",
                         "`rgr queue` lists the jobs and their ids")

    # -- changing --------------------------------------------------------------------

    def add(self, spec: JobSpec, state: JobState) -> int:
        """Store a new job under the next free id (create-only, so two adders never
        share one); ``spec.id`` is ignored. Returns the id."""
        self.hub.refresh()
        existing = {j.id: j for j in self.jobs()}
        check_after(spec.after, existing)
        ident = max(existing, default=0) + 1
        for _ in range(1000):
            if ident in spec.after:
                raise QueueError(f"--after {ident}: a job cannot wait for itself (a cycle)",
                                 "name jobs that are already in the queue")
            final = replace(spec, id=ident)
            updates = [RefUpdate(f"{QUEUE}{ident}", self.git.write_blob(final.to_json()), None),
                       RefUpdate(f"{STATE}{ident}", self.git.write_blob(state.to_json()), None)]
            if self.hub.cas(updates):
                if ident % PACK_EVERY == 0:
                    # Thousands of loose refs make every reader slow: pack them.
                    self.git.run("pack-refs", "--all")
                return ident
            ident += 1
        raise QueueError("could not find a free job id after 1000 tries")

    def set_state(self, job: Job, state: JobState) -> bool:
        """Replace the job's state if nobody changed it since ``job`` was read."""
        new = self.git.write_blob(state.to_json())
        won = self.hub.cas([RefUpdate(f"{STATE}{job.id}", new, job.state_oid)])
        if won:
            job.state, job.state_oid = state, new
        return won

    def cancel(self, ident: int) -> JobState:
        for _ in range(20):
            self.hub.refresh()
            job = self.job(ident)
            if job.state.state in TERMINAL:
                raise QueueError(f"job {ident} is already {job.state.state}",
                                 "only a queued, running, stopped or scheduled job can be "
                                 "cancelled")
            state = replace(job.state, state="cancelled", updated_at=time.time(), by=who(),
                            message="cancelled by the user" + (
                                "; its worker stops at the next phase boundary"
                                if job.claim else ""))
            if self.set_state(job, state):
                return state
        raise QueueError(f"job {ident} kept changing; try again")


    def retry(self, ident: int, max_budget_usd: float | None = None) -> JobState:
        """Queue a failed job (or one that needs attention) again: a worker continues it
        from its last handoff, or starts it over when it has none. ``max_budget_usd``
        replaces the job's own budget (one that stopped it, say)."""
        for _ in range(20):
            self.hub.refresh()
            job = self.job(ident)
            if job.state.state not in FAILED:
                raise QueueError(f"job {ident} is {job.state.state}: only a failed job or "
                                 "one that needs attention can be retried",
                                 _NOT_RETRIED.get(job.state.state, _NOT_RETRIED["queued"]))
            before = " ".join(job.state.message.split())[:200]
            state = replace(job.state, state="queued", updated_at=time.time(), by=who(),
                            message=f"queued again by rgr queue retry; it was "
                                    f"{job.state.state}: {before}",
                            max_budget_usd=job.state.max_budget_usd if max_budget_usd is None
                            else max_budget_usd)
            if self.set_state(job, state):
                return state
        raise QueueError(f"job {ident} kept changing; try again")


#: Why `rgr queue retry` leaves a job of that state alone.
_NOT_RETRIED = {
    "queued": "it runs when a daemon gets to it (`rgr daemon`)",
    "complete": "it is done: queue new work with `rgr queue add`",
    "cancelled": "queue it again with `rgr queue add`",
    "scheduled": "a schedule queues a new job at every firing by itself",
}


def _parse_all(records: list[tuple[int, str, str]]
               ) -> tuple[list[int], list[str], list[dict[str, Any] | None]]:
    """Parse many JSON records with one ``json.loads`` of them all (ten times faster
    than one call each on 10,000 jobs); record by record only if one is damaged."""
    numbers = [n for n, _, _ in records]
    oids = [oid for _, oid, _ in records]
    try:
        parsed = json.loads("[" + ",".join(text for _, _, text in records) + "]")
        if len(parsed) == len(records) and all(isinstance(d, dict) for d in parsed):
            return numbers, oids, parsed
    except ValueError:
        pass
    each: list[dict[str, Any] | None] = []
    for _, _, text in records:
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        each.append(data if isinstance(data, dict) else None)
    return numbers, oids, each


def check_after(after: Sequence[int], existing: dict[int, Job]) -> None:
    """``--after`` names jobs that exist, and waiting for them closes no cycle."""
    for dep in after:
        if dep not in existing:
            raise QueueError(f"--after {dep}: there is no job {dep} in the queue",
                             "`rgr queue` lists the jobs and their ids")
    # The new job's id does not exist yet, so only a cycle already among the existing
    # jobs (refs edited by hand) can be closed: follow every chain to be sure.
    done: set[int] = set()

    def visit(n: int, path: tuple[int, ...]) -> None:
        if n in path:
            chain = " -> ".join(str(i) for i in (*path[path.index(n):], n))
            raise QueueError(f"--after: the jobs it waits for form a cycle ({chain})",
                             "cancel one job of the cycle")
        if n in done or n not in existing:
            return
        for d in existing[n].spec.after:
            visit(d, (*path, n))
        done.add(n)

    for dep in after:
        visit(dep, ())


def runnable(jobs: Iterable[Job], gone: Callable[[Job], bool] | None = None) -> list[Job]:
    """Jobs a worker may try to claim now, oldest first: waiting ones, and running ones
    whose worker is gone (taken over from their last handoff). ``gone`` judges a claim
    (rgr.daemon.claims.LeaseWatch); by default the claim's own wall-clock expiry."""
    return [j for j in jobs
            if (j.state.state in RUNNABLE or (j.state.state == "running"))
            and not j.blocked_by and j.spec.every is None
            and (j.claim is None or (gone(j) if gone else j.claim.gone()))]


def fleet_spent(jobs: Iterable[Job]) -> float:
    """What every job of the queue has spent, as their state records say: the one
    budget of every worker on every machine that shares this queue."""
    return sum(max(j.state.cost_usd, 0.0) for j in jobs)


def dead_end(job: Job, by_id: dict[int, Job]) -> bool:
    """A job that can never run: one it waits for ended without completing."""
    return any(d in by_id and by_id[d].state.state in TERMINAL
               and by_id[d].state.state != "complete" for d in job.spec.after)


def when(ts: float | None) -> str:
    """A local time to the minute, as `rgr queue` shows it; ``-`` for none."""
    from datetime import datetime

    return "-" if ts is None else datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def describe_state(job: Job) -> str:
    """The job's state as `rgr queue` (and the board of `rgr serve`) words it: a
    schedule's next firing, what a waiting job waits for, a running job whose worker
    is gone."""
    state = job.state.state
    if state == "scheduled":
        return f"scheduled ({job.spec.every}), next {when(job.state.next_at)}"
    if job.blocked_by and state in ("queued", "stopped"):
        return f"{state}, waits for {', '.join(map(str, job.blocked_by))}"
    if state == "running" and (job.claim is None or job.claim.gone()):
        return "running (its worker is gone: the next free worker takes it over)"
    return state


def describe_claim(claim: Claim | None) -> str:
    if claim is None:
        return ""
    # The instance tells apart workers sharing a host name and a pid (containers).
    return f"{claim.host}:{claim.pid}" + (f"/{claim.instance[:6]}" if claim.instance else "")


def _flat(record: Any) -> dict[str, Any]:
    """A flat record's fields: what ``asdict`` gives for these dataclasses, without its
    deep copy of every value (three times slower on 10,000 jobs)."""
    return {name: getattr(record, name) for name in record.__dataclass_fields__}


def state_dict(job: Job) -> dict[str, Any]:
    data = _flat(job.spec)
    data["after"] = list(job.spec.after)
    data["state"] = _flat(job.state)
    data["claim"] = _flat(job.claim) if job.claim else None
    data["blockedBy"] = job.blocked_by
    return data
