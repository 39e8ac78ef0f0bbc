"""The sealer: where one agent session runs and where its work is judged, sealed.

Every mode's attempts (the attempt kernel, rgr.loop.kernel, runs them), the examiner,
the landing check and the daemon's workers seal work the same way, through this module:

1. ``seat``: a scratch repository of the phase's base commit (rgr.store.scratch), a throwaway
   HOME and TMPDIR, an environment scrubbed down to what the agent CLI needs, and a
   bubblewrap jail (rgr.sandbox) around all of it. The agent never sees the user's
   repository, HOME or other projects, and reaches nothing on the network but the model
   API.
2. ``bring_in``: only the commits on the scratch branch come back, as objects; the
   scratch copy (its hooks, config, refs, notes, stray files) is then deleted.
3. ``run_tests`` / ``run_gate``: a pristine checkout of exactly the commit under judgement,
   in a jail with no network, so nothing uncommitted or ignored can change collection,
   configuration or results.
4. ``accept`` moves the user's branch (compare-and-swap from the base) and working tree
   to a verified commit; ``keep`` keeps a rejected one under ``refs/rgr/attempts/``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
import weakref
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from rgr.backends.base import Backend, backend_binaries
from rgr.base import failpoints
from rgr.base.config import Config, TestCommand
from rgr.base.errors import RgrError
from rgr.base.proc import run
from rgr.base.processes import REPO_MARK_VAR
from rgr.check.gate import GateResult, Level, gate_argvs, run_gate
from rgr.check.verify import Confinement, TestReport, run_tests
from rgr.ecosystems.registry import ecosystems_used, runner_variables
from rgr.sandbox import (
    explain,
    setup,
    tool_caches_inside,
    toolchain,
    user_config,
    writable_copy,
)
from rgr.sandbox.bridge import Bridge
from rgr.sandbox.explain import Diagnosis
from rgr.sandbox.gateway import Upstream
from rgr.sandbox.jail import PRETOOL, Jail
from rgr.sandbox.policy import SandboxPolicy
from rgr.sandbox.toolchain import Toolchain
from rgr.store import generated, git, scratch
from rgr.store.agents import packaged_dir
from rgr.store.handoff import SandboxNote
from rgr.store.objects import Commit
from rgr.store.scratch import Scratch
from rgr.store.workspace import Workspace

ATTEMPTS_PREFIX = git.ATTEMPTS_PREFIX
#: The loopback port inside the agent's sandbox where the CONNECT proxy answers.
PROXY_PORT = 3128
#: The first loopback port of the model API gateways inside the sandbox.
GATEWAY_PORT = 41100
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


def judge_files(edit_rules: Mapping[str, object] | None) -> tuple[Path, ...]:
    """The files the edit hook loads by path to judge a file by its content (the
    ``judges`` of rgr.check.guards.edit_rules), shown read-only in the sandbox each on
    its own: the agent sees no more of rgr than the hook runs (no folder around them)."""
    judges = edit_rules.get("judges") if edit_rules is not None else None
    if not isinstance(judges, list | tuple):
        return ()
    return tuple(dict.fromkeys(Path(str(judge[1])) for judge in judges))


#: How often _folder makes its root again when a concurrent _prune removed it.
_MAKE_TRIES = 5


def work_root(git_dir: Path, configured: str = "") -> Path:
    """Where this repository's scratch copies and pristine checkouts live while used,
    one folder per repository: ``[sandbox] scratch_dir``, else /dev/shm (memory: an
    attempt writes every file of the repository twice), else the temporary folder. Not
    inside the git dir: agent CLIs refuse to write below a ``.git`` directory."""
    key = hashlib.sha256(str(git_dir.resolve()).encode()).hexdigest()[:12]
    base = Path(configured).expanduser() if configured else (
        Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else Path(tempfile.gettempdir()))
    return base / f"rgr-{os.getuid()}" / key


def remove_stale_folders(ws: Workspace, keep: str | None) -> int:
    """Under the run lock: delete the scratch folders of this repository that a killed
    rgr left (all but ``keep``, the in-flight attempt's, which resume may still judge)."""
    root = work_root(ws.git_dir, ws.config.sandbox.scratch_dir)
    if not root.is_dir():
        return 0
    removed = 0
    for folder in root.iterdir():
        if keep is not None and str(folder) == keep:
            continue
        _remove(folder)
        removed += 1
    return removed


def attempt_ref(label: str, run_id: str | None) -> str:
    """``refs/rgr/attempts/<run>/<label>-<ms>``: one name scheme for every kept attempt."""
    return f"{ATTEMPTS_PREFIX}{run_id or 'run'}/{label}-{int(time.time() * 1000)}"


def open_sealer(ws: Workspace, backend: Backend, test_command: TestCommand,
                log: Callable[[str], None]) -> Sealer:
    """The run's sealer, after proving the sandbox works here (or saying loudly that
    it is off)."""
    if ws.no_sandbox or not ws.config.sandbox.enabled:
        why = "--no-sandbox" if ws.no_sandbox else "[sandbox] enabled = false in tdd.toml"
        log(f"WARNING: the sandbox is OFF ({why}): agents and test runs can read your files, "
            "write outside their scratch copy and use the network. Only the scratch copy, "
            "the pristine checkout and the guards protect this repository.")
        _setup(ws, None, log)
        unsealed = Sealer(ws, backend, test_command, None, toolchain_of(ws, test_command))
        _log_generated(unsealed, log)
        _log_writable_copies(unsealed, log)
        return unsealed
    policy = policy_from_config(ws.config, toolchain_of(ws, test_command), ws.root)
    version = policy.probe()
    if _setup(ws, policy, log):
        # The dependency folders it installed are shown like any others.
        policy = policy_from_config(ws.config, toolchain_of(ws, test_command), ws.root)
    log(f"sandbox: {version}; agents reach only the model API"
        + (" and " + ", ".join(policy.allow_hosts) if policy.allow_hosts else "")
        + ("; test runs have no network" if policy.test_network == "none"
           else "; test runs have the host network"))
    shown = policy.toolchain.shown
    if shown:
        log("sandbox: shows read-only " + ", ".join(toolchain.home_relative(s.path, ws.env)
                                                    for s in shown)
            + " (`rgr doctor` says why)")
    copied = [(source, rel) for source, rel in policy.toolchain.home_files
              if rel not in toolchain.VERSION_FILES]
    if copied:
        log("sandbox: its HOME gets copies of " + ", ".join(
            toolchain.home_relative(source, ws.env) for source, _ in copied)
            + ", their credential lines left out")
    sealer = Sealer(ws, backend, test_command, policy, bubblewrap=version)
    _log_generated(sealer, log)
    _log_writable_copies(sealer, log)
    return sealer


def _log_writable_copies(sealer: Sealer, log: Callable[[str], None]) -> None:
    """Say which dependency folders test runs get a writable copy of, and which names
    of ``[sandbox] writable_copy`` are no dependency folder found (nothing is copied)."""
    names = sealer.ws.config.sandbox.writable_copy
    if not names:
        return
    found = {d.inside for d in sealer.toolchain.dependency_folders if d.inside}
    copied = [n for n in names
              if n in found or any(n.startswith(f + "/") for f in found)]
    if copied:
        log("test runs get a private writable copy of " + ", ".join(copied)
            + " ([sandbox] writable_copy)")
    missing = [n for n in names if n not in copied]
    if missing:
        log("warning: [sandbox] writable_copy names " + ", ".join(missing) + ", which is "
            "no dependency folder of this working tree nor an entry of one: nothing is "
            "copied for it")


def _log_generated(sealer: Sealer, log: Callable[[str], None]) -> None:
    """Say which ignored build output every checkout gets (rgr.store.generated)."""
    files = sealer.generated_files()
    if files:
        log("checkouts get read-only copies of " + ", ".join(f.path for f in files[:5])
            + (f" and {len(files) - 5} more" if len(files) > 5 else "")
            + " (generated, ignored by git; `rgr doctor` says why)")


def _setup(ws: Workspace, policy: SandboxPolicy | None, log: Callable[[str], None]) -> bool:
    """``[sandbox] setup``, once per state of the lockfiles (rgr.sandbox.setup)."""
    table = ws.config.sandbox
    if not table.setup_argv:
        return False
    return setup.ensure_setup(ws.root, ws.git_dir, table.setup_argv, table.setup_hosts,
                              policy, ws.env, lambda: git.changed_tracked(ws.repo), log)


def toolchain_of(ws: Workspace, test_command: TestCommand | None = None) -> Toolchain:
    """What the sandbox shows of this repository's toolchain (rgr.sandbox.toolchain),
    with ``[sandbox]``'s overrides: the toolchain homes of the ecosystems the project
    uses (its files, and the runner of ``test_command``)."""
    table = ws.config.sandbox
    return toolchain.detect(
        ws.root, ws.env, share=table.share, hide=_hide_paths(ws.config, ws.root),
        enabled=table.detect,
        ignored=git.ignored_names(ws.repo, toolchain.IGNORED_DEPENDENCY_FOLDERS),
        tracked=git.tracked_folders(ws.repo), origin_tracked=_origin_tracked(ws),
        ecosystems=ecosystems_used(ws.root, test_command.runner if test_command else None))


def _origin_tracked(ws: Workspace) -> set[str]:
    """What the daemon's own working tree tracks, when a job borrows its folders."""
    origin = toolchain.dependencies_origin(ws.root, ws.env)
    if origin is None:
        return set()
    try:
        return git.tracked_folders(git.open_repo(origin))
    except RgrError:
        return set()


def _hide_paths(config: Config, repo_root: Path) -> tuple[Path, ...]:
    """``[sandbox] hide_paths``: absolute, under ``~``, or relative to the repository."""
    paths = (Path(p).expanduser() for p in config.sandbox.hide_paths)
    return tuple(p if p.is_absolute() else repo_root / p for p in paths)


def policy_from_config(config: Config, found: Toolchain, repo_root: Path) -> SandboxPolicy:
    table = config.sandbox
    return SandboxPolicy(
        bwrap=table.bwrap, agent_network=table.agent_network, test_network=table.test_network,
        allow_hosts=tuple(table.allow_hosts),
        read_paths=tuple(Path(p).expanduser() for p in table.read_paths),
        hide_paths=_hide_paths(config, repo_root),
        pass_env=tuple(table.pass_env), toolchain=found)


@dataclass
class Seat:
    """Where one agent session runs: ``cwd`` its scratch checkout, ``env`` its whole
    environment, ``launcher`` its jail (None without the sandbox)."""

    folder: Path
    scratch: Scratch
    home: Path
    tmp: Path
    env: dict[str, str]
    launcher: Jail | None
    bridge: Bridge | None = None
    #: Claude Code settings that install rgr's PreToolUse hook, when armed.
    settings_file: Path | None = None

    @property
    def cwd(self) -> Path:
        return self.scratch.work

    @property
    def refused(self) -> list[str]:
        """Connections the sandbox's proxy refused during the session."""
        return list(self.bridge.refused) if self.bridge else []


@dataclass
class Sealer:
    """Sealed attempts for one repository; ``policy`` None means ``--no-sandbox`` (the
    scratch copy, the pristine checkout and the scrubbed environment still apply)."""

    ws: Workspace
    backend: Backend
    test_command: TestCommand
    policy: SandboxPolicy | None
    #: What every sandbox of the run shows of the project's toolchain; also locates it
    #: (variables, PATH, dependency folders linked in) when the sandbox is off.
    toolchain: Toolchain = field(default_factory=Toolchain)
    bubblewrap: str | None = None  # its version, when the sandbox is on
    _stager: scratch.PristineStager | None = field(default=None, init=False)
    #: What the project's build generated and git ignores, copied into every checkout
    #: (rgr.store.generated): found again at each attempt's seat.
    _generated: list[generated.GeneratedFile] | None = field(default=None, init=False)
    #: Writable copies rgr applies itself to this run's test runs, besides
    #: ``[sandbox] writable_copy``: the suite's only failure was a write refused there
    #: (rgr.loop.fix_trials.apply_writable_copy).
    applied: tuple[str, ...] = field(default=(), init=False)
    #: Seconds the last test run's writable copies took to make: the cost rgr states.
    copy_s: float = field(default=0.0, init=False)
    #: Why and at what cost rgr applies ``applied``: said before anything else.
    applied_note: str | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        # Only under the sandbox is a staged tree out of every agent's reach until used.
        self._stager = (scratch.PristineStager(self.ws.repo.path)
                        if self.policy is not None else None)
        if self._stager is not None:
            weakref.finalize(self, _discard_and_prune, self._stager,
                             work_root(self.ws.git_dir, self.ws.config.sandbox.scratch_dir))
        if self.policy is not None:
            self.toolchain = self.policy.toolchain

    def note(self) -> SandboxNote:
        """What the start note and the run folder say of the confinement."""
        record = self.toolchain.record()
        return SandboxNote.model_validate({**record, "enabled": self.policy is not None,
                                           "bubblewrap": self.bubblewrap,
                                           "writable_copy": list(self.applied)})

    def shown_over(self, path: Path) -> Path | None:
        """The folder some sandbox of this run shows (an agent's, a test run's) that
        holds ``path``; None when none does, or the sandbox is off."""
        if self.policy is None:
            return None
        return self.policy.shown_over(path, self._every_executable().values())

    def allow_list(self) -> list[tuple[str, str]]:
        """What the run's sandboxes show of this machine and why (rgr doctor)."""
        if self.policy is None:
            return []
        return self.policy.allow_list(self._every_executable())

    def _every_executable(self) -> dict[str, Path]:
        """The programs any sandbox of the run starts (the test command's, the gate's,
        the agent CLI, git), by name."""
        env = self._environment(self.backend.env_keep, self.ws.root, self.ws.root)
        found = self._executables(env, agent=True)
        found += [Path(p) for p in (shutil.which(n, path=env.get("PATH"))
                                    for n in backend_binaries(self.backend)) if p]
        return {p.name: p for p in found}

    def generated_files(self, refresh: bool = False) -> list[generated.GeneratedFile]:
        """The generated files every checkout gets, found in the user's working tree
        (again when ``refresh``: each attempt sees the build's current output)."""
        if self._generated is None or refresh:
            table = self.ws.config.sandbox
            source = self.generated_from()
            repo = self.ws.repo if source == self.ws.root else git.open_repo(source)
            self._generated = generated.find(repo, source, show=table.show_generated,
                                             hide=table.hide_generated)
        return self._generated

    def generated_from(self) -> Path:
        """The working tree generated files are copied from: the repository's own, or,
        in a daemon job's clone (where no build ever ran), the daemon's working tree the
        job came from, as its dependency folders are (rgr.sandbox.toolchain)."""
        origin = toolchain.dependencies_origin(self.ws.root, self.ws.env)
        if origin is None:
            return self.ws.root
        try:
            git.open_repo(origin)
        except RgrError:
            return self.ws.root
        return origin

    def _copy_generated(self, tree: Path) -> None:
        generated.copy_into(self.generated_from(), self.generated_files(), tree)

    def diagnose(self, report: TestReport) -> Diagnosis | None:
        """Why a test run could not start inside the sandbox (a program it does not
        show, rustup without a toolchain), or None when the output shows no such cause."""
        return explain.diagnose(report.output or report.output_excerpt,
                                self.test_command.argv, self.toolchain, self.ws.root,
                                self.ws.env, self.ws.config.sandbox.detect,
                                self.test_command.setting)

    # -- agent sessions ----------------------------------------------------------------

    @contextmanager
    def seat(self, base: Commit, label: str,
             edit_rules: Mapping[str, object] | None = None) -> Iterator[Seat]:
        """A sealed place for one agent session at ``base``; removed on the way out
        (bring the commits in before leaving). ``edit_rules`` (rgr.check.guards.edit_rules)
        arm the PreToolUse hook that refuses out-of-scope edits with a reason."""
        folder = self._folder(label)
        failpoints.hit("seal:folder-made")
        branch = git.current_branch(self.ws.repo) or "main"
        made = scratch.make_scratch(self.ws.repo, base, branch, folder / "work",
                                    git.signature(self.ws.repo))
        shown = self.generated_files(refresh=True)
        generated.copy_into(self.generated_from(), shown, made.work)
        generated.exclude_in(made.git_dir, shown)
        generated.exclude_folders(made.git_dir, [
            dep.inside for dep in self.toolchain.dependency_folders if dep.inside])
        home, tmp = self._home_and_tmp(folder, made.work)
        self.backend.prepare_home(home, self.ws.env)
        env = self._environment(self.backend.env_keep, home, tmp)
        env[REPO_MARK_VAR] = str(self.ws.root)
        # Read-only inside the sandbox: the bridge's sockets and the hook's rules.
        control = Path(tempfile.mkdtemp(prefix="rgr-ctl-"))
        bridge: Bridge | None = None
        launcher: Jail | None = None
        try:
            settings = (_write_hook(control, made.work, edit_rules)
                        if edit_rules is not None else None)
            if self.policy is not None:
                bridge = Bridge(control)
                forwards = self._open_api(bridge, env)
                # node_modules as a folder of the scratch copy (ignored there, see
                # exclude_folders above), its tools' caches writable: the agent's own
                # `npx vitest` loads a Vite config as the test run does
                caches = tool_caches_inside.bind_into(self.toolchain, made.work)
                launcher = self.policy.agent_jail(
                    repo_root=self.ws.root, work=made.work, home=home, tmp=tmp,
                    executables=self._executables(env, agent=True), forwards=forwards,
                    shared=((scratch.objects_dir(self.ws.repo),) * 2,
                            *((p, p) for p in self._prompt_dirs()), *caches),
                    extra_readable=(control, PRETOOL.parent,
                                    *judge_files(edit_rules)))
            if self._stager is not None:
                # The verification after this session starts from this tree.
                self._stager.stage(base.id, self._folder("staged"))
            yield Seat(folder, made, home, tmp, env, launcher, bridge, settings)
        finally:
            if bridge is not None:
                bridge.close()
            shutil.rmtree(control, ignore_errors=True)
            _remove(folder)

    @contextmanager
    def blank_seat(self, label: str,
                   edit_rules: Mapping[str, object] | None = None) -> Iterator[Seat]:
        """A sealed place for a session that must not see the repository at all (the
        examiner, rgr.tdd.examine): an empty working folder, no git, no object store
        shown; its own HOME and TMPDIR; the model API only. Removed on the way out (read
        what it wrote before leaving)."""
        folder = self._folder(label)
        work = folder / "work"
        work.mkdir()
        home, tmp = folder / "home", folder / "tmp"
        home.mkdir()
        tmp.mkdir()
        self.backend.prepare_home(home, self.ws.env)
        env = self._environment(self.backend.env_keep, home, tmp)
        control = Path(tempfile.mkdtemp(prefix="rgr-ctl-"))
        bridge: Bridge | None = None
        launcher: Jail | None = None
        try:
            settings = (_write_hook(control, work, edit_rules)
                        if edit_rules is not None else None)
            if self.policy is not None:
                bridge = Bridge(control)
                forwards = self._open_api(bridge, env)
                launcher = self.policy.agent_jail(
                    repo_root=self.ws.root, work=work, home=home, tmp=tmp,
                    executables=[Path(p) for p in (
                        shutil.which(n, path=env.get("PATH"))
                        for n in backend_binaries(self.backend)) if p],
                    forwards=forwards,
                    shared=tuple((p, p) for p in self._prompt_dirs()),
                    extra_readable=(control, PRETOOL.parent,
                                    *judge_files(edit_rules)))
            yield Seat(folder, Scratch(work, ""), home, tmp, env, launcher, bridge, settings)
        finally:
            if bridge is not None:
                bridge.close()
            shutil.rmtree(control, ignore_errors=True)
            _remove(folder)

    def bring_in(self, seat: Seat, base: Commit) -> Commit:
        """The attempt's tip, its objects now in the user's repository (``base`` when
        the agent committed nothing). ImportRefused when it is not a thing to judge."""
        failpoints.hit("seal:before-import")
        tip = scratch.import_branch(self.ws.repo, seat.scratch, base.id)
        failpoints.hit("seal:imported")
        return git.resolve_commit(self.ws.repo, str(tip))

    # -- verification ------------------------------------------------------------------

    def run_tests(self, commit: Commit) -> TestReport:
        """The test command on a pristine checkout of ``commit``, sealed."""
        return self._tests(commit, "verify")

    def try_writable_copy(self, folders: Collection[str], commit: Commit) -> TestReport:
        """The run's test command on a pristine checkout of ``commit`` whose dependency
        ``folders`` are writable copies, as ``[sandbox] writable_copy`` would make them:
        that fix is tried before rgr applies it (rgr.loop.fix_trials); with the copies
        the run makes already."""
        return self._tests(commit, "try", writable=[
            *self.ws.config.sandbox.writable_copy, *self.applied, *folders])

    def try_command(self, command: TestCommand, commit: Commit) -> TestReport:
        """Another test command on a pristine checkout of ``commit``, sealed as the run's
        own is (the same sandbox, environment and reader): a fix rgr suggests is tried
        first (rgr.loop.fix_trials)."""
        return self._tests(commit, "try", command)

    def _tests(self, commit: Commit, label: str, command: TestCommand | None = None,
               writable: Collection[str] | None = None) -> TestReport:
        with self._checkout(commit, label, command, writable) as (tree, confinement, env):
            return run_tests(command or self.test_command, tree,
                             timeout=self.ws.config.command_timeout, env=env,
                             confinement=confinement)

    def which_inside(self, names: list[str]) -> dict[str, str | None]:
        """Where each program name leads inside a test run's sandbox at HEAD (the
        sandbox's own ``command -v``, so PATH, what is shown and what is hidden all
        count), or None when it is not found there."""
        script = 'for n in "$@"; do command -v "$n" || echo -; done'
        with self._checkout(git.head_commit(self.ws.repo), "which") as (tree, confined, env):
            done = run(["sh", "-c", script, "sh", *names], cwd=tree, env=env, timeout=60,
                       launcher=confined.launcher if confined else None)
        lines = [*done.stdout.splitlines(), *["-"] * len(names)]
        return {name: (line if line not in ("", "-") else None)
                for name, line in zip(names, lines, strict=False)}

    def run_gate(self, commit: Commit, level: Level) -> GateResult:
        """Refactor mode's gate (tests, then the gate commands) on ``commit``, sealed."""
        with self._checkout(commit, f"gate-{level}") as (tree, confinement, env):
            return run_gate(self.ws.config, self.test_command, tree, level, env, confinement)

    def checkout(self, commit: Commit, label: str
                 ) -> AbstractContextManager[tuple[Path, Confinement | None, dict[str, str]]]:
        """A pristine sealed checkout of ``commit`` for a check of its own (the mutation
        gate changes a file in it and runs tests there): removed on the way out."""
        return self._checkout(commit, label)

    @contextmanager
    def _checkout(self, commit: Commit, label: str, command: TestCommand | None = None,
                  writable: Collection[str] | None = None
                  ) -> Iterator[tuple[Path, Confinement | None, dict[str, str]]]:
        folder = self._folder(label)
        try:
            tree = folder / "tree"
            if self._stager is None or not self._stager.take(self.ws.repo, commit.id, tree):
                scratch.checkout_pristine(self.ws.repo, commit.id, tree)
            self._copy_generated(tree)
            names = ([*self.ws.config.sandbox.writable_copy, *self.applied]
                     if writable is None else list(writable))
            started = time.perf_counter()
            # Before the read-only binds (or, unsandboxed, the links) of the others.
            writable_copy.copy_into(self.toolchain, names, tree)
            copy_s = time.perf_counter() - started
            home, tmp = self._home_and_tmp(folder, tree)
            failpoints.hit("seal:checked-out")
            env = self._environment(
                runner_variables((command or self.test_command).runner), home, tmp)
            confinement = None
            if self.policy is not None:
                # node_modules as a folder of the checkout, its tools' caches writable
                caches = tool_caches_inside.bind_into(self.toolchain, tree)
                # a package of it copied in place of its link (node_modules/dep)
                started = time.perf_counter()
                writable_copy.copy_entries(self.toolchain, names, tree)
                copy_s += time.perf_counter() - started
                jail = self.policy.test_jail(
                    repo_root=self.ws.root, checkout=tree, home=home, tmp=tmp,
                    executables=self._executables(env, agent=False, command=command),
                    shared=caches)
                confinement = Confinement(jail, tmp)
            self.copy_s = copy_s
            yield tree, confinement, env
        finally:
            _remove(folder)

    # -- outcomes ----------------------------------------------------------------------

    def keep(self, tip: Commit, label: str, run_id: str | None,
             message: str = "rgr: rejected attempt") -> str:
        """Keep a rejected attempt's commits reachable; the ref's name."""
        name = attempt_ref(label, run_id)
        # A kill between this ref and the attempt's note (crash point attempt:kept)
        # makes resume judge and keep the same tip again: the ref it already has is
        # reused, so one rejected attempt is one kept ref.
        stem = name.rsplit("-", 1)[0] + "-"
        for kept, commit in git.commits_under(self.ws.repo, stem).items():
            if commit == str(tip.id) and kept[len(stem):].isdigit():
                return kept
        git.create_ref(self.ws.repo, name, tip.id, message)
        return name

    def drop(self, folder: str | None) -> None:
        """Remove an interrupted attempt's scratch folder once it is judged (only a
        folder of this repository's work root: the path comes from a file on disk)."""
        if folder and Path(folder).parent == work_root(self.ws.git_dir,
                                                       self.ws.config.sandbox.scratch_dir):
            _remove(Path(folder))

    def accept(self, base: Commit, tip: Commit, message: str) -> None:
        """Move the checked-out branch from ``base`` to the verified ``tip`` and bring the
        working tree along."""
        branch = git.require_branch(self.ws.repo)
        scratch.update_worktree(self.ws.repo, branch, base.id, tip.id, message)

    # -- pieces ------------------------------------------------------------------------

    def _folder(self, label: str) -> Path:
        root = work_root(self.ws.git_dir, self.ws.config.sandbox.scratch_dir)
        for _ in range(_MAKE_TRIES):
            root.mkdir(parents=True, exist_ok=True, mode=0o700)
            try:
                return Path(tempfile.mkdtemp(prefix=f"{label}-", dir=root))
            except FileNotFoundError:
                continue  # another attempt's _remove pruned the empty root just now
        raise RgrError(f"cannot make a scratch folder under {root}: it keeps vanishing",
                       "check that nothing else deletes that folder")

    def _home_and_tmp(self, folder: Path, working_copy: Path) -> tuple[Path, Path]:
        """The session's own HOME (with the files under the user's HOME that choose a
        toolchain version) and TMPDIR. Unsandboxed, the working copy gets links to the
        dependency folders the sandbox would have mapped in."""
        home, tmp = folder / "home", folder / "tmp"
        home.mkdir()
        tmp.mkdir()
        for source, rel in self.toolchain.home_files:
            with suppress(OSError):
                if rel in toolchain.VERSION_FILES:
                    shutil.copyfile(source, home / rel)
                else:
                    # never the original: the user's .npmrc keeps its tokens beside its
                    # registry
                    user_config.copy_filtered(source, home / rel)
        if self.policy is None:
            for source, target in self.toolchain.shared_into(working_copy):
                target.parent.mkdir(parents=True, exist_ok=True)
                target.symlink_to(source, target_is_directory=True)
        return home, tmp

    def _environment(self, keep: tuple[str, ...], home: Path, tmp: Path) -> dict[str, str]:
        policy = self.policy or SandboxPolicy(toolchain=self.toolchain)
        return policy.environment(self.ws.env, home=home, tmp=tmp, keep=keep)

    def _executables(self, env: Mapping[str, str], agent: bool,
                     command: TestCommand | None = None) -> list[Path]:
        names = [(command or self.test_command).argv[0],
                 *(argv[0] for argv in gate_argvs(self.ws.config, "full"))]
        if agent:
            names += [*backend_binaries(self.backend), "git"]
        found = []
        for name in names:
            if "/" in name and not os.path.isabs(name):
                # relative to the working copy (``.venv/bin/python``), whose dependency
                # folders are the repository's
                name = str(self.ws.root / name)
            path = shutil.which(name, path=env.get("PATH"))
            if path is not None:
                found.append(Path(path))
        return found

    def _prompt_dirs(self) -> list[Path]:
        """Where the agent CLI reads its system prompt file from: rgr's packaged prompts
        and the run's configuration snapshot (``.rgr/prompts`` overrides). Shown
        read-only, after the masks: either may sit under a hidden folder (a checkout in
        /tmp, the snapshot in the repository's .git)."""
        return [d for d in (packaged_dir("prompts"), self.ws.config_root) if d.is_dir()]

    def _open_api(self, bridge: Bridge, env: dict[str, str]) -> tuple[tuple[int, Path], ...]:
        """Ways out of the agent's sandbox to the model API. A CLI with a key talks to
        rgr's gateway, which adds the key outside (the sandbox holds a placeholder).
        Without one (a subscription login): a loopback API keeps its port (forwarded as
        it is), anything else goes through the allow-listed CONNECT proxy that
        HTTPS_PROXY names inside."""
        assert self.policy is not None
        forwards: list[tuple[int, Path]] = []
        allowed: set[tuple[str, int]] = set()

        def open_gateway(url: str, credentials: Mapping[str, str]) -> str:
            port = GATEWAY_PORT + len(forwards)
            upstream = Upstream.of(url, credentials)
            forwards.append((port, bridge.gateway(f"gateway-{port}", upstream)))
            return f"http://127.0.0.1:{port}{urlsplit(url).path.rstrip('/')}"

        for url in self.backend.seal_api(env, open_gateway):
            parts = urlsplit(url)
            host = (parts.hostname or "").lower()
            port = parts.port or (443 if parts.scheme == "https" else 80)
            if host in LOOPBACK:
                forwards.append((port, bridge.forward(f"api-{port}", host, port)))
            else:
                allowed.add((host, port))
        for item in self.policy.allow_hosts:
            host, _, port_text = item.rpartition(":")
            allowed.add((host.lower(), int(port_text)))
        if allowed:
            forwards.append((PROXY_PORT, bridge.proxy("proxy", frozenset(allowed))))
            proxy = f"http://127.0.0.1:{PROXY_PORT}"
            env.update(HTTPS_PROXY=proxy, https_proxy=proxy,
                       NO_PROXY="127.0.0.1,localhost,::1", no_proxy="127.0.0.1,localhost,::1")
        return tuple(forwards)


def _write_hook(control: Path, work: Path, rules: Mapping[str, object]) -> Path:
    """The hook's rules and the settings file that installs it; the settings' path."""
    rules_file = control / "edit-rules.json"
    rules_file.write_text(json.dumps({**rules, "root": str(work)}), encoding="utf-8")
    command = shlex.join([sys.executable, "-I", "-S", str(PRETOOL), str(rules_file)])
    settings = control / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{
        "matcher": "Write|Edit|MultiEdit|NotebookEdit",
        "hooks": [{"type": "command", "command": command}]}]}}), encoding="utf-8")
    # Read by the agent, which runs as an unprivileged user when rgr runs as root
    # (rgr.sandbox.jail): no secret in either.
    for readable in (control, rules_file, settings):
        os.chmod(readable, 0o755 if readable.is_dir() else 0o644)
    return settings


def _discard_and_prune(stager: scratch.PristineStager, root: Path) -> None:
    stager.discard()
    _prune(root)


def _remove(folder: Path) -> None:
    """Delete a scratch folder whatever the agent left in it: folders it made
    read-only are opened first (links are never followed)."""
    if not folder.exists():
        return
    for directory, _subdirs, _files in os.walk(folder):
        with suppress(OSError):
            os.chmod(directory, 0o700)
    shutil.rmtree(folder, ignore_errors=True)
    _prune(folder.parent)


def _prune(root: Path) -> None:
    """Remove a repository's work root once its last folder is gone, so short-lived
    repositories leave nothing behind in /dev/shm (rmdir refuses a folder in use; a
    concurrent _folder that loses its root to this makes it again)."""
    with suppress(OSError):
        root.rmdir()
