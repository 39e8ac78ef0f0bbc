"""The command line: click parses options and calls one function per command, which
returns the command's Outcome.

``main`` is the one dispatcher and top-level handler: it renders the Outcome (text, or
JSON under ``--json``: rgr.base.render) and exits with its code; an expected failure
(RgrError) prints what went wrong and how to fix it and exits 1; Ctrl-C exits 130;
anything else is a bug, which exits 3 and names the crash log it wrote.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from rgr import __version__
from rgr.backends import registry
from rgr.base import backend_names
from rgr.base.errors import BadUsage, ExitCode, RgrError

if TYPE_CHECKING:
    from rgr.base.outcome import Outcome, Say
    from rgr.loop.starting import RunOptions
    from rgr.store.workspace import Workspace


class Context:
    """Global options, the workspace opened from them on first use, and whether the
    command's Outcome is rendered as JSON (``--json``: read by :func:`main`)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self.no_sandbox = False
        self.as_json = False
        self._workspace: Workspace | None = None

    def say(self) -> Say:
        """Where the command's words go while it works (stderr under ``--json``)."""
        from rgr.base.render import speaker

        return speaker(self.as_json)

    def workspace(self, **flags: object) -> Workspace:
        if self._workspace is None:
            # Imported here: `rgr --help` and usage errors need no repository layer.
            from rgr.store.workspace import open_workspace

            self._workspace = open_workspace(self.root, flags=flags,
                                             no_sandbox=self.no_sandbox)
        return self._workspace


