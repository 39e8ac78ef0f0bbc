"""The attempt kernel: the one loop every agent attempt of rgr goes through.

A TDD phase (rgr.tdd.engine), a refactor batch (rgr.refactor.engine) and a merge fix
(rgr.mergefix.engine) differ only in what they ask and how they judge; they describe that as a
``Work`` and the kernel does the rest, the same way for each:

    for each try, up to work.tries:
        the limits allow it?            (budget, time, cycles: else a note and a stop)
        seat a sealed scratch copy      (rgr.sandbox.sealer.Sealer)
        work.begin(seat)                (the session to run, after a merge left for the
                                         agent; or none: a rope rename done)
        record the attempt in flight    (so `rgr resume` after kill -9 judges it)
        run the agent session           (events for the live view, the artifacts, limits)
        bring the commits in
        the honest way out taken?       (the task cannot be done honestly: its commits
                                         kept and noted, Declined, no retry)
        judge: the backend's error, the import's refusal, or work.judge(tip)
        accepted: the note first, then the branch, then the record cleared
        rejected: the commits kept under refs/rgr/attempts/ with a note saying why;
                  back off first when the failure was the backend's (rate limit)

Everything a mode guarantees comes from here, so it holds for every mode: the limits,
the events, the back-off, the in-flight record and the crash points
(``failpoints``) the kill sweep drives.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

import pydantic

from rgr import __version__
from rgr.backends.base import AgentRequest, AgentResult, Backend
from rgr.base import failpoints
from rgr.base.errors import BackendError
from rgr.check.verify import TestReport
from rgr.check.violation import Violation, failure_brief
from rgr.loop.outputs import way_out_of
from rgr.loop.retry import AttemptRejected, backoff_seconds, is_fatal, phase_retrying
from rgr.loop.sessions import (
    agent_call_event,
    describe_denials,
    result_from_record,
    result_record,
)
from rgr.loop.summaries import agent_summary, tests_summary
from rgr.observe.events import (
    NULL_OBSERVER,
    AgentStreamed,
    AttemptStarted,
    GuardVerdict,
    LimitStopped,
    NeedsAttention,
    Observer,
    Retry,
    Where,
)
from rgr.observe.limits import LIMIT_ERROR_PREFIX, LimitReached, Limits
from rgr.sandbox.sealer import Sealer, Seat
from rgr.store import git, inflight
from rgr.store.agents import AgentSpec, prompt_version
from rgr.store.handoff import (
    NEEDS_ATTENTION,
    ErrorDetails,
    HandoffState,
    NoteUpdate,
    Phase,
    now_utc,
    validated_update,
)
from rgr.store.inflight import Inflight
from rgr.store.objects import Commit
from rgr.store.scratch import ImportRefused, Scratch
from rgr.store.workspace import Workspace

Report = Callable[[str], None]

#: A mode's own evidence from judging (see ``Verdict``).
Evidence = TypeVar("Evidence")


@dataclass(frozen=True)
class Try:
    """One attempt: its number (1, 2, ...), its agent session, when it started, and the
    failure brief of the attempt before it (what the next session is told)."""

    number: int
    session_id: str
    started: datetime
    brief: str | None
    label: str


@dataclass
class Verdict(Generic[Evidence]):
    """What judging found: the violations (none: accepted) and the test report of the
    tip, when the judging ran the tests (it goes into the note and the failure brief).
    ``evidence`` is the mode's own, of the type its ``Work`` names (a TDD phase's
    mutation gate note, a refactor batch's gate and diff size); None when the judging
    stopped before it (or the kernel itself rejected the attempt)."""

    violations: list[Violation]
    tests: TestReport | None = None
    evidence: Evidence | None = None


@dataclass(frozen=True)
class Accepted:
    """An accepted attempt: the state noted on ``tip``, which the branch now points at."""

    state: HandoffState
    tip: Commit
    attempts: int


class Exhausted(Exception):
    """Every try was rejected: ``final`` is the last rejection (the branch never moved)."""

    def __init__(self, final: AttemptRejected, attempts: int) -> None:
        super().__init__(str(final))
        self.final = final
        self.attempts = attempts


class Declined(Exception):
    """The agent said its task cannot be done honestly, and why (``reason``): no further
    attempt is made; the mode stops the work for a person. ``kept`` names the ref its
    commits were kept under, if it made any; ``attempts`` counts this one."""

    def __init__(self, reason: str, attempts: int, kept: str | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts
        self.kept = kept


@dataclass(frozen=True)
class Naming:
    """How an attempt is named: its ``label`` in scratch folders and kept refs, its
    ``title`` in the run log, and ``where`` every event about it points. ``cycle`` None:
    the work has no cycles (a merge fix), so the title and the events' cycle are the
    attempt's number."""

    stem: str
    title: str
    phase: str
    cycle: int | None
    batch: str | None = None

    def label(self, number: int) -> str:
        return f"{self.stem}-a{number}"

    def title_of(self, number: int) -> str:
        return self.title if self.cycle is not None else f"{self.title} {number}"

    def where(self, number: int, session_id: str) -> Where:
        cycle = self.cycle if self.cycle is not None else number
        return Where(self.phase, cycle, number, session_id, batch=self.batch)


