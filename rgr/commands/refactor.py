"""``rgr refactor``, its resume, ``--accept`` / ``--reject``."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rgr import __version__
from rgr.backends.base import Backend
from rgr.base.errors import RepositoryError
from rgr.base.outcome import Heading, Outcome, Table
from rgr.base.ui import short
from rgr.branches import integrate
from rgr.branches.sealed_gate import judge_landing
from rgr.check.gate import GateResult
from rgr.commands.common import ask_unnoted, confirm
from rgr.ecosystems.registry import resolve_test_command
from rgr.loop.starting import (
    PhaseLog,
    RunOptions,
    check_branch_option,
    default_branch,
    headline,
    make_backend,
    preflight,
    read_text_argument,
    recover_after_crash,
    require_clean,
    require_new_branch,
)
from rgr.loop.summaries import tests_summary
from rgr.observe.invocation import describe_limits
from rgr.refactor.engine import RefactorEngine
from rgr.refactor.plan import RefactorPlanOutput
from rgr.sandbox.sealer import ATTEMPTS_PREFIX, open_sealer
from rgr.store import git, inflight
from rgr.store.handoff import HandoffState, Phase, RefactorProgress, TestResult, now_utc
from rgr.store.locks import run_lock
from rgr.store.objects import Commit
from rgr.store.workspace import Workspace

if TYPE_CHECKING:
    from rgr.base.outcome import Say


@dataclass(frozen=True)
class RefactorOptions:
    """``log_to_stderr``: the run's lines for a person go to stderr (--plan-only --json:
    stdout is the plan's JSON alone)."""

    run: RunOptions
    plan_only: bool = False
    log_to_stderr: bool = False


def read_goal(goal: str | None, brief: Path | None) -> str:
    return read_text_argument(goal, brief, "refactoring goal",
                              'rgr refactor "<goal>" or --brief FILE')


def _engine(ws: Workspace, backend: Backend, options: RunOptions, log: PhaseLog,
            ) -> RefactorEngine:
    limits = options.limits()
    # A cycle of refactor mode is a batch: --max-cycles and --max-phases both count them.
    caps = [n for n in (options.max_phases, options.max_cycles) if n is not None]
    test_command = resolve_test_command(ws.config, ws.root)
    return RefactorEngine(ws, backend, test_command, log,
                          open_sealer(ws, backend, test_command, log),
                          backoff_base_s=options.backoff_base_s,
                          max_batches=min(caps) if caps else None,
                          observer=limits, limits=limits if limits.active else None)


def _require_green(gate: GateResult) -> None:
    if gate.ok:
        return
    failed = gate.failed_command
    if not gate.tests.all_passed:
        detail = f"the tests fail: {gate.tests.problem()}"
    else:
        assert failed is not None
        detail = f"`{failed.command}` exits {failed.exit_code}"
    raise RepositoryError(
        f"the baseline gate fails before any change: {detail}",
        "a refactor needs a green baseline (the tests are its contract): fix it first; "
        "`rgr verify` runs the gate alone")


