"""Shared fixtures: real git repositories in tmp_path and rgr run as a real subprocess.

Nothing here mocks git. Repositories are made with the ``git`` CLI (and ``git
fast-import`` when a test needs hundreds of commits), so every test also checks that rgr
and git agree about what is in them.
"""

from __future__ import annotations

import compileall
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from harness import full_sweep

from tests.timing_budgets import BudgetAccount, SlowFirst, auto_workers

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTES_REF = "refs/notes/tdd-handoffs"

#: A fixed identity and no global/system config: tests behave the same on every machine.
_GIT_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_NOTES_REF",
                 "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES")


@pytest.fixture(autouse=True)
def environment_left_as_found() -> Iterator[None]:
    """A test may change this process's environment only through monkeypatch (undone
    before this check): a variable left behind reaches every later test that builds a
    user's environment from it, so a test that passes alone fails in the suite (a
    RUSTUP_HOME set by a toolchain helper once made `rgr doctor` show a rustup home the
    test's user did not have)."""
    before = dict(os.environ)
    yield
    after = dict(os.environ)
    changed = sorted(k for k in before.keys() | after.keys()
                     if before.get(k) != after.get(k) and k != "PYTEST_CURRENT_TEST")
    if changed:
        for name in changed:
            if name in before:
                os.environ[name] = before[name]
            else:
                os.environ.pop(name, None)
        pytest.fail(f"the test left the process environment changed: {', '.join(changed)}")


#: HOME for the git CLI calls that set up and check repositories (empty, no ~/.gitconfig).
_GIT_HOME = Path(tempfile.mkdtemp(prefix="rgr-tests-git-home-"))


def clean_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a git or rgr subprocess: a throwaway HOME and cache, no
    TDD_* overrides and no GIT_* redirections leaking in from the caller."""
    env = {
        k: v for k, v in os.environ.items()
        if not k.startswith("TDD_") and k not in _GIT_ENV_DROP
    }
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        LC_ALL="C.UTF-8",
        COLUMNS="200",
    )
    if extra:
        env.update(extra)
    return env


def git(cwd: Path, *args: str, input: bytes | None = None, check: bool = True) -> str:
    """Run the git CLI in ``cwd`` and return stdout (stripped of the final newline)."""
    proc = subprocess.run(
        ["git", *args], cwd=cwd, input=input, capture_output=True,
        env=clean_env(_GIT_HOME),
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"git {' '.join(args)} failed ({proc.returncode}):\n"
            f"{proc.stdout.decode(errors='replace')}{proc.stderr.decode(errors='replace')}"
        )
    return proc.stdout.decode(errors="replace").rstrip("\n")


@dataclass
class Repo:
    """A real repository made for one test: ``path`` is the work tree."""

    path: Path

    def git(self, *args: str, input: bytes | None = None, check: bool = True) -> str:
        return git(self.path, *args, input=input, check=check)

    def commit(self, message: str, files: Mapping[str, str] | None = None) -> str:
        """Write ``files``, commit them (or an empty commit) and return the full id."""
        for name, text in (files or {}).items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            self.git("add", name)
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def rev(self, spec: str) -> str:
        return self.git("rev-parse", spec)

    def note_cli(self, commit: str, text: str, ref: str = NOTES_REF) -> None:
        """Add (or replace) a note with the git CLI, as another tool or a user would."""
        self.git("notes", f"--ref={ref}", "add", "-f", "-F", "-", commit, input=text.encode())

    def show_note(self, commit: str, ref: str = NOTES_REF) -> str:
        return self.git("notes", f"--ref={ref}", "show", commit)

    def notes_list(self, ref: str = NOTES_REF) -> list[tuple[str, str]]:
        """(note blob, annotated object) pairs, as ``git notes list`` prints them."""
        out = self.git("notes", f"--ref={ref}", "list")
        return [tuple(line.split()) for line in out.splitlines() if line]  # type: ignore[misc]

    def root_entries(self, ref: str = NOTES_REF) -> list[tuple[str, str]]:
        """(type, name) of each entry at the root of the notes tree."""
        out = self.git("ls-tree", ref)
        rows = []
        for line in out.splitlines():
            meta, name = line.split("\t", 1)
            rows.append((meta.split()[1], name))
        return rows


def committed_project(root: Path, files: dict[str, str], message: str = "the project") -> Path:
    """``files`` written under ``root`` (created) and committed on main, as a user's
    project: a git repository of its own with one commit."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Dev")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return root


