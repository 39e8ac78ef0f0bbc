"""``rgr run "<feature>"`` and ``rgr resume``: preconditions, then the phase loop."""

from __future__ import annotations

import shlex
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from rgr import __version__
from rgr.backends.base import Backend
from rgr.base import failpoints
from rgr.base.config import TestCommand
from rgr.base.errors import BackendError
from rgr.base.outcome import Heading, Outcome
from rgr.base.ui import short
from rgr.branches import integrate
from rgr.commands.common import ask_unnoted, confirm
from rgr.ecosystems.registry import resolve_test_command
from rgr.loop.retry import AttemptRejected
from rgr.loop.starting import (
    RunOptions,
    check_branch_option,
    check_login,
    default_branch,
    headline,
    make_backend,
    preflight,
    recover_after_crash,
    require_clean,
    require_new_branch,
    settle_baseline,
)
from rgr.loop.summaries import tests_summary
from rgr.observe.events import SandboxShown
from rgr.observe.invocation import Invocation, describe_limits, observed
from rgr.observe.view import PlainView
from rgr.sandbox.sealer import ATTEMPTS_PREFIX, open_sealer
from rgr.store import git, inflight
from rgr.store.handoff import ErrorDetails, HandoffState, Phase, TestResult, now_utc
from rgr.store.inflight import Inflight
from rgr.store.locks import run_lock
from rgr.store.objects import Commit
from rgr.store.workspace import Workspace
from rgr.tdd.engine import LEFTOVERS_PREFIX, Orchestrator

if TYPE_CHECKING:
    from rgr.base.outcome import Say

Log = Callable[[str], None]


def _orchestrator(ws: Workspace, backend: Backend, test_command: TestCommand,
                  options: RunOptions, inv: Invocation) -> Orchestrator:
    sealer = open_sealer(ws, backend, test_command, inv.view)
    # The run folder's sandbox.json: what agents and test runs were shown, and why.
    inv.observer.emit(SandboxShown(note=sealer.note().model_dump(mode="json", by_alias=True)))
    return Orchestrator(ws, backend, test_command, inv.view, sealer,
                        backoff_base_s=options.backoff_base_s, max_phases=options.max_phases,
                        observer=inv.observer, limits=inv.limits)


def run(ws: Workspace, feature: str, here: bool, branch: str | None, options: RunOptions,
        say: Say, backend: Backend | None = None) -> Outcome[None]:
    """The run, said as it goes (the banner through ``say``, the phases through the
    run's view); the Outcome is its exit code."""
    feature = feature.strip()
    if not feature:
        raise click.UsageError("the feature description is empty")
    check_branch_option(branch, here)
    start_branch = git.require_branch(ws.repo)
    start = git.head_commit(ws.repo)
    require_clean(ws, "rgr run")
    ws = ws.pinned()
    test_command = resolve_test_command(ws.config, ws.root)
    target = start_branch if here else (
        branch if branch is not None else default_branch(ws, ws.config.branch_prefix, feature))
    if not here:
        require_new_branch(ws, target, start_branch)
    backend = backend or make_backend(ws)
    with run_lock(ws.git_dir, "rgr run"):
        recover_after_crash(ws, PlainView(options.verbosity))
        # What is about to happen, said before the confirmation.
        banner: list[str | Heading] = [
            Heading("rgr run", f": {headline(feature)}"),
            f"  repository    {ws.root}",
            f"  branch        {target}"
            + ("" if here else f" (new, from {start_branch} at {short(str(start.id))})"),
            f"  test command  {shlex.join(test_command.argv)} ({test_command.source})",
            f"  retries       {ws.config.max_retries} per phase"]
        limits = describe_limits(options.limits())
        if limits:
            banner.append(f"  limits        {limits}")
        banner.append("  loop          PLAN → RED → GREEN → REFACTOR, one agent session per phase")
        for item in banner:
            say(item)
        confirm(options, "Start?")
        integrate.preflight(ws, options.integrate)
        run_id = str(uuid.uuid4())
        with observed(ws, "run", run_id, feature, target, options.limits(),
                      options.verbosity, new_run=True) as inv:
            final = _start_and_loop(ws, backend, test_command, options, inv, here, target,
                                    start_branch, start, feature, run_id)
            return _finish(final, inv, ws, options, say)


