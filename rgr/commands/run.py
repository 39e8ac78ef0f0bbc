"""``rgr run "<feature>"`` and ``rgr resume``: preconditions, then the phase loop."""

from __future__ import annotations

import hashlib
import re
import shlex
import unicodedata
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click
import pygit2

from rgr import __version__, failpoints, git, inflight, integrate
from rgr.attempt import (
    ATTEMPTS_PREFIX,
    Sealer,
    open_sealer,
    remove_stale_folders,
    tests_summary,
)
from rgr.backends import claude_release
from rgr.backends.base import Backend
from rgr.backends.router import make_backend as _make_backend
from rgr.config import TestCommand, resolve_test_command
from rgr.errors import ConfigError, NeedsConfirmation, RepositoryError
from rgr.events import event
from rgr.handoff import ErrorDetails, HandoffState, Phase, TestResult, now_utc
from rgr.inflight import Inflight
from rgr.invocation import Invocation, describe_limits, observed
from rgr.limits import Limits
from rgr.locks import clear_stale_git_locks, run_lock
from rgr.orchestrator import LEFTOVERS_PREFIX, Orchestrator
from rgr.processes import kill_orphans
from rgr.retry import AttemptRejected
from rgr.ui import esc, make_console, short
from rgr.verify import TestReport, require_results
from rgr.view import NORMAL, PlainView
from rgr.workspace import Workspace


@dataclass(frozen=True)
class RunOptions:
    assume_yes: bool = False
    interactive: bool = False
    skip_preflight: bool = False
    max_phases: int | None = None
    backoff_base_s: float = 1.0
    integrate: str = "none"  # at the end of a completed run: none, merge or pr
    verbosity: int = NORMAL  # rgr.view.QUIET / NORMAL / VERBOSE (-q / default / -v)
    max_budget_usd: float | None = None
    max_cycles: int | None = None
    max_minutes: float | None = None

    def limits(self) -> Limits:
        return Limits(max_budget_usd=self.max_budget_usd, max_cycles=self.max_cycles,
                      max_minutes=self.max_minutes)


#: The progress log a command writes to (a PlainView or a LiveView).
PhaseLog = PlainView
Log = Callable[[str], None]