def _no_sandbox(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.find_object(Context).no_sandbox = True  # type: ignore[union-attr]


def _as_json(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.find_object(Context).as_json = True  # type: ignore[union-attr]
    return value


def json_option(help_text: str) -> Callable[[Callable[..., object]], Callable[..., object]]:
    """``--json``: the command's Outcome is rendered as JSON (rgr.cli.main)."""
    return click.option("--json", "as_json", is_flag=True, callback=_as_json,
                        help=help_text)


pass_context = click.make_pass_decorator(Context)


def _invoke_showing_usage(invoke: Callable[[click.Context], object],
                          ctx: click.Context) -> object:
    """``invoke(ctx)``, with rgr's own BadUsage (raised below the entry layer, which
    does not know click) turned into click's usage error for this command: the usage
    line, ``Error: <message>``, exit 2, exactly as click says its own."""
    try:
        return invoke(ctx)
    except BadUsage as exc:
        raise click.UsageError(exc.message, ctx) from None


class _Command(click.Command):
    def invoke(self, ctx: click.Context) -> object:
        return _invoke_showing_usage(super().invoke, ctx)


class _Group(click.Group):
    command_class = _Command
    group_class = type  # subgroups (queue, daemon) are _Groups too

    def invoke(self, ctx: click.Context) -> object:
        return _invoke_showing_usage(super().invoke, ctx)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rgr")
@click.option(
    "-C", "--root", type=click.Path(file_okay=False, path_type=Path),
    help="Work in this repository instead of the current directory (or set TDD_PROJECT_ROOT).",
)
@click.pass_context
def cli(ctx: click.Context, root: Path | None) -> None:
    """rgr holds an AI coding agent to strict test-driven development.

    `rgr run "<feature>"` loops PLAN → RED → GREEN → REFACTOR, one fresh agent session
    per phase, and checks every phase against git and the real test runner before it
    records the handoff as a git note under refs/notes/tdd-handoffs.
    """
    ctx.ensure_object(Context).root = root


class Limits(NamedTuple):
    """The limit and verbosity flags shared by `rgr run` and `rgr resume`."""

    max_budget_usd: float | None = None
    max_cycles: int | None = None
    max_minutes: float | None = None
    verbose: bool = False
    quiet: bool = False


class RunFlags(NamedTuple):
    """The flags `rgr run`, `rgr resume` and `rgr refactor` share, as click parsed them:
    one parameter of the command's function (:func:`run_flags`), not twelve."""

    assume_yes: bool
    skip_preflight: bool
    max_phases: int | None
    model: str | None
    backend: str | None
    max_retries: int | None
    max_budget_usd: float | None
    max_cycles: int | None
    max_minutes: float | None
    verbose: bool
    quiet: bool
    integrate: str

    def workspace(self, ctx: Context) -> Workspace:
        """The repository, with the flags that override tdd.toml."""
        return ctx.workspace(model=self.model, max_retries=self.max_retries,
                             backend=self.backend)

    def options(self) -> RunOptions:
        return _run_options(self.assume_yes, self.skip_preflight, self.max_phases,
                            Limits(self.max_budget_usd, self.max_cycles, self.max_minutes,
                                   self.verbose, self.quiet), self.integrate)


def _run_options(assume_yes: bool, skip_preflight: bool, max_phases: int | None,
                 flags: Limits | None = None, integrate: str = "none") -> RunOptions:
    from rgr.loop.starting import RunOptions
    from rgr.observe.view import NORMAL, QUIET, VERBOSE

    flags = flags or Limits()
    if flags.verbose and flags.quiet:
        raise click.UsageError("-v and -q exclude each other")
    return RunOptions(assume_yes=assume_yes, interactive=sys.stdin.isatty(),
                      skip_preflight=skip_preflight, max_phases=max_phases,
                      integrate=integrate,
                      verbosity=VERBOSE if flags.verbose else QUIET if flags.quiet else NORMAL,
                      max_budget_usd=flags.max_budget_usd, max_cycles=flags.max_cycles,
                      max_minutes=flags.max_minutes)


_INTEGRATE = click.Choice(["none", "merge", "pr"])
_integrate_option = click.option(
    "--integrate", type=_INTEGRATE, default="none", show_default=True,
    help="When the run is complete: fast-forward the branch it started from (merge), "
         "open a pull request with gh (pr), or leave it (none).")


_no_sandbox_option = click.option(
    "--no-sandbox", is_flag=True, expose_value=False, callback=_no_sandbox,
    help="Run agents and test runs without the bubblewrap sandbox (they still work in a "
         "scratch copy). Unsafe: an agent can then reach your files and the network. Said "
         "loudly in the run's log.")

_common_run_options = [
    click.option("-y", "--yes", "assume_yes", is_flag=True,
                 help="Start without asking (required when stdin is not a terminal)."),
    click.option("--skip-preflight", is_flag=True,
                 help="Skip the trivial agent call that proves the login works."),
    _no_sandbox_option,
    click.option("--max-phases", type=click.IntRange(min=1),
                 help="Stop (resumably) after this many phases."),
    click.option("--model", help="The model every agent uses (overrides tdd.toml, TDD_MODEL)."),
    click.option("--backend", type=click.Choice(backend_names.NAMES),
                 help="The agent CLI for every agent whose agents/*.toml names none "
                      "(overrides tdd.toml, TDD_BACKEND)."),
    click.option("--max-retries", type=click.IntRange(min=0),
                 help="Attempts per phase after the first (overrides tdd.toml)."),
]

#: Limits and verbosity: TDD runs only (refactor mode has its own batch limits).
_limit_options = [
    click.option("--max-budget-usd", type=click.FloatRange(min=0, min_open=True),
                 help="Stop (resumably) once the agents have cost this much in USD; each "
                      "phase gets what is left through claude's own --max-budget-usd."),
    click.option("--max-cycles", type=click.IntRange(min=1),
                 help="Stop (resumably) before starting cycle N+1 of this invocation."),
    click.option("--max-minutes", type=click.FloatRange(min=0, min_open=True),
                 help="Stop (resumably) after this many minutes: no attempt starts later "
                      "and a running agent session gets the time left as its timeout."),
    click.option("-v", "--verbose", is_flag=True,
                 help="Also show the agent's text, tool errors and per-session tokens."),
    click.option("-q", "--quiet", is_flag=True,
                 help="Only phase results, rejections, limits and the end."),
]


def run_flags(func: Callable[..., object]) -> Callable[..., object]:
    """The run options, the limits and --integrate, handed to ``func`` as one
    ``flags: RunFlags``."""
    import functools

    @functools.wraps(func)
    def collect(*args: object, **kwargs: Any) -> object:
        flags = RunFlags(**{name: kwargs.pop(name) for name in RunFlags._fields})
        return func(*args, flags=flags, **kwargs)

    command: Callable[..., object] = collect
    for option in reversed([*_common_run_options, *_limit_options, _integrate_option]):
        command = option(command)
    return command


@cli.command()
@click.argument("feature", required=False)
@click.option("--brief", type=click.Path(dir_okay=False, path_type=Path),
              help="Read the feature description from this markdown or text file.")
@click.option("--here", is_flag=True,
              help="Work on the current branch instead of a new rgr/<slug>.")
@click.option("--branch", help="Name of the branch to create (default: rgr/<feature slug>).")
@run_flags
@pass_context
def run(ctx: Context, feature: str | None, brief: Path | None, here: bool,
        branch: str | None, flags: RunFlags) -> Outcome[object]:
    """Develop FEATURE by strict TDD: PLAN → RED → GREEN → REFACTOR until done.

    Needs a clean working tree, a named branch and a green test suite. Each phase is a
    fresh `claude -p` session; rgr verifies its commit and notes the handoff. Ctrl-C at
    any time, then `rgr resume`. An agent that says its task cannot be done honestly
    stops the run with exit 4 and its reason (needs attention): `rgr resume` tries again,
    `rgr rollback` redoes an earlier phase.
    """
    from rgr.commands import run as command
    from rgr.loop.starting import read_text_argument

    text = read_text_argument(feature, brief, "feature description",
                                      'rgr run "<feature>" or --brief FILE')
    return command.run(flags.workspace(ctx), text, here, branch, flags.options(), ctx.say())


@cli.command()
@click.option("--set-aside", is_flag=True,
              help="Save uncommitted changes under refs/rgr/leftovers/ and continue.")
@click.option("--unnoted", type=click.Choice(["adopt", "set-aside"]),
              help="Commits made after the last handoff by someone other than rgr: check "
                   "them as the phase's work (adopt) or keep them under refs/rgr/attempts/ "
                   "and continue from the handoff (set-aside). Asked on a terminal.")
@run_flags
@pass_context
def resume(ctx: Context, set_aside: bool, unnoted: str | None,
           flags: RunFlags) -> Outcome[object]:
    """Continue the run on this branch from its latest handoff note.

    Settles what an interruption left first: agent processes still running, stale git
    locks, the attempt that was in flight (judged as it would have been), and commits or
    edits you made since (never moved without your say: see --unnoted, --set-aside).
    """
    from rgr.commands import run as command

    return command.resume(flags.workspace(ctx), flags.options(), set_aside, ctx.say(),
                          unnoted=unnoted)


@cli.command()
@click.argument("goal", required=False)
@click.option("--brief", type=click.Path(dir_okay=False, path_type=Path),
              help="Read the goal from this markdown or text file.")
@click.option("--plan-only", is_flag=True,
              help="Run the planner, validate and print the plan; change nothing.")
@json_option("With --plan-only: print the plan as JSON.")
@click.option("--accept", is_flag=True,
              help="Fast-forward the source branch to this finished refactor.")
@click.option("--reject", is_flag=True,
              help="Drop this finished refactor (kept under refs/rgr/backups/).")
@click.option("--here", is_flag=True,
              help="Work on the current branch instead of a new rgr/refactor-<slug>.")
@click.option("--branch", help="Name of the branch to create.")
@run_flags
@pass_context
def refactor(ctx: Context, goal: str | None, brief: Path | None, plan_only: bool,
             as_json: bool, accept: bool, reject: bool, here: bool, branch: str | None,
             flags: RunFlags) -> Outcome[object]:
    """Behaviour-preserving refactor toward GOAL in small verified batches.

    The [gate] must pass first; a planner proposes batches (validated by rgr), then one
    fresh patcher session per batch (renames: rope) commits it, and rgr checks scope,
    diff budget, tests and public API and runs the gate before noting it. --max-phases
    counts batches, and so does --max-cycles; --max-budget-usd and --max-minutes hold
    every agent session to what is left. `rgr resume` continues; `--accept` / `--reject`
    end it (or --integrate when it completes).
    """
    from rgr.commands import refactor as command

    if as_json and not plan_only:
        raise click.UsageError("--json goes with --plan-only (the plan as JSON); a refactor "
                               "run's record as JSON: `rgr report --json`")
    ws = flags.workspace(ctx)
    if accept and reject:
        raise click.UsageError("--accept and --reject exclude each other")
    if accept:
        return command.accept(ws)
    if reject:
        return command.reject(ws)
    options = command.RefactorOptions(flags.options(), plan_only, log_to_stderr=as_json)
    return command.refactor(ws, command.read_goal(goal, brief), here, branch, options,
                            ctx.say())


@cli.command("eval")
@click.argument("tasks", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--modes", default="bare,rgr", show_default=True,
              help="Comma-separated: bare (one session asked for the feature with tests), "
                   "tdd-prompt (one session told to work test-first), rgr (rgr run).")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs of each task in each mode.")
@click.option("--backend", type=click.Choice(backend_names.NAMES),
              help="The agent CLI of every mode (overrides each task's tdd.toml).")
@click.option("--model", help="The model of every mode (overrides each task's tdd.toml).")
@click.option("--budget-usd", type=click.FloatRange(min=0, min_open=True),
              help="A hard cap: no run starts once what was spent plus its estimate "
                   "would exceed it; each session gets what is left as its own cap.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Where results and the report go (default: ./rgr-eval/<tasks name>). "
                   "The same command again skips every run measured there.")
@click.option("--session-usd", type=click.FloatRange(min=0), default=0.5, show_default=True,
              help="The estimated cost of one agent session, until a mode has measured runs.")
@click.option("--run-timeout", type=click.FloatRange(min=1), default=60.0,
              show_default=True, help="Minutes one rgr run may take.")
@click.option("-y", "--yes", "assume_yes", is_flag=True,
              help="Start without asking (required when stdin is not a terminal).")
@json_option("Print the report as JSON.")
@_no_sandbox_option
@pass_context
def eval_(ctx: Context, tasks: Path, modes: str, repeat: int, backend: str | None,
          model: str | None, budget_usd: float | None, out: Path | None, session_usd: float,
          run_timeout: float, assume_yes: bool, as_json: bool) -> Outcome[object]:
    """Measure what rgr buys: TASKS (JSON Lines, see docs/eval.md) run in each mode, each
    run in a fresh clone, judged by hidden tests no agent session can read."""
    from rgr.commands import eval as command
    from rgr.evaluate.runner import EvalOptions

    options = EvalOptions(
        modes=command.parse_modes(modes), repeat=repeat,
        out=(out or command.default_out(tasks)).resolve(), budget_usd=budget_usd,
        backend=backend, model=model, no_sandbox=ctx.no_sandbox,
        run_timeout_s=run_timeout * 60, session_usd=session_usd)
    return command.evaluate(tasks.resolve(), options, assume_yes, ctx.say())


@cli.command()
@click.option("--fast", is_flag=True,
              help="Only the test command and the [gate] fast commands.")
@click.option("--full", is_flag=True,
              help="The test command, fast and full commands (the default).")
@json_option("Print the result as JSON.")
@_no_sandbox_option
@pass_context
def verify(ctx: Context, fast: bool, full: bool, as_json: bool) -> Outcome[object]:
    """Run the test command and the [gate] commands as a run does (sealed, on HEAD)."""
    from rgr.commands import verify as command

    if fast and full:
        raise click.UsageError("--fast and --full exclude each other")
    return command.verify(ctx.workspace(), "fast" if fast else "full", quiet=as_json)


@cli.command()
@json_option("Print the findings as JSON.")
@_no_sandbox_option
@pass_context
def doctor(ctx: Context, as_json: bool) -> Outcome[object]:
    """Show what the sandbox shows of your toolchain and why, and run the tests as
    `rgr run` would; for a failure, the cause and the fix. Exit 1 on a problem."""
    from rgr.commands import doctor as command

    return command.doctor(ctx.workspace())


@cli.command()
@json_option("Print the state as JSON.")
@pass_context
def status(ctx: Context, as_json: bool) -> Outcome[object]:
    """Show the handoff state at HEAD and whether `rgr resume` can continue."""
    from rgr.commands import status as command

    return command.run(ctx.workspace(), as_json)  # --json: the note's complete dump


@cli.command()
@click.option("--all", "include_all", is_flag=True,
              help="Also list notes on commits off this branch (failed attempts kept for audit).")
@click.option("--limit", type=click.IntRange(min=0),
              help="Show only the newest N handoffs (0: all). The table shows 50 by default.")
@json_option("Print the handoffs as JSON.")
@pass_context
def history(ctx: Context, include_all: bool, limit: int | None,
            as_json: bool) -> Outcome[object]:
    """List the handoffs on the current branch, oldest to newest."""
    from rgr.commands import history as command

    return command.run(ctx.workspace(), include_all, limit)


@cli.command()
@click.argument("commit")
@click.option("--force", is_flag=True, help="Stash uncommitted changes instead of refusing.")
@click.option("-y", "--yes", "assume_yes", is_flag=True, help="Do not ask for confirmation.")
@pass_context
def rollback(ctx: Context, commit: str, force: bool, assume_yes: bool) -> Outcome[object]:
    """Move the branch back to COMMIT, a commit with a handoff note.

    The commits rolled past are kept under refs/rgr/backups/..., so the rollback itself
    can be undone with `git reset --hard <backup>`.
    """
    from rgr.commands import rollback as command

    interactive = sys.stdin.isatty()
    return command.run(ctx.workspace(), commit, force, assume_yes, interactive, ctx.say())


@cli.command("repair-notes")
@click.option("--apply", is_flag=True, help="Fix what is found (without it, only report).")
@json_option("Print the findings as JSON.")
@pass_context
def repair_notes(ctx: Context, apply: bool, as_json: bool) -> Outcome[object]:
    """Find (and with --apply fix) damage to the handoff notes and stale locks.

    Exits 1 when problems were found and not fixed.
    """
    from rgr.commands import repair_notes as command

    return command.run(ctx.workspace(), apply)


@cli.command()
@click.argument("commit", required=False)
@json_option("Print the handoff as JSON.")
@pass_context
def show(ctx: Context, commit: str | None, as_json: bool) -> Outcome[object]:
    """Print one handoff: phase, test, verification, agent session (turns, cost, tokens,
    denials, prompt version) and error. COMMIT defaults to the latest handoff at HEAD."""
    from rgr.commands import show as command

    return command.run(ctx.workspace(), commit, as_json)  # --json: the complete dump


@cli.command()
@json_option("Print the report as JSON.")
@_integrate_option
@click.option("--into", metavar="BRANCH",
              help="The branch to merge into or open the pull request against "
                   "(default: the branch the run started from).")
@pass_context
def report(ctx: Context, as_json: bool, integrate: str, into: str | None) -> Outcome[object]:
    """The run at HEAD: tests done, commits, time, cost, retries and rejections; then
    --integrate merge (fast-forward) or pr (gh). Rejecting is `rgr rollback`."""
    from rgr.commands import report as command

    return command.run(ctx.workspace(), ctx.say(), integrate, into)


@cli.command()
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path),
              help="Create the kata here (new or empty) instead of a temporary directory.")
