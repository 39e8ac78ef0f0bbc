"""The merge-fixer: a finished job whose rebase onto its base branch's newer tip
conflicted gets sealed agent sessions (rgr.sandbox.sealer, as every phase) that resolve git's
merge of the job into that tip; rgr judges each result (rgr.check.mergefix_checks) and
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
from collections.abc import Callable
from dataclasses import dataclass, field
from string import Template
from typing import Any, Literal

from rgr.backends.base import AgentRequest, AgentResult, Backend
from rgr.base.config import TestCommand
from rgr.base.errors import RgrError
from rgr.check import report_store
from rgr.check.guards import edit_rules
from rgr.check.mergefix_checks import check_merge_commits, check_merge_scope, check_merge_tests
from rgr.check.verify import TestReport
from rgr.check.violation import Violation
from rgr.loop.kernel import (
    Declined,
    Exhausted,
    Kernel,
    Messages,
    Moment,
    Naming,
    Try,
    Verdict,
    Verified,
    Work,
)
from rgr.loop.outputs import PhaseOutput
from rgr.loop.prompting import quoted
from rgr.loop.retry import AttemptRejected
from rgr.observe.artifacts import MERGE_FIX_SPEND
from rgr.observe.events import Event, Observer, Observers
from rgr.observe.limits import LimitReached, Limits
from rgr.sandbox.sealer import Sealer, Seat
from rgr.store import git, merging
from rgr.store.agents import AgentSpec, load_agent, prompt_path
from rgr.store.handoff import HandoffState, MergeFixNote, NoteUpdate, Phase, TestResult
from rgr.store.inflight import Inflight
from rgr.store.objects import Commit
from rgr.store.workspace import Workspace

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
    base_tip: Commit
    job_tip: Commit
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
    #: What all sessions together may cost (the daemon's --max-budget-usd, what is left):
    #: the kernel's limits, asked before every session.
    max_budget_usd: float | None = None
    #: Where the sessions' events go (a PlainView's emit: the daemon shows them live).
    emit: Callable[[Event], None] | None = None
    limits: Limits = field(init=False)

    def __post_init__(self) -> None:
        self.limits = Limits(max_budget_usd=self.max_budget_usd)

    @property
    def spent_usd(self) -> float:
        return self.limits.spent_usd

    @property
    def kernel(self) -> Kernel:
        watchers: list[Observer] = [self.limits]
        if self.emit is not None:
            watchers.append(_Emit(self.emit))
        return Kernel(self.ws, self.backend, self.sealer, self.report, Observers(watchers),
                      self.limits, self.backoff_base_s)

    def tests_at(self, commit: Commit) -> TestReport:
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

    def fix(self, job: MergeJob, tries: int) -> Commit:
        """The accepted merge (the job's branch moved to it), or MergeFixFailed."""
        work = MergeFix(self, job, tries, (self.tests_at(job.base_tip),
                                           self.tests_at(job.job_tip)))
        try:
            return self.kernel.run(work).tip
        except Declined as declined:
            raise self.declined(job, declined) from None
        except LimitReached as spent:
            raise MergeFixFailed(
                f"the daemon's --max-budget-usd is spent before merge fix "
                f"(conflicts in {', '.join(job.conflicts) or '-'}): {spent.message}",
                f"merge {job.branch} by hand, or raise the budget") from None
        except Exhausted as out:
            conflicts = ", ".join(job.conflicts) or "(none left by git's merge)"
            raise MergeFixFailed(
                f"the merge-fixer could not merge {job.branch} onto {job.into} at "
                f"{str(job.base_tip.id)[:8]} (conflicts in {conflicts}) in {tries} "
                f"tr{'y' if tries == 1 else 'ies'}; last rejection: {out.final}",
                f"merge it by hand (`git merge {job.into}` on {job.branch}); the rejected "
                "fixes are kept under refs/rgr/attempts/ (`rgr history --all`)") from None

    def settle_interrupted(self, job: MergeJob, record: Inflight,
                           tries: int) -> Commit | None:
        """Judge the merge-fix attempt a killed rgr left in flight (``record``), as it
        would have been judged: its merge, the job's branch moved to it; None when it
        is rejected (kept with its note if it made commits): then fix() runs."""
        work = MergeFix(self, job, tries, (self.tests_at(job.base_tip),
                                           self.tests_at(job.job_tip)))
        self.report(f"judging merge fix {record.attempt}, running when rgr stopped")
        try:
            return self.kernel.judge_interrupted(work, record).tip
        except Declined as declined:
            raise self.declined(job, declined) from None
        except AttemptRejected:
            return None

    @staticmethod
    def declined(job: MergeJob, declined: Declined) -> MergeFixFailed:
        """The fixer took the honest way out: no further try; the job needs a person."""
        return MergeFixFailed(
            f"the merge-fixer says {job.branch} cannot be merged onto {job.into} honestly: "
            f"{declined.reason}",
            f"merge it by hand (`git merge {job.into}` on {job.branch}), deciding what the "
            "fixer could not")

    def record_spend(self) -> None:
        """Append what the sessions cost to the ledger (see MERGE_FIX_SPEND)."""
        ledger = self.ws.git_dir / MERGE_FIX_SPEND
        ledger.parent.mkdir(parents=True, exist_ok=True)
        with ledger.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"costUsd": round(self.spent_usd, 6)}) + "\n")

    def check(self, job: MergeJob, spec: AgentSpec, head: Commit) -> list[Violation]:
        """The checks on the fixer's commit that need no test run."""
        repo = self.ws.repo
        violations = check_merge_commits(repo, job.base_tip.id, job.job_tip.id, head.id,
                                         spec.commit_prefixes)
        if violations:
            return violations
        return check_merge_scope(repo, self.ws.config, job.base_tip.id, job.job_tip.id,
                                 head.id, job.merged)

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



