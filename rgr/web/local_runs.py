"""The runs of this repository that no queue job made (`rgr run`, `rgr refactor`), for
the board: one row each, from its handoff notes (read like rgr.web.history reads them,
with rgr.store.handoff_state.read_state, as the note's one description types them:
rgr.store.note_json.NoteJson), linking to the run's page at the commit of its latest
accepted note."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rgr.store import git, inflight
from rgr.store.handoff_read import NEEDS_ATTENTION
from rgr.store.handoff_state import read_state
from rgr.store.locks import RUN_LOCK, read_lock_info, run_lock_is_stale
from rgr.store.workspace import Workspace
from rgr.web.history import note_time

if TYPE_CHECKING:
    from rgr.store.note_json import NoteJson


@dataclass(frozen=True)
class LocalRun:
    run_id: str
    kind: str  # "run" or "refactor"
    feature: str
    state: str  # a board state: running, stopped, complete, failed, needs-attention
    state_text: str
    phase: str
    cycle: str
    cost_usd: float
    started: datetime | None
    finished: datetime | None
    branch: str
    message: str
    #: The commit of its latest accepted note: its page is /runs/<commit>.
    commit: str


def _running_id(ws: Workspace) -> str | None:
    """The run an rgr process is working on here now: an attempt in flight under a run
    lock whose holder is alive."""
    lock = ws.git_dir / RUN_LOCK
    if read_lock_info(lock) is None or run_lock_is_stale(lock):
        return None
    record = inflight.read(ws.git_dir)
    return record.run_id if record is not None else None


def _state(note: NoteJson, running: bool) -> tuple[str, str, str]:
    """(board state, its words, the message) for a run whose latest note is ``note``."""
    phase, following = note["phase"], note.get("nextPhase")
    details = note.get("errorDetails")
    error = note.get("error") or ""
    if phase == "COMPLETE" or following == "COMPLETE":
        return "complete", "complete", ""
    if running:
        return "running", f"running {following or phase}", ""
    if details is not None and details["type"] == NEEDS_ATTENTION:
        return "needs-attention", "needs attention", error
    if error:
        return "failed", f"stopped at {following or phase}", error
    return "stopped", f"paused before {following}; `rgr resume` continues", ""


def read(ws: Workspace, job_branches: Collection[str]) -> list[LocalRun]:
    """Every run with a handoff note here whose branch is no queue job's, newest first."""
    attempts = set(git.commits_under(ws.repo, git.ATTEMPTS_PREFIX).values())
    latest: dict[str, tuple[tuple[str, int, int], str, NoteJson]] = {}
    costs: dict[str, float] = {}
    starts: dict[str, datetime] = {}
    for commit, text in ws.notes.all_texts().items():
        note, _ = read_state(text)
        if note is None:
            continue
        # A valid note, typed; a note by another writer may omit any key but phase.
        run_id = note.get("runId")
        if not run_id:
            continue
        agent = note.get("agent")
        spent = agent.get("costUsd") if agent is not None else None
        if spent is not None:
            costs[run_id] = costs.get(run_id, 0.0) + float(spent)
        started = note_time(note.get("startedAt"))
        if started is not None and (run_id not in starts or started < starts[run_id]):
            starts[run_id] = started
        if commit in attempts:
            continue  # a rejected attempt: its page is the run's, at an accepted commit
        cycle = note.get("cycleNumber", 0)
        order = (note.get("finishedAt") or note.get("startedAt") or "", cycle,
                 0 if note.get("error") else 1)
        if run_id not in latest or order > latest[run_id][0]:
            latest[run_id] = (order, commit, note)
    running = _running_id(ws)
    found = []
    for run_id, (_, commit, note) in latest.items():
        branch = note.get("branch") or ""
        if branch and branch in job_branches:
            continue  # the queue's row is this run's
        state, words, message = _state(note, run_id == running)
        found.append(LocalRun(
            run_id=run_id, kind="refactor" if note.get("mode") == "refactor" else "run",
            feature=note.get("feature") or "-", state=state, state_text=words,
            phase=note.get("nextPhase") or note["phase"],
            cycle=str(note.get("cycleNumber", "-")), cost_usd=costs.get(run_id, 0.0),
            started=starts.get(run_id), finished=note_time(note.get("finishedAt")),
            branch=branch, message=message, commit=commit))
    found.sort(key=lambda r: r.started.timestamp() if r.started else 0.0, reverse=True)
    return found
