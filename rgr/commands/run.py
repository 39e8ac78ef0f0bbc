"""``rgr run "<feature>"`` and ``rgr resume``: preconditions, then the phase loop."""

from __future__ import annotations

import re
import shlex
import uuid
from dataclasses import dataclass

import click
import pygit2

from rgr import __version__, git
from rgr.agents import agent_for
from rgr.backends.base import Backend
from rgr.backends.claude import ClaudeBackend
from rgr.config import TestCommand, resolve_test_command
from rgr.errors import RepositoryError
from rgr.guards import check_commits, check_scope, check_tests
from rgr.handoff import FOLLOWS, HandoffState, Phase, TestResult, now_utc
from rgr.invocation import Invocation, describe_limits, observed
from rgr.limits import Limits
from rgr.locks import run_lock
from rgr.orchestrator import (
    ATTEMPTS_PREFIX,
    LEFTOVERS_PREFIX,
    Orchestrator,
    test_result,
    tests_summary,
)
from rgr.ui import esc, make_console, short
from rgr.view import NORMAL, PlainView
from rgr.workspace import Workspace


@dataclass(frozen=True)
class RunOptions:
    assume_yes: bool = False
    interactive: bool = False
    skip_preflight: bool = False
    max_phases: int | None = None
    backoff_base_s: float = 1.0
    verbosity: int = NORMAL  # rgr.view.QUIET / NORMAL / VERBOSE (-q / default / -v)
    max_budget_usd: float | None = None
    max_cycles: int | None = None
    max_minutes: float | None = None

    def limits(self) -> Limits:
        return Limits(max_budget_usd=self.max_budget_usd, max_cycles=self.max_cycles,
                      max_minutes=self.max_minutes)


#: The progress log a command writes to (a PlainView or a LiveView).
PhaseLog = PlainView


