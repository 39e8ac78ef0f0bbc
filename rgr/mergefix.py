"""The merge-fixer: a finished job whose rebase onto its base branch's newer tip
conflicted gets sealed agent sessions (rgr.attempt, as every phase) that resolve git's
merge of the job into that tip; rgr judges each result (rgr.mergefix_checks) and
accepts the first that passes.

Why a merge and not a replayed rebase: a sealed attempt starts from one commit (the
base tip) and brings back the commits on its branch. rgr leaves ``git merge
--no-commit <job tip>`` in the scratch copy before the agent starts (conflict markers,
MERGE_HEAD), so the agent's plain ``git commit`` is a merge of both parents: it
descends from the base tip, carries the job's change, and keeps the job's own commits
with their handoff notes in the base branch's history. One conflict is one session,
however many commits the job has.

The accepted merge gets a handoff note (``mergeFix``, the job's other fields kept, so
its phase still says complete); a rejected one is kept under ``refs/rgr/attempts/``
with a note saying why, as in TDD mode.
"""

from __future__ import annotations

import json
import shlex
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from string import Template

import pygit2

from rgr import __version__, git, merging, report_store
from rgr.agents import AgentSpec, load_agent, prompt_path
from rgr.artifacts import MERGE_FIX_SPEND
from rgr.attempt import Sealer, Seat, agent_summary, is_fatal, tests_summary
from rgr.backends.base import AgentRequest, AgentResult, Backend
from rgr.config import TestCommand
from rgr.errors import BackendError, RgrError
from rgr.events import Event, event
from rgr.guards import Violation, edit_rules, failure_brief
from rgr.handoff import (
    ErrorDetails,
    HandoffState,
    MergeFixNote,
    Phase,
    TestResult,
    now_utc,
)
from rgr.mergefix_checks import check_merge_commits, check_merge_scope, check_merge_tests
from rgr.outputs import PhaseOutput
from rgr.prompting import quoted
from rgr.retry import AttemptRejected, phase_retrying
from rgr.scratch import ImportRefused
from rgr.verify import TestReport
from rgr.workspace import Workspace

AGENT = "merge-fixer"
TEMPLATE = "merge-fix.md"
#: Files of the job's change listed in the prompt (the agent can run git diff).
LISTED_FILES = 40

Report = Callable[[str], None]


class MergeFixFailed(RgrError):
    """Every merge-fixer session was rejected: a person must merge."""

    category = "phase"


@dataclass(frozen=True)
class MergeJob:
    """What one merge fix is about."""

    branch: str  # the job's branch, checked out at ``job_tip``
    into: str  # the base branch, at ``base_tip``
    base_tip: pygit2.Commit
    job_tip: pygit2.Commit
    prev: HandoffState  # the job's handoff at its tip
    merged: merging.AutoMerge

    @property
    def conflicts(self) -> list[str]:
        return list(self.merged.conflicts)


