"""Where rgr finds an agent CLI (``claude``, ``codex``) that is named without a path.

The README installs them with ``npm install -g --prefix ~/.local ...`` (no root needed),
which puts them in ``~/.local/bin``: often not on PATH in a fresh shell, and never on
the PATH of a daemon started from cron or a service manager. Others keep npm's global
prefix elsewhere (``prefix=`` in ~/.npmrc, NPM_CONFIG_PREFIX). So a bare name is looked
for, in order: on PATH, in ``~/.local/bin``, in ``<npm's global prefix>/bin``.

npm's prefix is read without running npm where that is possible: the
``NPM_CONFIG_PREFIX`` variable (npm reads its config variables in any case), else the
``prefix=`` line of the user's npmrc (``NPM_CONFIG_USERCONFIG`` or ``~/.npmrc``). Only
when neither says anything and the CLI was found nowhere else is ``npm config get
prefix`` asked: node's start-up costs 0.3-0.7 s here, paid only on the way to a "not
found", never on a normal start. ``rgr demo``, ``rgr run``/``resume``/``refactor`` and
the daemon's jobs all go through :func:`find_cli`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from rgr.base.errors import CommandError

#: How long ``npm config get prefix`` may take (it only runs when nothing was found).
NPM_TIMEOUT_S = 15.0


def install_command(package: str, version: str) -> str:
    """The README's install line: no root, the binary lands in ~/.local/bin."""
    return f"npm install -g --prefix ~/.local {package}@{version}"


def find_cli(name: str, env: Mapping[str, str]) -> str | None:
    """The absolute path of the executable ``name`` (a bare name) in the places above,
    with ``env``'s PATH and HOME; None when it is in none of them."""
    import shutil

    found = shutil.which(name, path=env.get("PATH", os.defpath))
    if found is not None:
        return os.path.abspath(found)
    for folder in _local_bins(env):
        if _executable(folder / name):
            return str(folder / name)
    prefix = npm_prefix(env, ask_npm=True)
    if prefix is not None and _executable(prefix / "bin" / name):
        return str(prefix / "bin" / name)
    return None


def resolve_cli(binary: str, env: Mapping[str, str]) -> str:
    """A configured binary as it will be started: a path as it is, a bare name found by
    :func:`find_cli`, or the bare name unchanged (starting it then fails with the
    backend's own "not found" and install hint)."""
    if "/" in binary:
        return binary
    return find_cli(binary, env) or binary


def searched(name: str, env: Mapping[str, str]) -> str:
    """Where :func:`find_cli` looked, for a "not found" message."""
    places = ["PATH", *(str(p) for p in _local_bins(env))]
    prefix = npm_prefix(env, ask_npm=False)
    places.append(f"{prefix}/bin" if prefix is not None else "npm's global prefix")
    return f"`{name}` is not on " + ", ".join(places[:-1]) + f" nor in {places[-1]}"


def npm_prefix(env: Mapping[str, str], ask_npm: bool) -> Path | None:
    """npm's global prefix from the environment or the user's npmrc; with ``ask_npm``,
    from ``npm config get prefix`` when those say nothing."""
    for key in ("NPM_CONFIG_PREFIX", "npm_config_prefix"):
        if env.get(key):
            return _expand(env[key], env)
    from_rc = _npmrc_prefix(env)
    if from_rc is not None or not ask_npm:
        return from_rc
    return _ask_npm(env)


def _local_bins(env: Mapping[str, str]) -> list[Path]:
    home = env.get("HOME")
    return [Path(home) / ".local" / "bin"] if home else []


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _expand(value: str, env: Mapping[str, str]) -> Path:
    value = value.strip().strip("\"'")
    if value.startswith("~/") and env.get("HOME"):
        value = env["HOME"] + value[1:]
    return Path(value)


def _npmrc_prefix(env: Mapping[str, str]) -> Path | None:
    """The ``prefix`` an ini-style npmrc sets (``prefix=~/.npm-global``, spaces allowed,
    ``;`` and ``#`` comments)."""
    rc = env.get("NPM_CONFIG_USERCONFIG") or env.get("npm_config_userconfig")
    path = Path(rc) if rc else (Path(env["HOME"]) / ".npmrc" if env.get("HOME") else None)
    if path is None:
        return None
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, sep, value = line.partition("=")
        if sep and key.strip() == "prefix" and value.strip():
            return _expand(value, env)
    return None


def _ask_npm(env: Mapping[str, str]) -> Path | None:
    import shutil

    from rgr.base.proc import run

    npm = shutil.which("npm", path=env.get("PATH", os.defpath))
    if npm is None:
        return None
    try:
        # From /: a project's own .npmrc must not move the user's global prefix.
        done = run([npm, "config", "get", "prefix"], cwd="/", timeout=NPM_TIMEOUT_S,
                   env=env)
    except CommandError:
        return None
    text = done.stdout.strip().splitlines()
    if done.returncode != 0 or done.timed_out or not text or not text[-1].startswith("/"):
        return None
    return Path(text[-1])