def make_repo(tmp_path: Path, commits: int = 1, name: str = "repo") -> Repo:
    """``git init`` a repository under ``tmp_path`` with a local identity and ``commits``
    commits on ``main`` (the first adds README.md)."""
    path = tmp_path / name
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    repo = Repo(path)
    repo.git("config", "user.name", "Test User")
    repo.git("config", "user.email", "test@example.com")
    repo.git("config", "commit.gpgsign", "false")
    for i in range(commits):
        files = {"README.md": "hello\n"} if i == 0 else None
        repo.commit(f"commit {i}", files)
    return repo


def fast_commits(repo: Repo, count: int, branch: str = "main") -> list[str]:
    """Append ``count`` empty commits to ``branch`` with ``git fast-import``; returns
    their ids oldest first. Hundreds of commits in a few milliseconds."""
    parent = repo.git("rev-parse", "--verify", "-q", branch, check=False)
    stream = []
    for i in range(count):
        stream.append(f"commit refs/heads/{branch}\nmark :{i + 1}\n")
        stream.append(f"committer Bulk <bulk@example.com> {1_700_000_000 + i} +0000\n")
        message = f"bulk {i}\n"
        stream.append(f"data {len(message)}\n{message}")
        if i == 0 and parent:
            stream.append(f"from {parent}\n")
        stream.append("\n")
    repo.git("fast-import", "--quiet", input="".join(stream).encode())
    ids = repo.git("rev-list", "--reverse", f"-n{count}", branch).splitlines()
    if repo.git("symbolic-ref", "-q", "HEAD", check=False) == f"refs/heads/{branch}":
        repo.git("reset", "-q", "--hard", branch)
    return ids


def note_json(phase: str = "PLAN", **fields: object) -> str:
    """A valid handoff note as another writer might produce it (seed fields only by
    default)."""
    data: dict[str, object] = {
        "phase": phase,
        "nextPhase": {"PLAN": "RED", "RED": "GREEN", "GREEN": "REFACTOR",
                      "REFACTOR": "PLAN", "COMPLETE": "COMPLETE"}[phase],
        "cycleNumber": 1,
        "currentTest": {"description": "adds two numbers", "testFile": "tests/test_add.py",
                        "implFile": "add.py"},
        "completedTests": [],
        "pendingTests": ["subtracts"],
        "testResult": "FAIL" if phase == "RED" else "PASS",
        "error": None,
        "errorDetails": None,
        "retryCount": 0,
    }
    data.update(fields)
    return json.dumps(data, indent=2) + "\n"


RunRgr = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run_rgr(tmp_path: Path) -> RunRgr:
    """Run ``python -m rgr *args`` as a real subprocess; returns (code, stdout, stderr).

    HOME and XDG_CACHE_HOME point into tmp_path, so crash logs and any user config land
    there and nothing of the developer's environment changes the outcome. stdin is not a
    terminal (it is /dev/null), like in CI.
    """
    home = tmp_path / "home"

    def run(
        args: list[str], cwd: Path, env: Mapping[str, str] | None = None,
        timeout: float = 60,
    ) -> tuple[int, str, str]:
        proc = subprocess.run(
            [sys.executable, "-m", "rgr", *args], cwd=cwd, env=clean_env(home, env),
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout,
        )
        return proc.returncode, proc.stdout, proc.stderr

    return run


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return make_repo(tmp_path, commits=3)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Once per run, in the controller (under xdist, before its workers start): rgr's
    bytecode compiled, bubblewrap installed."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    compile_rgr_bytecode()
    install_bubblewrap()


def compile_rgr_bytecode() -> None:
    """rgr is installed editable here, so nothing compiled its modules, and the e2e
    harness starts rgr with PYTHONDONTWRITEBYTECODE=1 (a test repository stays clean):
    each of the suite's thousands of rgr processes compiled every module it imported
    again, about 0.1 s of CPU apiece. pipx compiles on install; so does this, once.
    Python checks each .pyc against its source, so an edited module is compiled anew."""
    compileall.compile_dir(str(REPO_ROOT / "rgr"), quiet=1)