@click.option("--claude", metavar="PATH",
              help="The Claude Code binary (default: `claude` on PATH).")
# The backends with a recorded replay (rgr.backends.registry, rgr.demo).
@click.option("--backend", type=click.Choice(registry.with_demo()),
              default=backend_names.DEFAULT,
              show_default=True, help="The agent CLI the replay drives.")
@click.option("--codex", metavar="PATH",
              help="With --backend codex: the Codex binary (default: `codex` on PATH).")
def demo(directory: Path | None, claude: str | None, backend: str,
         codex: str | None) -> Outcome[object]:
    """A complete TDD run on a throwaway kata in about a minute, with the model
    REPLAYED by a local scripted server: the real claude CLI, git and pytest, no
    account and no API key."""
    from rgr.base.render import speaker
    from rgr.commands import demo as command

    return command.run(directory, claude, backend, codex, speaker())


_remote_option = click.option(
    "--remote", metavar="REMOTE",
    help="Work on the queue of this shared remote (fetched first; changes pushed with a "
         "lease) instead of this repository's.")


@cli.group(invoke_without_command=True)
@json_option("Print the jobs as JSON.")
@_remote_option
@click.pass_context
def queue(click_ctx: click.Context, as_json: bool, remote: str | None) -> Outcome[object] | None:
    """The daemon's jobs: id, kind, feature, state, worker, phase/cycle, cost, branch.

    The queue lives in git (refs/rgr/queue, refs/rgr/state, refs/rgr/claims), so any
    clone that fetches those refs sees it. `rgr queue add`, `rgr queue cancel` and
    `rgr queue retry` change it; `rgr daemon` works through it.
    """
    if click_ctx.invoked_subcommand is None:
        from rgr.commands import queue as command

        return command.listing(click_ctx.ensure_object(Context).workspace(), remote)
    return None