def _start_and_loop(ws: Workspace, backend: Backend, test_command: TestCommand,
                    options: RunOptions, inv: Invocation, here: bool, target: str,
                    start_branch: str, start: Commit, feature: str,
                    run_id: str) -> HandoffState:
    log = inv.view
    preflight(backend, ws, options, log, login=False)
    orchestrator = _orchestrator(ws, backend, test_command, options, inv)
    # The baseline runs sealed before anything is spent (the login check is a request).
    baseline = orchestrator.baseline()
    # The check `rgr verify` and `rgr doctor` make too: before the login check, which
    # is a paid request.
    baseline, refused = settle_baseline(orchestrator.sealer, baseline)
    if refused is not None:
        raise refused
    if orchestrator.sealer.applied_note is not None:
        log.always(orchestrator.sealer.applied_note)
    check_login(backend, ws, options, log)
    if baseline.no_tests_collected:
        log("baseline: no tests yet (a valid green start)")
    marker = git.resolve_commit(
        # The run id makes the marker this run's own: two runs of one feature from one
        # commit within a second (daemon jobs) would otherwise make the same commit, and
        # their start notes would meet on it when the notes are merged.
        ws.repo, str(git.commit_empty(ws.repo, f"rgr: start {feature}\n\nrgr-run: {run_id}\n",
                                      start)))
    orchestrator.remember_report(marker, baseline)
    state = HandoffState(
        phase=Phase.REFACTOR,  # cycle 0: the green baseline, as if a cycle just ended
        next_phase=Phase.PLAN,
        cycle_number=0,
        test_result=TestResult.PASS,
        schema_version=1,
        run_id=run_id,
        feature=feature,
        branch=target,
        start_branch=start_branch,
        base_commit=str(start.id),
        started_at=now_utc(),
        finished_at=now_utc(),
        rgr_version=__version__,
        summary="baseline: the suite is green before any change",
        tests=tests_summary(baseline),
        config_source=ws.config_source,
        sandbox=orchestrator.sealer.note(),
    )
    ws.notes.write(str(marker.id), state, "rgr: start")
    failpoints.hit("run:start-noted")
    # Only now does a branch move: a crash before this line leaves the repository as it
    # was (an unreachable commit and its note), one after it a resumable run.
    if here:
        git.advance_branch(ws.repo, target, marker.id, f"rgr: start {feature}")
    else:
        git.create_branch(ws.repo, target, marker)
    failpoints.hit("run:started")
    log(f"started on {target} at {short(str(marker.id))}")
    return orchestrator.loop(state)


def _finish(state: HandoffState, inv: Invocation, ws: Workspace, options: RunOptions,
            say: Say) -> Outcome[None]:
    if state.resume_phase == Phase.COMPLETE:
        inv.outcome = "complete"
        inv.message = (f"feature complete after {state.cycle_number} cycle(s): "
                       f"{len(state.completed_tests)} test(s) done")
        inv.view.always(inv.message)
        # The report (and the integration's questions) go to the terminal through a
        # console of their own: a live panel still up would be drawn over them, erasing
        # their last lines and leaving its own last frame ("checking the commit") under
        # them. The run is over: the panel goes first.
        inv.view.close()
        from rgr.commands import report

        return report.at_end_of_run(ws, options.integrate, None, say)
    inv.outcome = "paused"
    inv.message = (f"paused before {state.resume_phase} (cycle {state.cycle_number}); "
                   "`rgr resume` continues")
    inv.view.always(inv.message)
    return Outcome()


def resume(ws: Workspace, options: RunOptions, set_aside: bool, say: Say,
           backend: Backend | None = None, unnoted: str | None = None) -> Outcome[object]:
    """Continue from the latest handoff on this branch, first settling whatever an
    interruption left: orphaned agent processes, stale git locks, an attempt in flight,
    commits or edits made after the last note."""
    git.require_branch(ws.repo)
    head = git.head_commit(ws.repo)
    record, state, distance = ws.notes.latest_handoff(
        str(head.id), "resume", "run `rgr repair-notes`, or `rgr rollback` to an earlier handoff")
    if state.resume_phase == Phase.COMPLETE and not distance and \
            inflight.read(ws.git_dir) is None:
        return Outcome(["the run is complete: nothing to resume"])
    ws = ws.pinned()
    if state.mode == "refactor":
        from rgr.commands import refactor

        return refactor.resume(ws, state, record.commit, options, set_aside, say, backend,
                               unnoted)
    test_command = resolve_test_command(ws.config, ws.root)
    backend = backend or make_backend(ws)
    with run_lock(ws.git_dir, "rgr resume"):
        recover_after_crash(ws, PlainView(options.verbosity))
        interrupted = inflight.read(ws.git_dir)
        ours = (interrupted is not None and interrupted.mode == "tdd"
                and interrupted.base == record.commit and interrupted.run_id == state.run_id)
        if interrupted is not None and not ours:
            inflight.clear(ws.git_dir)  # from another run or a commit no longer noted
        if state.resume_phase == Phase.COMPLETE and not distance and not ours:
            return Outcome(["the run is complete: nothing to resume"])
        dirty = git.uncommitted_paths(ws.repo)
        if dirty and not ours:
            if not set_aside:
                require_clean(ws, "rgr resume")
            ref = git.set_aside(ws.repo, f"{LEFTOVERS_PREFIX}resume/{head.id}",
                                "rgr resume: uncommitted changes set aside")
            say(f"uncommitted changes saved under {ref} and removed from the tree")
        if distance and not ours:
            unnoted = unnoted or ask_unnoted(ws, options, record.commit, state)
        confirm(options, f"Resume with {state.resume_phase} (cycle {state.cycle_number})?")
        integrate.preflight(ws, options.integrate)
        run_id = state.run_id or f"run-{record.commit[:12]}"
        with observed(ws, "resume", run_id, state.feature, git.current_branch(ws.repo),
                      options.limits(), options.verbosity) as inv:
            log = inv.view
            try:
                preflight(backend, ws, options, log)
            except BackendError as refused:
                raise _in_a_demo_kata(refused, state) from None
            orchestrator = _orchestrator(ws, backend, test_command, options, inv)
            # the writable copies the run's start applied itself (rgr.loop.fix_trials)
            started = ws.notes.run_start(record.commit, state.run_id)
            if started is not None and started.sandbox is not None:
                orchestrator.sealer.applied = tuple(started.sandbox.writable_copy)
            if ours:
                assert interrupted is not None
                state = _settle_interrupted(ws, orchestrator, state, interrupted, log)
            elif distance:
                state = _settle_unnoted(ws, orchestrator, record.commit, state, unnoted, log)
            else:
                orchestrator.reuse_recorded(head)
            if state.resume_phase == Phase.COMPLETE:  # the interrupted attempt finished it
                return _finish(state, inv, ws, options, say)
            log(f"resuming with {state.resume_phase} (cycle {state.cycle_number})")
            final = orchestrator.loop(state)
            return _finish(final, inv, ws, options, say)


