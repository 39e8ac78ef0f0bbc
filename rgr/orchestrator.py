"""The phase state machine: PLAN → RED → GREEN → REFACTOR → PLAN … → COMPLETE.

One phase, as data: the noted HEAD (its nextPhase says what runs) → a prompt → one
fresh agent session, sealed (rgr.attempt: a scratch copy of the base in a sandbox) →
the commits on its branch imported → checks on base..tip (commits, scope, markers) →
one test run on a pristine checkout of the tip → on success a note on the tip, then
the branch moves to it; on failure the attempt is kept under ``refs/rgr/attempts/...``
with a note saying why, the branch never having moved, and a fresh session retries
with the failure brief.

Whatever an agent did besides committing on its branch (uncommitted files, hooks,
config, other refs, files outside its copy) dies with its scratch copy, so what rgr
verifies is exactly what is committed.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pydantic
import pygit2

from rgr import __version__, failpoints, git, inflight, report_store
from rgr.agents import AgentSpec, agent_for, prompt_path, prompt_version
from rgr.attempt import (
    Sealer,
    Seat,
    agent_summary,
    is_fatal,
    tests_summary,
)
from rgr.backends.base import AgentRequest, AgentResult, AgentRunError, Backend, usd
from rgr.backends.claude import usage_of
from rgr.config import TestCommand
from rgr.errors import BackendError, PhaseFailed
from rgr.events import NULL_OBSERVER, Event, Observer, event
from rgr.guards import (
    Violation,
    check_commits,
    check_scope,
    check_tests,
    edit_rules,
    failure_brief,
)
from rgr.handoff import (
    FOLLOWS,
    ErrorDetails,
    HandoffState,
    Phase,
    TestCase,
    TestResult,
    now_utc,
)
from rgr.inflight import Inflight
from rgr.limits import LIMIT_ERROR_PREFIX, LimitReached, Limits
from rgr.outputs import OUTPUT_MODELS, PhaseOutput, PlanOutput
from rgr.prompting import build_prompt
from rgr.retry import AttemptRejected, phase_retrying
from rgr.scratch import ImportRefused, Scratch
from rgr.testlist import FILENAME as TEST_LIST
from rgr.testlist import parse_test_list
from rgr.verify import TestReport
from rgr.workspace import Workspace

LEFTOVERS_PREFIX = "refs/rgr/leftovers/"
__all__ = ["LEFTOVERS_PREFIX", "Orchestrator"]

Report = Callable[[str], None]


@dataclass(frozen=True)
class Attempt:
    """One try at a phase: what it started from and when."""

    prev: HandoffState
    phase: Phase
    spec: AgentSpec
    base: pygit2.Commit
    before: TestReport
    cycle: int
    number: int
    started: datetime
    session_id: str

    @property
    def label(self) -> str:
        return f"{self.phase}-c{self.cycle}-a{self.number}"

    @property
    def where(self) -> dict[str, object]:
        """What every event about this attempt carries."""
        return {"phase": str(self.phase), "cycle": self.cycle, "attempt": self.number,
                "sessionId": self.session_id}


@dataclass
class Orchestrator:
    ws: Workspace
    backend: Backend
    test_command: TestCommand
    report: Report
    #: How attempts are sealed and verified (rgr.attempt).
    sealer: Sealer
    backoff_base_s: float = 1.0
    max_phases: int | None = None  # stop after this many phases (tests, --max-phases)
    #: Who watches the run (artifacts, console): see rgr.events for what it is told.
    observer: Observer = NULL_OBSERVER
    #: Budget, cycle and time limits, asked before every attempt.
    limits: Limits | None = None
    _reports: dict[str, TestReport] = field(default_factory=dict)

    # ---------------------------------------------------------------- test runs --

    def tests_at_head(self) -> TestReport:
        return self.tests_at(git.head_commit(self.ws.repo))

    def tests_at(self, commit: pygit2.Commit) -> TestReport:
        """The suite's report for ``commit``'s tree, run on a pristine checkout of it:
        run once, reused while the tree is unchanged (an empty refactor commit, a plan
        commit that only touched test-list.md)."""
        tree = str(commit.tree.id)
        cached = self._reports.get(tree)
        if cached is not None:
            return cached
        self.report(f"running tests: {' '.join(self.test_command.argv)}")
        result = self.sealer.run_tests(commit)
        self.report(f"tests: {result.passed} passed, {result.failed} failed, "
                    f"{result.errors} errors ({result.duration_s:.1f}s)")
        self.observer.emit(event(
            "test_run", command=list(result.argv), exitCode=result.exit_code,
            durationS=round(result.duration_s, 3), passed=result.passed, failed=result.failed,
            errors=result.errors, skipped=result.skipped, timedOut=result.timed_out,
            output=result.output or result.output_excerpt))
        self.remember_report(commit, result)
        return result

    def remember_report(self, commit: pygit2.Commit, report: TestReport) -> None:
        self._reports[str(commit.tree.id)] = report
        report_store.save(self.ws.git_dir, str(commit.tree.id), report)

    def recorded_report(self, commit: pygit2.Commit) -> TestReport | None:
        """The report of ``commit``'s tree from this run or an earlier one, if any."""
        tree = str(commit.tree.id)
        return self._reports.get(tree) or report_store.load(self.ws.git_dir, tree)

    # ------------------------------------------------------------------ the loop --

    def loop(self, state: HandoffState) -> HandoffState:
        phases = 0
        while state.resume_phase != Phase.COMPLETE:
            if self.max_phases is not None and phases >= self.max_phases:
                self.report(f"stopping after {phases} phase(s) as asked; `rgr resume` goes on")
                return state
            state = self.run_phase(state)
            phases += 1
        return state

    def run_phase(self, prev: HandoffState) -> HandoffState:
        phase = prev.resume_phase
        spec = agent_for(self.ws.config_root, phase)
        base = git.head_commit(self.ws.repo)
        before = self.tests_at_head()
        cycle = prev.cycle_number + 1 if phase == Phase.PLAN else prev.cycle_number
        brief: str | None = _resume_brief(prev)
        attempt_number = 0
        started = time.monotonic()
        last_reason = ""
        try:
            for attempt in phase_retrying(self.ws.config.max_retries, self.backoff_base_s):
                with attempt:
                    attempt_number = attempt.retry_state.attempt_number
                    self._check_limits(prev, base, phase, cycle, attempt_number)
                    if attempt_number == 1:
                        self.report(f"cycle {cycle} {phase}: {spec.name} starts")
                        self.observer.emit(event(
                            "phase_started", phase=str(phase), cycle=cycle, agent=spec.name,
                            currentTest=(prev.current_test.description
                                         if prev.current_test and phase != Phase.PLAN
                                         else None)))
                    else:
                        self.report(f"cycle {cycle} {phase}: retry {attempt_number - 1} of "
                                    f"{self.ws.config.max_retries}")
                        self.observer.emit(event(
                            "retry", phase=str(phase), cycle=cycle, attempt=attempt_number,
                            reason=last_reason))
                    try:
                        state = self._attempt(prev, phase, spec, base, before, cycle,
                                              attempt_number, brief)
                    except AttemptRejected as rejected:
                        brief = rejected.brief
                        last_reason = str(rejected)[:500]
                        raise
                    self.observer.emit(event(
                        "phase_done", phase=str(phase), cycle=cycle, attempts=attempt_number,
                        commit=str(git.head_commit(self.ws.repo).id),
                        nextPhase=str(state.next_phase) if state.next_phase else None,
                        complete=state.phase == Phase.COMPLETE,
                        durationS=round(time.monotonic() - started, 3)))
                    return state
        except AttemptRejected as final:
            # Out of attempts, or out of budget/time: a limit is the clearer reason.
            self._check_limits(prev, base, phase, cycle, attempt_number + 1)
            self._record_exhausted(prev, base, phase, attempt_number, final)
            raise PhaseFailed(
                f"{phase} failed {attempt_number} time(s); the branch is back at "
                f"{str(base.id)[:8]}, the last verified commit. Last failure: {final}",
                "see `rgr history --all` for the rejected attempts, then `rgr resume` to try "
                f"again (raise {self.ws.config.setting('max_retries')} for more attempts)",
            ) from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    # -------------------------------------------------------------- one attempt --

    def _attempt(self, prev: HandoffState, phase: Phase, spec: AgentSpec, base: pygit2.Commit,
                 before: TestReport, cycle: int, attempt_number: int,
                 brief: str | None) -> HandoffState:
        session_id = str(uuid.uuid4())
        attempt = Attempt(prev, phase, spec, base, before, cycle, attempt_number, now_utc(),
                          session_id)
        where = attempt.where
        result: AgentResult | None = None
        backend_error: BackendError | None = None
        with self.sealer.seat(base, attempt.label,
                              edit_rules(self.ws.config, phase)) as seat:
            request = self._request(prev, phase, spec, base, cycle, brief, session_id, seat,
                                    on_event=lambda e: self.observer.emit(
                                        event("agent_event", **where, event=e)))
            record = Inflight(run_id=prev.run_id, phase=phase, cycle=cycle,
                              attempt=attempt_number, base=str(base.id), session_id=session_id,
                              started_at=attempt.started.isoformat(),
                              scratch=str(seat.folder))
            inflight.write(self.ws.git_dir, record)
            failpoints.hit("phase:inflight-recorded")
            self.observer.emit(event(
                "attempt_started", **where, agent=spec.name,
                promptVersion=prompt_version(request.system_prompt_file), prompt=request.prompt,
                systemPromptFile=str(request.system_prompt_file), maxTurns=request.max_turns,
                maxBudgetUsd=request.max_budget_usd, model=request.model,
                sandboxed=request.launcher is not None, backend=request.backend))
            self.report(f"cycle {cycle} {phase}: agent session {session_id[:8]} running")
            try:
                result = self.backend.run(request)
            except BackendError as exc:
                self.observer.emit(agent_call_event(attempt.where, None, exc))
                if is_fatal(exc):
                    # Nothing of the session reaches the repository: its copy is dropped.
                    self._record_stop(prev, base, phase, exc)
                    inflight.clear(self.ws.git_dir)
                    raise
                backend_error = exc
            else:
                self.observer.emit(agent_call_event(attempt.where, result, None))
            failpoints.hit("agent:returned")
            if seat.refused:
                self.report(f"cycle {cycle} {phase}: the sandbox refused "
                            f"{len(seat.refused)} connection(s): {seat.refused[0]}")
            if result is not None and result.permission_denials:
                self.report(f"cycle {cycle} {phase}: the agent was refused "
                            f"{len(result.permission_denials)} tool call(s): "
                            + describe_denials(result.permission_denials))
            tip, refused = self._bring_in(seat, base)
            if result is not None:
                inflight.write(self.ws.git_dir, record.model_copy(update={
                    "output": result.output.model_dump(mode="json", by_alias=True),
                    "result": _result_record(result), "tip": str(tip.id),
                    "import_error": refused}))
        return self.judge(attempt, result, backend_error, tip, refused)

    def _bring_in(self, seat: Seat, base: pygit2.Commit) -> tuple[pygit2.Commit, str | None]:
        """The attempt's tip in the user's repository, or the base and why not."""
        try:
            return self.sealer.bring_in(seat, base), None
        except ImportRefused as exc:
            self.report(f"the attempt's commits were not imported: {exc.message}")
            return base, exc.message

    def judge_interrupted(self, prev: HandoffState, record: Inflight) -> HandoffState:
        """Judge the commits of an attempt whose rgr died before it could: by the same
        checks as :meth:`judge`. Raises AttemptRejected (the attempt is then kept and the
        branch back at its base) or returns the new, noted state."""
        spec = agent_for(self.ws.config_root, record.phase)
        base = git.resolve_commit(self.ws.repo, record.base)
        before = self.recorded_report(base)
        if before is None:
            # rgr records every report it makes; without one, the base's own tests say.
            raise AttemptRejected([Violation("interrupted", "no test report of the base "
                                             "was recorded; the attempt is redone")],
                                  "The previous attempt was interrupted.", backend_side=False)
        attempt = Attempt(prev, record.phase, spec, base, before, record.cycle, record.attempt,
                          datetime.fromisoformat(record.started_at), record.session_id)
        if record.output is None or record.result is None:
            return self.judge(attempt, None, BackendError(
                "interrupted", "rgr stopped while the agent was still working; its session "
                "never finished", retryable=False), base, None)
        output = OUTPUT_MODELS[spec.output].model_validate(record.output)
        tip, refused = self._interrupted_tip(record, base)
        return self.judge(attempt, _result_from_record(record.result, output), None, tip,
                          refused)

    def _interrupted_tip(self, record: Inflight, base: pygit2.Commit
                         ) -> tuple[pygit2.Commit, str | None]:
        """The tip an interrupted attempt had brought in, or bring it in now from its
        scratch copy if that is still there."""
        if record.tip is not None and record.tip in self.ws.repo:
            return git.resolve_commit(self.ws.repo, record.tip), record.import_error
        folder = Path(record.scratch) if record.scratch else None
        if folder is None or not (folder / "work" / ".git").is_dir():
            return base, "the attempt's scratch copy is gone: its commits cannot be judged"
        branch = git.current_branch(self.ws.repo) or "main"
        seat = Seat(folder, Scratch(folder / "work", branch), folder / "home", folder / "tmp",
                    {}, None)
        return self._bring_in(seat, base)

    def judge(self, attempt: Attempt, result: AgentResult | None,
              backend_error: BackendError | None, head: pygit2.Commit,
              import_error: str | None) -> HandoffState:
        """Checks on base..tip, then a note and the branch moved to the tip, or the
        attempt kept (the branch never moved)."""
        prev, phase, cycle, base = attempt.prev, attempt.phase, attempt.cycle, attempt.base
        violations: list[Violation] = []
        after: TestReport | None = None
        if backend_error is not None:
            violations.append(Violation(f"agent-{backend_error.kind}", backend_error.message))
        elif import_error is not None:
            violations.append(Violation("import-refused", import_error))
        else:
            violations = check_commits(self.ws.repo, base.id, head.id,
                                       attempt.spec.commit_prefixes)
            if not violations:
                violations = check_scope(self.ws.repo, self.ws.config, phase, base.id, head.id)
            if not violations and result is not None:
                violations, after = self._verify(attempt, result, head)
            self.observer.emit(event(
                "guard_verdict", **attempt.where, ok=not violations, commit=str(head.id),
                violations=[{"rule": v.rule, "message": v.message, "path": v.path}
                            for v in violations]))
        if violations:
            self.report(f"cycle {cycle} {phase}: rejected: {violations[0]}"
                        + (f" (+{len(violations) - 1} more)" if len(violations) > 1 else ""))
            self._keep_attempt(attempt, head, violations, result, after)
            raise AttemptRejected(violations, failure_brief(violations, after),
                                  backend_side=backend_error is not None
                                  and backend_error.retryable)
        assert result is not None
        state = self._next_state(prev, phase, cycle, result, head, base,
                                 after or attempt.before, attempt.number, attempt.started,
                                 attempt.spec)
        self.ws.notes.write(str(head.id), state)
        failpoints.hit("phase:noted")
        # The note first, then the branch: a crash in between leaves the branch at the
        # base with the in-flight record, and resume judges the same tip again.
        if head.id != base.id:
            self.sealer.accept(base, head, f"rgr: {phase} verified (cycle {cycle})")
        failpoints.hit("phase:accepted")
        inflight.clear(self.ws.git_dir)
        self.report(f"cycle {cycle} {phase}: verified and noted on {str(head.id)[:8]}"
                    + (f" (next: {state.resume_phase})" if state.phase != Phase.COMPLETE
                       else " (feature complete)"))
        return state

    def _request(self, prev: HandoffState, phase: Phase, spec: AgentSpec, base: pygit2.Commit,
                 cycle: int, brief: str | None, session_id: str, seat: Seat,
                 on_event: Callable[[dict[str, Any]], None] | None = None) -> AgentRequest:
        prompt = build_prompt(
            self.ws.config_root, phase=phase, state=prev, cycle=cycle,
            branch=git.current_branch(self.ws.repo) or "", head=str(base.id),
            test_argv=self.test_command.argv,
            test_list=git.file_text(self.ws.repo, base.id, TEST_LIST),
            failure_brief=brief,
        )
        return AgentRequest(
            prompt=prompt,
            system_prompt_file=prompt_path(self.ws.config_root, spec.prompt),
            output_model=OUTPUT_MODELS[spec.output],
            tools=tuple(spec.tools),
            allowed_tools=spec.permission_rules(self.test_command.argv),
            disallowed_tools=tuple(spec.disallowed_tools),
            max_turns=min(spec.max_turns, self.ws.config.max_turns),
            model=spec.model or self.ws.config.model,
            cwd=seat.cwd,
            timeout_s=(self.limits.agent_timeout_s(self.ws.config.agent_timeout)
                       if self.limits else self.ws.config.agent_timeout),
            session_id=session_id,
            env=seat.env,
            max_budget_usd=self.limits.remaining_budget_usd() if self.limits else None,
            on_event=on_event,
            launcher=seat.launcher,
            settings_file=seat.settings_file,
            backend=spec.backend or self.ws.config.backend,
        )

    def _verify(self, attempt: Attempt, result: AgentResult, head: pygit2.Commit
                ) -> tuple[list[Violation], TestReport | None]:
        phase, before = attempt.phase, attempt.before
        if phase == Phase.PLAN:
            # The planner may only touch test-list.md (check_scope), so the suite's
            # result cannot have changed: no test run.
            self.remember_report(head, before)
            return self._check_plan(attempt.prev, result, attempt.base, head), None
        after = self.tests_at(head)
        return check_tests(phase, before, after), after

    def _check_plan(self, prev: HandoffState, result: AgentResult, base: pygit2.Commit,
                    head: pygit2.Commit) -> list[Violation]:
        output = result.output
        assert isinstance(output, PlanOutput)
        tests = parse_test_list(git.file_text(self.ws.repo, head.id, TEST_LIST))
        before = parse_test_list(git.file_text(self.ws.repo, base.id, TEST_LIST))
        # The planner is not believed: only the item the last verified cycle implemented
        # may be ticked, and no open item may silently disappear.
        finished = (prev.current_test.description
                    if prev.current_test and prev.phase == Phase.REFACTOR else None)
        ticked = set(tests.done) - set(before.done) - {finished}
        if ticked:
            return [Violation("plan-ticks-unverified", "the planner ticked "
                              + ", ".join(repr(t) for t in sorted(ticked)) + ": no verified "
                              "cycle implemented it (only the item of the cycle that just "
                              "ended may be ticked)", TEST_LIST)]
        dropped = set(before.pending) - set(tests.pending) - set(tests.done)
        if dropped:
            return [Violation("plan-drops-item", "the planner removed open item(s) "
                              + ", ".join(repr(t) for t in sorted(dropped)) + " from "
                              f"{TEST_LIST}; an item leaves the list only by being done",
                              TEST_LIST)]
        if output.current_test is None and not tests.complete:
            reason = (f"{len(tests.pending)} item(s) are still unticked" if tests.total
                      else "it has no items")
            return [Violation("plan-not-complete", f"the planner says the feature is done but "
                              f"{TEST_LIST} disagrees: {reason}", TEST_LIST)]
        if output.current_test is not None:
            for path in (output.current_test.test_file, output.current_test.impl_file):
                if not inside_repository(self.ws.root, path):
                    return [Violation("plan-path-outside-repo", f"the planner named {path!r}, "
                                      "which is not a relative path inside the repository")]
        if output.current_test is not None and not tests.pending:
            return [Violation("plan-no-pending-item", f"the planner chose "
                              f"{output.current_test.description!r} but {TEST_LIST} has no "
                              "unticked item for it", TEST_LIST)]
        return []

    # ------------------------------------------------------------------- states --

    def _next_state(self, prev: HandoffState, phase: Phase, cycle: int, result: AgentResult,
                    head: pygit2.Commit, base: pygit2.Commit, tests: TestReport,
                    attempt_number: int, started: datetime, spec: AgentSpec) -> HandoffState:
        listing = parse_test_list(git.file_text(self.ws.repo, head.id, TEST_LIST))
        current = prev.current_test
        done = False
        summary = None
        if isinstance(result.output, PlanOutput):
            planned = result.output.current_test
            done = planned is None
            current = None if planned is None else TestCase(
                description=planned.description, test_file=planned.test_file,
                impl_file=planned.impl_file)
            summary = "feature complete" if done else f"next test: {current.description}" \
                if current else None
        elif isinstance(result.output, PhaseOutput):
            summary = result.output.summary
        return prev.model_copy(update={
            "phase": Phase.COMPLETE if done else phase,
            "next_phase": None if done else FOLLOWS[phase],
            "cycle_number": cycle,
            "current_test": current,
            "completed_tests": list(listing.done),
            "pending_tests": list(listing.pending),
            "test_result": test_result(phase, tests),
            "error": None,
            "error_details": None,
            "retry_count": attempt_number - 1,
            "schema_version": 1,
            "base_commit": str(base.id),
            "started_at": started,
            "finished_at": now_utc(),
            "agent": agent_summary(result, spec, self.ws.config_root),
            "tests": tests_summary(tests),
            "rgr_version": __version__,
            "summary": summary,
        })

    def _keep_attempt(self, attempt: Attempt, head: pygit2.Commit,
                      violations: list[Violation], result: AgentResult | None,
                      after: TestReport | None) -> None:
        """Keep a rejected attempt reachable, then note why.

        The branch never moved (the agent worked in its own copy). The ref comes first,
        so the work is never unreachable; the note goes on the kept commit, off the
        branch, so it can never be mistaken for the branch's latest handoff.
        """
        prev, phase, base = attempt.prev, attempt.phase, attempt.base
        name = None
        if head.id != base.id:
            name = self.sealer.keep(head, attempt.label, prev.run_id)
            failpoints.hit("attempt:kept")
        if name is not None:
            first = violations[0]
            state = prev.model_copy(update={
                "phase": phase, "next_phase": phase, "cycle_number": attempt.cycle,
                "error": str(first), "retry_count": attempt.number - 1,
                "error_details": ErrorDetails(type=first.rule, message="\n".join(
                    str(v) for v in violations)[:4000]),
                "base_commit": str(base.id), "started_at": attempt.started,
                "finished_at": now_utc(),
                "agent": agent_summary(result, None, self.ws.config_root) if result else None,
                "tests": tests_summary(after) if after else None,
                "test_result": None, "schema_version": 1, "rgr_version": __version__,
                "summary": f"rejected attempt kept at {name}",
            })
            self.ws.notes.write(str(head.id), state, f"rgr: rejected {phase} attempt")
            failpoints.hit("attempt:noted")
            self.report(f"rejected attempt kept at {name}")
        inflight.clear(self.ws.git_dir)

    def _record_exhausted(self, prev: HandoffState, base: pygit2.Commit, phase: Phase,
                          attempts: int, final: AttemptRejected) -> None:
        """Retries exhausted: the error goes on the last verified commit's note, whose
        nextPhase is unchanged, so `rgr resume` tries the same phase again."""
        first = final.violations[0] if final.violations else Violation("unknown", str(final))
        state = prev.model_copy(update={
            "error": f"{phase} failed after {attempts} attempt(s): {first}",
            "error_details": ErrorDetails(type=first.rule, message=final.brief[:4000]),
            "retry_count": attempts - 1,
        })
        self.ws.notes.write(str(base.id), state, f"rgr: {phase} failed after {attempts} attempts")

    def _record_stop(self, prev: HandoffState, base: pygit2.Commit, phase: Phase,
                     error: BackendError) -> None:
        """A failure no retry can fix: said on the last verified commit's note (its
        nextPhase unchanged), so `rgr status` shows why the run stopped."""
        state = prev.model_copy(update={
            "error": f"{phase} stopped: {error.message}",
            "error_details": ErrorDetails(type=f"agent-{error.kind}",
                                          message=(error.hint or error.message)[:4000]),
        })
        self.ws.notes.write(str(base.id), state, f"rgr: {phase} stopped ({error.kind})")

    def _check_limits(self, prev: HandoffState, base: pygit2.Commit, phase: Phase,
                      cycle: int, attempt_number: int) -> None:
        """Stop cleanly before an attempt a limit forbids: the reason goes on the last
        verified commit's note (nextPhase unchanged, so `rgr resume` runs this phase)."""
        if self.limits is None:
            return
        hit = self.limits.before_attempt(phase == Phase.PLAN and attempt_number == 1)
        if hit is None:
            return
        message = f"stopped before {phase} (cycle {cycle}): {hit.message}"
        self.ws.notes.write(str(base.id), prev.model_copy(update={
            "error": message,
            "error_details": ErrorDetails(type=f"{LIMIT_ERROR_PREFIX}{hit.limit}",
                                          message=message),
        }), f"rgr: stopped by --{hit.limit}")
        self.observer.emit(event("limit_reached", limit=hit.limit, message=message,
                                 phase=str(phase), cycle=cycle, commit=str(base.id)))
        raise LimitReached(
            hit.limit,
            f"{message}; the branch is at {str(base.id)[:8]}, the last verified commit",
            f"`rgr resume` continues with {phase} (pass a higher --{hit.limit}, or none)",
        )