@dataclass(frozen=True)
class Messages:
    """What rgr's own log lines say of the work: the accepted note's (None: the notes'
    default) and the branch move's, a kept rejected attempt's ref log and its note's."""

    accepted_note: str | None
    accepted_branch: str
    rejected_note: str = "rgr: rejected attempt"
    kept: str = "rgr: rejected attempt"


@dataclass(frozen=True)
class Starting:
    """An attempt is about to start (the limits allowed it); ``last_reason`` is why the
    one before it was rejected (empty for the first)."""

    number: int
    last_reason: str


@dataclass(frozen=True)
class Verified:
    """The branch is at the accepted tip, its note written."""

    done: Accepted
    attempt: Try


@dataclass(frozen=True)
class Stopped:
    """A backend failure no retry can fix (rgr.loop.retry.is_fatal) ends the work."""

    error: BackendError


#: What the kernel tells a mode while it works, for the mode to say where the user looks.
Moment = Starting | Verified | Stopped


class Work(ABC, Generic[Evidence]):
    """One unit of agent work, as a mode describes it to the kernel: data set at
    construction (where it starts, how many tries, its names, its messages, its agent)
    and three abstract parts, what to prompt (``begin``), how to judge (``judge``) and
    what to note (``accepted_note``; ``rejected_note``, ``tell`` and ``limit_reached``
    have defaults). ``Evidence`` is what the mode's ``judge`` hands its notes. A mode
    that misses an abstract method is an error for mypy (``Cannot instantiate abstract
    class``) and at construction, never mid-run."""

    #: "tdd" | "refactor" | "merge-fix": written into the in-flight record.
    mode: str = "tdd"
    #: The handoff state this work continues from: notes derive from it.
    prev: HandoffState
    #: The commit every attempt starts from (the last verified one).
    base: Commit
    #: Where the user's branch is while the attempts run (moved only on acceptance).
    branch_at: Commit
    tries: int = 1
    #: The brief of the first attempt (a resumed phase's last failure), if any.
    first_brief: str | None = None
    #: The in-flight record's phase and cycle.
    phase: Phase = Phase.PLAN
    cycle: int = 0
    #: Does its first attempt start a new cycle (for --max-cycles)?
    starts_cycle: bool = False
    naming: Naming
    messages: Messages
    #: The agent that works (None: no agent, a rope rename): named in the note.
    spec: AgentSpec | None = None
    #: The PreToolUse guard's rules for its sessions (rgr.check.guards.edit_rules).
    edit_rules: Mapping[str, object] | None = None
    #: The sessions' output model (also reads an interrupted attempt's record back).
    output_model: type[pydantic.BaseModel]

    @abstractmethod
    def begin(self, seat: Seat, attempt: Try, on_event: Callable[[dict[str, Any]], None]
              ) -> AgentRequest | list[Violation]:
        """What to prompt: the agent session to run in ``seat``, or no session: the work
        was done in the scratch copy before any agent (a rope rename), with the rules
        that broke (none: it is judged like a session's commits)."""

    @abstractmethod
    def judge(self, attempt: Try, result: AgentResult | None,
              tip: Commit) -> Verdict[Evidence]:
        """How to judge: the mode's checks of ``base..tip`` (commits, scope, tests)."""

    @abstractmethod
    def accepted_note(self, attempt: Try, result: AgentResult | None, tip: Commit,
                      verdict: Verdict[Evidence]) -> NoteUpdate:
        """What the accepted note says beyond the kernel's common fields."""

    def rejected_note(self, attempt: Try, verdict: Verdict[Evidence], kept: str) -> NoteUpdate:
        """What the note on a kept rejected attempt says beyond the common fields."""
        return {}

    def tell(self, moment: Moment) -> None:
        """Say (and emit) what the kernel reached, if the mode has a place for it."""
        return  # by default, nothing (a hook, not an abstract method)

    def limit_reached(self, message: str, limit: str) -> str:
        """A limit stops the work before an attempt: record it; returns the hint."""
        return "`rgr resume` continues"