@queue.command("add")
@click.argument("feature")
@click.option("--after", "after", type=int, multiple=True, metavar="ID",
              help="Start only once job ID is complete (repeatable).")
@click.option("--refactor", is_flag=True, help="A behaviour-preserving refactor toward "
              "FEATURE (`rgr refactor`) instead of a TDD run.")
@click.option("--every", metavar="CRON",
              help='Run it on a schedule, e.g. "0 2 * * *" (02:00 daily, local time): each '
                   "firing queues a new job on its own branch.")
@click.option("--base", metavar="BRANCH",
              help="Branch the job starts from and integrates into (default: the current one).")
@click.option("--max-budget-usd", type=click.FloatRange(min=0, min_open=True),
              help="The job's own budget: no phase of it starts once its sessions (on any "
                   "machine, merge fixes included) have cost this much.")
@_remote_option
@pass_context
def queue_add(ctx: Context, feature: str, after: tuple[int, ...], refactor: bool,
              every: str | None, base: str | None, max_budget_usd: float | None,
              remote: str | None) -> Outcome[object]:
    """Queue FEATURE as a job: a full `rgr run` (or `rgr refactor`) on its own branch."""
    from rgr.commands import queue as command

    return command.add(ctx.workspace(), feature, after, refactor, every, base, remote,
                       max_budget_usd)


