"""One worker: claim a runnable job, run it phase by phase as ``rgr run`` / ``rgr
resume`` child processes in the job's own clone, publish after every phase, integrate
it when complete, and release the claim.

A child runs ``--max-phases 1``: between two children is a phase boundary, where the
worker honours ``rgr daemon stop``, ``rgr queue cancel`` and the budget, and pushes
the job's branch and notes so any other worker can take it over from there. The sealed
attempts of ``rgr run`` apply unchanged: the daemon only starts rgr.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from rgr.base import failpoints
from rgr.base.errors import ExitCode, RgrError
from rgr.base.proc import Completed, run_lines, tail
from rgr.daemon import claims, land
from rgr.daemon.hub import Hub, RemoteUnreachable
from rgr.daemon.identity import Identity
from rgr.daemon.queue import FAILED, Claim, Job, Queue, fleet_spent, host, runnable
from rgr.daemon.workcopy import LostJob, WorkCopy, jobs_root
from rgr.observe.limits import usd
from rgr.sandbox.toolchain import DEPENDENCIES_FROM_VAR
from rgr.store.gitcli import Git
from rgr.store.history import ROWS_ALSO_IN

#: How many phases one child runs before the worker looks at stop, cancel and budget.
PHASES_PER_CHILD = 1
CHILD_TIMEOUT_S = 6 * 3600.0
#: Children killed by a signal in a row before the job counts as failed.
CHILD_CRASHES = 3
#: ``--grace``: seconds a phase under way may go on after SIGTERM before it is cut off
#: and its job handed back. Handing back takes a few seconds more (a state update and a
#: claim release on the hub), so this stays 10 s below Kubernetes' default
#: terminationGracePeriodSeconds (30 s); a manifest that gives more sets more.
DEFAULT_GRACE_S = 20.0


@dataclass
class DaemonOptions:
    workers: int = 1
    watch: bool = False
    remote: str | None = None
    integrate: str = "none"
    max_budget_usd: float | None = None
    test_slots: int | None = None
    lease_s: float = claims.DEFAULT_LEASE_S
    poll_s: float = 2.0
    #: Merge-fixer sessions a conflicting integration may use (0: none).
    merge_fix_tries: int = 2
    grace_s: float = DEFAULT_GRACE_S


@dataclass(frozen=True)
class Budget:
    """``--max-budget-usd``: a bound on what the queue's jobs spend together, whichever
    worker on whichever machine spends it. Each job's spending is in its state ref
    (updated at every phase boundary); a worker reads the sum before it claims a job
    and before every phase. Phases already running when the sum crosses the limit
    finish: each was started with what was left then as its own limit."""

    limit: float | None

    def left(self, jobs: list[Job]) -> float | None:
        return None if self.limit is None else self.limit - fleet_spent(jobs)


def job_left(job: Job) -> float | None:
    """What is left of the job's own budget (None: it has none)."""
    limit = job.state.max_budget_usd
    return None if limit is None else limit - job.state.cost_usd


def smallest(*amounts: float | None) -> float | None:
    given = [a for a in amounts if a is not None]
    return min(given) if given else None


Report = Callable[..., None]


@dataclass
class DaemonContext:
    root: Path
    git_dir: Path
    main: Git
    hub: Hub
    queue: Queue
    hub_url: str
    options: DaemonOptions
    env: Mapping[str, str]
    report: Report
    #: This daemon in claims (rgr.daemon.identity); a fresh random one by default.
    identity: Identity = field(default_factory=lambda: Identity(host()))
    stop: threading.Event = field(default_factory=threading.Event)
    integrate_lock: threading.Lock = field(default_factory=threading.Lock)
    budget: Budget = field(default_factory=lambda: Budget(None))
    leases: claims.LeaseWatch = field(default_factory=claims.LeaseWatch)
    #: Why the workers stop at their next phase boundary (said in the jobs' states).
    stop_reason: str = "the daemon was stopped"
    children: dict[int, int] = field(default_factory=dict)  # worker -> child pid
    #: The workers whose child runs a phase (not a landing's check or merge fix).
    phases: set[int] = field(default_factory=set)
    #: When SIGTERM came (monotonic), and whether its grace period is over: the phases
    #: still running are cut off and their jobs handed back (rgr.daemon.daemon).
    term_at: float | None = None
    handing_back: threading.Event = field(default_factory=threading.Event)
    busy: set[int] = field(default_factory=set)
    #: Jobs this daemon saw fail or need attention (older failures in the queue are not
    #: its doing: they do not make it exit non-zero).
    failed: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.leases.me = self.identity

    def kill_children(self) -> None:
        with self.lock:
            pids = list(self.children.values())
        _kill(pids)

    def grace_over(self) -> bool:
        """SIGTERM came more than ``--grace`` seconds ago."""
        return self.term_at is not None and \
            time.monotonic() - self.term_at >= self.options.grace_s

    def hand_back(self) -> None:
        """The grace period is over: kill every phase still running (as a kill -9 would:
        `rgr resume` settles what it leaves); each worker then hands its job back at
        the last phase boundary. A landing under way is left to finish: cut off, its
        verification would fail a job that is fine. Called again until the workers
        are gone (a phase child that registered late is killed too)."""
        self.handing_back.set()
        with self.lock:
            pids = [pid for number, pid in self.children.items() if number in self.phases]
        _kill(pids)


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


