"""A run's page, as data: its phases (PLAN, RED, GREEN, REFACTOR per cycle) from the
handoff notes, each with its commit's diff, its tests and what they said, its agent
session's figures; the rejected attempts beside them with their rule, reason and diff;
and, when the run's folder is on this machine (``.git/rgr/runs/<runId>/``), the test
output and the refused tool calls of each attempt.

Everything comes from rgr's own readers: rgr.observe.report (the run's notes and its report,
the figures `rgr report` prints), rgr.store.notes, rgr.store.git and rgr.observe.artifacts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rgr.check.testlist import FILENAME as TEST_LIST
from rgr.daemon.queue import Job
from rgr.daemon.workcopy import JOB_NOTES, jobs_root
from rgr.observe.artifacts import attempt_result, decode_events, read_text_in, runs_dir
from rgr.observe.events import AgentCalled, AttemptStarted, GuardVerdict, TestRun, ViolationJson
from rgr.observe.report import RunReport, collect_at, run_notes
from rgr.store import acceptance_text, git
from rgr.store.handoff import FakeItDebt, HandoffState, Phase
from rgr.store.notes import NotesStore
from rgr.store.workspace import Workspace, open_workspace

if TYPE_CHECKING:
    from rgr.store.note_json import AcceptanceJson

#: A diff longer than this is cut on the page (the raw commit is a `git show` away).
MAX_DIFF_BYTES = 200_000


@dataclass(frozen=True)
class Source:
    """Where a run is read from: a repository (this one, or a daemon job's clone on
    this machine, which alone holds its rejected attempts and its run folder) and the
    commit its latest note is reachable from."""

    ws: Workspace
    head: str
    branch: str | None
    where: str


@dataclass
class Diff:
    text: str
    cut: bool

    @property
    def lines(self) -> list[tuple[str, str]]:
        """(kind, line): kind is add, del, hunk, file or ctx, for the page's colours."""
        out = []
        for line in self.text.splitlines():
            if line.startswith(("+++", "---", "diff --git", "index ", "new file",
                                "deleted file", "similarity", "rename ")):
                kind = "file"
            elif line.startswith("@@"):
                kind = "hunk"
            elif line.startswith("+"):
                kind = "add"
            elif line.startswith("-"):
                kind = "del"
            else:
                kind = "ctx"
            out.append((kind, line))
        return out


@dataclass
class AttemptFiles:
    """What the run folder holds about one agent session."""

    dir: str
    phase: str
    cycle: int | None
    attempt: int | None
    test_output: str | None = None
    test_exit: int | None = None
    denials: list[str] = field(default_factory=list)
    violations: list[ViolationJson] = field(default_factory=list)


@dataclass
class PhaseView:
    commit: str
    state: HandoffState
    duration_s: float | None
    diff: Diff
    test_list: str | None
    files: AttemptFiles | None
    #: The attempts at this phase and cycle that were rejected before it was accepted.
    rejected: list[RejectedView] = field(default_factory=list)


@dataclass
class RejectedView:
    ref: str
    commit: str
    phase: str | None
    cycle: int | None
    rule: str | None
    reason: str | None
    cost_usd: float | None
    diff: Diff
    files: AttemptFiles | None


@dataclass
class RunPage:
    source: Source
    report: RunReport
    marker: tuple[str, HandoffState] | None
    phases: list[PhaseView]
    rejected: list[RejectedView]
    folder: Path | None
    #: Fake-it debt at the run's last note, open and paid (rgr.check.fakeit).
    debt: list[FakeItDebt] = field(default_factory=list)
    #: The examiner's verdict at the run's last note (rgr.tdd.examine), or None.
    acceptance: AcceptanceView | None = None


@dataclass(frozen=True)
class AcceptanceView:
    """What the examiner's acceptance tests decided, as ``rgr show`` words it: the
    verdict with the number of tests and the examiner's cost, and the behaviours not
    shown to work (the examiner's words; never the tests' code)."""

    verdict: str
    summary: str
    missing: list[str]


def acceptance_view(note: AcceptanceJson | None) -> AcceptanceView | None:
    if note is None:
        return None
    missing = [f"{t.get('behaviour')} ({t.get('outcome')})"
               for t in note.get("tests") or [] if t.get("outcome") != "passed"]
    return AcceptanceView(str(note.get("verdict")), acceptance_text.summary(note), missing)


def _seconds(state: HandoffState) -> float | None:
    start, end = state.started_at, state.finished_at
    return max(0.0, (end - start).total_seconds()) if start and end else None