def _resume_brief(prev: HandoffState) -> str | None:
    """What the last (failed) run of this phase said, for the next prompt; None when the
    phase has no failure to learn from (none, or a limit stopped the run before it)."""
    if not prev.error or (prev.error_details is not None
                          and prev.error_details.type.startswith(LIMIT_ERROR_PREFIX)):
        return None
    details = prev.error_details.message if prev.error_details else prev.error or ""
    return ("The last run of this phase failed and was rolled back. What went wrong:\n"
            + details[:3000])


def test_result(phase: Phase, tests: TestReport) -> TestResult | None:
    if phase == Phase.RED:
        return TestResult.FAIL
    if phase in (Phase.GREEN, Phase.REFACTOR):
        return TestResult.PASS if tests.all_passed else TestResult.FAIL
    return None


def inside_repository(root: Path, path: str) -> bool:
    """Whether ``path`` (from an agent) names a file under ``root`` and nowhere else:
    relative, no ``..`` that climbs out, no symlinked directory that leads out."""
    if not path or "\0" in path or Path(path).is_absolute():
        return False
    resolved_root = root.resolve()
    return (resolved_root / path).resolve().is_relative_to(resolved_root)


def describe_denials(denials: list[dict[str, Any]], limit: int = 5) -> str:
    """``Bash: git push origin main; Write: /etc/passwd`` for the run log (bounded)."""
    shown = []
    for denial in denials[:limit]:
        tool = str(denial.get("tool_name", "?"))
        arguments = denial.get("tool_input")
        detail = ""
        if isinstance(arguments, dict):
            detail = str(arguments.get("command") or arguments.get("file_path")
                         or arguments.get("url") or "")
        shown.append(f"{tool}: {detail[:120]}" if detail else tool)
    more = f" (+{len(denials) - limit} more)" if len(denials) > limit else ""
    return "; ".join(shown) + more