def install_bubblewrap() -> None:
    """rgr runs every agent and test run inside bubblewrap: install it from the OS
    package manager where it is missing (as root, or with sudo that needs no password);
    otherwise stop with the command to run, rather than fail test by test. Only the
    controller does it: two workers running apt-get at once would fight over dpkg's
    lock."""
    if shutil.which("bwrap"):
        return
    prefix = [] if os.geteuid() == 0 else (["sudo", "-n"] if shutil.which("sudo") else None)
    if prefix is None or not shutil.which("apt-get"):
        pytest.exit("bubblewrap is not installed and cannot be installed from here: run "
                    "`sudo apt-get install bubblewrap` (or your OS's equivalent), then the "
                    "tests again", returncode=4)
    for argv in ([*prefix, "apt-get", "update", "-qq"],
                 [*prefix, "apt-get", "install", "-y", "-qq", "bubblewrap"]):
        done = subprocess.run(argv, capture_output=True, text=True,
                              env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if done.returncode != 0:
            pytest.exit(f"installing bubblewrap failed ({' '.join(argv)}):\n{done.stdout}"
                        f"{done.stderr}", returncode=4)


#: The container tests (tests/containers, marker ``containers``) build the worker image
#: with podman (cached: minutes; cold: about 8) and run workers in containers for several
#: minutes more: opt-in, never in the default run (.ci/run, the README's command).
CONTAINERS_OPT_IN = "RGR_CONTAINERS"


#: The tiers (docs/development.md: the inner loop, the default run, the full sweeps).
#: A test is ``unit`` when it runs in-process: no agent CLI, no sandbox started per test,
#: no rgr, daemon, web server or toolchain started as a process of its own. These files'
#: tests each start such a process (a second or more apiece): ``integration``, in the
#: default run but not in the inner loop (``pytest -m unit``). Everything under
#: tests/e2e is ``e2e`` and tests/containers ``containers``. Each file by its path under
#: tests/ (tests/ mirrors rgr/: two packages' test files may share a name).
PROCESS_SUITES = frozenset({
    "backends/test_zero_config.py", "bench/test_corpus_fetch.py",
    "bench/test_corpus_sample.py", "ecosystems/python/test_equivalence.py",
    "check/mutation/test_mutation_probe_exit.py", "check/mutation/test_textual.py",
    "check/test_flaky.py", "check/test_red_compiled_packages.py",
    "check/test_red_real_suites.py", "check/test_verify.py", "commands/test_commands.py",
    "commands/test_doctor.py", "commands/test_history_table.py", "commands/test_report.py",
    "commands/test_serve.py", "commands/test_verify.py", "daemon/test_land.py",
    "daemon/test_queue.py", "ecosystems/javascript/test_mixed.py",
    "ecosystems/javascript/test_runner.py", "ecosystems/javascript/test_ts_diagnostics.py",
    "ecosystems/jvm/test_javac_errors.py", "ecosystems/jvm/test_mutation_java_maven.py",
    "ecosystems/python/test_unittest_reporter.py", "ecosystems/python/test_unittest_runner.py",
    "ecosystems/test_failure_kind.py", "ecosystems/test_runner_counts.py",
    "ecosystems/test_runners.py", "ecosystems/test_test_scope.py", "loop/test_fix_trials.py",
    "loop/test_rough_edges.py", "loop/test_work_hooks.py", "refactor/test_refactor.py",
    "sandbox/test_capabilities.py", "sandbox/test_setup.py", "sandbox/test_writable_copy.py",
    "store/history/test_cache.py", "store/test_generated.py", "tdd/test_examine.py",
    "test_cli.py", "test_completion.py", "test_docs_build.py", "test_packaging.py",
    "test_startup.py",
})

#: Test files that look for an attack's marks (files named PWNED under /tmp, processes
#: with PWNED in their command line): machine-wide places, so two of them running at
#: once would see each other's attacks in flight. One xdist worker runs them all, one
#: after the other (``--dist loadgroup``, set in pyproject.toml).
MARK_HUNTERS = frozenset({"test_hostile.py", "test_hostile_codex.py",
                          "test_referee_rules.py"})

_TESTS_DIR = Path(__file__).resolve().parent


def tier_of(path: Path) -> str:
    """The tier marker of the test file ``path``: e2e, containers, integration or unit."""
    try:
        parts = path.resolve().relative_to(_TESTS_DIR).parts
    except ValueError:  # a file outside tests/, named on the command line
        return "unit"
    if parts[0] in ("e2e", "containers"):
        return parts[0]
    return "integration" if "/".join(parts) in PROCESS_SUITES else "unit"


def shares_a_costly_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses a module- or session-scoped fixture its own file defines (a
    fleet of daemons and a browser, a demo run, downloaded projects): xdist builds such a
    fixture once per worker that runs any of the file's tests, so the file's tests go to
    one worker (an xdist group per file) and it is built once."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(definition.scope in ("module", "package", "session")
               and definition.baseid.endswith(".py")
               for definitions in info.name2fixturedefs.values()
               for definition in definitions)


