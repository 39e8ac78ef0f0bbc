"""The phase state machine: PLAN → RED → GREEN → REFACTOR → PLAN … → COMPLETE.

One phase, as data: the noted HEAD (its nextPhase says what runs) → a prompt → one
fresh agent session, sealed (rgr.sandbox.sealer: a scratch copy of the base in a sandbox), run
by the attempt kernel (rgr.loop.kernel) as every mode's attempts are →
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rgr.backends.base import AgentRequest, AgentResult, Backend
from rgr.base.config import TestCommand
from rgr.base.errors import NeedsAttention, PhaseFailed
from rgr.check import flaky, impact, report_store
from rgr.check.fakeit import blame as fake_blame
from rgr.check.fakeit import ledger as fakeit_ledger
from rgr.check.guards import (
    check_commits,
    check_scope,
    check_tests,
    edit_rules,
    first_run_skipped,
    hides_tests,
    line_naming,
    step_fails,
)
from rgr.check.mutation import gate as mutation_gate
from rgr.check.mutation.rule import blamed, decide
from rgr.check.mutation.score import lines as adequacy_lines
from rgr.check.mutation.verdicts import apply_claims, strengthen_brief, violations_of
from rgr.check.testlist import FILENAME as TEST_LIST
from rgr.check.testlist import TestList, parse_test_list
from rgr.check.verify import TestReport
from rgr.check.violation import Violation
from rgr.loop.kernel import (
    Accepted,
    Declined,
    Exhausted,
    Kernel,
    Messages,
    Moment,
    Naming,
    Starting,
    Stopped,
    Try,
    Verdict,
    Verified,
    Work,
    limit_note,
    needs_attention_note,
)
from rgr.loop.outputs import OUTPUT_MODELS, PhaseOutput, PlanOutput
from rgr.loop.prompting import build_prompt, where_it_stopped
from rgr.loop.retry import AttemptRejected
from rgr.loop.summaries import tests_summary
from rgr.observe.events import (
    NULL_OBSERVER,
    MutationGate,
    Observer,
    PhaseDone,
    PhaseStarted,
    TestRun,
    Where,
)
from rgr.observe.events import NeedsAttention as NeedsAttentionEvent
from rgr.observe.limits import LIMIT_ERROR_PREFIX, Limits
from rgr.sandbox.sealer import Sealer, Seat
from rgr.store import git
from rgr.store.agents import AgentSpec, agent_for, prompt_path
from rgr.store.handoff import (
    ACCEPTANCE_STOP,
    DEBT_OPEN,
    FOLLOWS,
    NEEDS_ATTENTION,
    AcceptanceNote,
    AdequacyNote,
    ErrorDetails,
    FakeItDebt,
    HandoffState,
    NoteUpdate,
    Phase,
    TestCase,
    TestResult,
)
from rgr.store.inflight import Inflight
from rgr.store.objects import Commit
from rgr.store.workspace import Workspace
from rgr.tdd.examine import Examiner

LEFTOVERS_PREFIX = "refs/rgr/leftovers/"
__all__ = ["LEFTOVERS_PREFIX", "Orchestrator"]

Report = Callable[[str], None]


@dataclass
class Orchestrator:
    ws: Workspace
    backend: Backend
    test_command: TestCommand
    report: Report
    #: How attempts are sealed and verified (rgr.sandbox.sealer).
    sealer: Sealer
    backoff_base_s: float = 1.0
    max_phases: int | None = None  # stop after this many phases (tests, --max-phases)
    #: Who watches the run (artifacts, console): see rgr.observe.events for what it is told.
    observer: Observer = NULL_OBSERVER
    #: Budget, cycle and time limits, asked before every attempt.
    limits: Limits | None = None
    _reports: dict[str, TestReport] = field(default_factory=dict)

    @property
    def kernel(self) -> Kernel:
        return Kernel(self.ws, self.backend, self.sealer, self.report, self.observer,
                      self.limits, self.backoff_base_s)

    @property
    def examiner(self) -> Examiner:
        return Examiner(self.ws, self.backend, self.sealer, self.test_command, self.report,
                        self.observer, self.kernel.request_limits)

    # ---------------------------------------------------------------- test runs --

    def tests_at_head(self) -> TestReport:
        return self.tests_at(git.head_commit(self.ws.repo))

    def baseline(self) -> TestReport:
        """The run's start: the suite at HEAD, where a run that only failed tests is run
        once more before the suite counts as red (rgr.check.flaky): a test that fails
        now and then must not stop a run before it starts. A test that failed, then
        passed, is named flaky in the start note; a red suite is red twice."""
        head = git.head_commit(self.ws.repo)
        first = self.tests_at(head)
        result = flaky.start_once_more(first, lambda: self._run_tests(head), self.report,
                                       noted=True)
        if result is not first:
            self.remember_report(head, result)
        return result

    def tests_at(self, commit: Commit, held_to: TestReport | None = None,
                 once_more: bool = False) -> TestReport:
        """The suite's report for ``commit``'s tree, run on a pristine checkout of it:
        run once, reused while the tree is unchanged (an empty refactor commit, a plan
        commit that only touched test-list.md).

        ``held_to``: the report an attempt's tree is judged against. A reused report is
        never the last word on a test that passed there and failed here: a retry that
        writes the same tree is run again, so a flaky test cannot reject every retry
        unrun. With ``once_more`` (the phases that must leave every test passing) a run
        that fails such a test is repeated at once, before it costs an attempt
        (rgr.check.flaky). Either way a test that failed, then passed, is noted flaky."""
        tree = str(commit.tree.id)
        cached = self._reports.get(tree)
        earlier = None
        if cached is not None:
            stale = flaky.newly_failing(held_to, cached) if held_to is not None else ()
            if not stale:
                return cached
            earlier = cached
            self.report("running tests again: " + ", ".join(stale[:5])
                        + " failed in this tree's last run but passed before it")
        result = self._run_tests(commit)
        fresh = flaky.newly_failing(held_to, result) \
            if earlier is None and once_more and held_to is not None else ()
        if fresh:
            self.report("running tests once more: " + ", ".join(fresh[:5])
                        + " passed before this attempt and failed now (a flaky test passes "
                        "when run again)")
            earlier, result = result, self._run_tests(commit)
        if earlier is not None:
            result = flaky.second_run(earlier, result)
            if result.flaky:
                self.report("flaky (failed, then passed when run again; noted): "
                            + ", ".join(result.flaky[:10]))
        self.remember_report(commit, result)
        return result

    def _run_tests(self, commit: Commit) -> TestReport:
        self.report(f"running tests: {' '.join(self.test_command.argv)}")
        result = self.sealer.run_tests(commit)
        self.report(f"tests: {result.passed} passed, {result.failed} failed, "
                    f"{result.errors} errors ({result.duration_s:.1f}s)")
        self.observer.emit(TestRun(
            command=list(result.argv), exit_code=result.exit_code,
            duration_s=round(result.duration_s, 3), passed=result.passed, failed=result.failed,
            errors=result.errors, skipped=result.skipped, timed_out=result.timed_out,
            output=result.output or result.output_excerpt))
        return result

    def remember_report(self, commit: Commit, report: TestReport) -> None:
        self._reports[str(commit.tree.id)] = report
        report_store.save(self.ws.git_dir, str(commit.tree.id), report)

    def reuse_recorded(self, commit: Commit) -> bool:
        """Take the report this run recorded for ``commit``'s tree as its test run, as
        one process does for a tree it has run (``tests_at``). A resumed run (a daemon
        runs each phase in a process of its own; `rgr resume` after a stop) starts at the
        commit its last phase verified: running that tree again cost every phase of a
        daemon job a second test run. Only a report of the same test command counts;
        anything else runs again."""
        recorded = report_store.load(self.ws.git_dir, str(commit.tree.id))
        if recorded is None or not report_store.made_by(recorded, self.test_command):
            return False
        self._reports[str(commit.tree.id)] = recorded
        self.report(f"tests at {str(commit.id)[:8]}: {recorded.passed} passed, "
                    f"{recorded.failed} failed, {recorded.errors} errors (as this run "
                    "recorded them for this tree; not run again)")
        return True

    def recorded_report(self, commit: Commit) -> TestReport | None:
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
        base = git.head_commit(self.ws.repo)
        work = TddPhase(self, prev, base, self.tests_at_head())
        started = time.monotonic()
        try:
            done = self.kernel.run(work)
        except Exhausted as out:
            self._record_exhausted(work, out)
            raise PhaseFailed(
                f"{work.phase} failed {out.attempts} time(s); the branch is back at "
                f"{str(base.id)[:8]}, the last verified commit. Last failure: {out.final}",
                "see `rgr history --all` for the rejected attempts, then `rgr resume` to try "
                f"again (raise {self.ws.config.setting('max_retries')} for more attempts)",
            ) from None
        except Declined as declined:
            raise self._needs_attention(work, declined) from None
        state = done.state
        self._stop_on_debt(work, done)
        self.observer.emit(PhaseDone(
            phase=str(work.phase), cycle=work.cycle, attempts=done.attempts,
            commit=str(git.head_commit(self.ws.repo).id),
            next_phase=str(state.next_phase) if state.next_phase else None,
            complete=state.phase == Phase.COMPLETE,
            duration_s=round(time.monotonic() - started, 3)))
        return state

    def judge_interrupted(self, prev: HandoffState, record: Inflight) -> HandoffState:
        """Judge the commits of an attempt whose rgr died before it could: by the same
        checks as any attempt. Raises AttemptRejected (the attempt is then kept and the
        branch back at its base) or returns the new, noted state."""
        base = git.resolve_commit(self.ws.repo, record.base)
        before = self.recorded_report(base)
        if before is None:
            # rgr records every report it makes; without one, the base's own tests say.
            raise AttemptRejected([Violation("interrupted", "no test report of the base "
                                             "was recorded; the attempt is redone")],
                                  "The previous attempt was interrupted.", backend_side=False)
        work = TddPhase(self, prev, base, before, phase=record.phase, cycle=record.cycle)
        try:
            done = self.kernel.judge_interrupted(work, record)
        except Declined as declined:
            raise self._needs_attention(work, declined) from None
        self._stop_on_debt(work, done)
        return done.state

    def _needs_attention(self, work: TddPhase, declined: Declined) -> NeedsAttention:
        """The agent took the honest way out: its reason on the last verified commit's
        note; the run stops for a person (no further attempt)."""
        needs_attention_note(self.ws, work, declined)
        kept = f"; its commits are kept at {declined.kept}" if declined.kept else ""
        examined = work.prev.acceptance
        sides = ""
        if examined is not None and examined.verdict in ("fail", "disputed"):
            # Both sides, for the person who decides: what the hidden tests say is missing
            # (in words) and what the feature asked.
            sides = (" The acceptance tests say these behaviours are missing: "
                     + "; ".join(t.behaviour + where_it_stopped(t) for t in examined.missing)
                     + f". The feature text: {work.prev.feature or '(not recorded)'}.")
        return NeedsAttention(
            f"{work.phase} (cycle {work.cycle}) needs attention: the agent says it cannot "
            f"be done honestly: {declined.reason}.{sides} The "
            f"branch is at {str(work.base.id)[:8]}, the last verified commit{kept}",
            "decide who is right. The agent is wrong: `rgr resume` tries the phase again, "
            "telling the agent the reason. An earlier phase's work is: `rgr rollback "
            "<commit>` to the handoff before it (`rgr history` lists them), then `rgr "
            "resume`. The feature is unclear: `rgr rollback` to the start marker and a new "
            "`rgr run` with a clearer description")

    def _stop_on_debt(self, work: TddPhase, done: Accepted) -> None:
        """The planner found nothing left to do, but fake-it debt is open (the note on
        its commit says which): a stop for a person, never COMPLETE."""
        state = done.state
        details = state.error_details
        if not state.needs_attention or details is None \
                or not details.message.startswith((DEBT_OPEN, ACCEPTANCE_STOP)):
            return
        reason = details.message
        self.observer.emit(NeedsAttentionEvent(
            where=Where(str(work.phase), work.cycle, done.attempts,
                        state.agent.session_id or "" if state.agent else ""),
            reason=reason, commit=str(done.tip.id)))
        if reason.startswith(ACCEPTANCE_STOP):
            raise NeedsAttention(
                f"the feature is not complete: {reason}",
                "decide who is right. The code is wrong: `rgr resume` asks the planner "
                f"again (add the behaviour to {TEST_LIST} to choose it). The examiner is "
                "wrong (its tests contradict the feature text): set `[acceptance] mode = "
                "\"report\"` in tdd.toml, commit it, and `rgr resume`")
        raise NeedsAttention(
            f"the feature is not complete: {reason}",
            "`rgr resume` asks the planner again, with the debt in its prompt; add a "
            f"test-list item that triangulates it (to {TEST_LIST}) if you want to choose it")

    def _record_exhausted(self, work: TddPhase, out: Exhausted) -> None:
        """Retries exhausted: the error goes on the last verified commit's note, whose
        nextPhase is unchanged, so `rgr resume` tries the same phase again."""
        final, attempts, phase = out.final, out.attempts, work.phase
        first = final.violations[0] if final.violations else Violation("unknown", str(final))
        state = work.prev.updated(
            error=f"{phase} failed after {attempts} attempt(s): {first}",
            error_details=ErrorDetails(type=first.rule, message=final.brief[:4000]),
            retry_count=attempts - 1,
        )
        self.ws.notes.write(str(work.base.id), state,
                            f"rgr: {phase} failed after {attempts} attempts")


class TddPhase(Work[AdequacyNote]):
    """One phase of the TDD loop, as the kernel's work: its prompt, its checks (commits,
    scope, then the tests or the plan's rules) and its note."""

    mode = "tdd"

    def __init__(self, orchestrator: Orchestrator, prev: HandoffState, base: Commit,
                 before: TestReport, phase: Phase | None = None,
                 cycle: int | None = None) -> None:
        self.o = orchestrator
        self.ws = orchestrator.ws
        self.prev = prev
        self.base = self.branch_at = base
        self.before = before
        self.phase = phase if phase is not None else prev.resume_phase
        self.cycle = cycle if cycle is not None else (
            prev.cycle_number + 1 if self.phase == Phase.PLAN else prev.cycle_number)
        self.spec: AgentSpec = agent_for(self.ws.config_root, self.phase)
        self.tries = self.ws.config.max_retries + 1
        self.first_brief = _resume_brief(prev)
        #: The survivors GREEN's attempts were rejected for as over-implemented.
        self._rejected_for: set[str] = set()
        #: A RED the mutation gate sent back: strengthen the cycle's test (no new one).
        self.strengthening = (self.phase == Phase.RED and prev.phase == Phase.GREEN
                              and prev.adequacy is not None
                              and prev.adequacy.decision == "test-too-weak")
        if self.strengthening:
            assert prev.adequacy is not None
            self.first_brief = "\n\n".join(filter(None, (strengthen_brief(prev.adequacy),
                                                          self.first_brief)))
        self.starts_cycle = self.phase == Phase.PLAN
        self.naming = Naming(f"{self.phase}-c{self.cycle}", f"cycle {self.cycle} {self.phase}",
                             str(self.phase), self.cycle)
        self.messages = Messages(None, f"rgr: {self.phase} verified (cycle {self.cycle})",
                                 rejected_note=f"rgr: rejected {self.phase} attempt")
        self.edit_rules = edit_rules(self.ws.config, self.phase)
        self.output_model = OUTPUT_MODELS[self.spec.output]

    def tell(self, moment: Moment) -> None:
        match moment:
            case Starting(number=1):
                self.o.report(f"cycle {self.cycle} {self.phase}: {self.spec.name} starts")
                current = self.prev.current_test
                self.o.observer.emit(PhaseStarted(
                    phase=str(self.phase), cycle=self.cycle, agent=self.spec.name,
                    current_test=(current.description
                                  if current and self.phase != Phase.PLAN else None)))
            case Starting(number=number):
                self.o.report(f"cycle {self.cycle} {self.phase}: retry {number - 1} of "
                              f"{self.ws.config.max_retries}")
            case Verified(done=done):
                state = done.state
                self.o.report(f"cycle {self.cycle} {self.phase}: verified and noted on "
                              f"{str(done.tip.id)[:8]}"
                              + (f" (next: {state.resume_phase})"
                                 if state.phase != Phase.COMPLETE else " (feature complete)"))
            case Stopped(error=error):
                # A failure no retry can fix: said on the last verified commit's note
                # (its nextPhase unchanged), so `rgr status` shows why the run stopped.
                stopped = self.prev.updated(
                    error=f"{self.phase} stopped: {error.message}",
                    error_details=ErrorDetails(type=f"agent-{error.kind}",
                                               message=(error.hint or error.message)[:4000]),
                )
                self.ws.notes.write(str(self.base.id), stopped,
                                    f"rgr: {self.phase} stopped ({error.kind})")

    def begin(self, seat: Seat, attempt: Try,
              on_event: Callable[[dict[str, Any]], None]) -> AgentRequest:
        prompt = build_prompt(
            self.ws.config_root, phase=self.phase, state=self.prev, cycle=self.cycle,
            branch=git.current_branch(self.ws.repo) or "", head=str(self.base.id),
            test_argv=self.o.test_command.argv,
            test_list=git.file_text(self.ws.repo, self.base.id, TEST_LIST),
            failure_brief=attempt.brief,
            impact=self._impact(),
        )
        timeout, budget = self.o.kernel.request_limits(self.ws.config.agent_timeout)
        spec = self.spec
        return AgentRequest(
            prompt=prompt, system_prompt_file=prompt_path(self.ws.config_root, spec.prompt),
            output_model=self.output_model, tools=tuple(spec.tools),
            allowed_tools=spec.permission_rules(self.o.test_command.argv),
            disallowed_tools=tuple(spec.disallowed_tools),
            max_turns=min(spec.max_turns, self.ws.config.max_turns),
            model=spec.model or self.ws.config.model, cwd=seat.cwd, timeout_s=timeout,
            session_id=attempt.session_id, env=seat.env, max_budget_usd=budget,
            on_event=on_event, launcher=seat.launcher, settings_file=seat.settings_file,
            backend=spec.backend or self.ws.config.backend)

    def _impact(self) -> str:
        """GREEN and REFACTOR: the existing tests that run the item's implementation
        file, from the coverage earlier mutation gates recorded (rgr.check.impact)."""
        test = self.prev.current_test
        if self.phase not in (Phase.GREEN, Phase.REFACTOR) or test is None:
            return ""
        return impact.hint(self.ws.git_dir, [test.impl_file or ""], self.before.outcomes)

    # -- judging ----------------------------------------------------------------------

    def judge(self, attempt: Try, result: AgentResult | None,
              tip: Commit) -> Verdict[AdequacyNote]:
        repo, base = self.ws.repo, self.base
        violations = check_commits(repo, base.id, tip.id, self.spec.commit_prefixes)
        if not violations:
            violations = check_scope(repo, self.ws.config, self.phase, base.id, tip.id)
        if violations or result is None:
            return Verdict(violations)
        if self.phase == Phase.PLAN:
            # The planner may only touch test-list.md (check_scope), so the suite's
            # result cannot have changed: no test run.
            self.o.remember_report(tip, self.before)
            return Verdict(self._check_plan(result, tip))
        # held to what the verdict compares with: RED's run, or the run before RED when
        # RED's compile error hid the existing tests (Java, Go, Rust)
        before, red_report = (self.before, None) if self.strengthening \
            else self._before_tests()
        after = self.o.tests_at(tip, held_to=before, once_more=self.strengthening
                                or self.phase in (Phase.GREEN, Phase.REFACTOR))
        if self.strengthening:
            return self._judge_strengthened(result, tip, after)
        violations = check_tests(self.phase, before, after, red_report=red_report,
                                 read=lambda path: git.file_text(repo, tip.id, path))
        if self.phase == Phase.GREEN and violations \
                and all(v.rule == "red-skipped" for v in violations):
            return Verdict([], after, self._skipped_by_red(violations, before, after))
        if violations or self.phase not in (Phase.GREEN, Phase.REFACTOR):
            return Verdict(violations, after)
        if self.ws.config.adequacy.mode == "off":
            return Verdict(step_fails(after), after)
        adequacy = self._blame_again(self._mutation_gate(self.base, tip, after), tip, after)
        adequacy = self._fakes_first(adequacy, tip)
        self._say_blame(adequacy)
        # a step of the command that is not a test (c8's threshold) failed with every
        # test passing: the gate's per-test evidence speaks first, then the step
        return Verdict(violations_of(adequacy) or step_fails(after), after, adequacy)

    def _skipped_by_red(self, skipped: list[Violation], before: TestReport,
                        after: TestReport) -> AdequacyNote:
        """RED's new tests first ran in GREEN's run, skipped there (``red-skipped``: their
        file did not load in RED's). That is RED's to fix, and GREEN, who may not edit a
        test, cannot: as for a survivor on a line a test runs, GREEN's commit stays and
        the cycle goes back to RED, told each test at its line. No mutant is run (a
        skipped test pins nothing); the strengthening RED's judge measures GREEN's code
        once the tests run."""
        where = "; ".join(f"{v.path}:{v.line}" if v.path and v.line else (v.path or "?")
                          for v in skipped)
        ids = first_run_skipped(before, after)
        self.o.report(f"cycle {self.cycle} {self.phase}: red-skipped, blamed on RED: "
                      f"{len(ids)} new test(s) of RED's first ran here and the runner "
                      f"reports them skipped ({where}); GREEN cannot un-skip a test: back "
                      "to RED")
        return AdequacyNote(
            phase=str(self.phase), mode=self.ws.config.adequacy.mode,
            decision="test-too-weak", skipped_tests=ids,
            remark=f"RED's new test(s) skipped in GREEN's run, at {where}: "
                   + ", ".join(ids) + "; back to RED to make them run (no mutant run: a "
                   "skipped test pins nothing)")

    def _say_blame(self, note: AdequacyNote) -> None:
        """A survivor on a line a test runs is RED's gap: said with the rule, the phase
        blamed and each mutant (and the input that tells it apart, where one was
        found), as the run goes back to RED."""
        if note.decision != "test-too-weak":
            return
        named = [m.describe() + (f" (told apart by {m.telling_input})"
                                 if m.telling_input else "") for m in note.survivors[:3]]
        more = f"; and {len(note.survivors) - 3} more" if len(note.survivors) > 3 else ""
        self.o.report(f"cycle {self.cycle} {self.phase}: test-too-weak, blamed on RED: a "
                      "test runs each survivor's line yet passes with it changed, so the "
                      "tests do not check its effect; back to RED: " + "; ".join(named)
                      + more)

    def _blame_again(self, note: AdequacyNote, tip: Commit, run: TestReport) -> AdequacyNote:
        """GREEN rejected as over-implemented for a survivor an earlier attempt of this
        phase was rejected for too: before a third paid attempt, the blame is examined
        again (rgr.check.mutation.gate.reexamine: the line probed with every test). A
        line a test runs is RED's gap: the cycle goes back to RED instead."""
        if self.phase != Phase.GREEN or note.decision != "over-implemented":
            return note
        named = {m.describe() for m in note.survivors if m.status == "uncovered"}
        repeated = named & self._rejected_for
        self._rejected_for |= named
        if not repeated:
            return note
        subject = mutation_gate.subject_of(self.ws.repo, self.ws.config, str(self.phase),
                                           self.base, tip)
        again = mutation_gate.reexamine(
            subject, note, repeated, self.ws.config.adequacy, self.o.test_command,
            lambda label: self.o.sealer.checkout(tip, label),
            self.ws.config.command_timeout, run)
        self.o.report(f"cycle {self.cycle} {self.phase}: rejected twice for "
                      f"{len(repeated)} survivor(s); blame examined again: "
                      + adequacy_lines(again.model_dump(mode="json", by_alias=True))[0])
        return again

    def _fakes_first(self, note: AdequacyNote, tip: Commit) -> AdequacyNote:
        """GREEN's survivors that all lie in its fake-it special cases are the fake's,
        not RED's gap (rgr.check.fakeit.blame): the debt the ledger notes is what GREEN
        owes, and RED is not sent back."""
        if self.phase != Phase.GREEN or note.decision != "test-too-weak":
            return note
        sources = {m.path: git.file_text(self.ws.repo, tip.id, m.path) or ""
                   for m in note.survivors}
        lifted = fake_blame.survivors_of_fakes(note, self._debt(tip), sources)
        if lifted is not note:
            self.o.report(f"cycle {self.cycle} {self.phase}: {lifted.remark}")
        return lifted

    def _before_tests(self) -> tuple[TestReport, TestReport | None]:
        """What GREEN's run is held against: RED's report, or, when RED's compile error
        hid tests (a test of code not written yet hides its Go package or Rust target),
        the report before RED, so that no test that existed then can vanish unseen; then
        also RED's report (the tests that ran in it)."""
        if self.phase != Phase.GREEN or not hides_tests(self.before) \
                or not self.prev.base_commit:
            return self.before, None
        return (self.o.tests_at(git.resolve_commit(self.ws.repo, self.prev.base_commit)),
                self.before)

    def _mutation_gate(self, since: Commit, tip: Commit, run: TestReport) -> AdequacyNote:
        """rgr.check.mutation on the non-test lines ``since..tip`` changed (``run``: the
        phase's own passing test run of ``tip``, the mutants' time yardstick)."""
        subject = mutation_gate.subject_of(self.ws.repo, self.ws.config, str(self.phase),
                                           since, tip)
        note = mutation_gate.measure(
            subject, self.ws.config.adequacy, self.o.test_command,
            lambda label: self.o.sealer.checkout(tip, label), self.ws.git_dir,
            self.ws.config.command_timeout, baseline_s=run.duration_s, baseline=run)
        self.o.report(f"cycle {self.cycle} {self.phase}: mutation gate: "
                      + adequacy_lines(note.model_dump(mode="json", by_alias=True))[0])
        self.o.observer.emit(MutationGate(
            phase=str(self.phase), cycle=self.cycle, tried=note.tried, killed=note.killed,
            survived=note.survived, uncovered=note.uncovered, not_run=note.not_run,
            decision=note.decision, duration_s=note.duration_s,
            blamed=blamed(note)))
        return note

    def _judge_strengthened(self, result: AgentResult, tip: Commit,
                            after: TestReport) -> Verdict[AdequacyNote]:
        """A RED sent back by the mutation gate: only tests changed (check_scope), every
        test passes, and the cycle's code, mutated again, no longer survives (or the
        survivor is claimed equivalent, with a reason the note keeps)."""
        violations = check_tests(Phase.REFACTOR, self.before, after) + self._still_skipped(
            tip, after)
        if violations:
            return Verdict(violations, after)
        green_base = git.resolve_commit(self.ws.repo, self.prev.base_commit or
                                        str(self.base.parents[0].id))
        note = self._mutation_gate(green_base, tip, after)
        output = result.output
        claims = [(c.mutant, c.reason) for c in output.equivalent_mutants] \
            if isinstance(output, PhaseOutput) else []
        note, refused = apply_claims(note, claims)
        note = note.updated(decision=decide(note))
        return Verdict(refused + (violations_of(note) or step_fails(after)), after, note)

    def _still_skipped(self, tip: Commit, after: TestReport) -> list[Violation]:
        """A RED sent back for its tests skipped in GREEN's run: each must run now."""
        assert self.prev.adequacy is not None
        return [Violation("red-skipped", f"{i} is still skipped: make it run (remove what "
                          "skips it); a skipped test checks nothing", outcome.file,
                          line_naming(lambda path: git.file_text(self.ws.repo, tip.id, path),
                                      outcome.file, i))
                for i in self.prev.adequacy.skipped_tests
                if (outcome := after.outcomes.get(i)) is not None
                and outcome.status == "skipped"]

    def _check_plan(self, result: AgentResult, head: Commit) -> list[Violation]:
        output = result.output
        assert isinstance(output, PlanOutput)
        prev = self.prev
        tests = parse_test_list(git.file_text(self.ws.repo, head.id, TEST_LIST))
        before = parse_test_list(git.file_text(self.ws.repo, self.base.id, TEST_LIST))
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

    # -- outcomes ---------------------------------------------------------------------

    def accepted_note(self, attempt: Try, result: AgentResult | None, tip: Commit,
                      verdict: Verdict[AdequacyNote]) -> NoteUpdate:
        assert result is not None
        tests = verdict.tests or self.before
        listing = parse_test_list(git.file_text(self.ws.repo, tip.id, TEST_LIST))
        current = self.prev.current_test
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
        adequacy = verdict.evidence
        if done and self.prev.open_debt:
            return self._unpaid(listing, tests)
        acceptance = self.prev.acceptance
        if done and self.ws.config.acceptance.mode != "off":
            acceptance = self.o.examiner.examine(self._examined_from(), tip, self.cycle)
            self._say_examined(acceptance)
            stop = self._not_accepted(acceptance, listing, tests)
            if stop is not None:
                return stop
        following = None if done else FOLLOWS[self.phase]
        if adequacy is not None and adequacy.decision == "test-too-weak":
            following = Phase.RED  # back to RED: the cycle's test must pin GREEN's code
        elif self.strengthening:
            following = Phase.REFACTOR  # GREEN's code is already there and pinned now
        return {
            "phase": Phase.COMPLETE if done else self.phase,
            "next_phase": following,
            "adequacy": adequacy,
            "cycle_number": self.cycle,
            "current_test": current,
            "completed_tests": list(listing.done),
            "pending_tests": list(listing.pending),
            "test_result": test_result(self.phase, tests),
            "tests": tests_summary(tests),
            "summary": summary,
            "fake_it_debt": self._debt(tip),
            "acceptance": acceptance,
        }

    def _examined_from(self) -> HandoffState:
        """The state an examination counts its rounds from: after a stop for a person
        (resumed since), the rounds start again."""
        prev = self.prev
        if prev.acceptance is not None and prev.needs_attention and prev.error_details \
                and prev.error_details.message.startswith(ACCEPTANCE_STOP):
            return prev.updated(acceptance=prev.acceptance.updated(round=0))
        return prev

    def _say_examined(self, note: AcceptanceNote) -> None:
        passed = sum(1 for t in note.tests if t.outcome == "passed")
        cost = f"${note.cost_usd:.4f}" if note.cost_usd is not None else "not reported"
        self.o.report(f"acceptance ({note.mode}): {note.verdict}: {passed} of "
                      f"{len(note.tests)} acceptance test(s) passed (round {note.round}; "
                      f"examiner cost so far {cost})"
                      + (f": {note.reason}" if note.reason else ""))

    def _not_accepted(self, note: AcceptanceNote, listing: TestList,
                      tests: TestReport) -> NoteUpdate | None:
        """What the plan commit's note says when the examination does not let the run
        complete (None: it does). A missing behaviour goes back to PLAN, in words; a
        behaviour still missing after ``[acceptance] rounds`` examinations, or an
        examination that could not judge, stops the run for a person."""
        if note.verdict == "pass" or note.mode == "report":
            return None
        feature = self.prev.feature or "(not recorded)"
        missing = "; ".join(t.behaviour + where_it_stopped(t) for t in note.missing)
        common: NoteUpdate = {"phase": Phase.PLAN, "next_phase": Phase.PLAN,
                  "cycle_number": self.prev.cycle_number, "current_test": None,
                  "completed_tests": list(listing.done), "pending_tests": list(listing.pending),
                  "test_result": None, "tests": tests_summary(tests)}
        if note.verdict == "fail" and note.round < self.ws.config.acceptance.rounds:
            return {**common, "acceptance": note,
                    "summary": f"feature not complete: the acceptance tests found "
                               f"{len(note.missing)} behaviour(s) missing: {missing}"}
        if note.verdict == "fail":
            note = note.updated(verdict="disputed", reason=(
                f"still missing after {note.round} examination(s): {missing}"))
            reason = (f"{ACCEPTANCE_STOP}after {note.round} examination(s) these behaviours "
                      f"are still missing: {missing}. The feature text: {feature}")
        else:
            reason = (f"{ACCEPTANCE_STOP}the examination could not judge ({note.verdict}): "
                      f"{note.reason}. The feature text: {feature}")
        return {**common, "acceptance": note,
                "summary": "feature not complete: the acceptance tests stop the run",
                "error": f"PLAN needs attention: {reason}"[:4000],
                "error_details": ErrorDetails(type=NEEDS_ATTENTION, message=reason[:4000])}

    def _debt(self, tip: Commit) -> list[FakeItDebt]:
        """GREEN and REFACTOR: the fake-it ledger after this phase (rgr.check.fakeit):
        new special cases noted as open debt (never a rejection: faking it is a step),
        open debt settled when a test with other values now passes without it."""
        if self.phase not in (Phase.GREEN, Phase.REFACTOR) or self.strengthening:
            return list(self.prev.fake_it_debt)
        since = self.base
        if self.phase == Phase.GREEN and self.prev.base_commit \
                and self.prev.base_commit in self.ws.repo:
            since = git.resolve_commit(self.ws.repo, self.prev.base_commit)
        return fakeit_ledger.account(
            self.ws.repo, self.ws.config, self.prev.fake_it_debt, since, self.base, tip,
            f"{self.phase} cycle {self.cycle} ({str(tip.id)[:8]})")

    def _unpaid(self, listing: TestList, tests: TestReport) -> NoteUpdate:
        """The planner says the feature is done while fake-it debt is open: the run
        never completes on it. Its plan commit is kept (verified) with a needs-attention
        error naming the debt and what pays it; `rgr resume` plans again."""
        debt = self.prev.open_debt
        reason = DEBT_OPEN + "; ".join(
            f"{d.describe()}: pay it with {d.payment()}" for d in debt)
        return {
            "phase": Phase.PLAN, "next_phase": Phase.PLAN,
            "cycle_number": self.prev.cycle_number, "current_test": None,
            "completed_tests": list(listing.done), "pending_tests": list(listing.pending),
            "test_result": None, "tests": tests_summary(tests),
            "summary": "feature not complete: fake-it debt is open",
            "error": f"PLAN needs attention: {reason}",
            "error_details": ErrorDetails(type=NEEDS_ATTENTION, message=reason),
        }

    def rejected_note(self, attempt: Try, verdict: Verdict[AdequacyNote],
                      kept: str) -> NoteUpdate:
        return {"phase": self.phase, "next_phase": self.phase, "cycle_number": self.cycle,
                "adequacy": verdict.evidence}

    def limit_reached(self, message: str, limit: str) -> str:
        limit_note(self.ws, self, message, limit)
        return f"`rgr resume` continues with {self.phase} (pass a higher --{limit}, or none)"


