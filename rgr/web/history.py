"""A repository's history, as the figures its plots draw: each run (feature) over time
with its cost and status, the tests done after each cycle, and the rejections by rule.

Read from every handoff note (``NotesStore.all_texts``, as `rgr history --all` does),
each read by rgr.store.handoff_read.read_state, the reader of `rgr show`: rejected attempts'
notes sit off every branch, and they are the ones that say why.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from rgr.observe.limits import LIMIT_ERROR_PREFIX
from rgr.observe.report import SET_ASIDE_NAME
from rgr.store import git
from rgr.store.handoff_state import read_state
from rgr.store.workspace import Workspace


@dataclass
class RunFigures:
    run_id: str
    feature: str
    started: datetime | None = None
    finished: datetime | None = None
    cost_usd: float = 0.0
    complete: bool = False
    #: cycle -> tests done by the end of it (the most any of its notes lists)
    tests_by_cycle: dict[int, int] = field(default_factory=dict)
    notes: int = 0
    #: The examiner's cost as the run's latest note with an acceptance record has it
    #: (the record carries the whole run's examiner cost, so it is taken once, not
    #: summed over the notes that repeat it), and that note's time.
    acceptance_cost_usd: float = 0.0
    acceptance_at: datetime | None = None


@dataclass
class History:
    runs: list[RunFigures]
    rejections: Counter[str]
    notes: int
    invalid: int


def note_time(value: object) -> datetime | None:
    """A note's ISO 8601 time (``Z`` for UTC included), or None when it holds none."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def read(ws: Workspace) -> History:
    runs: dict[str, RunFigures] = {}
    rejections: Counter[str] = Counter()
    invalid = 0
    texts = ws.notes.all_texts()
    for text in texts.values():
        state, _ = read_state(text)
        if state is None:
            invalid += 1
            continue
        details = state.get("errorDetails")
        run_id = state.get("runId")
        if not run_id:
            continue
        figures = runs.setdefault(run_id, RunFigures(run_id, state.get("feature") or "-"))
        figures.notes += 1
        if feature := state.get("feature"):
            figures.feature = feature
        started, finished = note_time(state.get("startedAt")), note_time(state.get("finishedAt"))
        if started and (figures.started is None or started < figures.started):
            figures.started = started
        end = finished or started
        if end and (figures.finished is None or end > figures.finished):
            figures.finished = end
        agent = state.get("agent")
        if agent is not None and (cost := agent.get("costUsd")) is not None:
            figures.cost_usd += cost
        acceptance = state.get("acceptance")
        if acceptance and (figures.acceptance_at is None
                           or (end is not None and end >= figures.acceptance_at)):
            figures.acceptance_cost_usd = acceptance.get("costUsd") or 0.0
            figures.acceptance_at = end
        if state.get("phase") == "COMPLETE" or state.get("nextPhase") == "COMPLETE":
            figures.complete = True
        cycle = state.get("cycleNumber") or 0
        done = len(state.get("completedTests") or [])
        if not details and cycle:
            figures.tests_by_cycle[cycle] = max(done, figures.tests_by_cycle.get(cycle, 0))
    # The rejections are the kept attempts, as `rgr report` counts them: a ref under
    # refs/rgr/attempts/ each, its note naming the rule (the note a phase that ran out
    # of attempts leaves on the last verified commit repeats the last of them).
    for name, commit in git.commits_under(ws.repo, git.ATTEMPTS_PREFIX).items():
        if f"/{SET_ASIDE_NAME}" in name:
            continue
        state, _ = read_state(texts[commit]) if commit in texts else (None, None)
        details = state.get("errorDetails") if state else None
        rule = str(details.get("type")) if isinstance(details, dict) else "unverified"
        if not rule.startswith(LIMIT_ERROR_PREFIX):
            rejections[rule] += 1
    for figures in runs.values():  # the run's cost as `rgr report` counts it
        figures.cost_usd += figures.acceptance_cost_usd
    ordered = sorted(runs.values(), key=lambda r: (r.started is None, r.started or 0))
    return History(ordered, rejections, len(texts), invalid)
