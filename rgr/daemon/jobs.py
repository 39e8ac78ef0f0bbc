"""``rgr queue``: add, list and cancel the daemon's jobs (state in refs/rgr/*)."""

from __future__ import annotations

import sys
import time
from datetime import datetime
from typing import TYPE_CHECKING

import click

from rgr.base.ui import esc, make_console, print_json_rows
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

if TYPE_CHECKING:
    from rich.console import Console


def open_queue(ws: Workspace, remote: str | None) -> Queue:
    main = Git(ws.root, git_env(ws.env))
    return Queue(main, open_hub(main, remote))


def add(ws: Workspace, feature: str, after: tuple[int, ...], refactor: bool,
        every: str | None, base: str | None, remote: str | None,
        max_budget_usd: float | None = None, out: Console | None = None) -> int:
    """``out``: where to say what was queued (`rgr serve` shows it on the page)."""
    from rgr.loop.starting import slugify  # the run's own branch naming (a heavy import)
    from rgr.store import git as rgit

    feature = feature.strip()
    if not feature:
        raise click.UsageError("the feature description is empty: say what the job "
                               "should build, e.g. rgr queue add \"slugify: lowercase\"")
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
    out = out or make_console()
    what = "schedule" if schedule else "job"
    out.print(f"{what} {ident} queued: {esc(kind)} [bold]{esc(feature)}[/bold] on {esc(branch)} "
              f"from {esc(base)}" + (f" after {', '.join(map(str, after))}" if after else ""))
    if schedule is not None and state.next_at is not None:
        out.print(f"  fires {every!r}, next at {when(state.next_at)}")
    return 0


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


def listing(ws: Workspace, as_json: bool, remote: str | None) -> int:
    queue = open_queue(ws, remote)
    queue.hub.refresh()
    jobs = queue.jobs()
    if as_json:
        print_json_rows(state_dict(j) for j in jobs)
        return 0
    if not jobs:
        make_console().print("the queue is empty: add a job with `rgr queue add \"<feature>\"`")
        return 0
    # Plain aligned columns, not a rich Table: rich takes seconds for 10,000 rows.
    header = ("id", "kind", "feature", "state", "worker", "phase/cycle", "cost", "branch")
    rows = [header]
    for job in jobs:
        s = job.state
        rows.append((str(job.id), job.spec.kind, _one_line(job.spec.feature, 50),
                     describe_state(job), describe_claim(job.claim),
                     f"{s.phase or '-'}/{s.cycle if s.cycle is not None else '-'}",
                     f"${s.cost_usd:.4f}", job.spec.branch))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    sys.stdout.write("\n".join(lines) + "\n")
    for job in jobs:
        if job.state.state in ("failed", "needs-attention") and job.state.message:
            sys.stdout.write(f"job {job.id}: {_one_line(job.state.message, 300)}\n")
    return 0


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def cancel(ws: Workspace, ident: int, remote: str | None,
           out: Console | None = None) -> int:
    state = open_queue(ws, remote).cancel(ident)
    (out or make_console()).print(f"job {ident} {esc(state.message)}")
    return 0


def retry(ws: Workspace, ident: int, remote: str | None,
          max_budget_usd: float | None = None) -> int:
    open_queue(ws, remote).retry(ident, max_budget_usd)
    make_console().print(f"job {ident} queued again: a daemon continues it from its last "
                         "handoff (or starts it over if it has none); `rgr daemon` runs it")
    return 0