@queue.command("cancel")
@click.argument("job_id", type=int)
@_remote_option
@pass_context
def queue_cancel(ctx: Context, job_id: int, remote: str | None) -> Outcome[object]:
    """Cancel job JOB_ID; a running job stops at its next phase boundary."""
    from rgr.commands import queue as command

    return command.cancel(ctx.workspace(), job_id, remote)


@queue.command("retry")
@click.argument("job_id", type=int)
@click.option("--max-budget-usd", type=click.FloatRange(min=0, min_open=True),
              help="A new budget for the job (one that its old budget stopped).")
@_remote_option
@pass_context
def queue_retry(ctx: Context, job_id: int, max_budget_usd: float | None,
                remote: str | None) -> Outcome[object]:
    """Queue failed job JOB_ID again (or one that needs attention): it continues from
    its last handoff, or starts over if it has none."""
    from rgr.commands import queue as command

    return command.retry(ctx.workspace(), job_id, remote, max_budget_usd)


@cli.group(invoke_without_command=True)
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Jobs worked on at once, each in its own clone under .git/rgr/jobs/.")
@click.option("--watch", is_flag=True,
              help="Keep waiting for new jobs (and schedules) instead of exiting when the "
                   "queue is done.")
@_remote_option
@click.option("--integrate", type=_INTEGRATE, default="none", show_default=True,
              help="A complete job: rebase onto the base branch, re-run the full suite and "
                   "fast-forward the base (merge), open a pull request (pr), or leave it.")
