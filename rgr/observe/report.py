"""The final account of a run, computed from the repository and its notes alone.

Which run: the one whose note is the latest reachable from HEAD. Its notes are found by
``runId`` walking back from HEAD to the start marker (cycle 0); its rejected attempts
are the refs under ``refs/rgr/attempts/<runId>/``, each with a note saying why.

What notes cannot tell: an attempt that made no commit (no-commit, a backend error)
leaves no ref and no note, so it is counted in ``retries`` (from ``retryCount``) but its
cost is not in ``costUsd``. When a phase exhausted its retries, rgr writes the error
onto the last verified commit's note and overwrites that note's ``retryCount`` with the
failed phase's: such a note counts as ``retryCount + 1`` rejected attempts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal, TypedDict, cast

from rgr.observe.limits import LIMIT_ERROR_PREFIX
from rgr.store import git
from rgr.store.handoff import (
    ACCEPTANCE_STOP,
    DEBT_OPEN,
    NEEDS_ATTENTION,
    HandoffState,
    InvalidNote,
    Phase,
    parse_note,
)
from rgr.store.objects import Commit, Oid
from rgr.store.workspace import Workspace

if TYPE_CHECKING:
    from rgr.store.note_json import AcceptanceJson, AdequacyJson, FakeItDebtJson, MutantJson


class NeedsAttentionJson(TypedDict):
    """Why the run stopped for a person (the report's ``needsAttention``)."""

    phase: str
    cycle: int
    reason: str
    kept: str | None
    by: Literal["agent", "fake-it debt", "acceptance tests"]


if TYPE_CHECKING:
    class GateJson(AdequacyJson, total=False):
        """A verified phase's mutation gate: its note's ``adequacy`` but the mutants,
        with the commit and cycle, and the equivalence claims among the mutants."""

        commit: str
        cycle: int
        claims: list[MutantJson]


@dataclass
class Rejection:
    ref: str
    commit: str
    phase: str | None
    cycle: int | None
    rule: str | None
    error: str | None
    cost_usd: float | None


@dataclass
class RunReport:
    run_id: str | None
    feature: str | None
    branch: str | None  # the run's branch (checked out now)
    start_branch: str | None  # where it started: the target of --integrate
    base_commit: str | None  # the commit the run started from
    marker: str | None  # the start marker commit (cycle 0)
    head: str
    status: str  # complete | paused | failed | needs-attention
    next_phase: str | None
    cycles: int
    tests_done: list[str]
    tests_pending: list[str]
    commits: int  # base..HEAD, the start marker included
    phases: int  # verified phases noted on the branch (the marker excluded)
    started_at: str | None
    finished_at: str | None
    elapsed_s: float | None  # first to last handoff
    phase_time_s: float  # sum of the noted phases' startedAt..finishedAt
    cost_usd: float  # verified phases and kept rejected attempts
    rejected_cost_usd: float  # of which kept rejected attempts
    input_tokens: int
    output_tokens: int
    agent_sessions: int
    permission_denials: int
    retries: int  # rejected attempts, from the notes' retryCount
    rejections: list[Rejection] = field(default_factory=list)  # those kept with a note
    error: str | None = None
    #: Commits ``rgr resume --unnoted set-aside`` kept: the user's, not an agent's attempt.
    set_aside: list[str] = field(default_factory=list)
    #: Sessions whose backend reports no cost: not in cost_usd.
    sessions_without_cost: int = 0
    #: Those sessions' backends, by the name each note records (the registry's).
    backends_without_cost: list[str] = field(default_factory=list)
    #: The run's wall time as summary.json splits it (model, agent other, tests, rgr),
    #: when its artifacts are on this machine (.git/rgr/runs/<runId>/).
    time_split: dict[str, float] | None = None
    #: The backends whose sessions report no model time (their time is not split).
    model_time_unreported: list[str] = field(default_factory=list)
    #: The agent's reason when it stopped the run saying its task cannot be done
    #: honestly: phase, cycle, reason, kept (its commits' ref, if any). Not a rejection.
    needs_attention: NeedsAttentionJson | None = None
    #: Fake-it debt at HEAD (rgr.check.fakeit), open and paid: each entry's JSON.
    fake_it_debt: list[FakeItDebtJson] = field(default_factory=list)
    #: The examiner's acceptance tests at HEAD (rgr.tdd.examine): the note's JSON.
    acceptance: AcceptanceJson | None = None
    #: The mutation gate of each verified phase that ran it (rgr.check.mutation): the
    #: phase, its commit and the note's ``adequacy`` counts and decision.
    mutation: list[GateJson] = field(default_factory=list)

    @property
    def rejections_by_rule(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for rejection in self.rejections:
            key = rejection.rule or "unknown"
            counts[key] = counts.get(key, 0) + 1
        return counts

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["rejectionsByRule"] = self.rejections_by_rule
        return {_camel(k): v for k, v in data.items()} | {
            "rejections": [{_camel(k): v for k, v in asdict(r).items()}
                           for r in self.rejections]}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _seconds(start: datetime | None, end: datetime | None) -> float | None:
    if start is None or end is None:
        return None
    return max(0.0, (end - start).total_seconds())


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def run_notes(ws: Workspace, head: str) -> list[tuple[str, HandoffState]]:
    """The notes of the run at ``head``, oldest first (the start marker first when found)."""
    _, latest, _ = ws.notes.latest_handoff(head, "report", "run `rgr repair-notes`")
    run_id = latest.run_id
    notes: list[tuple[str, HandoffState]] = []
    for commit, _, text in ws.notes.reachable_texts(head):
        try:
            state = parse_note(text)
        except InvalidNote:
            continue
        if state.run_id != run_id:
            if notes:
                break  # an older run's notes: this run's start lies behind us
            continue
        notes.append((commit, state))
        if state.cycle_number == 0 and state.phase != Phase.COMPLETE:
            break  # the start marker
    notes.reverse()
    return notes


#: The name `rgr resume` gives commits made outside rgr that it set aside (run.py).
SET_ASIDE_NAME = "unnoted-"


def _set_aside(ws: Workspace, run_id: str | None) -> list[str]:
    if run_id is None:
        return []
    prefix = f"{git.ATTEMPTS_PREFIX}{run_id}/{SET_ASIDE_NAME}"
    return [name for name in sorted(ws.repo.references) if name.startswith(prefix)]


def _limit_stop(state: HandoffState) -> bool:
    """A note whose error says a limit stopped the run before the next attempt: no
    attempt was made, so none was rejected."""
    details = state.error_details
    return details is not None and details.type.startswith(LIMIT_ERROR_PREFIX)


def _needs_attention(ws: Workspace, run_id: str | None, last: HandoffState
                     ) -> NeedsAttentionJson | None:
    """Why the run stopped for a person, when an agent took the honest way out."""
    if not last.needs_attention or last.error_details is None:
        return None
    phase = str(last.resume_phase)
    kept = [r for r in _kept(ws, run_id) if r.rule == NEEDS_ATTENTION
            and r.phase == phase and r.cycle == _next_cycle(last)]
    reason = last.error_details.message
    return {"phase": phase, "cycle": _next_cycle(last), "reason": reason,
            "kept": kept[-1].ref if kept else None,
            "by": "fake-it debt" if reason.startswith(DEBT_OPEN)
            else "acceptance tests" if reason.startswith(ACCEPTANCE_STOP) else "agent"}


def _next_cycle(state: HandoffState) -> int:
    """The cycle of the work a note's nextPhase names (a PLAN starts the next one)."""
    return state.cycle_number + (1 if state.resume_phase == Phase.PLAN else 0)


def _rejections(ws: Workspace, run_id: str | None) -> list[Rejection]:
    """The run's kept rejected attempts (an attempt that took the honest way out is
    not one: it was never judged)."""
    return [r for r in _kept(ws, run_id)
            if r.rule != NEEDS_ATTENTION]


def _kept(ws: Workspace, run_id: str | None) -> list[Rejection]:
    if run_id is None:
        return []
    prefix = f"{git.ATTEMPTS_PREFIX}{run_id}/"
    found = []
    for name in sorted(ws.repo.references):
        if not name.startswith(prefix) or name.startswith(prefix + SET_ASIDE_NAME):
            continue
        target = ws.repo.references[name].peel(Commit)
        record = ws.notes.read(str(target.id))
        state = record.state if record is not None else None
        found.append(Rejection(
            ref=name, commit=str(target.id),
            phase=str(state.phase) if state else None,
            cycle=state.cycle_number if state else None,
            rule=(state.error_details.type if state and state.error_details else
                  "unverified" if state is None else None),
            error=state.error if state else "commits set aside by `rgr resume` (no note)",
            cost_usd=state.agent.cost_usd if state and state.agent else None,
        ))
    return found


def _start_branch(ws: Workspace, marker: HandoffState | None, branch: str | None) -> str | None:
    if marker is None:
        return None
    if marker.start_branch:
        return marker.start_branch
    # Notes written before startBranch existed: the one other branch at the start commit.
    candidates = [
        name for name in ws.repo.branches.local
        if name != branch and marker.base_commit
        and str(ws.repo.branches.local[name].target) == marker.base_commit
    ]
    return candidates[0] if len(candidates) == 1 else None


def collect(ws: Workspace) -> RunReport:
    """The run at HEAD (what `rgr report` prints)."""
    head = str(git.head_commit(ws.repo).id)
    return collect_at(ws, head, git.current_branch(ws.repo))


def collect_at(ws: Workspace, head: str, branch: str | None = None,
               notes: list[tuple[str, HandoffState]] | None = None) -> RunReport:
    """The run whose latest note is reachable from ``head`` (a full commit id), which
    need not be checked out (`rgr serve` shows any run). ``branch``: the branch it is
    on (default: the branch its notes name); ``notes``: :func:`run_notes` of ``head``,
    when the caller has read them already."""
    notes = notes if notes is not None else run_notes(ws, head)
    last = notes[-1][1]
    marker_commit, marker = notes[0] if notes[0][1].cycle_number == 0 else (None, None)
    branch = branch or last.branch
    verified = [(c, s) for c, s in notes if c != marker_commit]
    rejections = _rejections(ws, last.run_id)
    declined = [r for r in _kept(ws, last.run_id) if r not in rejections]
    cost = sum(s.agent.cost_usd or 0.0 for _, s in verified if s.agent)
    rejected_cost = sum(r.cost_usd or 0.0 for r in rejections)
    declined_cost = sum(r.cost_usd or 0.0 for r in declined)
    examiner_cost = (last.acceptance.cost_usd or 0.0) if last.acceptance else 0.0
    # A note whose error ended the phase counts its last attempt as rejected too, unless
    # a limit stopped it before an attempt or its agent took the honest way out.
    retries = sum(s.retry_count + 1 if s.error and not _limit_stop(s)
                  and not s.needs_attention else s.retry_count for _, s in notes)
    base = marker.base_commit if marker else None
    commits = 0
    if base is not None and ws.repo.get(base) is not None:
        commits = len(git.commits_between(ws.repo, Oid(hex=base), Oid(hex=head)))
    first_start = (marker or notes[0][1]).started_at
    last_end = last.finished_at or last.started_at
    if last.resume_phase == Phase.COMPLETE:
        status = "complete"
    elif last.needs_attention:
        status = "needs-attention"
    elif last.error:
        status = "failed"
    else:
        status = "paused"
    agents = [s.agent for _, s in verified if s.agent]
    split, unsplit = _time_split(ws, last.run_id)
    attempt_states = [ws.notes.read(r.commit) for r in [*rejections, *declined]]
    attempt_agents = [a.state.agent for a in attempt_states
                      if a is not None and a.state is not None and a.state.agent]
    return RunReport(
        run_id=last.run_id, feature=last.feature, branch=branch,
        start_branch=_start_branch(ws, marker, branch), base_commit=base,
        marker=marker_commit, head=head, status=status,
        next_phase=None if status == "complete" else str(last.resume_phase),
        cycles=last.cycle_number, tests_done=list(last.completed_tests),
        tests_pending=list(last.pending_tests), commits=commits, phases=len(verified),
        started_at=_iso(first_start), finished_at=_iso(last_end),
        elapsed_s=_seconds(first_start, last_end),
        phase_time_s=sum(_seconds(s.started_at, s.finished_at) or 0.0 for _, s in verified),
        # The examiner's sessions have no phase note of their own: their cost is the
        # acceptance note's (rgr.tdd.examine).
        cost_usd=round(cost + rejected_cost + declined_cost + examiner_cost, 6),
        rejected_cost_usd=round(rejected_cost, 6),
        input_tokens=sum(a.input_tokens or 0 for a in [*agents, *attempt_agents]),
        output_tokens=sum(a.output_tokens or 0 for a in [*agents, *attempt_agents]),
        agent_sessions=len(agents) + len(attempt_agents)
        + (last.acceptance.sessions if last.acceptance else 0),
        permission_denials=sum(a.permission_denials for a in [*agents, *attempt_agents]),
        retries=retries, rejections=rejections, error=last.error,
        set_aside=_set_aside(ws, last.run_id),
        sessions_without_cost=sum(1 for a in [*agents, *attempt_agents] if a.cost_usd is None),
        backends_without_cost=list(dict.fromkeys(
            a.backend for a in [*agents, *attempt_agents] if a.cost_usd is None)),
        time_split=split,
        model_time_unreported=unsplit,
        needs_attention=_needs_attention(ws, last.run_id, last),
        # The models' JSON is the note's JSON (tests/store/test_note_json.py).
        fake_it_debt=[cast("FakeItDebtJson", d.model_dump(mode="json", by_alias=True))
                      for d in last.fake_it_debt],
        acceptance=(cast("AcceptanceJson", last.acceptance.model_dump(mode="json", by_alias=True))
                    if last.acceptance is not None else None),
        mutation=[cast("GateJson", {
            "commit": c, "phase": str(s.phase), "cycle": s.cycle_number,
            **s.adequacy.model_dump(mode="json", by_alias=True, exclude={"mutants"}),
            "claims": [m.model_dump(mode="json", by_alias=True)
                       for m in s.adequacy.mutants if m.status == "equivalent"]})
                  for c, s in verified if s.adequacy is not None],
    )


def _time_split(ws: Workspace, run_id: str | None
                ) -> tuple[dict[str, float] | None, list[str]]:
    """summary.json's timeSplit, rebuilt from the run's events.jsonl (the summary file
    may be stale after a kill), and the backends whose sessions report no model time;
    (None, []) when the artifacts are not here."""
    from rgr.observe.artifacts import decode_events, runs_dir
    from rgr.observe.summary import summarize

    if run_id is None:
        return None, []
    events = decode_events(runs_dir(ws.git_dir) / run_id / "events.jsonl")
    if not events:
        return None, []
    summary = summarize(events)
    split: dict[str, float] = summary["timeSplit"]
    return split, [name for name, figures in summary["backends"].items()
                   if not figures.get("modelTimeReported", True)]
