"""The daemon's jobs as `rgr queue` and `rgr serve` change and list them (state in
refs/rgr/*): each returns an Outcome, which the command prints and the page shows."""

from __future__ import annotations

import time
from datetime import datetime

from rgr.base.errors import BadUsage
from rgr.base.outcome import Outcome
from rgr.base.slug import slugify
from rgr.daemon import cron
from rgr.daemon.hub import open_hub
from rgr.daemon.queue import (
    JobSpec,
    JobState,
    Queue,
    QueueError,
    describe_claim,
    describe_state,
    state_dict,
    when,
    who,
)
from rgr.daemon.remote import remote_tip
from rgr.store.gitcli import Git, git_env
from rgr.store.workspace import Workspace


def open_queue(ws: Workspace, remote: str | None) -> Queue:
    main = Git(ws.root, git_env(ws.env))
    return Queue(main, open_hub(main, remote))


def add(ws: Workspace, feature: str, after: tuple[int, ...], refactor: bool,
        every: str | None, base: str | None, remote: str | None,
        max_budget_usd: float | None = None) -> Outcome[None]:
    """Queue a job (or a schedule, with ``every``): what was queued, said."""
    from rgr.store import git as rgit

    feature = feature.strip()
    if not feature:
        raise BadUsage("the feature description is empty: say what the job should build, "
                       "e.g. rgr queue add \"slugify: lowercase\"")
    schedule = cron.parse(every) if every is not None else None
    base = base or rgit.require_branch(ws.repo)
    queue = open_queue(ws, remote)
    queue.hub.refresh()  # an unreachable remote is named as such before its branches
    check_base(queue.git, base, remote)
    kind = "refactor" if refactor else "run"
    prefix = ws.config.branch_prefix + ("refactor-" if refactor else "")
    taken = {j.spec.branch for j in queue.jobs()} | set(ws.repo.branches.local)
    branch = f"{prefix}{slugify(feature)}"
    n = 2
    while branch in taken:
        branch = f"{prefix}{slugify(feature)}-{n}"
        n += 1
    now = time.time()
    spec = JobSpec(id=0, kind=kind, feature=feature, base=base, branch=branch,
                   after=tuple(after), every=every, created_at=now, created_by=who())
    if schedule is not None:
        first = schedule.next_after(datetime.fromtimestamp(now)).timestamp()
        state = JobState("scheduled", updated_at=now, by=who(), next_at=first,
                         max_budget_usd=max_budget_usd)
    else:
        state = JobState("queued", updated_at=now, by=who(), max_budget_usd=max_budget_usd)
    ident = queue.add(spec, state)
    what = "schedule" if schedule else "job"
    said = [f"{what} {ident} queued: {kind} {feature} on {branch} from {base}"
            + (f" after {', '.join(map(str, after))}" if after else "")]
    if schedule is not None and state.next_at is not None:
        said.append(f"  fires {every!r}, next at {when(state.next_at)}")
    return Outcome(said)


def check_base(git: Git, base: str, remote: str | None) -> None:
    """The job's base branch exists where its worker will fetch it from: checked here,
    where the fix is one command away, rather than by a daemon that cannot start it."""
    if git.rev("HEAD") is None and git.rev(f"refs/heads/{base}") is None:
        raise QueueError("this repository has no commit yet: a job starts from a commit "
                         "of its base branch",
                         "commit first (`git commit --allow-empty -m 'Initial commit'` "
                         "will do), then queue the job")
    if remote is not None:
        if remote_tip(git, remote, f"refs/heads/{base}") is None:
            raise QueueError(f"--base {base}: the remote {remote} has no branch {base}",
                             f"push it first (`git push {remote} {base}`), or name a "
                             "branch the remote has")
    elif git.rev(f"refs/heads/{base}") is None:
        raise QueueError(f"--base {base}: there is no branch {base} in this repository",
                         "name an existing branch (`git branch` lists them), or create it "
                         f"first (`git branch {base}`)")


def listing(ws: Workspace, remote: str | None) -> Outcome[list[dict[str, object]]]:
    """The jobs: as aligned columns (not a rich Table: rich takes seconds for 10,000
    rows) and the messages of the ones that need a person, or as JSON rows."""
    queue = open_queue(ws, remote)
    queue.hub.refresh()
    jobs = queue.jobs()
    rows = [state_dict(j) for j in jobs]
    if not jobs:
        return Outcome(["the queue is empty: add a job with `rgr queue add \"<feature>\"`"],
                       rows, rows=True)
    header = ("id", "kind", "feature", "state", "worker", "phase/cycle", "cost", "branch")
    cells = [header]
    for job in jobs:
        s = job.state
        cells.append((str(job.id), job.spec.kind, _one_line(job.spec.feature, 50),
                      describe_state(job), describe_claim(job.claim),
                      f"{s.phase or '-'}/{s.cycle if s.cycle is not None else '-'}",
                      f"${s.cost_usd:.4f}", job.spec.branch))
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    text = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in cells]
    text += [f"job {job.id}: {_one_line(job.state.message, 300)}" for job in jobs
             if job.state.state in ("failed", "needs-attention") and job.state.message]
    return Outcome(text, rows, rows=True)


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def cancel(ws: Workspace, ident: int, remote: str | None) -> Outcome[None]:
    state = open_queue(ws, remote).cancel(ident)
    return Outcome([f"job {ident} {state.message}"])


def retry(ws: Workspace, ident: int, remote: str | None,
          max_budget_usd: float | None = None) -> Outcome[None]:
    open_queue(ws, remote).retry(ident, max_budget_usd)
    return Outcome([f"job {ident} queued again: a daemon continues it from its last "
                    "handoff (or starts it over if it has none); `rgr daemon` runs it"])


def stop_daemon(ws: Workspace) -> Outcome[None]:
    """Ask the daemon working in this repository to stop at its next phase boundary."""
    from rgr.daemon.daemon import common_git_dir, request_stop  # the daemon's whole stack

    holder = request_stop(common_git_dir(Git(ws.root, git_env(ws.env))))
    return Outcome([f"asked the daemon ({holder}) to stop at the next phase boundary; its "
                    "jobs stay resumable"])