@click.option("--max-budget-usd", type=click.FloatRange(min=0, min_open=True),
              help="The fleet's budget: no phase starts once the queue's jobs together "
                   "(every worker of every daemon sharing the queue) have spent this much; "
                   "phases already running finish (resumable).")
@click.option("--test-slots", type=click.IntRange(min=1),
              help="Test runs at once across all workers (default: the number of cores); "
                   "agent sessions are not limited by it.")
@click.option("--lease", "lease_s", type=click.FloatRange(min=1), default=60.0,
              show_default=True,
              help="Seconds a claim lives without a heartbeat: after that another worker "
                   "takes a dead worker's job over.")
@click.option("--poll", "poll_s", type=click.FloatRange(min=0.1), default=2.0,
              show_default=True, help="Seconds between looks at the queue when idle.")
@click.option("--merge-fix-tries", type=click.IntRange(min=0), default=2, show_default=True,
              help="With --integrate: when the rebase conflicts, merge-fixer agent sessions "
                   "(sealed, judged by the full suite and the guards) that may try to merge "
                   "the job; after that it needs attention. 0: none.")
@click.option("--grace", "grace_s", type=click.FloatRange(min=0), default=20.0,
              show_default=True,
              help="On SIGTERM, seconds a phase under way may take to finish; then it is "
                   "cut off and its job handed back at its last phase boundary (resumable "
                   "by any worker). Keep it about 10 s below the container engine's grace "
                   "period (Kubernetes: 30 s unless the manifest says more).")