def _in_a_demo_kata(refused: BackendError, state: HandoffState) -> BackendError:
    """``refused`` (the agent's login, say), with why when the run is `rgr demo`'s: its
    model was the replay server, gone with the demo, so the real API is asked."""
    from rgr.demo.kata import FEATURE  # only on this error's path: it loads the replay

    if state.feature != FEATURE:
        return refused
    refused.message += (" (this is the kata of an `rgr demo` that was stopped: its model "
                        "was the demo's replay server, which stopped with it, so resuming "
                        "asks the real API, where the demo's agent has no login)")
    refused.hint = "run `rgr demo` again for a new replay" + (
        f"; or, to go on with your own login: {refused.hint}" if refused.hint else "")
    return refused


def _settle_interrupted(ws: Workspace, orchestrator: Orchestrator, state: HandoffState,
                        interrupted: Inflight, log: Log) -> HandoffState:
    """rgr died in the middle of an attempt: judge it now, exactly as it would have been."""
    log(f"judging the {interrupted.phase} attempt that was running when rgr stopped")
    try:
        return orchestrator.judge_interrupted(state, interrupted)
    except AttemptRejected as rejected:
        head = git.head_commit(ws.repo)
        if str(head.id) != interrupted.base:
            # Adopted commits of the user's that failed: kept under refs/rgr/attempts/
            # by the judge; the branch goes back to the last handoff.
            git.reset_hard(ws.repo, git.resolve_commit(ws.repo, interrupted.base).id)
        # The loop re-runs the phase; the brief tells the next session what went wrong.
        return state.updated(
            error=str(rejected), error_details=ErrorDetails(
                type=rejected.violations[0].rule if rejected.violations else "rejected",
                message=rejected.brief[:4000]))


def _settle_unnoted(ws: Workspace, orchestrator: Orchestrator, noted: str,
                    state: HandoffState, choice: str | None, log: Log) -> HandoffState:
    """The user's commits after the last note, handled as the user chose."""
    repo = ws.repo
    head = git.head_commit(repo)
    base = git.resolve_commit(repo, noted)
    phase = state.resume_phase
    if choice == "adopt" and phase != Phase.PLAN:
        log(f"checking the commits after the last handoff as {phase} work")
        adopted = Inflight(run_id=state.run_id, phase=phase,
                           cycle=state.cycle_number, attempt=1, base=noted,
                           session_id="adopted-by-resume", started_at=now_utc().isoformat(),
                           output={"summary": "commits made outside rgr, adopted by resume"},
                           result={"session_id": "adopted-by-resume"}, tip=str(head.id))
        inflight.write(ws.git_dir, adopted)
        return _settle_interrupted(ws, orchestrator, state, adopted, log)
    if choice == "adopt":
        log("a PLAN's choice of test exists only in the planner's answer: commits made "
            "outside rgr cannot be adopted as a plan; they are set aside instead")
    name = f"{ATTEMPTS_PREFIX}{state.run_id or 'run'}/unnoted-{str(head.id)[:8]}"
    repo.create_reference_direct(name, head.id, True, message="rgr resume: set aside")
    git.reset_hard(repo, base.id)
    log(f"commits after the last handoff kept at {name}; branch back at {short(noted)}")
    return state