class Heartbeat(threading.Thread):
    """Renews the claim every third of the lease; on a lost claim, kills the child at
    once (another worker owns the job now: it must never run twice at once)."""

    def __init__(self, ctx: DaemonContext, number: int, job: Job, claim: Claim,
                 oid: str) -> None:
        super().__init__(daemon=True, name=f"heartbeat-{job.id}")
        self.ctx, self.number, self.job_id = ctx, number, job.id
        self.claim, self.oid = claim, oid
        self.lost = threading.Event()
        self.unreachable = threading.Event()
        self.done = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        interval = max(self.claim.lease_s / 3.0, 0.2)
        while not self.done.wait(interval):
            self.beat()

    def beat(self) -> None:
        with self.lock:
            try:
                renewed = claims.heartbeat(self.ctx.hub, self.job_id, self.claim, self.oid)
            except RemoteUnreachable:
                self.unreachable.set()
                return
            except RgrError:
                return
            self.unreachable.clear()
            if renewed is None:
                self.lost.set()
                with self.ctx.lock:
                    pid = self.ctx.children.get(self.number)
                if pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(pid, signal.SIGKILL)
                self.done.set()
                return
            self.claim, self.oid = renewed

    def release(self) -> None:
        self.done.set()
        with self.lock:
            if not self.lost.is_set():
                # An expired claim is as good as a released one.
                with contextlib.suppress(RgrError):
                    claims.release(self.ctx.hub, self.job_id, self.oid)


