"""``rgr daemon``: N workers over the queue until it is done (or, with --watch, until
``rgr daemon stop``); one daemon per clone, refused with the holder's name.

The daemon holds ``<git dir>/rgr/daemon.lock`` (pid, host, command; a dead holder's lock
is taken over). ``rgr daemon stop`` leaves ``<git dir>/rgr/daemon.stop``: every worker
stops at its next phase boundary, marks its job ``stopped`` (resumable), and the daemon
exits. The schedules (``--every``) are fired by whichever daemon gets there first: the
firing is a compare-and-swap of the schedule's state, so each firing queues one job.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import FrameType

from rgr.base import failpoints
from rgr.base.errors import ExitCode, RgrError
from rgr.base.slots import slot_env
from rgr.daemon import cron, identity
from rgr.daemon.hub import RemoteUnreachable, open_hub
from rgr.daemon.queue import TERMINAL, Job, JobState, Queue, dead_end, fleet_spent, host, who
from rgr.daemon.view import DaemonView
from rgr.daemon.workcopy import JOBS_DIR
from rgr.daemon.worker import Budget, DaemonContext, DaemonOptions, Worker
from rgr.observe.limits import usd
from rgr.store.gitcli import Git, git_env
from rgr.store.locks import pid_alive, read_lock_info, run_lock

DAEMON_LOCK = Path("rgr") / "daemon.lock"
STOP_FILE = Path("rgr") / "daemon.stop"
PACK_INTERVAL_S = 60.0


def common_git_dir(git: Git) -> Path:
    out = git.out("rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    return Path(out)


def hub_url(git: Git, root: Path, remote: str | None) -> str:
    if remote is None:
        return str(root)
    url = git.run("remote", "get-url", remote).stdout.strip()
    if not url:
        raise RgrError(f"there is no remote named {remote!r} in this repository",
                       f"add it with `git remote add {remote} <url>`")
    if "://" not in url and ":" not in url.split("/")[0] and (root / url).exists():
        url = str((root / url).resolve())  # a relative path, read from the main clone
    return url


def request_stop(git_dir: Path) -> str:
    info = read_lock_info(git_dir / DAEMON_LOCK)
    if info is None or not pid_alive(info.pid):
        raise RgrError("no rgr daemon is running in this repository",
                       "start one with `rgr daemon`")
    (git_dir / STOP_FILE).write_text(f"stop requested by {who()} at {time.time()}\n")
    return info.describe()


def fire_schedules(queue: Queue, jobs: list[Job], say: object) -> list[int]:
    """Queue one job per schedule whose firing time has come (CAS on its state)."""
    fired: list[int] = []
    now = time.time()
    for job in jobs:
        every = job.spec.every
        if every is None or job.state.state != "scheduled":
            continue
        if job.state.next_at is not None and job.state.next_at > now:
            continue
        at = datetime.fromtimestamp(job.state.next_at or now)
        following = cron.parse(every).next_after(datetime.fromtimestamp(now))
        new_state = replace(job.state, next_at=following.timestamp(), fired=job.state.fired + 1,
                            updated_at=now, by=who())
        if not queue.set_state(job, new_state):
            continue  # another daemon fired it
        spec = replace(job.spec, every=None, schedule_of=job.id,
                       branch=f"{job.spec.branch}-{at:%Y%m%d-%H%M}", created_at=now,
                       created_by=who())
        # Each firing gets the schedule's budget afresh (its own job, its own spending).
        fired.append(queue.add(spec, JobState("queued", updated_at=now, by=who(),
                                              max_budget_usd=job.state.max_budget_usd)))
    return fired


def all_done(jobs: list[Job]) -> bool:
    """Nothing left that this daemon could ever run without new input."""
    by_id = {j.id: j for j in jobs}
    return all(j.state.state in TERMINAL or j.spec.every is not None or dead_end(j, by_id)
               for j in jobs)


def join_workers(ctx: DaemonContext, workers: list[Worker]) -> None:
    """Wait for the workers to stop; once SIGTERM's grace period is over, cut off the
    phases still running so that their jobs are handed back before the engine kills
    the container (DaemonContext.hand_back)."""
    while any(worker.is_alive() for worker in workers):
        if ctx.grace_over():
            ctx.hand_back()
        for worker in workers:
            worker.join(timeout=0.2)


def final_count(ctx: DaemonContext) -> str:
    """The last line: every job's state as the hub holds it after this daemon's last
    landing, read afresh (other machines' jobs ended since this daemon last looked)."""
    with contextlib.suppress(RgrError):  # unreachable now: the last count this clone saw
        ctx.hub.refresh()
    counts: dict[str, int] = {}
    for job in ctx.queue.jobs():
        counts[job.state.state] = counts.get(job.state.state, 0) + 1
    return "daemon done: " + (", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
                              or "the queue is empty")


def run_daemon(root: Path, options: DaemonOptions, view: DaemonView | None = None) -> int:
    # Children (rgr run/resume, git) never inherit the daemon's own crash point.
    env = failpoints.scrub(git_env())
    main = Git(root, env)
    git_dir = common_git_dir(main)
    env.update(slot_env(git_dir / "rgr" / "test-slots", options.test_slots))
    hub = open_hub(main, options.remote)
    queue = Queue(main, hub)
    url = hub_url(main, root, options.remote)
    if options.remote:
        # Rebases keep the handoff notes on the rewritten commits in this clone too.
        main.run("config", "notes.rewriteRef", "refs/notes/tdd-handoffs")
    (git_dir / JOBS_DIR).mkdir(parents=True, exist_ok=True)
    with run_lock(git_dir, "rgr daemon", lock=DAEMON_LOCK,
                  busy="another rgr daemon is running on this clone"):
        (git_dir / STOP_FILE).unlink(missing_ok=True)
        view = view or DaemonView(options.workers)
        with view:
            ctx = DaemonContext(root=root, git_dir=git_dir, main=main, hub=hub, queue=queue,
                                hub_url=url, options=options, env=env, report=view.report,
                                identity=identity.start(git_dir, host()),
                                budget=Budget(options.max_budget_usd))
            return _serve(ctx, view)


def _serve(ctx: DaemonContext, view: DaemonView) -> int:
    options = ctx.options
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: FrameType | None) -> None:
        # A container's `docker stop`, systemd, a person: a clean stop, said as such in
        # the states of the jobs it stops, within --grace seconds (the engine kills the
        # container once its own grace period is over).
        ctx.stop_reason = "the daemon got SIGTERM (a clean stop at the phase boundary)"
        if ctx.term_at is None:
            ctx.term_at = time.monotonic()
        ctx.stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_term)
    # Said once SIGTERM is handled: whoever waits for this line may stop it at once.
    where = f"remote {options.remote}" if options.remote else "this repository"
    view.say(f"rgr daemon: {options.workers} worker(s) on the queue in {where}"
             + (", watching for new jobs" if options.watch else ""))
    workers = [Worker(ctx, n) for n in range(1, options.workers + 1)]
    for worker in workers:
        worker.start()
    warned = False
    packed = time.monotonic()
    try:
        while True:
            if time.monotonic() - packed > PACK_INTERVAL_S:
                # Claims and states churn: loose refs would make every read slower.
                ctx.main.run("pack-refs", "--all")
                packed = time.monotonic()
            if (ctx.git_dir / STOP_FILE).exists() and not ctx.stop.is_set():
                view.say("stop requested: each worker stops at its next phase boundary")
                ctx.stop.set()
            if ctx.stop.is_set():
                break
            try:
                ctx.hub.refresh()
                jobs = ctx.queue.jobs()
                for ident in fire_schedules(ctx.queue, jobs, view.say):
                    view.say(f"schedule fired: job {ident} queued")
                warned = False
            except RemoteUnreachable as exc:
                if not warned:
                    view.say(f"{exc.message.splitlines()[0]}: local work goes on")
                    warned = True
                jobs = ctx.queue.jobs()
            with ctx.lock:
                idle = not ctx.busy
            if not options.watch and idle and all_done(jobs):
                ctx.stop.set()
                break
            left = ctx.budget.left(jobs)
            if left is not None and left <= 0 and idle:
                view.say(f"the fleet's --max-budget-usd {usd(options.max_budget_usd or 0)} "
                         f"is spent ({usd(fleet_spent(jobs))} by the queue's jobs, every "
                         "worker and machine together): stopping")
                ctx.stop.set()
                break
            time.sleep(min(options.poll_s, 1.0))
    except KeyboardInterrupt:
        ctx.stop.set()
        ctx.kill_children()
        view.say("interrupted: agents stopped; the jobs resume from their last handoff")
        return ExitCode.INTERRUPTED
    finally:
        join_workers(ctx, workers)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
        (ctx.git_dir / STOP_FILE).unlink(missing_ok=True)
    errors = [w.error for w in workers if w.error is not None]
    if errors:
        raise errors[0]
    view.say(final_count(ctx))
    # Non-zero only for what failed under this daemon: failures left from earlier runs
    # sit in the queue until retried or cancelled, and a clean stop is still clean.
    failed = sorted(ctx.failed)
    if failed:
        view.say(f"failed or in need of attention in this run: job(s) "
                 f"{', '.join(map(str, failed))}; `rgr queue` says why, `rgr queue retry "
                 "ID` tries again")
    return ExitCode.ERROR if failed else ExitCode.OK