def job_source(ws: Workspace, job: Job) -> Source | None:
    """Where job ``job``'s run is: its clone when it is on this machine (a daemon here
    ran it), else this repository's copy of the job's branch, with the handoffs the
    daemon shared (or, while it runs, the job's own notes ref). None: nothing yet."""
    clone = jobs_root(ws.git_dir, ws.env) / str(job.id)
    if (clone / ".git").is_dir():
        theirs = open_workspace(clone, env=ws.env)
        tip = git.branch_tip(theirs.repo, job.spec.branch)
        if tip is not None and theirs.notes.latest_reachable_text(tip) is not None:
            return Source(theirs, tip, job.spec.branch, f"job {job.id}'s clone, {clone}")
    tip = git.branch_tip(ws.repo, job.spec.branch) or job.state.tip
    if tip is None or ws.repo.get(tip) is None:
        return None
    if ws.notes.latest_reachable_text(tip) is None:
        own = NotesStore(ws.repo, f"{JOB_NOTES}{job.id}")
        if own.tip_id() is None or own.latest_reachable_text(tip) is None:
            return None
        ws = Workspace(ws.root, ws.repo, None, own, ws.env)
    return Source(ws, tip, job.spec.branch, "this repository")


def _attempt_files(folder: Path | None) -> dict[str, AttemptFiles]:
    """Each judged attempt's files, by the commit the judgement was about: the test run
    and the verdict that followed its session, the denials in its result.json."""
    if folder is None:
        return {}
    by_commit: dict[str, AttemptFiles] = {}
    current: AttemptFiles | None = None
    for event in decode_events(folder / "events.jsonl"):
        match event:
            case AttemptStarted(where=where):
                current = AttemptFiles(event.dir or "", where.phase, where.cycle, where.attempt)
            case _ if current is None:
                continue
            case AgentCalled():
                result = attempt_result(folder, current.dir) if current.dir else None
                denials = result.get("permission_denials") if result else None
                current.denials = [_denial(d) for d in denials or [] if isinstance(d, dict)]
            case TestRun(output_file=output):
                current.test_output = read_text_in(folder, output) if output else None
                current.test_exit = event.exit_code
            case GuardVerdict(commit=commit) if commit:
                current.violations = list(event.violations)
                by_commit[commit] = current
    return by_commit


def _denial(raw: dict[str, Any]) -> str:
    """``Bash: git push origin main``: the refused tool and what it was asked to do."""
    tool = str(raw.get("tool_name", "?"))
    arguments = raw.get("tool_input")
    detail = ""
    if isinstance(arguments, dict):
        detail = str(arguments.get("command") or arguments.get("file_path")
                     or arguments.get("url") or arguments.get("pattern") or "")
    return f"{tool}: {detail[:300]}" if detail else tool


def build(source: Source) -> RunPage:
    """The run whose latest note is reachable from ``source.head`` (RepositoryError
    when there is none)."""
    ws = source.ws
    notes = run_notes(ws, source.head)
    report = collect_at(ws, source.head, source.branch, notes)
    folder = runs_dir(ws.git_dir) / report.run_id if report.run_id else None
    if folder is not None and not folder.is_dir():
        folder = None
    files = _attempt_files(folder)
    marker = notes[0] if report.marker and notes[0][0] == report.marker else None
    previous = marker[0] if marker else report.base_commit
    if previous is not None and ws.repo.get(previous) is None:
        previous = None
    phases = []
    for commit, state in notes:
        if marker is not None and commit == marker[0]:
            continue
        test_list = None
        if state.phase == Phase.PLAN:
            test_list = git.file_text(ws.repo, git.resolve_commit(ws.repo, commit).id,
                                      TEST_LIST)
        text, cut = git.patch_text(ws.repo, previous, commit, MAX_DIFF_BYTES)
        seen = files.get(commit)
        phases.append(PhaseView(commit, state, _seconds(state), Diff(text, cut), test_list,
                                seen))
        previous = commit
    rejected = []
    for rejection in report.rejections:
        record = ws.notes.read(rejection.commit)
        base = record.state.base_commit if record and record.state else None
        if base is None or ws.repo.get(base) is None:
            base = git.merge_base(ws.repo, rejection.commit, source.head)
        text, cut = git.patch_text(ws.repo, base, rejection.commit, MAX_DIFF_BYTES)
        details = record.state.error_details if record and record.state else None
        rejected.append(RejectedView(
            rejection.ref, rejection.commit, rejection.phase, rejection.cycle, rejection.rule,
            details.message if details else rejection.error, rejection.cost_usd,
            Diff(text, cut), files.get(rejection.commit)))
    # Each rejected attempt beside the phase it was an attempt at; the rest (a phase
    # that ran out of attempts) stay on their own.
    by_phase: dict[tuple[str, int | None], PhaseView] = {
        (str(p.state.phase), p.state.cycle_number): p for p in phases}
    unplaced = []
    for attempt in rejected:
        accepted = by_phase.get((str(attempt.phase), attempt.cycle))
        if accepted is not None:
            accepted.rejected.append(attempt)
        else:
            unplaced.append(attempt)
    debt = [FakeItDebt.model_validate(d) for d in report.fake_it_debt]
    return RunPage(source, report, marker, phases, unplaced, folder, debt,
                   acceptance_view(report.acceptance))


def when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S") if moment else "-"