def _result_record(result: AgentResult) -> dict[str, Any]:
    """What the in-flight record keeps of a finished session (not its raw transcript)."""
    return {"session_id": result.session_id, "num_turns": result.num_turns,
            "cost_usd": result.cost_usd, "duration_ms": result.duration_ms,
            "usage": dict(result.usage), "permission_denials": len(result.permission_denials),
            "backend": result.backend, "model": result.model, "cost_known": result.cost_known}


def _result_from_record(record: dict[str, Any], output: pydantic.BaseModel) -> AgentResult:
    return AgentResult(
        session_id=str(record.get("session_id", "")), output=output,
        num_turns=int(record.get("num_turns", 0)), cost_usd=float(record.get("cost_usd", 0.0)),
        duration_ms=int(record.get("duration_ms", 0)), usage=dict(record.get("usage", {})),
        permission_denials=[{}] * int(record.get("permission_denials", 0)),
        raw={"recovered": True}, backend=str(record.get("backend") or "claude"),
        model=record.get("model"), cost_known=bool(record.get("cost_known", True)))


def agent_call_event(where: dict[str, Any], result: AgentResult | None,
                     error: BackendError | None) -> Event:
    """The ``agent_call`` event of one session: its accounting, whether it succeeded."""
    raw: dict[str, Any] | None = result.raw if result is not None else (
        error.raw if isinstance(error, AgentRunError) else None)
    usage = usage_of(raw or {})
    denials = raw.get("permission_denials") if raw else None
    return event(
        "agent_call", **where, ok=error is None,
        backend=result.backend if result is not None else (raw or {}).get("backend"),
        model=result.model if result is not None else (raw or {}).get("model"),
        errorKind=error.kind if error else None, error=error.message[:2000] if error else None,
        numTurns=int(raw.get("num_turns") or 0) if raw else 0,
        # None: the backend reports no cost (codex), which is not the same as $0.
        costUsd=None if raw and "total_cost_usd" in raw and raw["total_cost_usd"] is None
        else usd(raw.get("total_cost_usd")) if raw else 0.0,
        durationMs=int(raw.get("duration_ms") or 0) if raw else 0,
        inputTokens=usage["input_tokens"], outputTokens=usage["output_tokens"],
        cacheReadInputTokens=usage["cache_read_input_tokens"],
        cacheCreationInputTokens=usage["cache_creation_input_tokens"],
        permissionDenials=len(denials) if isinstance(denials, list) else 0,
        result=raw)