def _resume_brief(prev: HandoffState) -> str | None:
    """What the last (failed) run of this phase said, for the next prompt; None when the
    phase has no failure to learn from (none, or a limit stopped the run before it)."""
    if not prev.error or (prev.error_details is not None
                          and prev.error_details.type.startswith(LIMIT_ERROR_PREFIX)):
        return None
    if prev.error_details is not None and prev.error_details.type == NEEDS_ATTENTION \
            and prev.error_details.message.startswith(DEBT_OPEN):
        return ("The last run stopped before completing: the test list was all done but "
                "fake-it debt was open (see above). Plan a test that pays it.")
    if prev.error_details is not None and prev.error_details.type == NEEDS_ATTENTION \
            and prev.error_details.message.startswith(ACCEPTANCE_STOP):
        return ("The last run stopped before completing: acceptance tests you cannot see "
                "found behaviours of the feature missing (see above). A person has resumed "
                "the run since. Plan items for them, or, if they contradict the feature "
                "text, say so with cannotBeDoneHonestly.")
    if prev.error_details is not None and \
            prev.error_details.type == NEEDS_ATTENTION:
        return ("The last run of this phase stopped: its agent said the task cannot be "
                "done honestly, because: " + prev.error_details.message[:3000] + "\nA "
                "person has resumed the run since (and may have changed the test list, the "
                "tests or the code). If the task still cannot be done honestly, say so "
                "again; never weaken or skip a test to get past it.")
    details = prev.error_details.message if prev.error_details else prev.error or ""
    return ("The last run of this phase failed and was rolled back. What went wrong:\n"
            + details[:3000])


def test_result(phase: Phase, tests: TestReport) -> TestResult | None:
    if phase == Phase.RED and tests.all_passed and tests.outcomes:
        return TestResult.PASS  # a RED that strengthened a test on code already green
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