@dataclass
class MergeFixer:
    ws: Workspace
    backend: Backend
    test_command: TestCommand
    sealer: Sealer
    report: Report
    backoff_base_s: float = 1.0
    #: What all sessions together may cost (the daemon's --max-budget-usd, what is left).
    max_budget_usd: float | None = None
    spent_usd: float = 0.0
    #: Where the sessions' tool calls go (a PlainView's emit: the daemon shows them live).
    emit: Callable[[Event], None] | None = None

    def tests_at(self, commit: pygit2.Commit) -> TestReport:
        """The suite's report of ``commit``'s tree (recorded, or run sealed now)."""
        tree = str(commit.tree.id)
        recorded = report_store.load(self.ws.git_dir, tree)
        if recorded is not None:
            return recorded
        self.report(f"running tests on {str(commit.id)[:8]}: "
                    f"{shlex.join(self.test_command.argv)}")
        result = self.sealer.run_tests(commit)
        self.report(f"tests: {result.passed} passed, {result.failed} failed, "
                    f"{result.errors} errors ({result.duration_s:.1f}s)")
        report_store.save(self.ws.git_dir, tree, result)
        return result

    def fix(self, job: MergeJob, tries: int) -> pygit2.Commit:
        """The accepted merge (the job's branch moved to it), or MergeFixFailed."""
        spec = load_agent(self.ws.config_root, AGENT)
        reports = (self.tests_at(job.base_tip), self.tests_at(job.job_tip))
        brief: str | None = None
        try:
            for attempt in phase_retrying(tries - 1, self.backoff_base_s):
                with attempt:
                    number = attempt.retry_state.attempt_number
                    if self._budget_left() == 0.0:
                        raise MergeFixFailed(
                            f"the daemon's --max-budget-usd is spent before merge fix {number}"
                            f" (conflicts in {', '.join(job.conflicts) or '-'})",
                            f"merge {job.branch} by hand, or raise the budget")
                    try:
                        return self._attempt(job, spec, number, tries, brief, reports)
                    except AttemptRejected as rejected:
                        brief = rejected.brief
                        raise
        except AttemptRejected as final:
            conflicts = ", ".join(job.conflicts) or "(none left by git's merge)"
            raise MergeFixFailed(
                f"the merge-fixer could not merge {job.branch} onto {job.into} at "
                f"{str(job.base_tip.id)[:8]} (conflicts in {conflicts}) in {tries} "
                f"tr{'y' if tries == 1 else 'ies'}; last rejection: {final}",
                f"merge it by hand (`git merge {job.into}` on {job.branch}); the rejected "
                "fixes are kept under refs/rgr/attempts/ (`rgr history --all`)") from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    def record_spend(self) -> None:
        """Append what the sessions cost to the ledger (see MERGE_FIX_SPEND)."""
        ledger = self.ws.git_dir / MERGE_FIX_SPEND
        ledger.parent.mkdir(parents=True, exist_ok=True)
        with ledger.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"costUsd": round(self.spent_usd, 6)}) + "\n")

    def _budget_left(self) -> float | None:
        if self.max_budget_usd is None:
            return None
        return max(self.max_budget_usd - self.spent_usd, 0.0)

    def _attempt(self, job: MergeJob, spec: AgentSpec, number: int, tries: int,
                 brief: str | None, reports: tuple[TestReport, TestReport]) -> pygit2.Commit:
        started = now_utc()
        session_id = str(uuid.uuid4())
        label = f"merge-fix-a{number}"
        result: AgentResult | None = None
        violations: list[Violation] = []
        backend_side = False
        head = job.base_tip
        with self.sealer.seat(job.base_tip, label,
                              edit_rules(self.ws.config, Phase.COMPLETE)) as seat:
            merging.prepare_merge(seat.scratch, self.ws.repo, job.job_tip.id,
                                  f"{spec.commit_prefixes[0]} merge {job.branch} into "
                                  f"{job.into}\n")
            self.report(f"merge fix {number} of {tries}: merge-fixer session "
                        f"{session_id[:8]} running (conflicts: "
                        f"{', '.join(job.conflicts) or 'none'})")
            try:
                result = self.backend.run(self._request(spec, job, number, tries, brief,
                                                        session_id, seat))
                self.spent_usd += result.cost_usd
            except BackendError as exc:
                if is_fatal(exc):
                    raise
                backend_side = exc.retryable
                violations.append(Violation(f"agent-{exc.kind}", exc.message))
            if not violations:
                try:
                    head = self.sealer.bring_in(seat, job.base_tip)
                except ImportRefused as exc:
                    violations.append(Violation("import-refused", exc.message))
        after = None
        if not violations:
            violations = self.check(job, spec, head)
        if not violations:
            self.report(f"merge fix {number}: full gate on {str(head.id)[:8]}")
            gate = self.sealer.run_gate(head, "full")
            after = gate.tests
            report_store.save(self.ws.git_dir, str(head.tree.id), after)
            violations = check_merge_tests(*reports, gate)
        note = MergeFixNote(into=job.into, base_tip=str(job.base_tip.id),
                            job_tip=str(job.job_tip.id), conflicts=job.conflicts,
                            attempt=number, tries=tries,
                            status="rejected" if violations else "resolved")
        if violations:
            self.report(f"merge fix {number}: rejected: {violations[0]}"
                        + (f" (+{len(violations) - 1} more)" if len(violations) > 1 else ""))
            self._keep(job, head, label, violations, result, after, started, note)
            raise AttemptRejected(violations, failure_brief(violations, after), backend_side)
        assert result is not None and after is not None
        summary = result.output.summary if isinstance(result.output, PhaseOutput) else ""
        state = job.prev.model_copy(update={
            "error": None, "error_details": None, "retry_count": number - 1,
            "schema_version": 1, "base_commit": str(job.base_tip.id), "started_at": started,
            "finished_at": now_utc(), "agent": agent_summary(result, spec, self.ws.config_root),
            "tests": tests_summary(after), "test_result": TestResult.PASS,
            "rgr_version": __version__, "summary": f"merge fix: {summary}", "merge_fix": note,
            "batch": None,  # a refactor job's last batch is not this commit's
        })
        # The note first, then the branch (as for every phase).
        self.ws.notes.write(str(head.id), state, f"rgr: merge fix of {job.branch}")
        self.sealer.accept(job.job_tip, head, f"rgr: merge fix onto {job.into} verified")
        self.report(f"merge fix {number}: verified and noted on {str(head.id)[:8]}")
        return head

    def check(self, job: MergeJob, spec: AgentSpec, head: pygit2.Commit) -> list[Violation]:
        """The checks on the fixer's commit that need no test run."""
        repo = self.ws.repo
        violations = check_merge_commits(repo, job.base_tip.id, job.job_tip.id, head.id,
                                         spec.commit_prefixes)
        if violations:
            return violations
        return check_merge_scope(repo, self.ws.config, job.base_tip.id, job.job_tip.id,
                                 head.id, job.merged)

    def _keep(self, job: MergeJob, head: pygit2.Commit, label: str,
              violations: list[Violation], result: AgentResult | None,
              after: TestReport | None, started: datetime, note: MergeFixNote) -> None:
        """Keep a rejected fix reachable, with a note saying why: never on a commit that
        has a note already (the agent may have left its branch on an old commit)."""
        if head.id in (job.base_tip.id, job.job_tip.id) or \
                self.ws.notes.read_text(str(head.id)) is not None:
            return
        name = self.sealer.keep(head, label, job.prev.run_id, "rgr: rejected merge fix")
        first = violations[0]
        state = job.prev.model_copy(update={
            "error": str(first), "retry_count": note.attempt - 1,
            "error_details": ErrorDetails(type=first.rule, message="\n".join(
                str(v) for v in violations)[:4000]),
            "schema_version": 1, "base_commit": str(job.base_tip.id), "started_at": started,
            "finished_at": now_utc(),
            "agent": agent_summary(result, None, self.ws.config_root) if result else None,
            "tests": tests_summary(after) if after else None, "test_result": None,
            "rgr_version": __version__, "summary": f"rejected merge fix kept at {name}",
            "merge_fix": note, "batch": None,
        })
        self.ws.notes.write(str(head.id), state, "rgr: rejected merge fix")
        self.report(f"rejected merge fix kept at {name}")

    def prompt(self, job: MergeJob, number: int, tries: int, brief: str | None) -> str:
        template = Template(prompt_path(self.ws.config_root, TEMPLATE).read_text())
        ancestor = merging.merge_base(self.ws.repo, job.base_tip.id, job.job_tip.id)
        files = [c.path for c in git.changed_files(self.ws.repo, ancestor, job.job_tip.id)] \
            if ancestor is not None else []
        listing = "\n".join(files[:LISTED_FILES]) + (
            f"\n(+{len(files) - LISTED_FILES} more)" if len(files) > LISTED_FILES else "")
        text = template.safe_substitute(
            attempt=number, tries=tries, feature=quoted(job.prev.feature or "(not recorded)"),
            branch=job.branch, job_tip=str(job.job_tip.id)[:12], into=job.into,
            base_tip=str(job.base_tip.id)[:12],
            test_command=shlex.join(self.test_command.argv),
            conflicts=quoted("\n".join(job.conflicts) or "(none: git merged every file; "
                             "check the result and commit it)"),
            job_files=quoted(listing or "(none)"), failure_brief=brief or "")
        return "\n".join(line for line in text.splitlines()
                         if not line.startswith("<!--")).strip()

    def _request(self, spec: AgentSpec, job: MergeJob, number: int, tries: int,
                 brief: str | None, session_id: str, seat: Seat) -> AgentRequest:
        return AgentRequest(
            prompt=self.prompt(job, number, tries, brief),
            system_prompt_file=prompt_path(self.ws.config_root, spec.prompt),
            output_model=PhaseOutput, tools=tuple(spec.tools),
            allowed_tools=spec.permission_rules(self.test_command.argv),
            disallowed_tools=tuple(spec.disallowed_tools),
            max_turns=min(spec.max_turns, self.ws.config.max_turns),
            model=spec.model or self.ws.config.model, cwd=seat.cwd,
            timeout_s=self.ws.config.agent_timeout, session_id=session_id, env=seat.env,
            max_budget_usd=self._budget_left(), launcher=seat.launcher,
            settings_file=seat.settings_file, backend=spec.backend or self.ws.config.backend,
            on_event=self._follow(number, session_id))

    def _follow(self, number: int, session_id: str
                ) -> Callable[[dict[str, object]], None] | None:
        emit = self.emit
        if emit is None:
            return None
        return lambda raw: emit(event("agent_event", phase="merge fix", cycle=number,
                                      sessionId=session_id, event=raw))