@click.pass_context
def daemon(click_ctx: click.Context, workers: int, watch: bool, remote: str | None,
           integrate: str, max_budget_usd: float | None, test_slots: int | None,
           lease_s: float, poll_s: float, merge_fix_tries: int,
           grace_s: float) -> Outcome[object] | None:
    """Work through the queue with N parallel workers until it is done.

    Each job is a full `rgr run` / `rgr refactor` on its own branch, in its own clone,
    coordinated with other workers and daemons only through git refs and notes.
    `rgr daemon stop` stops it at the next phase boundary (resumable); SIGTERM too,
    within --grace seconds.
    """
    if click_ctx.invoked_subcommand is not None:
        return None
    from rgr.commands import daemon as command
    from rgr.daemon.worker import DaemonOptions

    options = DaemonOptions(workers=workers, watch=watch, remote=remote, integrate=integrate,
                            max_budget_usd=max_budget_usd, test_slots=test_slots,
                            lease_s=lease_s, poll_s=poll_s, merge_fix_tries=merge_fix_tries,
                            grace_s=grace_s)
    return command.start(click_ctx.ensure_object(Context).workspace(), options)


@daemon.command("stop")
@pass_context
def daemon_stop(ctx: Context) -> Outcome[object]:
    """Ask the running daemon to stop at the next phase boundary (jobs stay resumable)."""
    from rgr.commands import daemon as command

    return command.stop(ctx.workspace())


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but a loopback address needs --token.")
@click.option("--port", type=click.IntRange(min=0, max=65535), default=8765,
              show_default=True, help="Port to listen on (0: any free port).")
@click.option("--allow-actions", is_flag=True,
              help="Let the page queue and cancel jobs, stop the daemon, and accept or "
                   "reject the run at HEAD (each the same code as its command).")
@click.option("--token", metavar="SECRET",
              help="Every request must carry it (the printed URL does); required for a "
                   "non-loopback --host.")
@_remote_option
@pass_context
def serve(ctx: Context, host: str, port: int, allow_actions: bool, token: str | None,
          remote: str | None) -> Outcome[object]:
    """A local web page of the queue (live), each run's phases, diffs, tests and
    rejections, and the repository's history (needs the web extra: `rgr[web]`)."""
    from rgr.commands import serve as command

    command.require_extra()  # before the repository: say how to install it first
    return command.run(ctx.workspace(), host, port, allow_actions, token, remote, ctx.say())


@cli.command("land-check", hidden=True)
@click.option("--into", required=True, metavar="BRANCH", help="The base branch.")
@click.option("--base-tip", required=True, metavar="COMMIT",
              help="The base branch's tip the job was integrated onto.")
@click.option("--job-tip", required=True, metavar="COMMIT",
              help="The job's tip before it was integrated.")
@click.option("--how", type=click.Choice(["fast-forward", "rebase", "merge"]),
              required=True, help="How HEAD integrates the job.")
@pass_context
def land_check(ctx: Context, into: str, base_tip: str, job_tip: str,
               how: str) -> Outcome[object]:
    """Internal (rgr daemon --integrate): judge the integrated tree at HEAD (the full
    suite and the gate commands, sealed) and note the verdict on HEAD."""
    from rgr.commands import land_check as command

    return command.run(ctx.workspace(), into, base_tip, job_tip, how)


@cli.command("fix-merge", hidden=True)
@click.option("--onto", required=True, metavar="COMMIT", help="The base branch's tip.")
@click.option("--into", required=True, metavar="BRANCH", help="The base branch.")
@click.option("--tries", type=click.IntRange(min=1), default=2, show_default=True,
              help="Merge-fixer sessions at most.")
