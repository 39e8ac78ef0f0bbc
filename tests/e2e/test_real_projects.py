"""Real projects, zero configuration, as a user has them: rgr installed by pipx (only its
script on PATH, never its venv), the agent CLI in ``~/.local/bin`` where the README puts
it, each project under the user's HOME with its toolchain where such projects keep it,
and no tdd.toml at all. The real ``claude`` plays the kata against the scripted model;
the project's own suite must pass on the finished branch.

Layouts: a PyPI sdist (inflection 0.5.1) with an activated in-repository ``.venv``
holding pytest and a dependency only that venv has; the same with ``uv`` managing an
unactivated venv; an npm project with ``node_modules`` through ``rgr run`` and through
the daemon; the same with a TypeScript ``vitest.config.mts``, under npm and under pnpm;
a tape project under nyc; an ava project; a pnpm workspace whose root runs ``pnpm -r
test``; a cargo crate with rustup's default layout in HOME and with
``CARGO_HOME``/``RUSTUP_HOME`` elsewhere; a Go module whose dependency sits in the module
cache under HOME; a Maven project with its dependencies in ``~/.m2``. Plus the hostile
side: an agent and a test that write into the shared venv, ``node_modules`` and a
toolchain home are refused, and the user's files stay byte-identical.

CI runs a sample (the pip venv, the npm project through the daemon, the hostile writes;
about five minutes on two cores); ``RGR_FULL_SWEEP=1`` runs every layout (about twelve):

    RGR_FULL_SWEEP=1 .venv/bin/python -m pytest tests/e2e/test_real_projects.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import harness
import pytest
from ecosystems import GO, RUST, VITEST, Ecosystem, Toolchain, kata_scripts
from harness import claude_env, ensure_claude
from kata import git, notes_on_branch
from toolchains import (
    ToolchainMissing,
    ensure_cargo,
    ensure_go,
    ensure_maven,
    ensure_pnpm,
    maven_home,
)

from rgr.base.proc import run
from rgr.demo.kata import TEST_1, TEST_2
from rgr.fake_model import FakeModelServer, SessionScript, bash, structured, write

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
PHASES = ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR",
          "COMPLETE"]


def sweep_only(case: str) -> pytest.MarkDecorator:
    """A layout CI leaves to the full sweep: skipped (pytest -ra lists it with the
    command that runs it), never counted as passed."""
    return harness.sweep_only("tests/e2e/test_real_projects.py", case)


# --------------------------------------------------------------- the user's machine


@pytest.fixture(scope="session")
def pipx_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """rgr installed as pipx installs it, from this checkout: a folder holding only the
    ``rgr`` script (its venv is pipx's, never on PATH)."""
    base = tmp_path_factory.mktemp("pipx")
    tools = base / "tools"
    steps = [[PY, "-m", "venv", str(tools)],
             [str(tools / "bin" / "pip"), "install", "-q", "pipx"],
             [str(tools / "bin" / "pipx"), "install", "--quiet", str(REPO_ROOT)]]
    env = {**os.environ, "PIPX_HOME": str(base / "pipx"), "PIPX_BIN_DIR": str(base / "bin"),
           "PIPX_MAN_DIR": str(base / "man")}
    for argv in steps:
        done = run(argv, cwd=base, timeout=900, env=env)
        assert done.returncode == 0, done.describe()
    assert sorted(p.name for p in (base / "bin").iterdir()) == ["rgr"]
    return base / "bin"


@pytest.fixture(scope="session")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """inflection's sdist and the wheels the Python projects install, fetched once (uv's,
    about 20 MB, only for the full sweep: its one user is a sweep-only test)."""
    folder = tmp_path_factory.mktemp("downloads")
    uv = ["uv"] if harness.full_sweep() else []
    for argv in ([PY, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                  "-d", str(folder / "sdist"), "inflection==0.5.1"],
                 [PY, "-m", "pip", "download", "-q", "-d", str(folder / "wheels"),
                  "pytest", "text-unidecode", *uv]):
        done = run(argv, cwd=folder, timeout=900)
        assert done.returncode == 0, done.describe()
    return folder


@dataclass
class User:
    """One user: a HOME, rgr from pipx, claude in ~/.local/bin, a PATH of their own."""

    home: Path
    pipx_bin: Path
    path: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)

    def environment(self, server_url: str) -> dict[str, str]:
        env = claude_env(self.home, server_url)
        env.pop("CLAUDE_CODE_USE_BEDROCK", None)
        env.update(self.env)
        env["PATH"] = os.pathsep.join([*self.path, str(self.home / ".local" / "bin"),
                                       str(self.pipx_bin), "/usr/local/bin", "/usr/bin",
                                       "/bin"])
        env["HOME"] = str(self.home)
        env["XDG_CACHE_HOME"] = str(self.home / ".cache")
        env.pop("PYTHONPATH", None)
        env.pop("VIRTUAL_ENV", None)
        env.update({k: v for k, v in self.env.items() if k == "VIRTUAL_ENV"})
        return env

    def rgr(self, args: list[str], cwd: Path, env: dict[str, str],
            timeout: float = 1200) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.pipx_bin / "rgr"), *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)


