"""The real claude binary for end-to-end tests: installed from the pinned lockfile beside
this file, and an environment that runs it offline against the fake model server.

Which release: ``rgr.backends.claude_release`` names them. The suite runs on PINNED
(from ``node/package-lock.json``); ``RGR_E2E_CLAUDE=newest`` (or an exact version) runs
every e2e test on that release instead, installed into ``node-<version>/`` (ignored by
git) with ``npm install``. ``test_claude_releases.py`` runs a sample on NEWEST always.

Sweeps: a long parametrized sweep (crash points, ecosystems, layouts) runs a fixed,
deterministic sample in every test run and the rest only with ``RGR_FULL_SWEEP=1``;
``sweep`` and ``sweep_only`` below mark the rest as skipped, with the command that runs
them as the reason (pytest -ra lists them: a case left out is never counted as passed).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic

from rgr.backends.claude_release import NEWEST, PACKAGE, PINNED
from rgr.base.proc import run
from rgr.demo.env import DUMMY_API_KEY, claude_env, codex_env, gemini_env, opencode_env

if TYPE_CHECKING:
    from _pytest.mark.structures import MarkDecorator, ParameterSet

__all__ = ["DUMMY_API_KEY", "NODE_DIR", "Report", "StrictReport", "claude_env",
           "claude_path", "codex_env", "codex_path", "ensure_claude", "ensure_codex",
           "ensure_gemini", "ensure_opencode", "full_sweep", "gemini_env", "gemini_path",
           "init_repo", "opencode_env", "opencode_path",
           "processes_running", "selected_release", "sweep", "sweep_only"]

#: package.json + package-lock.json pin @anthropic-ai/claude-code and @openai/codex (its
#: platform binary comes as an optional dependency from the same registry); node_modules
#: is ignored.
NODE_DIR = Path(__file__).resolve().parent / "node"

#: npm ci downloads ~245 MB on a cold cache.
NPM_TIMEOUT_S = 900.0


def claude_path(node_dir: Path = NODE_DIR) -> Path:
    return node_dir / "node_modules" / ".bin" / "claude"


def selected_release() -> str:
    """The release the e2e suite runs on: ``RGR_E2E_CLAUDE`` (pinned, newest or an
    exact version), PINNED by default."""
    wanted = os.environ.get("RGR_E2E_CLAUDE", "").strip() or "pinned"
    return {"pinned": PINNED, "newest": NEWEST}.get(wanted, wanted)


def ensure_claude(version: str | None = None) -> Path:
    """The claude binary of ``version`` (default: ``selected_release()``), installed
    first if it is missing: PINNED with ``npm ci`` from the lockfile, any other release
    with ``npm install {PACKAGE}@<version>`` into ``node-<version>/``.

    Never skips: a test run that cannot install claude fails with npm's output.
    """
    version = version or selected_release()
    if version == PINNED:
        return _install(NODE_DIR, ["ci"])
    node_dir = NODE_DIR.parent / f"node-{version}"
    node_dir.mkdir(exist_ok=True)
    manifest = node_dir / "package.json"
    if not manifest.exists():
        manifest.write_text(json.dumps({"name": f"rgr-e2e-claude-{version}", "private": True,
                                        "dependencies": {PACKAGE: version}}, indent=2))
    return _install(node_dir, ["install"])


def codex_path(node_dir: Path = NODE_DIR) -> Path:
    return node_dir / "node_modules" / ".bin" / "codex"


def gemini_path(node_dir: Path = NODE_DIR) -> Path:
    return node_dir / "node_modules" / ".bin" / "gemini"


def ensure_gemini() -> Path:
    """The pinned Gemini CLI (the same ``npm ci`` as the pinned claude's)."""
    return _install(NODE_DIR, ["ci"], gemini_path(NODE_DIR))


#: opencode pinned apart from NODE_DIR (its lock holds this platform's binaries only,
#: so ``npm install`` from it, not ``npm ci``): only a test run that drives opencode
#: downloads its 177 MB platform package, never every run that drives claude.
OPENCODE_DIR = Path(__file__).resolve().parent / "opencode"


def opencode_path(node_dir: Path = OPENCODE_DIR) -> Path:
    return node_dir / "node_modules" / ".bin" / "opencode"


def ensure_opencode() -> Path:
    """The pinned opencode (``tests/e2e/opencode``'s lock)."""
    return _install(OPENCODE_DIR, ["install"], opencode_path(OPENCODE_DIR))


def ensure_codex() -> Path:
    """The pinned codex binary (the same ``npm ci`` as the pinned claude's)."""
    return _install(NODE_DIR, ["ci"], codex_path(NODE_DIR))


def _install(node_dir: Path, how: list[str], binary: Path | None = None) -> Path:
    binary = binary or claude_path(node_dir)
    if binary.exists():
        return binary
    with _install_lock(node_dir):
        if binary.exists():  # another pytest process installed it while we waited
            return binary
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError(
                "npm is not on PATH: install Node.js (>= 18) to run the e2e tests, "
                f"or run `npm {how[0]} --prefix {node_dir}` yourself"
            )
        done = run(
            [npm, *how, "--no-audit", "--no-fund", "--prefix", str(node_dir)],
            cwd=node_dir,
            timeout=NPM_TIMEOUT_S,
        )
        if done.returncode != 0 or done.timed_out or not binary.exists():
            raise RuntimeError(f"installing the pinned {binary.name} failed:\n{done.describe()}")
        check = run([str(binary), "--version"], cwd=node_dir, timeout=60)
        if check.returncode != 0:
            raise RuntimeError(f"the installed {binary.name} does not run:\n{check.describe()}")
    return binary


@contextmanager
def _install_lock(node_dir: Path) -> Iterator[None]:
    # The lock lives outside node_dir: `npm ci` deletes node_modules, and a lock file
    # unlinked while held would let a second process lock a fresh one.
    digest = hashlib.sha256(str(node_dir).encode()).hexdigest()[:16]
    lock_path = Path(tempfile.gettempdir()) / f"rgr-e2e-npm-{digest}.lock"
    with lock_path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# -- what the backend tests share ------------------------------------------------------


class Commit(pydantic.BaseModel):
    message: str


class Report(pydantic.BaseModel):
    """A nested model with an optional field, so the schema the agent answers with
    carries $defs (and, for codex, must be made strict)."""

    summary: str
    files: list[str]
    commit: Commit
    note: str | None = None


class StrictReport(pydantic.BaseModel):
    """A rule JSON schema cannot express: only pydantic catches its violation."""

    summary: str

    @pydantic.field_validator("summary")
    @classmethod
    def no_placeholder(cls, value: str) -> str:
        if "TODO" in value:
            raise ValueError("summary is a placeholder")
        return value


def init_repo(path: Path) -> Path:
    """An empty repository with one root commit and a local identity."""
    path.mkdir()
    for argv in (["git", "init", "-q", "-b", "main"],
                 ["git", "config", "user.name", "rgr tests"],
                 ["git", "config", "user.email", "rgr@example.invalid"],
                 ["git", "commit", "-q", "--allow-empty", "-m", "root"]):
        subprocess.run(argv, cwd=path, check=True)
    return path


def processes_running(needle: str) -> bool:
    """Whether any process but this one has ``needle`` in its command line."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in text and str(os.getpid()) != cmdline.parent.name:
            return True
    return False


#: The timeout of a session whose scripted first command must be running when it hits:
#: the CLI's start, its first request and its shell tool take 2-3 s on an idle machine and
#: passed 4 s on a loaded one (three test workers on two cores, 2026-12-03), where the
#: timeout then cut the session before the command ran. The model server hangs after it,
#: so the timeout still ends the session; it only waits longer.
STARTED_WITHIN_S = 15.0


# -- sweeps: a deterministic sample by default, everything with RGR_FULL_SWEEP=1 --------

#: The one switch for every long sweep of the e2e suite.
FULL_SWEEP_VAR = "RGR_FULL_SWEEP"


def full_sweep() -> bool:
    """Whether this test run is a full sweep (``RGR_FULL_SWEEP`` set, and not to 0)."""
    return os.environ.get(FULL_SWEEP_VAR, "") not in ("", "0")


def sweep_command(where: str, env: str = "") -> str:
    """The command that runs the full sweep of the test file ``where`` (``env``: more
    variables it needs, such as ``RGR_E2E_BACKENDS=claude,codex``)."""
    return f"{FULL_SWEEP_VAR}=1 {env + ' ' if env else ''}.venv/bin/python -m pytest {where}"


def sweep_only(where: str, case: str = "", env: str = "",
               run: bool | None = None) -> MarkDecorator:
    """A mark for a test that only the full sweep runs (or, with ``run``, that runs
    when ``run`` is true): skipped otherwise, with the command that runs it as the
    reason."""
    import pytest

    reason = (f"{case + ': ' if case else ''}not in the default sample: "
              f"{sweep_command(where, env)}")
    return pytest.mark.skipif(not (full_sweep() if run is None else run), reason=reason)


def sweep(cases: list[Any], sampled: Callable[[Any], bool], where: str,
          ids: list[str] | None = None, env: str = "") -> list[ParameterSet]:
    """``cases`` as pytest parameters: those ``sampled`` says yes to run, the others
    are skipped with the command of the full sweep as the reason. ``sampled`` is true
    for a fixed sample in every run and for every case in a full sweep (``full_sweep``):
    never rotating, never random, so two runs of one commit run the same cases."""
    import pytest

    params = []
    for i, case in enumerate(cases):
        values = case if isinstance(case, tuple) else (case,)
        marks = () if sampled(case) else (sweep_only(where, env=env, run=False),)
        params.append(pytest.param(*values, marks=marks, id=ids[i] if ids else None))
    return params
