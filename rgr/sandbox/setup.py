"""``[sandbox] setup``: install a working tree's dependencies (``npm ci``, ``uv sync``)
before a run, sealed, with the package registries reachable and nothing else.

Sharing the user's ``node_modules`` or ``.venv`` read-only (rgr.sandbox.toolchain) needs
them to exist: a clone made by the daemon on a fleet worker has none, nor does a fresh
clone. With ``setup`` configured, rgr runs it once per state of the lockfiles (their
digest and the command are recorded under ``.git/rgr/``), in the working tree, inside
bubblewrap: the working tree and a cache of rgr's writable, HOME a throwaway one, and
the network only through rgr's CONNECT proxy to the registries (``setup_hosts``, by
default npm's and PyPI's). Its folders are then shared like any dependency folder. A
change to a tracked file fails the setup: an install writes ignored folders only.
"""

from __future__ import annotations

import hashlib
import shlex
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from rgr.base.errors import ConfigError
from rgr.base.proc import run
from rgr.ecosystems import registry
from rgr.sandbox.bridge import Bridge
from rgr.sandbox.jail import Jail
from rgr.sandbox.policy import SandboxPolicy

#: Files whose content decides what an install puts in place: every ecosystem's.
LOCKFILES = tuple(dict.fromkeys(name for eco in registry.ECOSYSTEMS for name in eco.lockfiles))
#: The loopback port of the CONNECT proxy inside the setup's sandbox.
PROXY_PORT = 3128
SETUP_TIMEOUT_S = 1800.0


def setup_state(root: Path, argv: list[str]) -> str:
    """The digest of the command and the lockfiles it installs from."""
    digest = hashlib.sha256(shlex.join(argv).encode())
    for name in LOCKFILES:
        path = root / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def marker_path(git_dir: Path) -> Path:
    return git_dir / "rgr" / "setup-done"


def ensure_setup(root: Path, git_dir: Path, argv: list[str], hosts: list[str],
                 policy: SandboxPolicy | None, env: Mapping[str, str],
                 tracked_changes: Callable[[], list[str]],
                 log: Callable[[str], None]) -> bool:
    """Run ``argv`` in ``root`` unless it already ran for these lockfiles; True when it
    ran. ConfigError (naming the command, its output and the fix) when it fails or
    changes a tracked file. ``policy`` None: unsandboxed (--no-sandbox)."""
    state = setup_state(root, argv)
    marker = marker_path(git_dir)
    if marker.is_file() and marker.read_text(encoding="utf-8").strip() == state:
        return False
    log(f"setup: {shlex.join(argv)} (once for these lockfiles; registries only: "
        f"{', '.join(hosts)})")
    cache = git_dir / "rgr" / "setup-cache"  # npm's and uv's caches, kept between runs
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rgr-setup-") as tmp_dir:
        home, tmp, control = (Path(tmp_dir) / n for n in ("home", "tmp", "control"))
        for folder in (home, tmp, control):
            folder.mkdir()
        bridge = Bridge(control) if policy is not None else None
        try:
            child_env = _environment(policy, env, home, tmp, cache)
            launcher: Jail | None = None
            if policy is not None and bridge is not None:
                allowed = frozenset(_host_port(h) for h in hosts)
                forwards = ((PROXY_PORT, bridge.proxy("setup-proxy", allowed)),)
                proxy = f"http://127.0.0.1:{PROXY_PORT}"
                child_env.update(HTTPS_PROXY=proxy, https_proxy=proxy, HTTP_PROXY=proxy,
                                 http_proxy=proxy, NO_PROXY="127.0.0.1,localhost,::1")
                executable = shutil.which(argv[0], path=child_env.get("PATH"))
                # The toolchain's homes, not its dependency folders: those are what the
                # setup writes, in the working tree, the one writable tree (and the cache).
                homes_only = replace(policy, toolchain=replace(
                    policy.toolchain, aliases=(),
                    shown=tuple(s for s in policy.toolchain.shown if s.inside is None)))
                jail = homes_only.agent_jail(
                    repo_root=root, work=root, home=home, tmp=tmp,
                    executables=[Path(executable)] if executable else [],
                    forwards=forwards, extra_readable=(control,))  # the proxy's socket
                launcher = replace(jail, writable=(*jail.writable, cache))
            done = run(argv, cwd=root, env=child_env, timeout=SETUP_TIMEOUT_S,
                       launcher=launcher)
        finally:
            if bridge is not None:
                bridge.close()
    if done.returncode != 0 or done.timed_out:
        how = "timed out" if done.timed_out else f"exit code {done.returncode}"
        raise ConfigError(
            f"[sandbox] setup `{shlex.join(argv)}` failed ({how}): "
            + _tail(done.stdout + done.stderr),
            "make the command install the dependencies from the lockfile with only the "
            f"registries reachable ({', '.join(hosts)}; more with [sandbox] setup_hosts), "
            "or install them yourself and remove setup from tdd.toml")
    changed = tracked_changes()
    if changed:
        raise ConfigError(
            f"[sandbox] setup `{shlex.join(argv)}` changed tracked files "
            f"({', '.join(changed[:5])}): an install writes ignored folders only",
            "use the command that installs from the lockfile as it is (`npm ci`, "
            "`uv sync --frozen`), then `git restore` those files")
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(state + "\n", encoding="utf-8")
    return True


def _environment(policy: SandboxPolicy | None, env: Mapping[str, str], home: Path,
                 tmp: Path, cache: Path) -> dict[str, str]:
    scrubbed = (policy or SandboxPolicy()).environment(env, home=home, tmp=tmp)
    scrubbed.update(npm_config_cache=str(cache / "npm"), UV_CACHE_DIR=str(cache / "uv"),
                    PIP_CACHE_DIR=str(cache / "pip"))
    return scrubbed


def _host_port(item: str) -> tuple[str, int]:
    host, _, port = item.rpartition(":")
    return host.lower(), int(port)


def _tail(text: str, limit: int = 1500) -> str:
    text = text.strip()
    return text if len(text) <= limit else "…" + text[-limit:]