# tryfirst: xdist's worker reads the xdist_group markers in its own
# pytest_collection_modifyitems (to suffix each grouped test's node id with its group),
# and that plugin registers after this conftest, so it runs first unless this runs
# earlier still: the groups were silently ignored (a costly fixture built on both workers).
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test gets its tier's marker (``tier_of``); the mark hunters share one xdist
    group, and a file with a costly shared fixture has one of its own; without
    RGR_CONTAINERS=1 each ``containers`` test is skipped, saying how to run it
    (``pytest -ra`` lists it among the skipped: not verified by that run)."""
    for item in items:
        tier = tier_of(item.path)
        if item.get_closest_marker(tier) is None:
            item.add_marker(getattr(pytest.mark, tier))
        if item.path.name in MARK_HUNTERS:
            item.add_marker(pytest.mark.xdist_group("mark-hunters"))
        elif shares_a_costly_fixture(item):
            item.add_marker(pytest.mark.xdist_group(
                f"fixture-of-{item.path.relative_to(_TESTS_DIR).as_posix()}"))
    if os.environ.get(CONTAINERS_OPT_IN) == "1":
        return
    skip = pytest.mark.skip(reason=f"container tests are opt-in: run with "
                                   f"{CONTAINERS_OPT_IN}=1 .venv/bin/python -m pytest -m "
                                   f"containers (docs/daemon.md: \"A fleet\")")
    for item in items:
        if item.get_closest_marker("containers") is not None:
            item.add_marker(skip)


# -- the backend point of the e2e kata helpers (tests/e2e/kata.py) ---------------------

#: The agent CLIs the e2e suite can drive (tests/e2e/kata.py's AGENT_BACKENDS).
E2E_BACKENDS = ("claude", "codex", "gemini", "opencode")


def e2e_backends() -> list[str]:
    names = [n.strip() for n in os.environ.get("RGR_E2E_BACKENDS", "claude").split(",")
             if n.strip()]
    unknown = sorted(set(names) - set(E2E_BACKENDS))
    if unknown:
        raise pytest.UsageError(f"RGR_E2E_BACKENDS: unknown backend(s) {unknown}; "
                                f"known: {', '.join(E2E_BACKENDS)}")
    return names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that takes ``agent_backend`` runs once per agent CLI named in
    RGR_E2E_BACKENDS (comma-separated; default: claude only, to keep CI short):
    ``RGR_E2E_BACKENDS=claude,codex`` runs it on both. The kata helpers take the name:
    ``make_project(root, agent_backend)``, ``model_server(agent_backend)(scripts)``,
    ``rgr_env(home, server.url, agent_backend)``."""
    if "agent_backend" in metafunc.fixturenames:
        metafunc.parametrize("agent_backend", e2e_backends())


# ------------------------------------------------------------------- GitHub CLI


FAKE_GH = f"""#!{sys.executable}
import json, os, sys
args = sys.argv[1:]
with open(os.environ["GH_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
if args[:2] == ["auth", "status"]:
    if os.environ.get("GH_LOGGED_OUT"):
        sys.exit("You are not logged into any GitHub hosts. To log in, run: gh auth login")
    print("Logged in to github.com")
elif args[:2] == ["pr", "create"]:
    print("Creating pull request into main")
    print("https://github.com/example/kata/pull/7")
else:
    sys.exit(2)
"""


def gh_bin(tmp_path: Path) -> Path:
    """A folder holding a stand-in `gh` (GitHub is the one thing no test here can reach):
    it logs each call as a JSON line to $GH_LOG, says it is logged in unless
    $GH_LOGGED_OUT is set, and answers `pr create` with a pull request's URL."""
    bin_dir = tmp_path / "gh-bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(gh.stat().st_mode | stat.S_IXUSR)
    return bin_dir


# -- the e2e files' time against their budgets (tests/timing_budgets.py) ----------------


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: one and a half workers per core (``auto_workers``), unless
    PYTEST_XDIST_AUTO_NUM_WORKERS names a number (None: xdist's own answer reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return auto_workers(_cores())


def _cores() -> int:
    """The cores this process may run on (a container's CPU set, not the host's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count() or 1


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist only the controller keeps the account: it sees every worker's
    reports. Every process orders the tests slowest tier first (``SlowFirst``): xdist's
    workers collect, and the scheduler takes their order."""
    config.pluginmanager.register(SlowFirst(), "rgr-slow-first")
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        workers = int(getattr(config.option, "numprocesses", 0) or 1)
        config.pluginmanager.register(
            BudgetAccount(full_sweep=full_sweep(), workers_per_core=workers / _cores()),
            "rgr-e2e-budgets")
