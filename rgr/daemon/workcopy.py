"""A job's own working copy: a clone whose ``origin`` is the hub (this repository, or
the shared remote), under ``$XDG_CACHE_HOME/rgr/jobs/<repo>-<hash>/<id>/`` (or
``$RGR_JOBS_DIR``). Not inside ``.git``: Claude Code refuses to edit any file whose path
goes through a ``.git`` directory. Nothing in it matters once pushed: after every phase
the job branch and its notes are on the hub, and a lost clone is re-made from there.

A clone, not a worktree: it has its own ``.git``, so its run lock, in-flight record,
run folder and handoff notes are the job's alone, and parallel jobs never write one
notes ref at once. What the hub must see (the job branch, the notes) is pushed after
every phase; a worker that takes the job over, here or on another machine, fetches it.
A local clone hard-links the objects of this repository, so it costs milliseconds; not
``--shared``: the sealed attempts copy the clone into a sandbox that cannot see this
repository, and objects borrowed through ``alternates`` would be missing there.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rgr.base import failpoints
from rgr.base.errors import CommandError, RgrError
from rgr.check.testlist import FILENAME as TEST_LIST
from rgr.daemon import remote
from rgr.daemon.queue import JobSpec
from rgr.observe.artifacts import sessions_spent
from rgr.store.gitcli import Git
from rgr.store.handoff_state import read_state
from rgr.store.notes_log import DEFAULT_REF

if TYPE_CHECKING:
    from rgr.store.note_json import NoteJson

JOBS_DIR = Path("rgr") / "jobs"  # in the git dir: the per-job child logs
#: In a job clone's git dir: how much of its sessions' cost the job's state counts.
SPEND_COUNTED = Path("rgr") / "daemon-spend-counted"


def jobs_root(git_dir: Path, env: Mapping[str, str]) -> Path:
    """Where this repository's job clones live (one folder per repository)."""
    explicit = env.get("RGR_JOBS_DIR")
    if explicit:
        base = Path(explicit)
    else:
        cache = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME", "/tmp"), ".cache")
        base = Path(cache) / "rgr" / "jobs"
    repo = git_dir.resolve()
    name = repo.parent.name if repo.name == ".git" else repo.name
    return base / f"{name}-{hashlib.sha256(str(repo).encode()).hexdigest()[:10]}"

ORIGIN = "origin"


def notes_rewrite(ref: str) -> tuple[tuple[str, str], ...]:
    """Rebases (integration) carry the handoff notes ``ref`` to the rewritten commits;
    a note already on the commit a note is carried to stays as it is. git's default
    (``concatenate``) joins the two into a note of two records: a commit the rebase
    drops (its change already on the base) hands its note to the commit before it,
    which has its own. A note is one JSON record, always."""
    return (("notes.rewriteRef", ref), ("notes.rewrite.rebase", "true"),
            ("notes.rewriteMode", "ignore"))


#: A job's own notes ref on the hub: ``refs/notes/rgr-jobs/<id>``.
JOB_NOTES = "refs/notes/rgr-jobs/"
#: Copied from the hub repository's view of the config: the agents' commits need an
#: identity, and a signing setup the clone cannot use would fail every commit.
COPIED_CONFIG = ("user.name", "user.email", "commit.gpgsign")


@dataclass(frozen=True)
class Progress:
    """What the job's notes say: started (a handoff of this job exists), where it is."""

    started: bool
    complete: bool
    phase: str | None
    cycle: int | None
    cost_usd: float
    tip: str | None


