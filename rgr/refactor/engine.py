"""The refactor loop: baseline gate → planner (validated, re-asked with error codes) →
one batch at a time → checks → gate → note; every session is sealed by the attempt
kernel (rgr.sandbox.sealer) exactly as in TDD mode: the planner and the patchers work in
scratch copies inside the sandbox, a batch's commits are imported, the gate runs on a
pristine checkout of them, and the branch moves only once the batch is noted. A
rejected attempt is kept under ``refs/rgr/attempts/...`` and a fresh patcher session
retries with the failure brief; then a summary commit and CHANGELOG entry.

State lives where TDD mode keeps it: a JSON note per verified commit under the handoff
ref, with ``mode: "refactor"``, the batch it applied and the whole validated plan with
its progress (``refactor.nextBatch``), so the newest note alone is enough to resume.
"""

from __future__ import annotations

import json
import shlex
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rgr.backends.base import AgentRequest, AgentResult, Backend
from rgr.base.config import TestCommand
from rgr.base.errors import BackendError, NeedsAttention, PhaseFailed, RgrError
from rgr.check.gate import GateResult, Level, check_gate, gate_argvs, run_gate
from rgr.check.guards import edit_rules
from rgr.check.verify import TestReport
from rgr.check.violation import Violation
from rgr.loop.kernel import (
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
from rgr.loop.outputs import PhaseOutput
from rgr.loop.retry import AttemptRejected, is_fatal
from rgr.loop.sessions import agent_call_event
from rgr.observe.events import NULL_OBSERVER, Observer, Where
from rgr.observe.limits import LimitReached, Limits
from rgr.refactor.checks import check_batch_commits, commit_prefix
from rgr.refactor.index import build_index, context_packet, overview
from rgr.refactor.plan import (
    OPERATIONS,
    Batch,
    RefactorPlanOutput,
    revision_brief,
    scope_files,
    validate_plan,
)
from rgr.refactor.rename import RenameFailed, rope_rename
from rgr.sandbox.sealer import Sealer, Seat
from rgr.store import git, scratch
from rgr.store.agents import AgentSpec, load_agent, prompt_path
from rgr.store.handoff import (
    BatchNote,
    ErrorDetails,
    HandoffState,
    NoteUpdate,
    Phase,
    TestResult,
    now_utc,
)
from rgr.store.inflight import Inflight
from rgr.store.objects import Commit, Oid, Repository
from rgr.store.workspace import Workspace

PLANNER = "refactor-planner"
PATCHER = "patcher"
#: Seed 004: the planner gets the validator's error codes back at most this many times.
MAX_PLAN_ATTEMPTS = 3
GATE_PLACEHOLDER = "{gate_commands}"

Report = Callable[[str], None]


class PlanRejected(RgrError):
    """The planner's plans kept failing validation."""

    category = "phase"


@dataclass
class RefactorEngine:
    ws: Workspace
    backend: Backend
    test_command: TestCommand
    report: Report
    #: How sessions are sealed and batches verified (rgr.sandbox.sealer). None only for
    #: ``rgr verify``, which runs the gate on the working tree as it is and no agent.
    sealer: Sealer | None = None
    backoff_base_s: float = 1.0
    max_batches: int | None = None  # stop (resumably) after this many batches
    #: Who watches (the limits count the sessions' cost from its agent_call events).
    observer: Observer = NULL_OBSERVER
    #: Budget and time limits (--max-budget-usd, --max-minutes), asked before every
    #: session, the planner's included.
    limits: Limits | None = None
    _gates: dict[tuple[str, str], GateResult] = field(default_factory=dict)

    # ------------------------------------------------------------------ the gate --

    def gate(self, level: Level, commit: Commit | None = None) -> GateResult:
        """The gate on ``commit``'s tree (HEAD's by default), on a pristine checkout,
        run once per tree and level."""
        commit = commit or git.head_commit(self.ws.repo)
        tree = str(commit.tree.id)
        key = (tree, level)
        cached = self._gates.get(key) or (self._gates.get((tree, "full")) if level == "fast"
                                          else None)
        if cached is not None:
            return cached
        labels = [shlex.join(self.test_command.argv),
                  *(shlex.join(a) for a in gate_argvs(self.ws.config, level))]
        self.report(f"{level} gate: {' && '.join(labels)}")
        result = (self.sealer.run_gate(commit, level) if self.sealer is not None
                  else run_gate(self.ws.config, self.test_command, self.ws.root, level,
                                self.ws.env))
        tests = result.tests
        failed = result.failed_command
        self.report(f"{level} gate: {tests.passed} passed, {tests.failed} failed, "
                    f"{tests.errors} errors ({tests.duration_s:.1f}s)"
                    + (f"; `{failed.command}` failed" if failed else "")
                    + ("" if result.ok else " — FAIL"))
        self._gates[key] = result
        return result

    def remember_gate(self, commit: Commit, result: GateResult) -> None:
        """A gate already run on ``commit`` (the baseline): not run again."""
        self._gates[(str(commit.tree.id), result.level)] = result

    @property
    def _sealer(self) -> Sealer:
        if self.sealer is None:
            raise AssertionError("a refactor run needs a sealer (rgr.sandbox.sealer)")
        return self.sealer

    # ------------------------------------------------------------------ planning --

    def make_plan(self, goal: str) -> RefactorPlanOutput:
        spec = load_agent(self.ws.config_root, PLANNER)
        base = git.head_commit(self.ws.repo)
        index = build_index(self.ws.repo, base.id)
        brief: str | None = None
        last_failure = ""
        for attempt in range(1, MAX_PLAN_ATTEMPTS + 1):
            self._planner_limits()
            session_id = str(uuid.uuid4())
            self.report(f"plan: planner session {session_id[:8]} (attempt {attempt} of "
                        f"{MAX_PLAN_ATTEMPTS})")
            prompt = self._planner_prompt(goal, index_text=overview(index), brief=brief)
            where = Where("refactor plan", 0, attempt, session_id)
            try:
                # The planner's answer is all that counts: its copy, commits and all,
                # is dropped when the session ends.
                with self._sealer.seat(base, f"plan-a{attempt}") as seat:
                    result = self.backend.run(self.session_request(
                        spec, RefactorPlanOutput, prompt, session_id, gate_rules=False,
                        seat=seat))
                self.observer.emit(agent_call_event(where, result, None))
            except BackendError as exc:
                self.observer.emit(agent_call_event(where, None, exc))
                if is_fatal(exc):
                    raise
                brief = f"Your previous session failed ({exc.kind}): {exc.message[:500]}. " \
                        "Answer with the StructuredOutput tool."
                self.report(f"plan: attempt {attempt} failed: {exc.kind}")
                last_failure = f"the planner session failed: {exc.kind}: {exc.message[:300]}"
                continue
            plan = result.output
            assert isinstance(plan, RefactorPlanOutput)
            # issue 15: the project's test globs, as the batch checks use them
            errors = validate_plan(plan, index, self.ws.config.refactor,
                                   self.ws.config.is_test_file)
            if not errors:
                self.report(f"plan: {len(plan.batches)} batch(es) validated")
                return plan
            self.report("plan: rejected by the validator: "
                        + "; ".join(str(e) for e in errors[:4])
                        + (f" (+{len(errors) - 4} more)" if len(errors) > 4 else ""))
            last_failure = "last errors: " + "; ".join(str(e) for e in errors[:6])
            brief = revision_brief(errors) + "\n\nYour previous answer:\n" + \
                json.dumps(plan.model_dump(mode="json"))[:4000]
        raise PlanRejected(
            f"no valid plan after {MAX_PLAN_ATTEMPTS} planner sessions; {last_failure}",
            "make the goal narrower or more concrete (which files, which operations), or "
            "raise the caps in [refactor] of tdd.toml, then run again")

    def _planner_limits(self) -> None:
        hit = self.limits.before_attempt(starts_cycle=False) if self.limits else None
        if hit is not None:
            raise LimitReached(
                hit.limit, f"refactor stopped before the next agent session: {hit.message}",
                f"`rgr resume` continues from the last verified batch (pass a higher "
                f"--{hit.limit}, or none)")

    def _planner_prompt(self, goal: str, index_text: str, brief: str | None) -> str:
        caps = self.ws.config.refactor
        parts = [
            f"Refactoring goal:\n{goal}",
            "Constraints rgr enforces on your plan:\n"
            f"- at most {caps.max_batches} batches; diff_budget_loc between 1 and "
            f"{caps.max_diff_lines}\n"
            f"- allowed_operations from: {', '.join(OPERATIONS)}\n"
            "- batches ordered by risk: format, imports/dead-code, rename/extract/inline/"
            "move/dedupe/simplify, tests, restructure, api\n"
            "- every scope glob must match at least one file (globs are anchored at the "
            "repository root; '**/' matches any directory)\n"
            + ("- scopes of different batches must not overlap\n" if not caps.allow_overlap
               else ""),
            "Repository index (at HEAD):\n" + index_text,
        ]
        if brief:
            parts.append(brief)
        return "\n\n".join(parts)

    # -------------------------------------------------------------- the batches --

    def loop(self, state: HandoffState) -> HandoffState:
        ran = 0
        progress = state.refactor
        assert progress is not None
        while progress.next_batch < len(progress.plan):
            if self.max_batches is not None and ran >= self.max_batches:
                self.report(f"stopping after {ran} batch(es) as asked; `rgr resume` goes on")
                return state
            state = self.run_batch(state)
            progress = state.refactor
            assert progress is not None
            ran += 1
        if state.phase != Phase.COMPLETE:
            state = self.finish(state)
        return state

    def level(self, batch: Batch, index: int, total: int) -> Level:
        every = self.ws.config.gate.full_every
        if batch.verifier_level == "full" or (index + 1) % every == 0 or index == total - 1:
            return "full"
        return "fast"

    def run_batch(self, prev: HandoffState) -> HandoffState:
        progress = prev.refactor
        assert progress is not None
        index = progress.next_batch
        total = len(progress.plan)
        batch = Batch.model_validate(progress.plan[index])
        work = RefactorBatch(self, prev, batch, index, total, git.head_commit(self.ws.repo),
                             self.gate("fast").tests)
        self.report(f"batch {index + 1}/{total} {batch.id}: {batch.goal} "
                    f"({', '.join(batch.allowed_operations)}; {work.level} gate)")
        try:
            return self.kernel.run(work).state
        except Exhausted as out:
            return self._batch_failed(prev, batch, index, total, work.base, out.attempts,
                                      out.final)
        except Declined as declined:
            raise self._needs_attention(work, declined) from None

    def settle_interrupted(self, prev: HandoffState, record: Inflight) -> HandoffState:
        """Judge the batch attempt a killed rgr left in flight, as it would have been
        judged; a rejection (kept with its note) leaves the batch to run again."""
        progress = prev.refactor
        assert progress is not None
        index = progress.next_batch
        batch = Batch.model_validate(progress.plan[index])
        base = git.resolve_commit(self.ws.repo, record.base)
        work = RefactorBatch(self, prev, batch, index, len(progress.plan), base,
                             self.gate("fast", base).tests)
        self.report(f"judging the {batch.id} attempt that was running when rgr stopped")
        try:
            return self.kernel.judge_interrupted(work, record).state
        except Declined as declined:
            raise self._needs_attention(work, declined) from None
        except AttemptRejected as rejected:
            return prev.updated(error=str(rejected), error_details=ErrorDetails(
                type=rejected.violations[0].rule, message=rejected.brief[:4000]))

    @property
    def kernel(self) -> Kernel:
        return Kernel(self.ws, self.backend, self._sealer, self.report, self.observer,
                      self.limits, self.backoff_base_s)

    def batch_note(self, batch: Batch, index: int, total: int, status: str, lines: int,
                    gate: GateResult | None) -> BatchNote:
        return BatchNote.model_validate({
            "id": batch.id, "goal": batch.goal, "index": index, "total": total,
            "operations": batch.allowed_operations, "scope": batch.scope_globs,
            "status": status, "diff_lines": lines,
            "gate": gate.level if gate else None,
            "gate_commands": gate.command_labels() if gate else [],
            "by": "rope" if batch.is_rename else "agent"})

    def patcher_prompt(self, batch: Batch, index: int, total: int, base: Commit,
                        brief: str | None) -> str:
        repo_index = build_index(self.ws.repo, base.id)
        files = scope_files(batch, sorted(repo_index.files))
        commands = [shlex.join(self.test_command.argv),
                    *(shlex.join(a) for a in gate_argvs(self.ws.config, "full"))]
        parts = [
            f"Batch {index + 1} of {total}: {batch.id}",
            f"Goal: {batch.goal}",
            f"Allowed operations: {', '.join(batch.allowed_operations)}",
            "Scope (you may change only files matching these globs): "
            + ", ".join(batch.scope_globs),
            f"Files in scope: {', '.join(files)}",
            f"Diff budget: at most {batch.diff_budget_loc} changed lines (added + deleted).",
            "Public API: " + ("may change (operation 'api')." if batch.allows_api else
                              "must stay the same: same public names and signatures."),
            "Test files: " + ("may change (operation 'tests'); no test may be removed."
                              if batch.allows_tests else "must not change."),
            f"Commit with: git add <files> && git commit -m \"{commit_prefix(batch)} "
            f"{batch.goal}\"",
            "Gate commands you may run: " + "; ".join(commands),
        ]
        if batch.notes:
            parts.append(f"Planner's notes: {batch.notes}")
        parts.append("Context (signatures and excerpts at the batch's base):\n"
                     + context_packet(self.ws.repo, repo_index, files))
        if brief:
            parts.append(brief)
        return "\n\n".join(parts)

    def rope(self, batch: Batch, base: Commit, seat: Seat) -> list[Violation]:
        """A rename batch: rope (a library, not a model) renames in the attempt's scratch
        copy and rgr commits the result there, to be imported like an agent's work."""
        assert batch.rename is not None
        spec_r = batch.rename
        try:
            tracked = [e.path for e in build_index(self.ws.repo, base.id).python_files()]
            changed = rope_rename(seat.cwd, spec_r, tracked)
        except RenameFailed as exc:
            return [Violation("rename-failed", exc.message)]
        self.report(f"{batch.id}: rope renamed {spec_r.symbol} -> {spec_r.new_name} "
                    f"in {len(changed)} file(s)")
        if changed:
            scratch.commit_files(seat.scratch, changed,
                                 f"{commit_prefix(batch)} {batch.goal}\n\nrope: rename "
                                 f"{spec_r.path}::{spec_r.symbol} -> {spec_r.new_name}\n",
                                 git.signature(self.ws.repo))
        return []

    def session_request(self, spec: AgentSpec,
                        output: type[RefactorPlanOutput] | type[PhaseOutput], prompt: str,
                        session_id: str, gate_rules: bool, seat: Seat,
                        on_event: Callable[[dict[str, Any]], None] | None = None
                        ) -> AgentRequest:
        timeout, budget = self.kernel.request_limits(self.ws.config.agent_timeout)
        rules = list(spec.permission_rules(self.test_command.argv))
        if GATE_PLACEHOLDER in rules:
            at = rules.index(GATE_PLACEHOLDER)
            gate = [f"Bash({shlex.join(a)}:*)" for a in gate_argvs(self.ws.config, "full")] \
                if gate_rules else []
            rules[at:at + 1] = gate
        return AgentRequest(
            prompt=prompt, system_prompt_file=prompt_path(self.ws.config_root, spec.prompt),
            output_model=output, tools=tuple(spec.tools), allowed_tools=tuple(rules),
            disallowed_tools=tuple(spec.disallowed_tools),
            max_turns=min(spec.max_turns, self.ws.config.max_turns),
            model=spec.model or self.ws.config.model, cwd=seat.cwd,
            timeout_s=timeout, session_id=session_id, env=seat.env, max_budget_usd=budget,
            launcher=seat.launcher, settings_file=seat.settings_file,
            backend=spec.backend or self.ws.config.backend, on_event=on_event)

    # ------------------------------------------------------------ failures --

    def _needs_attention(self, work: RefactorBatch, declined: Declined) -> NeedsAttention:
        """The patcher took the honest way out: the batch is neither retried nor skipped
        (on_failure does not apply: a person decides); its reason on the base's note."""
        needs_attention_note(self.ws, work, declined)
        return NeedsAttention(
            f"batch {work.batch.id} needs attention: the agent says it cannot be done "
            f"honestly: {declined.reason}. The branch is "
            f"at {str(work.base.id)[:8]}, the last verified commit",
            "change the code or the goal as needed and commit, then `rgr resume` tries the "
            "batch again; or `rgr rollback`")

    def _batch_failed(self, prev: HandoffState, batch: Batch, index: int, total: int,
                      base: Commit, attempts: int,
                      final: AttemptRejected) -> HandoffState:
        progress = prev.refactor
        assert progress is not None
        first = final.violations[0] if final.violations else Violation("unknown", str(final))
        error = f"batch {batch.id} failed after {attempts} attempt(s): {first}"
        if self.ws.config.refactor.on_failure == "stop":
            state = prev.updated(
                error=error, retry_count=attempts - 1,
                error_details=ErrorDetails(type=first.rule, message=final.brief[:4000]))
            self.ws.notes.write(str(base.id), state, f"rgr: batch {batch.id} failed")
            raise PhaseFailed(
                f"{error}. The branch is back at {str(base.id)[:8]}, the last verified commit",
                "see `rgr history --all` for the rejected attempts; `rgr resume` tries the "
                "batch again (or set on_failure = \"skip\" in [refactor] to move on)")
        self.report(f"{batch.id}: failed after {attempts} attempt(s); moving on "
                    "(on_failure = skip)")
        state = prev.updated(
            refactor=progress.updated(
                next_batch=index + 1, failed=[*progress.failed, batch.id]),
            summary=f"{error}; skipped")
        self.ws.notes.write(str(base.id), state, f"rgr: batch {batch.id} skipped")
        return state

    # ------------------------------------------------------------ the end --

    def finish(self, state: HandoffState) -> HandoffState:
        """The summary writer (seed 002): a CHANGELOG entry and one summary commit."""
        progress = state.refactor
        assert progress is not None
        applied = [Batch.model_validate(b) for b in progress.plan if b["id"] in progress.applied]
        lines = [f"- {b.id}: {b.goal}" + (" (rope)" if b.is_rename else "") for b in applied]
        if progress.failed:
            lines.append(f"- not applied: {', '.join(progress.failed)}")
        body = "\n".join(lines) or "- no batch applied"
        message = (f"refactor: {_first_line(progress.goal)}\n\n{len(applied)} verified "
                   f"batch(es), every one gated and noted by rgr:\n{body}\n")
        changelog = self.ws.config.refactor.changelog
        paths: list[str] = []
        if changelog and applied:
            path = self.ws.root / changelog
            old = path.read_text(encoding="utf-8") if path.exists() else "# Changelog\n"
            head, sep, rest = old.partition("\n")
            entry = (f"\n## {now_utc().date()} refactor: {_first_line(progress.goal)}\n\n"
                     f"{body}\n")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{head}{sep}{entry}{rest}" if head.startswith("# ")
                            else f"# Changelog\n{entry}\n{old}", encoding="utf-8")
            paths.append(changelog)
        commit = _commit_paths(self.ws.repo, paths, message)
        final = state.updated(
            phase=Phase.COMPLETE, next_phase=None, error=None,
            error_details=None, finished_at=now_utc(), agent=None, batch=None,
            summary=f"refactor complete: {len(applied)} batch(es) applied"
                       + (f", {len(progress.failed)} failed" if progress.failed else ""),
        )
        self.ws.notes.write(str(commit), final, "rgr: refactor complete")
        self.report(f"summary commit {str(commit)[:8]}: {len(applied)} batch(es) applied")
        return final


