"""What `rgr run`, `rgr resume`, `rgr refactor`, `rgr fix-merge` and `rgr doctor` check
and ask before they start work: the options, the branch, a clean tree, the agent CLI,
the sealed baseline, the user's say. Shared below the commands, so that no command
imports another's private names.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rgr.backends import claude_release
from rgr.backends.base import Backend
from rgr.backends.router import make_backend as _make_backend
from rgr.base.backend_names import CLAUDE
from rgr.base.errors import BadUsage, ConfigError, RepositoryError, RgrError
from rgr.base.processes import kill_orphans
from rgr.base.slug import slugify
from rgr.check.verify import TestReport, require_results
from rgr.loop.fix_trials import apply_writable_copy, try_alternatives
from rgr.observe.limits import Limits
from rgr.observe.view import NORMAL, PlainView
from rgr.sandbox import read_only
from rgr.sandbox.sealer import Sealer, remove_stale_folders
from rgr.store import generated, git, inflight
from rgr.store.locks import clear_stale_git_locks
from rgr.store.workspace import Workspace

Log = Callable[[str], None]


@dataclass(frozen=True)
class RunOptions:
    assume_yes: bool = False
    interactive: bool = False
    skip_preflight: bool = False
    max_phases: int | None = None
    backoff_base_s: float = 1.0
    integrate: str = "none"  # at the end of a completed run: none, merge or pr
    verbosity: int = NORMAL  # rgr.observe.view.QUIET / NORMAL / VERBOSE (-q / default / -v)
    max_budget_usd: float | None = None
    max_cycles: int | None = None
    max_minutes: float | None = None

    def limits(self) -> Limits:
        return Limits(max_budget_usd=self.max_budget_usd, max_cycles=self.max_cycles,
                      max_minutes=self.max_minutes)


#: The progress log a command writes to (a PlainView or a LiveView).
PhaseLog = PlainView


def default_branch(ws: Workspace, prefix: str, text: str) -> str:
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
        raise BadUsage(f"give the {what} as an argument or with --brief, not both")
    if brief is not None:
        try:
            text = brief.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RepositoryError(f"cannot read the brief {brief}: {exc}",
                                  "pass a readable markdown or text file") from None
    if not (text or "").strip():
        raise BadUsage(f"the {what} is empty: {usage}")
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
        raise BadUsage("--branch and --here exclude each other")
    problem = git.check_branch_name(branch)
    if problem is not None:
        raise BadUsage(f"--branch {branch!r} is not a valid branch name: {problem}")


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


def require_clean(ws: Workspace, what: str) -> None:
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


def start_refusals(ws: Workspace) -> list[RgrError]:
    """What makes `rgr run` stop before its baseline, on the repository as it is now:
    a detached HEAD, uncommitted changes, untracked environment folders git does not
    ignore. `rgr run` raises the first of these from the same functions; `rgr verify`
    and `rgr doctor` list them all in the same words, so what they call startable is."""
    return _refusals([lambda: git.require_branch(ws.repo),
                      lambda: require_clean(ws, "rgr run")])


def agent_refusal(ws: Workspace) -> RgrError | None:
    """Why `rgr run` would stop at its agent CLI (it cannot be made, or does not answer
    ``--version``: not installed, too old), in the run's words; None when it answers."""
    found = _refusals([lambda: make_backend(ws).version()])
    return found[0] if found else None


def _refusals(checks: list[Callable[[], object]]) -> list[RgrError]:
    refusals = []
    for check in checks:
        try:
            check()
        except RgrError as refused:
            refusals.append(refused)
    return refusals


def preflight(backend: Backend, ws: Workspace, options: RunOptions, log: PlainView,
              login: bool = True) -> None:
    version = backend.version()
    log(f"agent backend: {backend.name} {version}")
    warning = claude_release.range_warning(version) if backend.name == CLAUDE else None
    if warning is not None:
        log.always(f"warning: {warning}")
    if login:
        check_login(backend, ws, options, log)


def check_login(backend: Backend, ws: Workspace, options: RunOptions, log: PlainView) -> None:
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


