"""An agent CLI's ``--version`` is read once per installed file (rgr.backends.version_memo):
each rgr process (the daemon starts one per phase) no longer starts the CLI just to
print its release. A stand-in CLI (a shell script) counts how often it was asked."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rgr.backends.claude import ClaudeBackend
from rgr.backends.version_memo import FOLDER
from rgr.base.errors import BackendError


def stand_in(path: Path, version: str, calls: Path, exit_code: int = 0) -> str:
    path.write_text(f'#!/bin/sh\necho x >> "{calls}"\necho "{version}"\nexit {exit_code}\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def asked(calls: Path) -> int:
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def env_for(tmp_path: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"),
            "XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_the_version_is_read_once_per_installed_file(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    binary = stand_in(tmp_path / "claude", "2.1.197 (Claude Code)", calls)
    env = env_for(tmp_path)
    for _ in range(3):  # three rgr processes, as the daemon starts one per phase
        assert ClaudeBackend(binary, env=env).version() == "2.1.197 (Claude Code)"
    assert asked(calls) == 1
    assert len(list((tmp_path / "cache" / FOLDER).iterdir())) == 1


def test_an_upgraded_cli_is_asked_again(tmp_path: Path) -> None:
    """A reinstall in place, even one of the same size in the same clock tick as the
    first, is a new file: its bytes are part of its name (for a small file)."""
    calls = tmp_path / "calls"
    binary = stand_in(tmp_path / "claude", "2.1.197 (Claude Code)", calls)
    env = env_for(tmp_path)
    assert ClaudeBackend(binary, env=env).version() == "2.1.197 (Claude Code)"
    before = os.stat(binary)
    stand_in(tmp_path / "claude", "2.1.198 (Claude Code)", calls)
    os.utime(binary, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert ClaudeBackend(binary, env=env).version() == "2.1.198 (Claude Code)"
    assert asked(calls) == 2


def test_a_failing_cli_is_not_remembered(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    binary = stand_in(tmp_path / "claude", "broken", calls, exit_code=1)
    env = env_for(tmp_path)
    for _ in range(2):
        with pytest.raises(BackendError) as caught:
            ClaudeBackend(binary, env=env).version()
        assert caught.value.kind == "missing_binary"
    assert asked(calls) == 2
    assert not (tmp_path / "cache" / FOLDER).exists()


def test_a_missing_cli_still_says_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(BackendError) as caught:
        ClaudeBackend(str(tmp_path / "no-such-claude"), env=env_for(tmp_path)).version()
    assert caught.value.kind == "missing_binary"
    assert caught.value.hint is not None and "npm install" in caught.value.hint


def test_an_unwritable_cache_only_costs_the_read(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    binary = stand_in(tmp_path / "claude", "2.1.197 (Claude Code)", calls)
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder would be\n")
    env = env_for(tmp_path)
    for _ in range(2):
        assert ClaudeBackend(binary, env=env).version() == "2.1.197 (Claude Code)"
    assert asked(calls) == 2