def refactor(ws: Workspace, goal: str, here: bool, branch: str | None,
             options: RefactorOptions, say: Say,
             backend: Backend | None = None) -> Outcome[object]:
    """The refactor, said as it goes (the banner through ``say``); the Outcome is the
    plan (--plan-only: its table, or its JSON) or the exit code."""
    # With --json, stdout is the plan's JSON alone: every line for a person goes to stderr.
    if options.log_to_stderr:
        from rgr.base.ui import make_console

        log = PhaseLog(options.run.verbosity, make_console(stderr=True))
    else:
        log = PhaseLog(options.run.verbosity)
    check_branch_option(branch, here)
    start_branch = git.require_branch(ws.repo)
    start = git.head_commit(ws.repo)
    require_clean(ws, "rgr refactor")
    ws = ws.pinned()
    target = start_branch if here else (
        branch if branch is not None else default_branch(
            ws, f"{ws.config.branch_prefix}refactor-", goal))
    if not here and not options.plan_only:
        require_new_branch(ws, target, start_branch)
    backend = backend or make_backend(ws)
    with run_lock(ws.git_dir, "rgr refactor"):
        # What is about to happen, before the confirmation: on stderr with --json.
        banner: list[str | Heading] = [
            Heading("rgr refactor", f"{' --plan-only' if options.plan_only else ''}: "
                                    f"{headline(goal)}"),
            f"  repository    {ws.root}"]
        if not options.plan_only:
            banner.append(f"  branch        {target}" + ("" if here else
                          f" (new, from {start_branch} at {short(str(start.id))})"))
        limits = describe_limits(options.run.limits())
        if limits and not options.plan_only:
            banner.append(f"  limits        {limits}")
        for item in banner:
            say(item)
        confirm(options.run, "Start?")
        integrate.preflight(ws, "none" if options.plan_only else options.run.integrate)
        recover_after_crash(ws, log)
        preflight(backend, ws, options.run, log)
        engine = _engine(ws, backend, options.run, log)
        baseline = engine.gate("full")
        _require_green(baseline)
        plan = engine.make_plan(goal)
        if options.plan_only:
            return plan_outcome(plan)
        title = goal.splitlines()[0][:72]
        # As in `rgr run`: the start commit is made and noted before any branch moves, so
        # a crash before the branch exists leaves the repository as it was.
        # The run id makes the marker this run's own (see `rgr run`).
        run_id = str(uuid.uuid4())
        marker = git.commit_empty(ws.repo, f"rgr: refactor {title}\n\nrgr-run: {run_id}\n",
                                  start)
        engine.remember_gate(start, baseline)
        state = HandoffState(
            phase=Phase.PLAN, next_phase=Phase.REFACTOR, cycle_number=0,
            test_result=TestResult.PASS, schema_version=1, mode="refactor",
            run_id=run_id, feature=goal[:500], branch=target,
            base_commit=str(start.id), started_at=now_utc(), finished_at=now_utc(),
            rgr_version=__version__, tests=tests_summary(baseline.tests),
            summary=plan.summary or f"plan: {len(plan.batches)} batch(es)",
            config_source=ws.config_source,
            refactor=RefactorProgress(
                goal=goal, plan=[b.model_dump(mode="json") for b in plan.batches],
                source_branch=start_branch, start_commit=str(start.id)),
        )
        ws.notes.write(str(marker), state, "rgr: refactor plan")
        if here:
            git.advance_branch(ws.repo, target, marker, f"rgr: refactor {title}")
        else:
            git.create_branch(ws.repo, target, git.resolve_commit(ws.repo, str(marker)))
        log(f"plan noted on {short(str(marker))} ({target}); {len(plan.batches)} batch(es)")
        final = engine.loop(state)
    return _finish(ws, final, log, options.run.integrate)


def _finish(ws: Workspace, state: HandoffState, log: PhaseLog,
            mode: str = "none") -> Outcome[object]:
    progress = state.refactor
    assert progress is not None
    if state.phase == Phase.COMPLETE:
        log.always(f"refactor complete: {len(progress.applied)} batch(es) applied"
                   + (f", {len(progress.failed)} failed" if progress.failed else "")
                   + ("" if mode != "none" else
                      "; `rgr refactor --accept` merges it, `--reject` drops it"))
        if mode == "merge":
            return accept(ws)
        if mode == "pr":
            from rgr.observe.report import collect

            integrate.pull_request(ws, collect(ws), progress.source_branch,
                                   f"Refactor by rgr: {progress.goal}", log.always,
                                   lambda i: judge_landing(ws, i, log.always))
    else:
        log.always(f"paused before batch {progress.next_batch + 1} of {len(progress.plan)}; "
                   "`rgr resume` continues")
    return Outcome()


def plan_outcome(plan: RefactorPlanOutput) -> Outcome[dict[str, object]]:
    """--plan-only's result: the plan's table, or its JSON."""
    return Outcome(plan_text(plan), plan.model_dump(mode="json"))


def plan_text(plan: RefactorPlanOutput) -> list[str | Table]:
    """The plan as a person reads it: one row per batch."""
    table = Table(f"refactor plan: {plan.summary}" if plan.summary else "refactor plan",
                  ("#", "id", "goal", "scope", "operations", "budget", "risk", "gate"),
                  [(str(i), b.id, b.goal, ", ".join(b.scope_globs),
                    ", ".join(b.allowed_operations), str(b.diff_budget_loc),
                    str(b.risk_score), b.verifier_level)
                   for i, b in enumerate(plan.batches, 1)])
    return [table, "--plan-only: nothing was changed"]