def generated_file_hint(sealer: Sealer, report: TestReport) -> str:
    """Said of a red baseline only on evidence that a file the user's build generated
    is what the checkout lacks: a file of the user's work tree, ignored by git, that the
    failures name (a path a test opened, a module a load error could not find). A suite
    red for another reason (a test's data file missing from the sources) gets no hint
    pointing the wrong way."""
    failing = [o for o in report.outcomes.values() if o.status in ("failed", "error")]
    text = "\n".join([report.output or report.output_excerpt, *report.collection_errors,
                      *(f"{o.test_id}\n{o.message}" for o in failing)])
    source = sealer.generated_from()
    repo = sealer.ws.repo if source == sealer.ws.root else git.open_repo(source)
    copied = {f.path for f in sealer.generated_files()}
    named = [path for path in generated.ignored_files_named(repo, source, text)
             if path not in copied]
    if not named:
        return ""
    shown = ", ".join(named[:5])
    return (f"; the failures name {shown}, in your working tree but ignored by git, so "
            "missing from the checkout: if your build generated it, "
            f'[sandbox] show_generated = ["{named[0]}"] in tdd.toml copies it in '
            "(`rgr doctor` lists the files copied in)")


def baseline_refusal(sealer: Sealer, report: TestReport) -> RgrError | None:
    """Why `rgr run` would not start from ``report``, its sealed baseline at HEAD, or
    None (``settle_baseline`` without the baseline it settles on)."""
    return settle_baseline(sealer, report)[1]


def settle_baseline(sealer: Sealer, report: TestReport
                    ) -> tuple[TestReport, RgrError | None]:
    """The baseline a run starts from, and why `rgr run` would not start from
    ``report``, its sealed baseline at HEAD (None when it starts). `rgr run`, `rgr
    verify` and `rgr doctor` all ask this one function, so the three cannot disagree
    about a baseline: a run that cannot start in the sandbox, a runner whose per-test
    results rgr cannot read (zero tests read from a run that did not say "no tests";
    its fix tried first: rgr.loop.fix_trials), a suite that is not green. A suite whose
    only failure is a write into a dependency folder the sandbox shows read-only is
    run again with a private writable copy of it; when that passes, the sealer applies
    the copy to the run's test runs (``Sealer.applied_note`` says so) and that run is
    the baseline."""
    try:
        require_startable(sealer, report)
    except ConfigError as refused:
        return report, refused
    try:
        # Refuse to referee blind: a runner whose results rgr cannot read would make
        # every RED look like "no new test" and every GREEN like a pass of nothing.
        require_results(report, sealer.test_command)
    except ConfigError as blind:
        # A fix is shown only once it has been tried, sealed, and read the tests.
        return report, try_alternatives(sealer, blind)
    if report.timed_out:
        config = sealer.ws.config
        return report, RepositoryError(
            f"the test suite is not green before rgr starts: the test command did not "
            f"finish within {config.command_timeout:g}s",
            f"make the suite finish sooner, or raise {config.setting('command_timeout')}")
    if not report.all_passed:
        written = _read_only_write(sealer, report)
        if written is not None:
            return apply_writable_copy(sealer, report, written)
        return report, RepositoryError(
            f"the test suite is not green before rgr starts: {report.problem()}",
            "TDD starts from green: fix or remove the failing tests, then run again"
            + generated_file_hint(sealer, report))
    return report, None


def _read_only_write(sealer: Sealer, report: TestReport) -> read_only.ReadOnlyWrite | None:
    """Failing tests, or the runner itself, that wrote into a dependency folder the
    sandbox shows read-only."""
    if sealer.policy is None:
        return None
    failing = [(test_id, report.outcomes[test_id].message) for test_id in report.failing_ids]
    return read_only.find_in_run(failing, report.output, sealer.toolchain,
                                 [*sealer.ws.config.sandbox.writable_copy, *sealer.applied])


def make_backend(ws: Workspace) -> Backend:
    return _make_backend(ws.config, ws.env, ws.config_root)


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