class WorkCopy:
    def __init__(self, main: Git, git_dir: Path, spec: JobSpec, hub_url: str,
                 notes_ref: str = DEFAULT_REF) -> None:
        self.main = main
        self.spec = spec
        self.root = jobs_root(git_dir, main.env) / str(spec.id)
        self.hub_url = hub_url
        self.notes_ref = notes_ref
        self.git = Git(self.root, main.env)
        self.published: str | None = None
        self.notes_published: str | None = None

    @property
    def branch_ref(self) -> str:
        return f"refs/heads/{self.spec.branch}"

    @property
    def job_notes_ref(self) -> str:
        """The job's own notes ref on the hub (see rgr.daemon.remote)."""
        return f"{JOB_NOTES}{self.spec.id}"

    def prepare(self) -> None:
        """Create the clone (or reuse the one a dead worker left) and put the job's
        branch at the furthest point the hub or this clone knows."""
        if not (self.root / ".git").is_dir():
            self.root.parent.mkdir(parents=True, exist_ok=True)
            Git(self.root.parent, self.main.env).out(
                "clone", "--quiet", "--no-checkout", "--origin", ORIGIN,
                str(self.main.cwd), str(self.root))
            self.git.out("remote", "set-url", ORIGIN, self.hub_url)
            for key in COPIED_CONFIG:
                value = self.main.run("config", "--get", key).stdout.strip()
                if value:
                    self.git.out("config", key, value)
            # Every run writes its own test-list.md: parallel jobs would always conflict
            # on it when they land. git's union driver keeps both lists' lines (rgr's
            # bookkeeping, not code: the full suite still judges the result).
            info = self.root / ".git" / "info"
            info.mkdir(parents=True, exist_ok=True)
            (info / "attributes").write_text(f"/{TEST_LIST} merge=union\n")
        # (Every time: a clone a worker of an older rgr left has the first two only.)
        for key, value in notes_rewrite(self.notes_ref):
            self.git.out("config", key, value)
        base_ref = f"refs/remotes/{ORIGIN}/{self.spec.base}"
        self._fetch_base(base_ref)
        hub_tip = remote.remote_tip(self.git, ORIGIN, self.branch_ref)
        if hub_tip is not None:
            self.git.out("fetch", "--quiet", "--no-tags", ORIGIN,
                         f"+{self.branch_ref}:refs/remotes/{ORIGIN}/{self.spec.branch}")
        remote.fetch_notes(self.git, ORIGIN, self.notes_ref)
        remote.merge_notes(self.git, ORIGIN, self.notes_ref)
        # What a previous worker of this job published and did not share yet.
        self.notes_published = remote.fetch_notes(self.git, ORIGIN, self.notes_ref,
                                                  self.job_notes_ref)
        remote.merge_notes(self.git, ORIGIN, self.notes_ref, self.job_notes_ref)
        self.published = hub_tip
        local = self.git.rev(self.branch_ref)
        if local is None:
            self.git.out("checkout", "--quiet", "-B", self.spec.branch, hub_tip or base_ref)
        elif hub_tip is not None and hub_tip != local and \
                not self.git.ok("merge-base", "--is-ancestor", hub_tip, local):
            # Another worker carried the job further than this clone: continue from there.
            self.git.out("checkout", "--quiet", "-f", "-B", self.spec.branch, hub_tip)
            self.git.out("clean", "-q", "-fd")
        elif self.git.run("symbolic-ref", "-q", "HEAD").stdout.strip() != self.branch_ref:
            self.git.out("checkout", "--quiet", self.spec.branch)

    def _fetch_base(self, base_ref: str) -> None:
        """The job's base branch from the hub; JobCannotStart when the hub has none (it
        was deleted after `rgr queue add` checked it), never git's raw output."""
        done = self.git.run("fetch", "--quiet", "--no-tags", ORIGIN,
                            f"+refs/heads/{self.spec.base}:{base_ref}")
        if done.returncode == 0 and not done.timed_out:
            return
        # ls-remote raises RemoteUnreachable for a hub that does not answer.
        if remote.remote_tip(self.git, ORIGIN, f"refs/heads/{self.spec.base}") is None:
            ident, base = self.spec.id, self.spec.base
            raise JobCannotStart(
                f"its base branch {base} no longer exists in {self.hub_url}",
                f"recreate it (`git branch {base} <commit>`, pushed to where the queue "
                f"lives), then `rgr queue retry {ident}`; or `rgr queue cancel {ident}`")
        raise CommandError(f"git fetch of the base branch failed:\n{done.describe(1500)}")

    def progress(self) -> Progress:
        """The job's latest handoff on its branch, and what its sessions cost."""
        tip = self.git.rev("HEAD")
        out = self.git.run("log", "-n", "400", f"--notes={self.notes_ref}",
                           "--format=%x1e%H%n%N", "HEAD").stdout
        latest: NoteJson | None = None
        cost = 0.0
        run_id: str | None = None
        for record in out.split("\x1e")[1:]:
            _, _, text = record.partition("\n")
            if not text.strip():
                continue
            note, _ = read_state(text)
            if note is None or note.get("branch") != self.spec.branch:
                continue
            if latest is None:
                latest, run_id = note, note.get("runId")
            if note.get("runId") != run_id:
                break
            agent = note.get("agent")
            if agent is not None and (spent := agent.get("costUsd")) is not None:
                cost += spent
        if latest is None:
            return Progress(False, False, None, None, 0.0, tip)
        nxt = latest.get("nextPhase")
        return Progress(True, latest["phase"] == "COMPLETE" or nxt == "COMPLETE",
                        str(nxt or latest["phase"]), latest.get("cycleNumber"), cost, tip)

    def publish(self) -> None:
        """Push the job branch (with a lease on what this worker last saw there, so a
        rebased branch goes too, but only over this worker's own last push) and the
        job's notes to its own notes ref. A lost lease means another worker owns it."""
        tip = self.git.rev(self.branch_ref)
        if tip is not None and tip != self.published:
            if not remote.push_branch(self.git, ORIGIN, self.spec.branch, self.published):
                raise LostJob(f"{self.spec.branch} on the hub moved under this worker")
            self.published = tip
        failpoints.hit("daemon:branch-pushed")
        notes = self.git.rev(self.notes_ref)
        if notes is not None and notes != self.notes_published:
            if not remote.push_ref(self.git, ORIGIN, self.notes_ref, self.job_notes_ref,
                                   self.notes_published):
                raise LostJob(f"{self.job_notes_ref} on the hub moved under this worker")
            self.notes_published = notes

    def uncounted_spend(self) -> tuple[float, float]:
        """What this clone's sessions cost since the job's state last counted them, and
        the clone's total so far (for :meth:`counted`). A kill -9 mid-phase loses no
        cost: the killed phase's sessions are in the run folder, uncounted, for the
        next worker on this machine (on another machine that clone is gone with it)."""
        total = sessions_spent(self.root / ".git")
        try:
            done = float((self.root / ".git" / SPEND_COUNTED).read_text())
        except (OSError, ValueError):
            done = 0.0
        return max(total - done, 0.0), total

    def counted(self, total: float) -> None:
        """The job's state now includes ``total``. Written after the state: a kill
        between the two counts a phase twice, never zero times."""
        path = self.root / ".git" / SPEND_COUNTED
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{total:.6f}\n")

    def share_notes(self) -> None:
        """Merge the job's notes into the hub's shared handoff notes (never forced)."""
        remote.sync_notes(self.git, ORIGIN, self.notes_ref)


class JobCannotStart(RgrError):
    """The job's clone cannot be set up for a reason a person must fix (its base branch
    is gone): the job fails, and the queue goes on without it."""

    category = "queue"


class LostJob(RgrError):
    """Another worker owns this job now: stop without touching its state."""

    category = "queue"