def slugify(text: str, limit: int = 40) -> str:
    """A branch-name slug of ``text``: accents dropped from Latin letters (é -> e), the
    letters of other scripts kept, anything else a '-'. When the slug had to be cut, or
    nothing readable is left, a hash of the whole text makes it unique to that text."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    slug = re.sub(r"[\W_]+", "-", unicodedata.normalize("NFC", bare)).strip("-")
    if slug and len(slug) <= limit:
        return slug
    tag = hashlib.sha1(text.encode()).hexdigest()[:6]
    head = slug[: limit - len(tag) - 1].rstrip("-")
    return f"{head}-{tag}" if head else f"feature-{tag}"


def _default_branch(ws: Workspace, prefix: str, text: str) -> str:
    """``<prefix><slug>``, unless a branch of that name holds another feature's run (or
    no run): then the slug gets a hash of the text, so two features never share one."""
    target = f"{prefix}{slugify(text)}"
    existing = ws.repo.branches.local.get(target)
    if existing is None:
        return target
    found = ws.notes.latest_reachable(str(existing.target))
    if found is not None and found[0].state is not None and found[0].state.feature == text:
        return target  # the same feature again: require_new_branch offers to resume it
    return f"{target}-{hashlib.sha1(text.encode()).hexdigest()[:6]}"


def read_text_argument(text: str | None, brief: Path | None, what: str, usage: str) -> str:
    """The feature or goal: from the command line, or from a ``--brief`` file."""
    if text and brief:
        raise click.UsageError(f"give the {what} as an argument or with --brief, not both")
    if brief is not None:
        try:
            text = brief.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RepositoryError(f"cannot read the brief {brief}: {exc}",
                                  "pass a readable markdown or text file") from None
    if not (text or "").strip():
        raise click.UsageError(f"the {what} is empty: {usage}")
    return (text or "").strip()


def headline(text: str, limit: int = 100) -> str:
    """The first line of a feature or goal, cut for a header; the whole text goes to
    the planner, not to the terminal."""
    lines = text.splitlines() or [""]
    first = lines[0][:limit]
    if len(text) > len(first):
        first = f"{first.rstrip()}… ({len(text):,} characters)"
    return first


def check_branch_option(branch: str | None, here: bool) -> None:
    """``--branch`` is checked before anything runs: a bad name found after the baseline
    would leave a noted start commit that no branch reaches."""
    if branch is None:
        return
    if here:
        raise click.UsageError("--branch and --here exclude each other")
    problem = git.check_branch_name(branch)
    if problem is not None:
        raise click.UsageError(f"--branch {branch!r} is not a valid branch name: {problem}")


def require_new_branch(ws: Workspace, target: str, start_branch: str) -> None:
    """The branch a run creates must not exist; the hint depends on what it is."""
    branch = ws.repo.branches.local.get(target)
    if branch is None:
        return
    if target == start_branch:
        hint = (f"you are on {target}: pass --here to work on it, or name a new branch "
                "with --branch")
    elif ws.notes.latest_reachable(str(branch.target)) is not None:
        hint = (f"continue its run with `git switch {target} && rgr resume`, or pick "
                "another name with --branch")
    else:
        hint = "pick another name with --branch (that branch holds no rgr run)"
    raise RepositoryError(f"branch {target} already exists", hint)


#: Folders a toolchain makes in the working tree (a virtualenv, npm's packages, caches):
#: untracked, they are an unignored environment, not work to commit or stash (`git stash
#: -u` would take a virtualenv away). Any folder holding a pyvenv.cfg counts too.
ENVIRONMENT_FOLDERS = frozenset({".venv", "venv", "node_modules", "__pycache__", ".tox",
                                 ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                                 ".direnv"})


def _require_clean(ws: Workspace, what: str) -> None:
    dirty = git.uncommitted_paths(ws.repo)
    if not dirty:
        return
    environments = _environment_folders(ws)
    work = [p for p in dirty if not p.startswith(tuple(environments))]
    why = f"{what} needs a clean tree so that every change it verifies is the agent's"
    if not work:
        raise RepositoryError(
            "the working tree has untracked environment folders that git does not ignore "
            f"({', '.join(environments)}); {why}",
            f"make git ignore them: `{_ignore_line(environments)}` (for this clone only: "
            "append to .git/info/exclude instead); `git stash -u` would stash them away")
    found = f"uncommitted changes ({git.describe_paths(work)})"
    first = ""
    if environments:
        found += f" and untracked environment folders ({', '.join(environments)})"
        first = (f"make git ignore the environment folders first: "
                 f"`{_ignore_line(environments)}`; then ")
    raise RepositoryError(
        f"the working tree has {found}; {why}",
        first + "commit or stash the changes (`git stash -u`" + (
            ", which leaves ignored folders alone)" if environments else ")") + (
            ", or let rgr keep them under refs/rgr/leftovers/ with "
            "`rgr resume --set-aside`" if what == "rgr resume" else ""),
    )


def _environment_folders(ws: Workspace) -> list[str]:
    """The untracked folders (``path/``) that hold an environment, not work."""
    return [entry for entry in git.untracked_folders(ws.repo)
            if Path(entry).name in ENVIRONMENT_FOLDERS
            or (ws.root / entry / "pyvenv.cfg").is_file()]


def _ignore_line(folders: list[str]) -> str:
    """The shell line that makes git ignore ``folders`` for good: a known name anywhere
    (``__pycache__/`` is wanted in every package), any other virtualenv at its place."""
    patterns = [f"{Path(f).name}/" if Path(f).name in ENVIRONMENT_FOLDERS else f"/{f}"
                for f in folders]
    quoted = " ".join(shlex.quote(p) for p in patterns)
    line = (f"echo {quoted} >> .gitignore" if len(patterns) == 1
            else f"printf '%s\\n' {quoted} >> .gitignore")
    return f"{line} && git add .gitignore && git commit -m 'Ignore environment folders'"


def _preflight(backend: Backend, ws: Workspace, options: RunOptions, log: PlainView,
               check_login: bool = True) -> None:
    version = backend.version()
    log(f"agent backend: {backend.name} {version}")
    warning = claude_release.range_warning(version) if backend.name == "claude" else None
    if warning is not None:
        log.always(f"warning: {warning}")
    if check_login:
        _check_login(backend, ws, options, log)


def _check_login(backend: Backend, ws: Workspace, options: RunOptions, log: PlainView) -> None:
    if not options.skip_preflight:
        backend.check_login(ws.root)
        log("agent backend: login verified")


def require_startable(sealer: Sealer, report: TestReport) -> None:
    """A test run that could not even start inside the sandbox stops here, naming the
    missing path and the setting that would show it (not a generic runner hint)."""
    if report.all_passed:
        return
    found = sealer.diagnose(report)
    if found is not None:
        raise ConfigError(f"the test command cannot run inside the sandbox: {found.problem}",
                          f"{found.fix}; `rgr doctor` lists what the sandbox shows and why")


def _confirm(options: RunOptions, question: str) -> None:
    if options.assume_yes:
        return
    if not options.interactive:
        raise NeedsConfirmation(
            "not a terminal: rgr will not start unattended work without confirmation",
            "pass --yes to go ahead",
        )
    if not click.confirm(question, default=True):
        click.echo("not started: nothing was changed", err=True)
        raise click.exceptions.Exit(1)


def _orchestrator(ws: Workspace, backend: Backend, test_command: TestCommand,
                  options: RunOptions, inv: Invocation) -> Orchestrator:
    sealer = open_sealer(ws, backend, test_command, inv.view)
    # The run folder's sandbox.json: what agents and test runs were shown, and why.
    inv.observer.emit(event("sandbox", **sealer.note().model_dump(mode="json",
                                                                  by_alias=True)))
    return Orchestrator(ws, backend, test_command, inv.view, sealer,
                        backoff_base_s=options.backoff_base_s, max_phases=options.max_phases,
                        observer=inv.observer, limits=inv.limits)


def make_backend(ws: Workspace) -> Backend:
    return _make_backend(ws.config, ws.env, ws.config_root)


def run(ws: Workspace, feature: str, here: bool, branch: str | None, options: RunOptions,
        backend: Backend | None = None) -> int:
    feature = feature.strip()
    if not feature:
        raise click.UsageError("the feature description is empty")
    check_branch_option(branch, here)
    start_branch = git.require_branch(ws.repo)
    start = git.head_commit(ws.repo)
    _require_clean(ws, "rgr run")
    ws = ws.pinned()
    test_command = resolve_test_command(ws.config, ws.root)
    target = start_branch if here else (
        branch if branch is not None else _default_branch(ws, ws.config.branch_prefix, feature))
    if not here:
        require_new_branch(ws, target, start_branch)
    backend = backend or make_backend(ws)
    with run_lock(ws.git_dir, "rgr run"):
        recover_after_crash(ws, PlainView(options.verbosity))
        out = make_console()
        out.print(f"[bold]rgr run[/bold]: {esc(headline(feature))}")
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
        integrate.preflight(ws, options.integrate)
        run_id = str(uuid.uuid4())
        with observed(ws, "run", run_id, feature, target, options.limits(),
                      options.verbosity) as inv:
            final = _start_and_loop(ws, backend, test_command, options, inv, here, target,
                                    start_branch, start, feature, run_id)
            return _finish(final, inv, ws, options)


def _start_and_loop(ws: Workspace, backend: Backend, test_command: TestCommand,
                    options: RunOptions, inv: Invocation, here: bool, target: str,
                    start_branch: str, start: pygit2.Commit, feature: str,
                    run_id: str) -> HandoffState:
    log = inv.view
    _preflight(backend, ws, options, log, check_login=False)
    orchestrator = _orchestrator(ws, backend, test_command, options, inv)
    # The baseline runs sealed before anything is spent (the login check is a request).
    baseline = orchestrator.tests_at_head()
    require_startable(orchestrator.sealer, baseline)
    # Refuse to referee blind: a runner whose results rgr cannot read would make every
    # RED look like "no new test" and every GREEN like a pass of nothing.
    require_results(baseline, test_command)
    _check_login(backend, ws, options, log)
    if not baseline.all_passed:
        raise RepositoryError(
            f"the test suite is not green before rgr starts: {baseline.problem()}",
            "TDD starts from green: fix or remove the failing tests, then run again",
        )
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


def _finish(state: HandoffState, inv: Invocation, ws: Workspace, options: RunOptions) -> int:
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

        return report.at_end_of_run(ws, options.integrate)
    inv.outcome = "paused"
    inv.message = (f"paused before {state.resume_phase} (cycle {state.cycle_number}); "
                   "`rgr resume` continues")
    inv.view.always(inv.message)
    return 0


def resume(ws: Workspace, options: RunOptions, set_aside: bool,
           backend: Backend | None = None, unnoted: str | None = None) -> int:
    """Continue from the latest handoff on this branch, first settling whatever an
    interruption left: orphaned agent processes, stale git locks, an attempt in flight,
    commits or edits made after the last note."""
    git.require_branch(ws.repo)
    head = git.head_commit(ws.repo)
    record, state, distance = ws.notes.latest_handoff(
        str(head.id), "resume", "run `rgr repair-notes`, or `rgr rollback` to an earlier handoff")
    if state.resume_phase == Phase.COMPLETE and not distance and \
            inflight.read(ws.git_dir) is None:
        make_console().print("the run is complete: nothing to resume")
        return 0
    ws = ws.pinned()
    if state.mode == "refactor":
        from rgr.commands import refactor

        return refactor.resume(ws, state, record.commit, options, set_aside, backend, unnoted)
    test_command = resolve_test_command(ws.config, ws.root)
    backend = backend or make_backend(ws)
    with run_lock(ws.git_dir, "rgr resume"):
        recover_after_crash(ws, PlainView(options.verbosity))
        interrupted = inflight.read(ws.git_dir)
        ours = (interrupted is not None and interrupted.base == record.commit
                and interrupted.run_id == state.run_id)
        if interrupted is not None and not ours:
            inflight.clear(ws.git_dir)  # from another run or a commit no longer noted
        if state.resume_phase == Phase.COMPLETE and not distance and not ours:
            make_console().print("the run is complete: nothing to resume")
            return 0
        dirty = git.uncommitted_paths(ws.repo)
        if dirty and not ours:
            if not set_aside:
                _require_clean(ws, "rgr resume")
            ref = git.set_aside(ws.repo, f"{LEFTOVERS_PREFIX}resume/{head.id}",
                                "rgr resume: uncommitted changes set aside")
            make_console().print(f"uncommitted changes saved under {esc(ref)} and removed "
                                 "from the tree")
        if distance and not ours:
            unnoted = unnoted or _ask_unnoted(ws, options, record.commit, state)
        _confirm(options, f"Resume with {state.resume_phase} (cycle {state.cycle_number})?")
        integrate.preflight(ws, options.integrate)
        run_id = state.run_id or f"run-{record.commit[:12]}"
        with observed(ws, "resume", run_id, state.feature, git.current_branch(ws.repo),
                      options.limits(), options.verbosity) as inv:
            log = inv.view
            _preflight(backend, ws, options, log)
            orchestrator = _orchestrator(ws, backend, test_command, options, inv)
            if ours:
                assert interrupted is not None
                state = _settle_interrupted(ws, orchestrator, state, interrupted, log)
            elif distance:
                state = _settle_unnoted(ws, orchestrator, record.commit, state, unnoted, log)
            if state.resume_phase == Phase.COMPLETE:  # the interrupted attempt finished it
                return _finish(state, inv, ws, options)
            log(f"resuming with {state.resume_phase} (cycle {state.cycle_number})")
            final = orchestrator.loop(state)
            return _finish(final, inv, ws, options)


#: What `rgr resume --unnoted` can do with commits made after the last handoff.
UNNOTED_CHOICES = ("adopt", "set-aside")


def recover_after_crash(ws: Workspace, log: Log) -> None:
    """Under the run lock: stop agents a dead rgr left working here, and remove git
    locks that no live process holds (a git killed mid-write leaves its lock behind)."""
    killed = kill_orphans(ws.root)
    if killed:
        log(f"stopped {len(killed)} agent process(es) left running by an interrupted rgr")
    for lock in clear_stale_git_locks(ws.git_dir):
        log(f"removed a stale git lock no process holds: {lock.relative_to(ws.git_dir)}")
    record = inflight.read(ws.git_dir)
    removed = remove_stale_folders(ws, keep=record.scratch if record else None)
    if removed:
        log(f"removed {removed} scratch folder(s) an interrupted rgr left behind")


def _ask_unnoted(ws: Workspace, options: RunOptions, noted: str, state: HandoffState) -> str:
    """Commits after the last handoff that rgr did not make: the user decides."""
    head = git.head_commit(ws.repo)
    commits = git.commits_between(ws.repo, git.resolve_commit(ws.repo, noted).id, head.id)
    listing = ", ".join(short(str(c.id)) for c in commits[:5]) + (
        " ..." if len(commits) > 5 else "")
    what = (f"{len(commits)} commit(s) after the last handoff ({listing}) were not made by "
            f"an rgr agent")
    if not options.interactive:
        raise RepositoryError(
            f"{what}; rgr will not judge or move them without your say",
            f"`rgr resume --unnoted adopt` checks them as {state.resume_phase} work (noted "
            "if they pass, set aside under refs/rgr/attempts/ if not); `--unnoted set-aside` "
            "keeps them under refs/rgr/attempts/ and continues from the last handoff")
    make_console().print(f"{what}.\n  adopt      check them as {state.resume_phase} work "
                         "(noted if they pass, set aside if not)\n  set-aside  keep them "
                         "under refs/rgr/attempts/ and continue from the last handoff")
    choice: str = click.prompt("What should rgr do with them?",
                               type=click.Choice([*UNNOTED_CHOICES, "quit"]),
                               default="quit")
    if choice == "quit":
        raise click.exceptions.Exit(1)
    return choice


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
        return state.model_copy(update={
            "error": str(rejected), "error_details": ErrorDetails(
                type=rejected.violations[0].rule if rejected.violations else "rejected",
                message=rejected.brief[:4000])})


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