class _Emit:
    """A plain callable as an observer."""

    def __init__(self, emit: Callable[[Event], None]) -> None:
        self.emit = emit


class MergeFix(Work[None]):
    """One merge fix, as the kernel's work: git's merge of the job into the base
    branch's tip left in the scratch copy for the agent to finish, judged by the merge's
    rules (rgr.check.mergefix_checks) and the full gate."""

    mode = "merge-fix"
    phase = Phase.COMPLETE
    naming = Naming("merge-fix", "merge fix", "merge fix", None)
    output_model = PhaseOutput

    def __init__(self, fixer: MergeFixer, job: MergeJob, tries: int,
                 reports: tuple[TestReport, TestReport]) -> None:
        self.f = fixer
        self.ws = fixer.ws
        self.job = job
        self.prev = job.prev
        self.base = job.base_tip
        self.branch_at = job.job_tip
        self.tries = tries
        self.reports = reports
        self.agent = load_agent(self.ws.config_root, AGENT)
        self.spec = self.agent
        self.messages = Messages(f"rgr: merge fix of {job.branch}",
                                 f"rgr: merge fix onto {job.into} verified",
                                 rejected_note="rgr: rejected merge fix",
                                 kept="rgr: rejected merge fix")
        self.edit_rules = edit_rules(self.ws.config, Phase.COMPLETE)

    def begin(self, seat: Seat, attempt: Try,
              on_event: Callable[[dict[str, Any]], None]) -> AgentRequest:
        """git's merge of the job left in the scratch copy, then the session that
        finishes it."""
        merging.prepare_merge(seat.scratch, self.ws.repo, self.job.job_tip.id,
                              f"{self.agent.commit_prefixes[0]} merge {self.job.branch} into "
                              f"{self.job.into}\n")
        self.f.report(f"merge fix {attempt.number} of {self.tries}: conflicts: "
                      f"{', '.join(self.job.conflicts) or 'none'}")
        spec = self.agent
        timeout, budget = self.f.kernel.request_limits(self.ws.config.agent_timeout)
        return AgentRequest(
            prompt=self.f.prompt(self.job, attempt.number, self.tries, attempt.brief),
            system_prompt_file=prompt_path(self.ws.config_root, spec.prompt),
            output_model=PhaseOutput, tools=tuple(spec.tools),
            allowed_tools=spec.permission_rules(self.f.test_command.argv),
            disallowed_tools=tuple(spec.disallowed_tools),
            max_turns=min(spec.max_turns, self.ws.config.max_turns),
            model=spec.model or self.ws.config.model, cwd=seat.cwd, timeout_s=timeout,
            session_id=attempt.session_id, env=seat.env, max_budget_usd=budget,
            launcher=seat.launcher, settings_file=seat.settings_file,
            backend=spec.backend or self.ws.config.backend, on_event=on_event)

    def judge(self, attempt: Try, result: AgentResult | None,
              tip: Commit) -> Verdict[None]:
        violations = self.f.check(self.job, self.agent, tip)
        if violations:
            return Verdict(violations)
        self.f.report(f"merge fix {attempt.number}: full gate on {str(tip.id)[:8]}")
        gate = self.f.sealer.run_gate(tip, "full")
        report_store.save(self.ws.git_dir, str(tip.tree.id), gate.tests)
        return Verdict(check_merge_tests(*self.reports, gate), gate.tests)

    def note(self, attempt: Try, status: Literal["resolved", "rejected"]) -> MergeFixNote:
        job = self.job
        return MergeFixNote(into=job.into, base_tip=str(job.base_tip.id),
                            job_tip=str(job.job_tip.id), conflicts=job.conflicts,
                            attempt=attempt.number, tries=self.tries, status=status)

    def accepted_note(self, attempt: Try, result: AgentResult | None, tip: Commit,
                      verdict: Verdict[None]) -> NoteUpdate:
        summary = (result.output.summary if result is not None
                   and isinstance(result.output, PhaseOutput) else "")
        return {"test_result": TestResult.PASS, "summary": f"merge fix: {summary}",
                "merge_fix": self.note(attempt, "resolved"),
                "batch": None}  # a refactor job's last batch is not this commit's

    def rejected_note(self, attempt: Try, verdict: Verdict[None], kept: str) -> NoteUpdate:
        return {"summary": f"rejected merge fix kept at {kept}",
                "merge_fix": self.note(attempt, "rejected"), "batch": None}

    def tell(self, moment: Moment) -> None:
        if isinstance(moment, Verified):
            self.f.report(f"merge fix {moment.attempt.number}: verified and noted on "
                          f"{str(moment.done.tip.id)[:8]}")