@pytest.fixture
def user(tmp_path: Path, pipx_bin: Path) -> User:
    home = tmp_path / "home"
    local_bin = home / ".local" / "bin"
    local_bin.mkdir(parents=True)
    (local_bin / "claude").symlink_to(ensure_claude())
    return User(home, pipx_bin)


def _commit_all(root: Path, message: str) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Dev")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def _write_files(root: Path, eco: Ecosystem) -> Path:
    """The ecosystem's kata project (its build files and stub) written in ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in eco.files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _snapshot(*roots: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                files[str(path)] = path.read_bytes()
    return files


# --------------------------------------------------------------- the Python kata


def _py_tests(one_only: bool = False) -> tuple[str, str]:
    first = f'''def test_{TEST_1.replace(" ", "_")}():
    from slug import slugify

    assert slugify("Hello") == "hello"
'''
    second = first + f'''

def test_{TEST_2.replace(" ", "_")}():
    from slug import slugify

    assert slugify("Héllo World") == "hello-world"
'''
    return first, second


_PY_1, _PY_2 = _py_tests()
#: The implementation needs text_unidecode, which only the project's venv has: the kata
#: completes only if every test run used that venv.
PYTHON = Ecosystem(
    name="python", runner="pytest", test_file="test_slug.py", impl_file="slug.py", files={},
    test_1=_PY_1, test_2=_PY_2, passing_test="def test_nothing():\n    pass\n",
    impl_1="from text_unidecode import unidecode\n\n\ndef slugify(text):\n"
           "    return unidecode(text).lower()\n",
    impl_2="from text_unidecode import unidecode\n\n\ndef slugify(text):\n"
           "    return \"-\".join(unidecode(text).lower().split())\n",
    weakened_test=_PY_1.replace('assert slugify("Hello") == "hello"', "assert True"),
    check=(".venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider"),
)


def inflection_project(home: Path, downloads: Path) -> Path:
    """The PyPI sdist unpacked under ~/code and committed as its user would."""
    (home / "code").mkdir(parents=True, exist_ok=True)
    with tarfile.open(next((downloads / "sdist").glob("inflection-*.tar.gz"))) as archive:
        archive.extractall(home / "code", filter="data")
    root = home / "code" / "inflection"
    (home / "code" / "inflection-0.5.1").rename(root)
    (root / ".gitignore").write_text(".venv/\n__pycache__/\n*.egg-info/\n")
    _commit_all(root, "inflection 0.5.1, from its PyPI sdist")
    return root


def _pip_venv(root: Path, downloads: Path) -> Path:
    for argv in ([PY, "-m", "venv", str(root / ".venv")],
                 [str(root / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q",
                  "--no-index", "--find-links", str(downloads / "wheels"), "pytest",
                  "text-unidecode"]):
        done = run(argv, cwd=root, timeout=600)
        assert done.returncode == 0, done.describe()
    return root / ".venv"


def _uv_venv(root: Path, downloads: Path, tools: Path) -> Path:
    """uv makes the venv and installs into it (uv itself from a wheel, in a tools venv
    of the user's, as `pipx install uv` would leave it)."""
    steps = [[PY, "-m", "venv", str(tools)],
             [str(tools / "bin" / "pip"), "install", "-q", "--no-index", "--find-links",
              str(downloads / "wheels"), "uv"],
             [str(tools / "bin" / "uv"), "venv", "-q", "--python", PY, str(root / ".venv")],
             [str(tools / "bin" / "uv"), "pip", "install", "-q", "--offline", "--no-index",
              "--find-links", str(downloads / "wheels"), "--python",
              str(root / ".venv" / "bin" / "python"), "pytest", "text-unidecode"]]
    for argv in steps:
        done = run(argv, cwd=root, timeout=600, env={**os.environ, "UV_PYTHON_DOWNLOADS":
                                                     "never", "UV_NO_CONFIG": "1"})
        assert done.returncode == 0, done.describe()
    return root / ".venv"


def run_kata(user: User, repo: Path, eco: Ecosystem, check_env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    """``rgr run`` of the two-test kata with zero configuration: it must complete, and
    the project's own test command must pass on the finished branch."""
    assert not (repo / "tdd.toml").exists()
    with FakeModelServer(kata_scripts(eco, rejections=False)) as server:
        env = user.environment(server.url)
        done = user.rgr(["run", "--yes", "--skip-preflight", "slugify"], repo, env)
        output = done.stdout + done.stderr
        assert done.returncode == 0, output
        assert server.errors == [], server.errors
    assert "sandbox: bubblewrap" in done.stdout, output
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == PHASES, output
    assert notes[-1]["completedTests"] == [TEST_1, TEST_2]
    assert notes[-1]["tests"]["failed"] == 0  # type: ignore[index]
    # The start note says what the sandbox showed and why.
    shown = notes[0]["sandbox"]["shown"]  # type: ignore[index]
    assert shown, notes[0]
    assert (repo / eco.test_file).read_text() == eco.test_2
    check = subprocess.run(eco.check, cwd=repo, env={**env, **(check_env or {})},
                           capture_output=True, text=True, timeout=900)
    assert check.returncode == 0, check.stdout + check.stderr
    assert git(repo, "status", "--porcelain") == ""
    return done


# The full sweep's since 2026-12-02 (third pass): an activated venv shown inside and left
# unwritten is tests/commands/test_doctor.py::test_verify_runs_the_venvs_pytest_sealed_on_head in
# every run, a real PyPI sdist's honest change through `rgr run` is test_corpus_run.py's
# (iniconfig), and the README's pipx install is this file's shared-toolchains test.
@sweep_only("a PyPI sdist (inflection, 400+ tests) under an activated venv")
def test_pypi_sdist_with_an_activated_venv(user: User, downloads: Path) -> None:
    repo = inflection_project(user.home, downloads)
    venv = _pip_venv(repo, downloads)
    user.env["VIRTUAL_ENV"] = str(venv)
    user.path.insert(0, str(venv / "bin"))
    before = _snapshot(venv)
    run_kata(user, repo, PYTHON)
    notes = notes_on_branch(repo)
    shown = {s["path"]: s for s in notes[0]["sandbox"]["shown"]}  # type: ignore[index]
    assert shown[str(venv)]["inside"] == ".venv"
    # inflection's own suite ran in every test run, from the venv's pytest.
    assert notes[-1]["tests"]["passed"] > 400  # type: ignore[index]
    assert _snapshot(venv) == before  # nothing wrote into the user's venv


@sweep_only("uv")
def test_pypi_sdist_with_a_uv_venv_nobody_activated(user: User, downloads: Path) -> None:
    repo = inflection_project(user.home, downloads)
    _uv_venv(repo, downloads, user.home / ".local" / "share" / "uv-tools")
    done = run_kata(user, repo, PYTHON)
    notes = notes_on_branch(repo)
    assert notes[0]["sandbox"]["pathPrefix"] == [str(repo / ".venv" / "bin")], done.stdout  # type: ignore[index]


# --------------------------------------------------------------- npm


def _npm_installed(home: Path, eco: Ecosystem, what: str) -> Path:
    """``eco``'s project under ``home``, its node_modules installed from the registry by
    npm (ignored), committed as ``what``."""
    root = _write_files(home / "code" / "web", eco)
    npm = shutil.which("npm")
    if npm is None:
        raise ToolchainMissing("npm is not on PATH: install Node.js 20 or later")
    done = run([npm, "install", "--no-audit", "--no-fund"], cwd=root, timeout=900,
               env={**os.environ, "HOME": str(home)})
    assert done.returncode == 0, done.describe()
    _commit_all(root, what)
    return root


def npm_project(home: Path) -> Path:
    """A Vitest project with node_modules installed from the registry (ignored)."""
    root = _npm_installed(home, VITEST, "a vitest project")
    assert (root / "node_modules" / ".bin" / "vitest").exists()
    return root


@sweep_only("npm through rgr run")
def test_npm_project_with_node_modules(user: User) -> None:
    run_kata(user, npm_project(user.home), VITEST)


VITE_CONFIG = """\
import { defineConfig } from 'vitest/config'
const environment: string = 'node'
export default defineConfig({ test: { environment } })
"""


@sweep_only("a Vite config through rgr run")
def test_npm_project_with_a_typescript_vite_config(user: User) -> None:
    """Vite bundles ``vitest.config.mts`` into ``node_modules/.vite-temp`` and Vitest
    keeps its results in ``node_modules/.vite``: the agents' sessions and the test runs
    get those folders writable, the packages stay the user's, read-only."""
    root = _write_files(user.home / "code" / "web", VITEST)
    (root / "vitest.config.mts").write_text(VITE_CONFIG)
    run_kata(user, npm_project(user.home), VITEST)


_TAPE_HEAD = "const test = require('tape');\nconst { slugify } = require('./slug');\n"
_TAPE_1 = (f"test('{TEST_1}', (t) => {{\n  t.equal(slugify('Hello'), 'hello');\n"
           "  t.end();\n});\n")
_TAPE_2 = (f"test('{TEST_2}', (t) => {{\n  t.equal(slugify('Hello World'), 'hello-world');\n"
           "  t.end();\n});\n")
_TAPE_IMPL = "function slugify(text) {{\n  return {body};\n}}\n\nmodule.exports = {{ slugify }};\n"
TAPE = Ecosystem(
    name="tape", runner="tap", test_file="src/slug.test.js", impl_file="src/slug.js",
    files={
        "package.json": json.dumps({"name": "kata", "private": True,
                                    "scripts": {"test": "nyc tape src/*.test.js"},
                                    "devDependencies": {"tape": "5.10.2", "nyc": "15.1.0"}},
                                   indent=2) + "\n",
        ".gitignore": "node_modules\n.nyc_output\n",
        "src/slug.js": _TAPE_IMPL.format(body="''"),
    },
    test_1=_TAPE_HEAD + _TAPE_1, test_2=_TAPE_HEAD + _TAPE_1 + _TAPE_2,
    passing_test=_TAPE_HEAD + _TAPE_1.replace("'Hello'), 'hello'", "''), ''"),
    weakened_test=_TAPE_HEAD + _TAPE_1.replace("slugify('Hello'), 'hello'", "1, 1"),
    impl_1=_TAPE_IMPL.format(body="text.toLowerCase()"),
    impl_2=_TAPE_IMPL.format(body="text.toLowerCase().split(/\\s+/).join('-')"),
    check=("npm", "test"),
)


@sweep_only("a tape project under nyc through rgr run")
def test_tape_project_under_nyc(user: User) -> None:
    """tape's TAP read per test through every phase; nyc writes its cache in the run's
    own node_modules/.cache."""
    run_kata(user, _npm_installed(user.home, TAPE, "a tape project"), TAPE)


_AVA_HEAD = "import test from 'ava';\nimport { slugify } from './slug.js';\n"
_AVA_1 = f"test('{TEST_1}', (t) => {{\n  t.is(slugify('Hello'), 'hello');\n}});\n"
_AVA_2 = f"test('{TEST_2}', (t) => {{\n  t.is(slugify('Hello World'), 'hello-world');\n}});\n"
_AVA_IMPL = "export function slugify(text) {{\n  return {body};\n}}\n"
AVA = Ecosystem(
    name="ava", runner="ava", test_file="src/slug.test.js", impl_file="src/slug.js",
    files={
        "package.json": json.dumps({"name": "kata", "private": True, "type": "module",
                                    "scripts": {"test": "ava"},
                                    "devDependencies": {"ava": "6.4.1"}}, indent=2) + "\n",
        ".gitignore": "node_modules\n",
        "src/slug.js": _AVA_IMPL.format(body="''"),
    },
    test_1=_AVA_HEAD + _AVA_1, test_2=_AVA_HEAD + _AVA_1 + _AVA_2,
    passing_test=_AVA_HEAD + _AVA_1.replace("'Hello'), 'hello'", "''), ''"),
    weakened_test=_AVA_HEAD + _AVA_1.replace("slugify('Hello'), 'hello'", "1, 1"),
    impl_1=_AVA_IMPL.format(body="text.toLowerCase()"),
    impl_2=_AVA_IMPL.format(body="text.toLowerCase().split(/\\s+/).join('-')"),
    check=("npm", "test"),
)


@sweep_only("an ava project through rgr run")
def test_ava_project(user: User) -> None:
    """ava as its user runs it (`"test": "ava"`): rgr adds --tap and reads each test;
    ava's cache under node_modules/.cache is the run's own."""
    run_kata(user, _npm_installed(user.home, AVA, "an ava project"), AVA)


def _pnpm_install(user: User, root: Path) -> None:
    """``pnpm install`` by the pinned pnpm (on the user's PATH from now on), the
    lockfile it writes committed, as a user does."""
    user.path.insert(0, str(ensure_pnpm() / ".bin"))
    env = {**os.environ, "HOME": str(user.home),
           "PATH": os.pathsep.join([*user.path, os.environ.get("PATH", "")])}
    done = run(["pnpm", "install"], cwd=root, timeout=900, env=env)
    assert done.returncode == 0, done.describe()
    assert (root / "node_modules" / ".pnpm").is_dir()
    git(root, "add", "pnpm-lock.yaml")
    git(root, "commit", "-q", "-m", "lockfile")


@sweep_only("a Vite config under pnpm through rgr run")
def test_pnpm_project_with_a_typescript_vite_config(user: User) -> None:
    """The Vite-config TypeScript project installed by pnpm: its node_modules are links
    into node_modules/.pnpm, Vite's bundled config and Vitest's cache are written there."""
    root = _write_files(user.home / "code" / "web", VITEST)
    (root / "vitest.config.mts").write_text(VITE_CONFIG)
    _commit_all(root, "a vitest project")
    _pnpm_install(user, root)
    run_kata(user, root, VITEST)


_WS_PACKAGE = {"name": "@ws/slug", "version": "1.0.0", "private": True, "type": "module",
               "scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "3.2.7"}}
_WS_TEXT_TEST = ("const test = require('node:test');\nconst assert = require('node:assert');\n"
                 "test('pads', () => assert.strictEqual('7'.padStart(3, '0'), '007'));\n")
WORKSPACE = replace(
    VITEST, name="pnpm workspace", runner="workspace",
    test_file="packages/slug/src/slug.test.js", impl_file="packages/slug/src/slug.js",
    files={
        "package.json": json.dumps({"name": "ws", "private": True,
                                    "scripts": {"test": "pnpm -r test"}}, indent=2) + "\n",
        "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
        ".gitignore": "node_modules\n",
        "packages/slug/package.json": json.dumps(_WS_PACKAGE, indent=2) + "\n",
        "packages/slug/src/slug.js": VITEST.files["src/slug.js"],
        "packages/text/package.json": json.dumps({"name": "@ws/text", "version": "1.0.0",
                                                 "private": True,
                                                 "scripts": {"test": "node --test"}}) + "\n",
        "packages/text/test/text.test.js": _WS_TEXT_TEST,
    },
    check=("pnpm", "-r", "test"), setup=lambda home: Toolchain(), link=lambda root: None,
)


@sweep_only("a pnpm workspace through rgr run")
def test_pnpm_workspace_whose_root_runs_pnpm_r_test(user: User) -> None:
    """`pnpm -r test` at the root: the kata's package by Vitest, another by node's
    runner, each in its folder; the finished branch passes `pnpm -r test`."""
    root = _write_files(user.home / "code" / "ws", WORKSPACE)
    _commit_all(root, "a pnpm workspace")
    _pnpm_install(user, root)
    run_kata(user, root, WORKSPACE)
    notes = notes_on_branch(root)
    assert notes[-1]["tests"]["passed"] == 3  # type: ignore[index]  # 2 kata + pads


# The default run lands daemon jobs in tests/e2e/test_daemon.py and verifies Vitest projects
# sealed in tests/sandbox/test_tool_caches_inside.py; this one joins them on a real npm project.
@sweep_only("npm through the daemon")
def test_npm_project_through_the_daemon(user: User) -> None:
    """The job clone has no node_modules: its working copies share the daemon's."""
    repo = npm_project(user.home)
    before = _snapshot(repo / "node_modules")
    with FakeModelServer(kata_scripts(VITEST, rejections=False)) as server:
        env = user.environment(server.url)
        added = user.rgr(["queue", "add", "slugify"], repo, env, timeout=120)
        assert added.returncode == 0, added.stdout + added.stderr
        done = user.rgr(["daemon", "--lease", "6", "--poll", "0.3"], repo, env)
        output = done.stdout + done.stderr
        assert done.returncode == 0, output
        assert server.errors == [], server.errors
    jobs = json.loads(user.rgr(["queue", "--json"], repo, env, timeout=120).stdout)
    assert [j["state"]["state"] for j in jobs] == ["complete"], output
    branch = jobs[0]["branch"]
    notes = notes_on_branch(repo, branch)
    assert [n["phase"] for n in notes] == PHASES, output
    assert notes[-1]["tests"]["passed"] == 2  # type: ignore[index]
    # Nothing rgr ran wrote into the user's node_modules (Vitest's own run below does:
    # it keeps a results cache there).
    assert _snapshot(repo / "node_modules") == before
    git(repo, "switch", "-q", branch)
    check = subprocess.run(VITEST.check, cwd=repo, env=env, capture_output=True, text=True,
                           timeout=600)
    assert check.returncode == 0, check.stdout + check.stderr


# --------------------------------------------------------------- rustup


def _rustup_homes() -> tuple[Path, Path]:
    """The machine's rustup install (this user's CARGO_HOME and RUSTUP_HOME)."""
    homes = ensure_cargo()
    real = Path(os.path.expanduser("~"))
    cargo = Path(homes.get("CARGO_HOME", real / ".cargo"))
    rustup = Path(homes.get("RUSTUP_HOME", real / ".rustup"))
    if not (rustup / "toolchains").is_dir() or not (cargo / "bin" / "cargo").exists():
        raise ToolchainMissing(f"no rustup install at {cargo} and {rustup}: the rustup "
                               "layouts are not verified on this machine")
    return cargo, rustup


def _crate(home: Path) -> Path:
    root = _write_files(home / "code" / "kata", RUST)
    _commit_all(root, "a crate")
    return root


@sweep_only("rustup in HOME")
def test_cargo_crate_with_rustup_in_home(user: User) -> None:
    """rustup's default layout: ~/.cargo (on PATH) and ~/.rustup, no variables."""
    cargo, rustup = _rustup_homes()
    (user.home / ".cargo").symlink_to(cargo)
    (user.home / ".rustup").symlink_to(rustup)
    user.path.insert(0, str(user.home / ".cargo" / "bin"))
    run_kata(user, _crate(user.home), RUST)


@sweep_only("rustup elsewhere")
def test_cargo_crate_with_rustup_homes_elsewhere(user: User) -> None:
    cargo, rustup = _rustup_homes()
    user.env.update(CARGO_HOME=str(cargo), RUSTUP_HOME=str(rustup))
    user.path.insert(0, str(cargo / "bin"))
    run_kata(user, _crate(user.home), RUST)


# --------------------------------------------------------------- Go


def _go_module_cache(home: Path) -> dict[str, str]:
    """A dependency (example.com/strs) in the module cache under HOME, put there by
    `go mod download` from a file proxy (the Go module proxy is not reachable here)."""
    proxy = home / "proxy" / "example.com" / "strs" / "@v"
    proxy.mkdir(parents=True)
    module = "module example.com/strs\n\ngo 1.19\n"
    source = "package strs\n\nimport \"strings\"\n\nfunc Lower(s string) string " \
             "{ return strings.ToLower(s) }\n"
    import zipfile

    with zipfile.ZipFile(proxy / "v1.0.0.zip", "w") as archive:
        archive.writestr("example.com/strs@v1.0.0/go.mod", module)
        archive.writestr("example.com/strs@v1.0.0/strs.go", source)
    (proxy / "v1.0.0.mod").write_text(module)
    (proxy / "v1.0.0.info").write_text('{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}')
    (proxy / "list").write_text("v1.0.0\n")
    return {"GOPROXY": f"file://{home / 'proxy'}", "GONOSUMDB": "example.com",
            "GONOSUMCHECK": "1", "GOFLAGS": "-mod=mod", "GOSUMDB": "off"}


@sweep_only("go module cache")
def test_go_module_with_a_dependency_in_the_module_cache(user: User) -> None:
    go = ensure_go()
    root = _write_files(user.home / "code" / "kata", GO)
    (root / "lower.go").write_text('package kata\n\nimport "example.com/strs"\n\n'
                                   "func lower(s string) string { return strs.Lower(s) }\n")
    fetch_env = {**os.environ, "HOME": str(user.home), **_go_module_cache(user.home)}
    fetch_env.pop("GOPATH", None)
    fetch_env.pop("GOMODCACHE", None)
    for argv in ([go, "get", "example.com/strs@v1.0.0"], [go, "mod", "tidy"]):
        done = run(argv, cwd=root, timeout=300, env=fetch_env)
        assert done.returncode == 0, done.describe()
    assert (user.home / "go" / "pkg" / "mod" / "example.com" / "strs@v1.0.0").is_dir()
    _commit_all(root, "a go module with a dependency")
    # The user's environment as after that: the module is cached, the proxy default.
    run_kata(user, root, GO)


# --------------------------------------------------------------- Maven


@sweep_only("maven ~/.m2")
def test_maven_project_with_its_dependencies_in_m2(user: User) -> None:
    from ecosystems import MAVEN

    ensure_maven()
    _, maven_user_home = maven_home()  # ~/.m2 filled from Debian's Maven repository
    (user.home / ".m2").symlink_to(maven_user_home / ".m2")
    user.env["MAVEN_OPTS"] = f"-Duser.home={user.home}"
    root = _write_files(user.home / "code" / "kata", MAVEN)
    _commit_all(root, "a maven project")
    run_kata(user, root, MAVEN, check_env={"MAVEN_OPTS": f"-Duser.home={user.home}"})


# --------------------------------------------------------------- hostile


def _hostile_scripts(targets: list[Path]) -> list[SessionScript]:
    """A planner, then a tester whose test writes into every shared folder when it runs:
    in the agent's session (through the allowed test command) and in rgr's verification.
    The read-only binds refuse every write; the test then fails on its assertion."""
    test = ("import pathlib\n\n\ndef test_writes_into_the_toolchain():\n"
            "    refused = []\n"
            f"    for target in {[str(t) for t in targets]!r}:\n"
            "        try:\n            pathlib.Path(target).write_text('pwned')\n"
            "        except OSError:\n            refused.append(target)\n"
            "    assert refused == [], refused\n")
    from ecosystems import plan

    return [plan(PYTHON, 0, first=True),
            SessionScript([write("test_hostile.py", test), bash("pytest -q test_hostile.py"),
                           bash("git add test_hostile.py && git commit -q -m 'test: x'"),
                           structured({"summary": "added one failing test"})],
                          expect_system_contains="You are the TESTER", name="red")]


def test_writes_into_shared_toolchains_are_refused(user: User, downloads: Path) -> None:
    repo = inflection_project(user.home, downloads)
    venv = _pip_venv(repo, downloads)
    with (repo / ".gitignore").open("a") as ignore:
        ignore.write("node_modules/\n")
    git(repo, "commit", "-qam", "ignore node_modules")
    (repo / "node_modules" / "left-pad").mkdir(parents=True)
    (repo / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1\n")
    (user.home / ".cargo" / "bin").mkdir(parents=True)
    (user.home / ".cargo" / "bin" / "cargo").write_text("#!/bin/sh\n")
    site = next((venv / "lib").glob("python3*/site-packages"))
    targets = [site / "evil.pth", venv / "bin" / "pytest", Path(".venv/bin/pip"),
               repo / "node_modules" / "left-pad" / "index.js",
               Path("node_modules/left-pad/index.js"), user.home / ".cargo" / "bin" / "cargo"]
    before = _snapshot(repo / ".venv", repo / "node_modules", user.home / ".cargo")
    user.env["VIRTUAL_ENV"] = str(venv)
    user.path.insert(0, str(venv / "bin"))
    with FakeModelServer(_hostile_scripts(targets)) as server:
        env = user.environment(server.url)
        done = user.rgr(["run", "--yes", "--skip-preflight", "--max-phases", "2", "slugify"],
                        repo, env)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "sandbox: bubblewrap" in done.stdout, output
    assert _snapshot(repo / ".venv", repo / "node_modules", user.home / ".cargo") == before
    # rgr's verification ran the test: every write was refused, so it failed, listing
    # all of them (a write that got through would be missing from the list).
    red_note = notes_on_branch(repo)[-1]
    assert red_note["phase"] == "RED" and red_note["testResult"] == "FAIL", output
    report = (repo / ".git" / "rgr" / "runs").rglob("tests/*.txt")
    texts = "".join(p.read_text() for p in report)
    assert "Read-only file system" in texts or "refused" in texts, texts[-2000:]
    for target in targets:
        assert str(target) in texts, (target, texts[-2000:])