class Worker(threading.Thread):
    def __init__(self, ctx: DaemonContext, number: int) -> None:
        super().__init__(daemon=True, name=f"worker-{number}")
        self.ctx = ctx
        self.number = number
        self.worker_id = ctx.identity.worker(number)
        self.error: BaseException | None = None

    def say(self, message: str, **fields: object) -> None:
        self.ctx.report(self.number, message, **fields)

    def run(self) -> None:
        try:
            while not self.ctx.stop.is_set():
                if not self.step() and self.ctx.stop.wait(self.ctx.options.poll_s):
                    break
        except BaseException as exc:  # shown by the daemon, which then stops
            self.error = exc
            self.ctx.stop.set()
        self.say("idle", job=None)

    def step(self) -> bool:
        """Claim and run one job; False when there was none to claim."""
        try:
            self.ctx.hub.refresh()
        except RemoteUnreachable as exc:
            self.say(f"remote unreachable, local work kept: {exc.message.splitlines()[0]}")
            return False
        jobs = self.ctx.queue.jobs()
        left = self.ctx.budget.left(jobs)
        if left is not None and left <= 0:
            return False  # the daemon says so and stops once every worker is idle
        for job in runnable(jobs, self.ctx.leases.gone):
            if self.ctx.stop.is_set():
                return True
            won = claims.try_claim(self.ctx.hub, job, self.worker_id,
                                   self.ctx.options.lease_s, self.ctx.leases.gone,
                                   self.ctx.identity)
            if won is None:
                continue
            failpoints.hit("daemon:claimed")
            with self.ctx.lock:
                self.ctx.busy.add(self.number)
            try:
                self.run_job(job, *won)
            finally:
                with self.ctx.lock:
                    self.ctx.busy.discard(self.number)
            return True
        return False

    # -- one job ---------------------------------------------------------------------

    def run_job(self, job: Job, claim: Claim, oid: str) -> None:
        ctx = self.ctx
        taken = f" (taken over from {job.claim.worker})" if job.claim else ""
        beat = Heartbeat(ctx, self.number, job, claim, oid)
        beat.start()
        try:
            state = replace(job.state, state="running", updated_at=time.time(),
                            by=self.worker_id, message="", runs=job.state.runs + 1)
            if not ctx.queue.set_state(job, state):
                # Cancelled, or finished by another worker, between reading the queue
                # and winning the claim (its claim released as it finished): the claim
                # goes back unused, and the log says no job was taken.
                return
            self.say(f"claimed job {job.id}{taken}", job=job.id, feature=job.spec.feature)
            wc = WorkCopy(ctx.main, ctx.git_dir, job.spec, ctx.hub_url)
            if self.prepare(job, wc):
                self.loop(job, wc, beat)
        except LostJob as exc:
            self.say(f"job {job.id}: {exc.message}; another worker owns it")
            beat.lost.set()
        except RemoteUnreachable as exc:
            self.say(f"job {job.id}: the remote is unreachable; its work is kept in "
                     f"{jobs_root(ctx.git_dir, ctx.env) / str(job.id)}: "
                     f"{exc.message.splitlines()[0]}")
        finally:
            beat.release()

    def prepare(self, job: Job, wc: WorkCopy) -> bool:
        """Set the job's clone up; a job that cannot start fails, with the reason and the
        fix, rather than stopping the daemon (which would leave it running, to fail
        again at every start, with every job behind it waiting)."""
        try:
            wc.prepare()
        except (LostJob, RemoteUnreachable):
            raise
        except RgrError as exc:
            message = f"cannot start: {exc}"
            self.update(job, state="failed", message=message)
            self.say(f"job {job.id} failed: {message}", job=None, outcome=True)
            return False
        return True

    def loop(self, job: Job, wc: WorkCopy, beat: Heartbeat) -> None:
        ctx = self.ctx
        crashes = 0
        ran: str | None = None  # the phase the last child ran
        while True:
            if beat.lost.is_set():
                self.say(f"job {job.id}: the claim was lost; another worker owns it")
                return
            with contextlib.suppress(RemoteUnreachable):
                ctx.hub.refresh()  # a cancel made in another clone, the fleet's spending
            jobs = ctx.queue.jobs()
            current = next(j for j in jobs if j.id == job.id)
            job.state, job.state_oid = current.state, current.state_oid
            if job.state.state == "cancelled":
                self.say(f"job {job.id} cancelled: stopped at a phase boundary")
                return
            self.count_spend(job, wc)  # a phase a killed worker left uncounted here
            progress = wc.progress()
            if progress.complete:
                self.finish(job, wc, jobs)
                return
            if ctx.stop.is_set() or beat.unreachable.is_set():
                why = ctx.stop_reason if ctx.stop.is_set() else \
                    "the remote is unreachable (work kept locally)"
                if not beat.unreachable.is_set():
                    wc.share_notes()
                self.update(job, state="stopped", message=f"{why}; resumable")
                # Whoever stopped the daemon reads here whether the phase under way
                # finished (or was handed back: hand_back below).
                finished = f"finished phase {ran}; " if ran else ""
                self.say(f"job {job.id}: {finished}stopped before "
                         f"{progress.phase or 'PLAN'}: {why}")
                return
            if self.out_of_budget(job, wc, jobs):
                return
            budget = smallest(ctx.budget.left(jobs), job_left(job))
            self.say(f"job {job.id}: {progress.phase or 'PLAN'}", job=job.id,
                     phase=progress.phase or "PLAN", cycle=progress.cycle,
                     cost=job.state.cost_usd)
            done = self.child(job, progress.started, budget)
            ran = progress.phase or "PLAN"
            if beat.lost.is_set():
                continue
            if ctx.handing_back.is_set() and done.returncode < 0:
                self.hand_back(job, wc, ran)
                return
            failpoints.hit("daemon:child-done")
            after = wc.progress()
            wc.publish()
            spent, total = wc.uncounted_spend()
            self.update(job, phase=after.phase, cycle=after.cycle,
                        cost_usd=job.state.cost_usd + spent, tip=after.tip)
            wc.counted(total)
            self.say(f"job {job.id}: next {after.phase} (cycle {after.cycle})", job=job.id,
                     phase=after.phase, cycle=after.cycle, cost=job.state.cost_usd)
            if done.returncode < 0 and crashes < CHILD_CRASHES:
                # rgr itself was killed (a signal, the OOM killer): `rgr resume` settles
                # whatever it left, exactly as after a kill -9 of a plain `rgr run`.
                crashes += 1
                self.say(f"job {job.id}: rgr was killed by signal {-done.returncode}; "
                         "resuming")
                continue
            if done.returncode != 0 and not after.complete:
                # A child stopped by the budget it was given: the budget's stop, not a
                # failure of the job (the sum now says so, the job's state too).
                if self.out_of_budget(job, wc, ctx.queue.jobs()):
                    return
                failure = tail((done.stderr or done.stdout).strip(), 600)
                wc.share_notes()
                if done.returncode == ExitCode.NEEDS_ATTENTION:
                    # An agent said its task cannot be done honestly: not a failure of
                    # the work, a question for a person (`rgr queue retry` once decided).
                    why = reason((done.stderr or done.stdout).strip()).split(" fix: ")[0]
                    self.update(job, state="needs-attention", message=(
                        f"{why}. Decide who is right: `rgr queue retry {job.id}` tries the "
                        "phase again (telling the agent the reason); or cancel it and queue "
                        "a clearer feature"))
                    self.say(f"job {job.id} needs attention: {why}", outcome=True)
                    return
                self.update(job, state="failed", message=failure)
                self.say(f"job {job.id} failed: {reason(failure)}", outcome=True)
                return

    def hand_back(self, job: Job, wc: WorkCopy, phase: str) -> None:
        """The grace period ran out mid-phase and the phase was killed: give the job
        back at its last phase boundary. Nothing of the cut-off phase is published (the
        hub holds the job as the last boundary left it, as after a dead worker); the
        job is ``stopped`` and, once the claim is released (run_job), any worker
        continues it from its last handoff, here as `rgr resume` after a kill -9."""
        spent, total = wc.uncounted_spend()  # the cut-off phase's sessions were paid
        grace = self.ctx.options.grace_s
        why = (f"{self.ctx.stop_reason}; its {phase} was cut off after the --grace of "
               f"{grace:g} s and handed back: it resumes from its last handoff")
        self.update(job, state="stopped", message=why,
                    cost_usd=job.state.cost_usd + spent)
        wc.counted(total)
        # Its handoffs so far into the shared notes, as for every stopped job; best
        # effort: they are on the job's own notes ref already, where a resume reads them.
        with contextlib.suppress(RgrError):
            wc.share_notes()
        self.say(f"handed back job {job.id} at phase boundary: its {phase} was cut off "
                 f"after the {grace:g} s grace period; any worker resumes it from its "
                 "last handoff", outcome=True)

    def count_spend(self, job: Job, wc: WorkCopy) -> None:
        """Add what this clone's sessions cost and the job's state does not count yet."""
        spent, total = wc.uncounted_spend()
        if spent > 0:
            self.update(job, cost_usd=job.state.cost_usd + spent)
            wc.counted(total)

    def out_of_budget(self, job: Job, wc: WorkCopy, jobs: list[Job]) -> bool:
        """Stop before the next phase when the fleet's or the job's budget is spent."""
        fleet = self.ctx.budget.left(jobs)
        own = job_left(job)
        if fleet is not None and fleet <= 0:
            spent = fleet_spent(jobs)
            why = (f"the fleet's --max-budget-usd {usd(self.ctx.budget.limit or 0)} is spent "
                   f"({usd(spent)} by the queue's {len(jobs)} job(s), every worker and "
                   f"machine together); resumable: `rgr daemon --max-budget-usd` with more")
            state = "stopped"
        elif own is not None and own <= 0:
            why = (f"its own --max-budget-usd {usd(job.state.max_budget_usd or 0)} is spent "
                   f"({usd(job.state.cost_usd)}); nothing is lost: `rgr queue retry "
                   f"{job.id} --max-budget-usd <more>` continues it from its last handoff")
            state = "failed"
        else:
            return False
        wc.share_notes()
        self.update(job, state=state, message=why)
        self.say(f"job {job.id} {state}: {why}", outcome=True)
        return True

    def child(self, job: Job, started: bool, budget: float | None) -> Completed:
        common = ["--yes", "--skip-preflight", "--max-phases", str(PHASES_PER_CHILD)]
        if budget is not None and job.spec.kind == "run":
            common += ["--max-budget-usd", f"{max(budget, 0.0001):.4f}"]
        if started:
            argv = ["resume", *common]
        elif job.spec.kind == "refactor":
            argv = ["refactor", "--here", *common[:4], job.spec.feature]
        else:
            argv = ["run", "--here", *common, job.spec.feature]
        with self.ctx.lock:
            self.ctx.phases.add(self.number)  # cut off when the grace period ends
        try:
            return self.rgr(job, argv)
        finally:
            with self.ctx.lock:
                self.ctx.phases.discard(self.number)

    def rgr(self, job: Job, argv: list[str]) -> Completed:
        """``rgr <argv>`` in the job's clone: killed with the claim, its tool calls shown
        live, its output appended to the job's log."""
        ctx = self.ctx
        wc_root = jobs_root(ctx.git_dir, ctx.env) / str(job.id)

        def track(pid: int) -> None:
            with ctx.lock:
                ctx.children[self.number] = pid

        def follow(line: str) -> None:
            # rgr's plain log shows each tool call as "▸ turn N <tool> <input>".
            _, mark, call = line.partition("▸ ")
            if mark:
                ctx.report(self.number, call.strip(), live_only=True)

        try:
            # The job's notes come here: their history rows are filed here too. The
            # clone has no node_modules or .venv (never committed): its working copies
            # share this working tree's, read-only (rgr.sandbox.toolchain).
            env = {**ctx.env, ROWS_ALSO_IN: str(ctx.git_dir),
                   DEPENDENCIES_FROM_VAR: str(ctx.root)}
            done = run_lines([sys.executable, "-m", "rgr", *argv], cwd=wc_root,
                             timeout=CHILD_TIMEOUT_S, env=env, on_line=follow,
                             on_spawn=track)
        finally:
            with ctx.lock:
                ctx.children.pop(self.number, None)
        _append_log(ctx.git_dir / "rgr" / "jobs" / f"{job.id}.log", done)
        return done

    def update(self, job: Job, **changes: object) -> None:
        """Change the job's state record (CAS); a cancel that lands first wins."""
        for _ in range(10):
            state = replace(job.state, updated_at=time.time(), by=self.worker_id,
                            **changes)  # type: ignore[arg-type]
            if self.ctx.queue.set_state(job, state):
                if state.state in FAILED:
                    with self.ctx.lock:
                        self.ctx.failed.add(job.id)
                return
            current = self.ctx.queue.job(job.id)
            job.state, job.state_oid = current.state, current.state_oid
            if job.state.state == "cancelled":
                return

    def finish(self, job: Job, wc: WorkCopy, jobs: list[Job]) -> None:
        message, tip = "complete", wc.git.rev("HEAD")
        if self.ctx.options.integrate != "none":
            landed = self.integrate(job, wc, jobs)
            # A merge fix is an agent session: its cost counts for the job and the fleet.
            self.count_spend(job, wc)
            if not landed.ok:
                wc.share_notes()
                self.update(job, state="needs-attention", message=landed.message)
                self.say(f"job {job.id} needs attention: {landed.message.splitlines()[0]}",
                         outcome=True)
                return
            message, tip = landed.message, landed.commit or tip
        failpoints.hit("daemon:landed")
        wc.share_notes()
        self.update(job, state="complete", message=message, tip=tip, phase="COMPLETE")
        self.say(f"job {job.id} complete: {message}", job=None, outcome=True)

    def integrate(self, job: Job, wc: WorkCopy, jobs: list[Job]) -> land.Landed:
        """Integrate the finished job (rgr.daemon.land); a refusal that is not a race
        (a protected base, a base gone, a failing git) is the job's answer, never the
        daemon's crash."""
        ctx = self.ctx
        target = land.Target(ctx.main, ctx.root, ctx.options.remote)
        budget = smallest(ctx.budget.left(jobs), job_left(job))
        fixer = land.Fixer(ctx.options.merge_fix_tries, lambda argv: self.rgr(job, argv),
                           budget)
        with ctx.integrate_lock:
            try:
                return land.land(wc, target, ctx.env, lambda m: self.say(f"job {job.id}: {m}"),
                                 ctx.options.integrate, fixer=fixer)
            except RemoteUnreachable as exc:
                # Whether a push under way reached the remote is unknown: the next
                # landing finds the job there (already in the base) or lands it.
                self.say(f"job {job.id}: the remote is unreachable while landing; "
                         f"{wc.spec.base} there is unchanged by this daemon unless a push "
                         f"was cut off (the next landing finds out): "
                         f"{exc.message.splitlines()[0]}")
                raise
            except LostJob:
                raise
            except RgrError as exc:
                return land.Landed(False, f"landing failed: {exc.message}; "
                                          f"{wc.spec.base} is unchanged by this job"
                                          + (f"; fix: {exc.hint}" if exc.hint else ""))


def reason(output: str) -> str:
    """Why a child rgr failed, in a line or two: its ``rgr: error:`` line and the ``fix:``
    after it when it printed one (its last line is often only the fix), else its last
    line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("rgr: error:"):
            fix = lines[i + 1] if i + 1 < len(lines) and lines[i + 1].startswith("fix:") \
                else ""
            return " ".join(filter(None, (lines[i].removeprefix("rgr: error:").strip(), fix)))
    return lines[-1] if lines else "it exited without saying why"


def _append_log(path: Path, done: Completed) -> None:
    """Each child's command and output, for `rgr queue` readers who want the detail."""
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(done.describe(20000) + "\n\n")
    except OSError:
        pass