def slugify(text: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "feature"


def _require_clean(ws: Workspace, what: str) -> None:
    dirty = git.uncommitted_paths(ws.repo)
    if dirty:
        listing = git.describe_paths(dirty)
        raise RepositoryError(
            f"the working tree has uncommitted changes ({listing}); {what} needs a clean tree "
            "so that every change it verifies is the agent's",
            "commit or stash them first (`git stash -u`)",
        )


def _preflight(backend: Backend, ws: Workspace, options: RunOptions, log: PlainView) -> None:
    version = backend.version()
    log(f"agent backend: {backend.name} {version}")
    if not options.skip_preflight:
        backend.check_login(ws.root)
        log("agent backend: login verified")


def _confirm(options: RunOptions, question: str) -> None:
    if options.assume_yes:
        return
    if not options.interactive:
        raise RepositoryError(
            "not a terminal: rgr will not start unattended work without confirmation",
            "pass --yes to go ahead",
        )
    if not click.confirm(question, default=True):
        raise click.exceptions.Exit(1)


def _orchestrator(ws: Workspace, backend: Backend, test_command: TestCommand,
                  options: RunOptions, inv: Invocation) -> Orchestrator:
    return Orchestrator(ws, backend, test_command, inv.view,
                        backoff_base_s=options.backoff_base_s, max_phases=options.max_phases,
                        observer=inv.observer, limits=inv.limits)


def make_backend(ws: Workspace) -> Backend:
    return ClaudeBackend(ws.config.agent_binary, env=ws.env)


def run(ws: Workspace, feature: str, here: bool, branch: str | None, options: RunOptions,
        backend: Backend | None = None) -> int:
    feature = feature.strip()
    if not feature:
        raise click.UsageError("the feature description is empty")
    start_branch = git.require_branch(ws.repo)
    start = git.head_commit(ws.repo)
    _require_clean(ws, "rgr run")
    test_command = resolve_test_command(ws.config, ws.root)
    target = start_branch if here else (branch or f"{ws.config.branch_prefix}{slugify(feature)}")
    if not here and ws.repo.branches.local.get(target) is not None:
        raise RepositoryError(
            f"branch {target} already exists",
            f"continue it with `git switch {target} && rgr resume`, or pick another name "
            "with --branch",
        )
    backend = backend or make_backend(ws)
    with run_lock(ws.git_dir, "rgr run"):
        out = make_console()
        out.print(f"[bold]rgr run[/bold]: {esc(feature)}")
        out.print(f"  repository    {esc(ws.root)}")
        out.print(f"  branch        {esc(target)}"
                  + ("" if here else f" (new, from {esc(start_branch)} at {short(str(start.id))})"))
        out.print(f"  test command  {esc(shlex.join(test_command.argv))} "
                  f"({esc(test_command.source)})")
        out.print(f"  retries       {ws.config.max_retries} per phase")
        limits = describe_limits(options.limits())
        if limits:
            out.print(f"  limits        {limits}")
        out.print("  loop          PLAN → RED → GREEN → REFACTOR, one agent session per phase")
        _confirm(options, "Start?")
        run_id = str(uuid.uuid4())
        with observed(ws, "run", run_id, feature, target, options.limits(),
                      options.verbosity) as inv:
            final = _start_and_loop(ws, backend, test_command, options, inv, here, target,
                                    start, feature, run_id)
            return _finish(final, inv)


def _start_and_loop(ws: Workspace, backend: Backend, test_command: TestCommand,
                    options: RunOptions, inv: Invocation, here: bool, target: str,
                    start: pygit2.Commit, feature: str, run_id: str) -> HandoffState:
    log = inv.view
    _preflight(backend, ws, options, log)
    orchestrator = _orchestrator(ws, backend, test_command, options, inv)
    baseline = orchestrator.tests_at_head()
    if not baseline.all_passed:
        failing = ", ".join(baseline.failing_ids[:10]) or baseline.report_error or (
            f"exit code {baseline.exit_code}")
        raise RepositoryError(
            f"the test suite is not green before rgr starts: {failing}",
            "TDD starts from green: fix or remove the failing tests, then run again",
        )
    if baseline.no_tests_collected:
        log("baseline: no tests yet (a valid green start)")
    if not here:
        git.create_branch(ws.repo, target, start)
    marker = git.commit_empty(ws.repo, f"rgr: start {feature}")
    orchestrator.remember_report(git.head_commit(ws.repo), baseline)
    state = HandoffState(
        phase=Phase.REFACTOR,  # cycle 0: the green baseline, as if a cycle just ended
        next_phase=Phase.PLAN,
        cycle_number=0,
        test_result=TestResult.PASS,
        schema_version=1,
        run_id=run_id,
        feature=feature,
        branch=target,
        base_commit=str(start.id),
        started_at=now_utc(),
        finished_at=now_utc(),
        rgr_version=__version__,
        summary="baseline: the suite is green before any change",
        tests=tests_summary(baseline),
    )
    ws.notes.write(str(marker), state, "rgr: start")
    log(f"started on {target} at {short(str(marker))}")
    return orchestrator.loop(state)


def _finish(state: HandoffState, inv: Invocation) -> int:
    if state.resume_phase == Phase.COMPLETE:
        inv.outcome = "complete"
        inv.message = (f"feature complete after {state.cycle_number} cycle(s): "
                       f"{len(state.completed_tests)} test(s) done")
    else:
        inv.outcome = "paused"
        inv.message = (f"paused before {state.resume_phase} (cycle {state.cycle_number}); "
                       "`rgr resume` continues")
    inv.view.always(inv.message)
    return 0


def resume(ws: Workspace, options: RunOptions, set_aside: bool,
           backend: Backend | None = None) -> int:
    git.require_branch(ws.repo)
    head = git.head_commit(ws.repo)
    found = ws.notes.latest_reachable(str(head.id))
    if found is None:
        raise RepositoryError("no rgr handoff on this branch: nothing to resume",
                              "start with `rgr run \"<feature>\"`")
    record, distance = found
    if record.state is None:
        raise RepositoryError(
            f"the latest note ({short(record.commit)}) is not a valid handoff: {record.problem}",
            "run `rgr repair-notes`, or `rgr rollback` to an earlier handoff")
    state = record.state
    if state.resume_phase == Phase.COMPLETE:
        make_console().print("the run is complete: nothing to resume")
        return 0
    test_command = resolve_test_command(ws.config, ws.root)
    backend = backend or make_backend(ws)
    with run_lock(ws.git_dir, "rgr resume"):
        dirty = git.uncommitted_paths(ws.repo)
        if dirty and not set_aside:
            _require_clean(ws, "rgr resume")
        if dirty:
            ref = git.set_aside(ws.repo, f"{LEFTOVERS_PREFIX}resume/{head.id}",
                                "rgr resume: uncommitted changes set aside")
            make_console().print(f"uncommitted changes saved under {esc(ref)} and removed "
                                 "from the tree")
        _confirm(options, f"Resume with {state.resume_phase} (cycle {state.cycle_number})?")
        run_id = state.run_id or f"run-{record.commit[:12]}"
        with observed(ws, "resume", run_id, state.feature, git.current_branch(ws.repo),
                      options.limits(), options.verbosity) as inv:
            log = inv.view
            _preflight(backend, ws, options, log)
            orchestrator = _orchestrator(ws, backend, test_command, options, inv)
            if distance:
                state = _settle_unnoted(ws, orchestrator, record.commit, state, log)
            log(f"resuming with {state.resume_phase} (cycle {state.cycle_number})")
            final = orchestrator.loop(state)
            return _finish(final, inv)


def _settle_unnoted(ws: Workspace, orchestrator: Orchestrator, noted: str,
                    state: HandoffState, log: PlainView) -> HandoffState:
    """HEAD has commits after the last note: rgr stopped between an agent's commit and
    its note. Verify them as that phase's work and note them, or set them aside and go
    back to the noted commit. Never runs a phase on top of unverified work."""
    repo = ws.repo
    head = git.head_commit(repo)
    base = git.resolve_commit(repo, noted)
    phase = state.resume_phase
    log(f"{len(git.commits_between(repo, base.id, head.id))} commit(s) after the last "
        f"handoff: checking them as {phase} work")
    violations: list[str] = []
    if phase == Phase.PLAN:
        violations = ["a plan's chosen test is not in its commits; the phase is re-run"]
    else:
        spec = agent_for(ws.root, phase)
        found = check_commits(repo, base.id, head.id, spec.commit_prefixes) or check_scope(
            repo, ws.config, phase, base.id, head.id)
        if not found:
            after = orchestrator.tests_at_head()
            git.reset_hard(repo, base.id)
            before = orchestrator.tests_at_head()
            git.reset_hard(repo, head.id)
            found = check_tests(phase, before, after)
            if not found:
                new_state = state.model_copy(update={
                    "phase": phase, "next_phase": FOLLOWS[phase],
                    "test_result": test_result(phase, after), "error": None,
                    "error_details": None, "base_commit": str(base.id),
                    "finished_at": now_utc(), "agent": None, "tests": tests_summary(after),
                    "summary": "recovered after an interruption: commits verified by resume",
                })
                ws.notes.write(str(head.id), new_state, f"rgr resume: {phase} verified")
                log(f"{phase} commits verified and noted on {short(str(head.id))}")
                return new_state
        violations = [str(v) for v in found]
    name = f"{ATTEMPTS_PREFIX}{state.run_id or 'run'}/unverified-{str(head.id)[:8]}"
    repo.create_reference_direct(name, head.id, True, message="rgr resume: set aside")
    git.reset_hard(repo, base.id)
    log(f"commits after the last handoff not accepted ({violations[0]}); kept at {name}, "
        f"branch back at {short(str(base.id))}")
    return state