@click.option("--max-budget-usd", type=click.FloatRange(min=0, min_open=True),
              help="What the sessions together may cost.")
@pass_context
def fix_merge(ctx: Context, onto: str, into: str, tries: int,
              max_budget_usd: float | None) -> Outcome[object]:
    """Internal (rgr daemon --integrate merge): merge the job checked out here onto
    COMMIT with merge-fixer sessions, judged like every phase."""
    from rgr.commands import fix_merge as command

    return command.run(ctx.workspace(), onto, into, tries, max_budget_usd)


def _dispatch(outcome: Outcome[object], as_json: bool) -> int:
    """The one place a command's result reaches the terminal: its text, or its data as
    JSON; its exit code is the command's."""
    from rgr.base.render import render

    return render(outcome, as_json)


def _json_error(args: list[str], kind: str, message: str, hint: str | None,
                code: int) -> None:
    """With --json, a failure is a JSON object on stdout too, so a script that parses
    stdout gets an answer it can read instead of nothing (the text still goes to stderr).
    ``kind`` is a key of rgr.base.errors.ERROR_KINDS."""
    options = args[: args.index("--")] if "--" in args else args
    if "--json" not in options:
        return
    from rgr.base.render import json_error

    json_error(kind, message, hint, code)


def json_commands(group: click.Group = cli, prefix: str = "rgr") -> list[str]:
    """Every command that takes --json, as ``rgr status``, ``rgr queue``, ..."""
    found = []
    for name, command in sorted(group.commands.items()):
        if any("--json" in getattr(p, "opts", ()) for p in command.params):
            found.append(f"{prefix} {name}")
        if isinstance(command, click.Group):
            found += json_commands(command, f"{prefix} {name}")
    return found


def _no_json_here(exc: click.ClickException) -> click.ClickException:
    """``rgr run --json`` and the like: say which commands do print JSON, and where a
    run's own record is, rather than click's bare "No such option"."""
    if not (isinstance(exc, click.NoSuchOption) and exc.option_name == "--json"):
        return exc
    where = exc.ctx.command_path if exc.ctx is not None else "this command"
    having = [f"{c} --plan-only" if c == "rgr refactor" else c for c in json_commands()]
    return click.UsageError(
        f"{where} has no --json (it prints its progress as it goes); a run's record as "
        "JSON is `rgr report --json` or .git/rgr/runs/<runId>/summary.json. Commands with "
        "--json: " + ", ".join(having), exc.ctx)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    state = Context()
    try:
        # Without standalone mode click *returns* what the command returned (its
        # Outcome), or the code of a click.exceptions.Exit raised inside a command (a
        # declined prompt).
        result = cli.main(args=args, prog_name="rgr", standalone_mode=False, obj=state)
        if isinstance(result, int) and result:
            sys.exit(result)
        from rgr.base.outcome import Outcome

        if isinstance(result, Outcome):
            sys.exit(_dispatch(result, state.as_json))
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc = _no_json_here(exc)
        exc.show()
        _json_error(args, "usage", exc.format_message(), None, exc.exit_code)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("\nrgr: interrupted", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except KeyboardInterrupt:
        click.echo("\nrgr: interrupted", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except RgrError as exc:
        click.echo(f"rgr: error: {exc.message}", err=True)
        if exc.hint:
            click.echo(f"  fix: {exc.hint}", err=True)
        _json_error(args, exc.category, exc.message, exc.hint, exc.exit_code)
        sys.exit(exc.exit_code)
    except SystemExit:
        raise
    except Exception as exc:
        from rgr.crash import write_crash_log

        try:
            log = write_crash_log(exc, args)
            where = f"a crash log is at {log}"
        except OSError as log_error:
            where = f"the crash log could not be written ({log_error})"
        click.echo(f"rgr: internal error: {type(exc).__name__}: {exc}", err=True)
        click.echo(f"  this is a bug in rgr; {where}: please attach it to a report", err=True)
        _json_error(args, "internal", f"{type(exc).__name__}: {exc}", where, ExitCode.CRASH)
        sys.exit(ExitCode.CRASH)