@dataclass(frozen=True)
class BatchEvidence:
    """What judging a batch found beside its violations: the gate's run and the
    batch's changed lines (both go into the batch's note)."""

    gate: GateResult
    lines: int


class RefactorBatch(Work[BatchEvidence]):
    """One batch of a refactor plan, as the kernel's work: a patcher session (or a rope
    rename, no agent), judged by the batch's commit checks and the gate."""

    mode = "refactor"
    phase = Phase.REFACTOR
    output_model = PhaseOutput

    def __init__(self, engine: RefactorEngine, prev: HandoffState, batch: Batch, index: int,
                 total: int, base: Commit, before: TestReport) -> None:
        self.e = engine
        self.ws = engine.ws
        self.prev = prev
        self.batch, self.index, self.total = batch, index, total
        self.base = self.branch_at = base
        self.before = before
        self.cycle = index + 1
        self.level = engine.level(batch, index, total)
        # issue 15: a deterministic rope rename gets one attempt (Batch.attempts)
        self.tries = batch.attempts(self.ws.config.refactor.max_attempts)
        # resumed after this batch failed: the last failure is the first brief
        self.first_brief = (prev.error_details.message
                            if prev.error and prev.error_details else None)
        self.spec = None if batch.is_rename else load_agent(self.ws.config_root, PATCHER)
        self.naming = Naming(batch.id, batch.id, str(Phase.REFACTOR), self.cycle,
                             batch=batch.id)
        self.messages = Messages(f"rgr: refactor batch {batch.id}",
                                 f"rgr: refactor batch {batch.id} verified",
                                 rejected_note=f"rgr: rejected batch {batch.id}",
                                 kept="rgr: rejected refactor attempt")
        self.edit_rules = None if batch.is_rename else edit_rules(
            self.ws.config, Phase.REFACTOR, scope=list(batch.scope_globs),
            tests_allowed=batch.allows_tests)

    def begin(self, seat: Seat, attempt: Try,
              on_event: Callable[[dict[str, Any]], None]) -> AgentRequest | list[Violation]:
        """A rope rename is done here, with no agent; a patcher's batch is its session."""
        if self.batch.is_rename:
            return self.e.rope(self.batch, self.base, seat)
        assert self.spec is not None  # set for every batch but a rename
        return self.e.session_request(
            self.spec, PhaseOutput, self.e.patcher_prompt(self.batch, self.index, self.total,
                                                           self.base, attempt.brief),
            attempt.session_id, gate_rules=True, seat=seat, on_event=on_event)

    def judge(self, attempt: Try, result: AgentResult | None,
              tip: Commit) -> Verdict[BatchEvidence]:
        facts = check_batch_commits(self.ws.repo, self.ws.config, self.batch, self.base.id,
                                    tip.id)
        if facts.violations:
            return Verdict(facts.violations)
        gate = self.e.gate(self.level, tip)
        return Verdict(check_gate(self.before, gate), gate.tests,
                       BatchEvidence(gate, facts.lines))

    def accepted_note(self, attempt: Try, result: AgentResult | None, tip: Commit,
                      verdict: Verdict[BatchEvidence]) -> NoteUpdate:
        if verdict.evidence is None:
            raise AssertionError("an accepted batch was judged to the end: it has a gate")
        gate, lines = verdict.evidence.gate, verdict.evidence.lines
        progress = self.prev.refactor
        assert progress is not None
        return {
            "phase": Phase.REFACTOR, "next_phase": Phase.REFACTOR,
            "cycle_number": self.cycle, "test_result": TestResult.PASS,
            "summary": (result.output.summary if result and isinstance(result.output,
                                                                        PhaseOutput)
                        else f"rope rename: {self.batch.goal}"),
            "batch": self.e.batch_note(self.batch, self.index, self.total, "applied", lines,
                                        gate),
            "refactor": progress.updated(
                next_batch=self.index + 1, applied=[*progress.applied, self.batch.id]),
        }

    def rejected_note(self, attempt: Try, verdict: Verdict[BatchEvidence],
                      kept: str) -> NoteUpdate:
        gate = verdict.evidence.gate if verdict.evidence else None
        return {"phase": Phase.REFACTOR, "next_phase": Phase.REFACTOR,
                "cycle_number": self.cycle,
                "batch": self.e.batch_note(self.batch, self.index, self.total, "failed", 0,
                                            gate)}

    def tell(self, moment: Moment) -> None:
        match moment:
            case Starting(number=number) if number > 1:
                self.e.report(f"batch {self.index + 1}/{self.total} {self.batch.id}: attempt "
                              f"{number} of {self.ws.config.refactor.max_attempts}")
            case Verified(done=done):
                batch = done.state.batch
                self.e.report(f"{self.batch.id}: verified and noted on {str(done.tip.id)[:8]} "
                              f"({batch.diff_lines if batch else 0} changed lines)")
            case Stopped(error=error):
                self.ws.notes.write(str(self.base.id), self.prev.updated(
                    error=f"batch {self.batch.id} stopped: {error.message}",
                    error_details=ErrorDetails(type=f"agent-{error.kind}",
                                               message=(error.hint or error.message)[:4000])),
                    f"rgr: batch {self.batch.id} stopped ({error.kind})")

    def limit_reached(self, message: str, limit: str) -> str:
        limit_note(self.ws, self, message, limit)
        return (f"`rgr resume` continues from the last verified batch (pass a higher "
                f"--{limit}, or none)")


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "refactor"
    return line[:72]


def _commit_paths(repo: Repository, paths: list[str], message: str) -> Oid:
    """Commit ``paths`` (working-tree content) on the checked-out branch; rgr's own
    commits (rope renames, the summary). No paths: an empty commit."""
    index = repo.index
    index.read()
    root = git.workdir(repo)
    for path in paths:
        if (root / path).exists():
            index.add(path)
        else:
            index.remove(path)
    index.write()
    tree = index.write_tree()
    head = git.head_commit(repo)
    who = git.signature(repo)
    oid: Oid = repo.create_commit("HEAD", who, who, message, tree, [head.id])
    return oid
