"""The real claude binary for end-to-end tests: installed from the pinned lockfile beside
this file, and an environment that runs it offline against the fake model server.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from rgr.proc import run

#: package.json + package-lock.json pin @anthropic-ai/claude-code; node_modules is ignored.
NODE_DIR = Path(__file__).resolve().parent / "node"

#: Any value works against the fake server; a real-looking prefix keeps claude's key
#: format checks quiet.
DUMMY_API_KEY = "sk-ant-api03-fake-key-for-rgr-tests"

#: npm ci downloads ~245 MB on a cold cache.
NPM_TIMEOUT_S = 900.0


def claude_path(node_dir: Path = NODE_DIR) -> Path:
    return node_dir / "node_modules" / ".bin" / "claude"


def ensure_claude(node_dir: Path = NODE_DIR) -> Path:
    """The pinned claude binary, installed with ``npm ci`` first if it is missing.

    Never skips: a test run that cannot install claude fails with npm's output.
    """
    binary = claude_path(node_dir)
    if binary.exists():
        return binary
    with _install_lock(node_dir):
        if binary.exists():  # another pytest process installed it while we waited
            return binary
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError(
                "npm is not on PATH: install Node.js (>= 18) to run the e2e tests, "
                f"or run `npm ci --prefix {node_dir}` yourself"
            )
        done = run(
            [npm, "ci", "--no-audit", "--no-fund", "--prefix", str(node_dir)],
            cwd=node_dir,
            timeout=NPM_TIMEOUT_S,
        )
        if done.returncode != 0 or done.timed_out or not binary.exists():
            raise RuntimeError(f"installing the pinned claude failed:\n{done.describe()}")
        check = run([str(binary), "--version"], cwd=node_dir, timeout=60)
        if check.returncode != 0:
            raise RuntimeError(f"the installed claude does not run:\n{check.describe()}")
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


def claude_env(home: Path, base_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment for an offline claude talking to ``base_url``.

    Built from scratch, not from os.environ, so nothing of the developer's setup leaks
    in: no real key, no CLAUDECODE marker from an enclosing session, no proxy.
    """
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        # claude writes ~/.claude.json and ~/.claude/projects/<cwd>/<session>.jsonl.
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": DUMMY_API_KEY,
        # No bootstrap, update check, telemetry or error reports: only the API is called
        # (a HEAD / probe, then POST /v1/messages).
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
        # claude retries 408/409/429/5xx/401 and dropped connections itself, waiting
        # 0.5 s, 1 s, 2 s ... up to 32 s, 10 times by default (minutes). One retry keeps
        # the retry path exercised and the tests fast.
        "CLAUDE_CODE_MAX_RETRIES": "1",
    }
    if "TMPDIR" in os.environ:
        env["TMPDIR"] = os.environ["TMPDIR"]
    env.update(extra or {})
    return env