@dataclass
class Kernel:
    ws: Workspace
    backend: Backend
    sealer: Sealer
    report: Report
    #: Who watches (artifacts, console, limits): told everything the kernel does.
    observer: Observer = NULL_OBSERVER
    #: Budget, cycle and time limits, asked before every attempt.
    limits: Limits | None = None
    backoff_base_s: float = 1.0
    #: The configured agent timeout (cut to the time left under --max-minutes).
    agent_timeout_s: float | None = None

    # -- the loop ---------------------------------------------------------------------

    def run(self, work: Work[Evidence]) -> Accepted:
        """Try ``work`` until an attempt is accepted; Exhausted when none was (the last
        rejection noted on its kept commits), LimitReached when a limit stopped it,
        Declined (at once, no retry) when the agent said it cannot be done honestly."""
        brief = work.first_brief
        number = 0
        last_reason = ""
        try:
            for attempt in phase_retrying(work.tries - 1, self.backoff_base_s):
                with attempt:
                    number = attempt.retry_state.attempt_number
                    self.check_limits(work, number)
                    if number > 1:
                        self.observer.emit(Retry(
                            phase=str(work.phase), cycle=work.cycle, attempt=number,
                            reason=last_reason))
                    work.tell(Starting(number, last_reason))
                    try:
                        return self.attempt(work, number, brief)
                    except AttemptRejected as rejected:
                        brief = rejected.brief
                        last_reason = str(rejected)[:500]
                        if rejected.backend_side and number < work.tries:
                            # Said before the wait, so a run that seems idle says why
                            # (a rate limit, an overloaded API), in every mode's log.
                            self.report(f"{work.naming.title_of(number)}: the agent's "
                                        "backend failed: retrying in "
                                        f"{backoff_seconds(self.backoff_base_s, number):g}s")
                        raise
        except AttemptRejected as final:
            # Out of tries, or out of budget or time: a limit is the clearer reason.
            self.check_limits(work, number + 1)
            raise Exhausted(final, number) from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    def check_limits(self, work: Work[Evidence], number: int) -> None:
        """Stop cleanly before an attempt a limit forbids (nothing half done is left)."""
        if self.limits is None:
            return
        hit = self.limits.before_attempt(work.starts_cycle and number == 1)
        if hit is None:
            return
        message = f"stopped before {work.phase} (cycle {work.cycle}): {hit.message}"
        hint = work.limit_reached(message, hit.limit)
        self.observer.emit(LimitStopped(limit=hit.limit, message=message,
                                        phase=str(work.phase), cycle=work.cycle,
                                        commit=str(work.base.id)))
        raise LimitReached(
            hit.limit, f"{message}; the branch is at {str(work.base.id)[:8]}, the last "
            "verified commit", hint)

    def request_limits(self, configured_timeout: float) -> tuple[float, float | None]:
        """The next session's timeout and budget: what the limits leave of them."""
        if self.limits is None:
            return configured_timeout, None
        return (self.limits.agent_timeout_s(configured_timeout),
                self.limits.remaining_budget_usd())

    # -- one attempt ------------------------------------------------------------------

    def attempt(self, work: Work[Evidence], number: int, brief: str | None) -> Accepted:
        session_id = str(uuid.uuid4())
        attempt = Try(number, session_id, now_utc(), brief, work.naming.label(number))
        where = work.naming.where(number, session_id)
        result: AgentResult | None = None
        error: BackendError | None = None
        violations: list[Violation] = []
        tip, refused = work.base, None
        with self.sealer.seat(work.base, attempt.label, work.edit_rules) as seat:
            begun = work.begin(seat, attempt, lambda e: self.observer.emit(
                AgentStreamed(where=where, event=e)))
            request = begun if isinstance(begun, AgentRequest) else None
            violations = [] if isinstance(begun, AgentRequest) else begun
            record = Inflight(run_id=work.prev.run_id, phase=work.phase, cycle=work.cycle,
                              attempt=number, base=str(work.base.id), session_id=session_id,
                              started_at=attempt.started.isoformat(),
                              scratch=str(seat.folder), mode=work.mode)
            inflight.write(self.ws.git_dir, record)
            failpoints.hit("phase:inflight-recorded")
            if request is not None:
                result, error = self._session(work, attempt, request, where, seat)
            if not violations:
                tip, refused = self.bring_in(seat, work.base)
            if result is not None or refused is not None:
                inflight.write(self.ws.git_dir, validated_update(
                    record,
                    output=(result.output.model_dump(mode="json", by_alias=True)
                            if result is not None else None),
                    result=result_record(result) if result is not None else None,
                    tip=str(tip.id), import_error=refused))
        return self.judge(work, attempt, result, error, tip, refused, violations)

    def _session(self, work: Work[Evidence], attempt: Try, request: AgentRequest,
                 where: Where, seat: Seat
                 ) -> tuple[AgentResult | None, BackendError | None]:
        who = work.naming.title_of(attempt.number)
        self.observer.emit(AttemptStarted(
            where=where, agent=work.spec.name if work.spec else None,
            prompt_version=prompt_version(request.system_prompt_file), prompt=request.prompt,
            system_prompt_file=str(request.system_prompt_file), max_turns=request.max_turns,
            max_budget_usd=request.max_budget_usd, model=request.model,
            sandboxed=request.launcher is not None, backend=request.backend))
        self.report(f"{who}: agent session {request.session_id[:8]} running")
        result: AgentResult | None = None
        error: BackendError | None = None
        try:
            result = self.backend.run(request)
        except BackendError as exc:
            self.observer.emit(agent_call_event(where, None, exc))
            if is_fatal(exc):
                # Nothing of the session reaches the repository: its copy is dropped.
                work.tell(Stopped(exc))
                inflight.clear(self.ws.git_dir)
                raise
            error = exc
        else:
            self.observer.emit(agent_call_event(where, result, None))
        failpoints.hit("agent:returned")
        if seat.refused:
            self.report(f"{who}: the sandbox refused {len(seat.refused)} "
                        f"connection(s): {seat.refused[0]}")
        if result is not None and result.permission_denials:
            self.report(f"{who}: the agent was refused "
                        f"{len(result.permission_denials)} tool call(s): "
                        + describe_denials(result.permission_denials))
        return result, error

    def bring_in(self, seat: Seat, base: Commit) -> tuple[Commit, str | None]:
        """The attempt's tip in the user's repository, or the base and why not."""
        try:
            return self.sealer.bring_in(seat, base), None
        except ImportRefused as exc:
            self.report(f"the attempt's commits were not imported: {exc.message}")
            return base, exc.message

    # -- judging ----------------------------------------------------------------------

    def judge(self, work: Work[Evidence], attempt: Try, result: AgentResult | None,
              error: BackendError | None, tip: Commit, refused: str | None,
              violations: list[Violation] | None = None) -> Accepted:
        """The verdict on one attempt, then its note and the branch moved to its tip, or
        its commits kept with a note saying why (the branch never moved)."""
        verdict: Verdict[Evidence] = Verdict(list(violations or []))
        way_out = way_out_of(result.output) if result is not None and error is None \
            else None
        if way_out is not None and not verdict.violations:
            self._decline(work, attempt, result, tip, way_out)
        if error is not None:
            verdict.violations.append(Violation(f"agent-{error.kind}", error.message))
        elif refused is not None:
            verdict.violations.append(Violation("import-refused", refused))
        elif not verdict.violations:
            verdict = work.judge(attempt, result, tip)
            self.observer.emit(GuardVerdict(
                where=work.naming.where(attempt.number, attempt.session_id),
                ok=not verdict.violations, commit=str(tip.id),
                violations=[{"rule": v.rule, "message": v.message, "path": v.path}
                            for v in verdict.violations]))
        if verdict.violations:
            first, more = verdict.violations[0], len(verdict.violations) - 1
            self.report(f"{work.naming.title_of(attempt.number)}: rejected: {first}"
                        + (f" (+{more} more)" if more else ""))
            self._keep(work, attempt, result, tip, verdict)
            raise AttemptRejected(verdict.violations,
                                  failure_brief(verdict.violations, verdict.tests),
                                  backend_side=error is not None and error.retryable)
        update: NoteUpdate = {
            **self._common(work, attempt, verdict),
            "error": None, "error_details": None,
            "agent": agent_summary(result, work.spec, self.ws.config_root),
            **work.accepted_note(attempt, result, tip, verdict)}
        state = work.prev.updated(**update)
        self.ws.notes.write(str(tip.id), state, work.messages.accepted_note)
        failpoints.hit("phase:noted")
        # The note first, then the branch: a crash in between leaves the branch where it
        # was with the in-flight record, and resume judges the same tip again.
        if tip.id != work.branch_at.id:
            self.sealer.accept(work.branch_at, tip, work.messages.accepted_branch)
        failpoints.hit("phase:accepted")
        inflight.clear(self.ws.git_dir)
        done = Accepted(state, tip, attempt.number)
        work.tell(Verified(done, attempt))
        return done

    def _decline(self, work: Work[Evidence], attempt: Try, result: AgentResult | None,
                 tip: Commit, reason: str) -> None:
        """The agent took the honest way out: nothing is judged and nothing retried (a
        fresh session would meet the same contradiction, or be pushed to cheat past
        it). Its commits, if any, are kept and noted like a rejection, of their own
        kind; the mode then stops the work for a person (raises Declined)."""
        where = work.naming.where(attempt.number, attempt.session_id)
        self.report(f"{work.naming.title_of(attempt.number)}: the agent says this cannot be done "
                    f"honestly: {reason}")
        verdict: Verdict[Evidence] = Verdict([Violation(NEEDS_ATTENTION, reason)])
        kept = self._keep(work, attempt, result, tip, verdict,
                          summary=f"the agent says this cannot be done honestly: "
                                  f"{reason}"[:500])
        self.observer.emit(NeedsAttention(where=where, reason=reason, commit=str(tip.id),
                                          kept=kept))
        raise Declined(reason, attempt.number, kept)

    def _common(self, work: Work[Evidence], attempt: Try,
                verdict: Verdict[Evidence]) -> NoteUpdate:
        """The fields every note of an attempt has, accepted or not."""
        return {"retry_count": attempt.number - 1, "schema_version": 1,
                "base_commit": str(work.base.id), "started_at": attempt.started,
                "finished_at": now_utc(), "rgr_version": __version__,
                "tests": tests_summary(verdict.tests) if verdict.tests else None}

    def _keep(self, work: Work[Evidence], attempt: Try, result: AgentResult | None,
              tip: Commit, verdict: Verdict[Evidence], summary: str | None = None
              ) -> str | None:
        """Keep a rejected attempt's commits reachable, then note why. The ref comes
        first, so the work is never unreachable; the note goes on the kept commit, off
        the branch, so it can never be mistaken for the branch's latest handoff. A
        commit that already has a note (the agent left its branch on an older, noted
        commit) is never noted over. Returns the kept ref's name, if any."""
        name = None
        if tip.id not in (work.base.id, work.branch_at.id) and \
                self.ws.notes.read_text(str(tip.id)) is None:
            name = self.sealer.keep(tip, attempt.label, work.prev.run_id, work.messages.kept)
            failpoints.hit("attempt:kept")
            first = verdict.violations[0]
            update: NoteUpdate = {
                **self._common(work, attempt, verdict),
                "error": str(first), "test_result": None,
                "error_details": ErrorDetails(type=first.rule, message="\n".join(
                    str(v) for v in verdict.violations)[:4000]),
                "agent": agent_summary(result, None, self.ws.config_root),
                "summary": summary or f"rejected attempt kept at {name}",
                **work.rejected_note(attempt, verdict, name)}
            state = work.prev.updated(**update)
            self.ws.notes.write(str(tip.id), state, work.messages.rejected_note)
            failpoints.hit("attempt:noted")
            self.report(f"rejected attempt kept at {name}" if summary is None
                        else f"the attempt's commits kept at {name}")
        inflight.clear(self.ws.git_dir)
        return name

    # -- after a crash ----------------------------------------------------------------

    def judge_interrupted(self, work: Work[Evidence], record: Inflight) -> Accepted:
        """Judge the commits of an attempt whose rgr died before it could: by the same
        checks as any attempt. Raises AttemptRejected (its commits then kept, the branch
        where it was) or returns the accepted attempt."""
        attempt = Try(record.attempt, record.session_id,
                      datetime.fromisoformat(record.started_at), None,
                      work.naming.label(record.attempt))
        try:
            if record.output is None or record.result is None:
                return self.judge(work, attempt, None, BackendError(
                    "interrupted", "rgr stopped while the agent was still working; its "
                    "session never finished", retryable=False), work.base, None)
            output = work.output_model.model_validate(record.output)
            tip, refused = self._interrupted_tip(work, record)
            return self.judge(work, attempt, result_from_record(record.result, output),
                              None, tip, refused)
        finally:
            # recover_after_crash spared the attempt's scratch copy for this judgment;
            # nothing else removes it (its `seat` died with rgr), so it would stay in
            # /dev/shm until some later command's recovery.
            self.sealer.drop(record.scratch)

    def _interrupted_tip(self, work: Work[Evidence], record: Inflight
                         ) -> tuple[Commit, str | None]:
        """The tip an interrupted attempt had brought in, or bring it in now from its
        scratch copy if that is still there."""
        if record.tip is not None and record.tip in self.ws.repo:
            return git.resolve_commit(self.ws.repo, record.tip), record.import_error
        folder = Path(record.scratch) if record.scratch else None
        if folder is None or not (folder / "work" / ".git").is_dir():
            return work.base, "the attempt's scratch copy is gone: its commits cannot be judged"
        branch = git.current_branch(self.ws.repo) or "main"
        seat = Seat(folder, Scratch(folder / "work", branch), folder / "home", folder / "tmp",
                    {}, None)
        return self.bring_in(seat, work.base)


def needs_attention_note(ws: Workspace, work: Work[Evidence], declined: Declined) -> HandoffState:
    """The way out's reason on the last verified commit's note (its nextPhase unchanged,
    so `rgr resume`, once a person has looked, runs the same work again)."""
    state = work.prev.updated(
        error=f"{work.naming.title_of(declined.attempts)} needs attention: the agent says it "
                 f"cannot be done honestly: {declined.reason}",
        error_details=ErrorDetails(type=NEEDS_ATTENTION, message=declined.reason),
        retry_count=declined.attempts - 1,
    )
    ws.notes.write(str(work.base.id), state, "rgr: needs attention")
    return state


def limit_note(ws: Workspace, work: Work[Evidence], message: str, limit: str) -> None:
    """A limit's reason on the last verified commit's note (its nextPhase unchanged, so
    `rgr resume` runs the same work again)."""
    ws.notes.write(str(work.base.id), work.prev.updated(
        error=message,
        error_details=ErrorDetails(type=f"{LIMIT_ERROR_PREFIX}{limit}", message=message),
    ), f"rgr: stopped by --{limit}")