def resume(ws: Workspace, state: HandoffState, noted: str, options: RunOptions,
           set_aside: bool, say: Say, backend: Backend | None = None,
           unnoted: str | None = None) -> Outcome[object]:
    """Called by ``rgr resume`` when the newest note is a refactor note."""
    log = PhaseLog(options.verbosity)
    backend = backend or make_backend(ws)
    with run_lock(ws.git_dir, "rgr resume"):
        recover_after_crash(ws, log)
        dirty = git.uncommitted_paths(ws.repo)
        if dirty and not set_aside:
            require_clean(ws, "rgr resume")
        head = git.head_commit(ws.repo)
        if dirty:
            ref = git.set_aside(ws.repo, f"refs/rgr/leftovers/resume/{head.id}",
                                "rgr resume: uncommitted changes set aside")
            log(f"uncommitted changes saved under {ref} and removed from the tree")
        if str(head.id) != noted:
            # Commits after the last note: a batch's commit rgr never got to note, or
            # the user's. As in TDD mode they are never moved without a choice; refactor
            # mode cannot adopt them (a batch is only what a batch session produced),
            # so either way they are kept under a ref and the batch is re-run.
            choice = unnoted or ask_unnoted(ws, options, noted, state)
            if choice == "adopt":
                log("refactor mode does not adopt commits made outside a batch; they are "
                    "set aside instead")
            name = f"{ATTEMPTS_PREFIX}{state.run_id or 'run'}/unnoted-{str(head.id)[:8]}"
            ws.repo.create_reference_direct(name, head.id, True, message="rgr resume")
            git.reset_hard(ws.repo, git.resolve_commit(ws.repo, noted).id)
            log(f"commits after the last note kept at {name}; back at {short(noted)}")
        # A batch attempt rgr was killed in the middle of is judged as it would have
        # been (its commits may be complete); a record of another run is stale.
        record = inflight.read(ws.git_dir)
        ours = (record is not None and record.mode == "refactor" and record.base == noted
                and record.run_id == state.run_id)
        if record is not None and not ours:
            inflight.clear(ws.git_dir)
        progress = state.refactor
        assert progress is not None
        confirm(options, f"Resume the refactor at batch {progress.next_batch + 1} of "
                          f"{len(progress.plan)}?")
        integrate.preflight(ws, options.integrate)
        preflight(backend, ws, options, log)
        engine = _engine(ws, backend, options, log)
        if ours:
            assert record is not None
            state = engine.settle_interrupted(state, record)
            progress = state.refactor
            assert progress is not None
        log(f"resuming the refactor at batch {progress.next_batch + 1} of "
            f"{len(progress.plan)}")
        final = engine.loop(state)
    return _finish(ws, final, log, options.integrate)


# ------------------------------------------------------------------- accept / reject --


def _complete_state(ws: Workspace) -> HandoffState:
    head = git.head_commit(ws.repo)
    record = ws.notes.read(str(head.id))
    state = record.state if record else None
    if state is None or state.mode != "refactor" or state.phase != Phase.COMPLETE \
            or state.refactor is None or not state.refactor.source_branch:
        raise RepositoryError(
            "HEAD is not a finished refactor (no refactor note with phase COMPLETE on it)",
            "switch to the refactor branch and finish it with `rgr resume` first")
    return state


def accept(ws: Workspace) -> Outcome[None]:
    """Fast-forward the branch the refactor started from to the refactor's tip."""
    state = _complete_state(ws)
    assert state.refactor is not None and state.refactor.source_branch
    source = state.refactor.source_branch
    require_clean(ws, "rgr refactor --accept")
    head = git.head_commit(ws.repo)
    branch = ws.repo.branches.local.get(source)
    if branch is None:
        raise RepositoryError(f"branch {source} no longer exists",
                              f"create it again (`git branch {source} <commit>`)")
    current = git.current_branch(ws.repo)
    if current == source:
        return Outcome([f"the refactor is already on {source}"])
    tip = branch.peel(Commit)
    if not git.is_ancestor(ws.repo, tip.id, head.id):
        raise RepositoryError(
            f"{source} moved since the refactor started: it cannot be fast-forwarded",
            f"merge it yourself (`git switch {source} && git merge {current}`)")
    branch.set_target(head.id)
    ws.repo.checkout(branch.name)
    return Outcome([f"accepted: {source} fast-forwarded to {short(str(head.id))}"])


def reject(ws: Workspace) -> Outcome[None]:
    """Back to the branch the refactor started from; the refactor branch is kept under a
    backup ref and deleted."""
    state = _complete_state(ws)
    assert state.refactor is not None and state.refactor.source_branch
    source = state.refactor.source_branch
    current = git.current_branch(ws.repo)
    if current == source or current is None:
        raise RepositoryError("the refactor was made on its source branch (--here)",
                              f"use `rgr rollback {short(state.refactor.start_commit or '')}`")
    require_clean(ws, "rgr refactor --reject")
    head = git.head_commit(ws.repo)
    backup = git.backup_ref(ws.repo, head.id, "refactor-reject")
    ws.repo.checkout(f"refs/heads/{source}")
    branch = ws.repo.branches.local.get(current)
    if branch is not None:
        branch.delete()
    return Outcome([f"rejected: back on {source}; the refactor is kept at {backup}"])
