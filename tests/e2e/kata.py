"""The slugify kata (scripts shipped in rgr.demo.kata) and a runner for rgr against it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from harness import claude_env, ensure_claude

from rgr.demo import kata as _kata
from rgr.demo.kata import (
    ASSERT_1,
    ASSERT_2,
    IMPL_1,
    IMPL_2,
    TEST_1,
    TEST_2,
    TEST_FILE_1,
    TEST_FILE_2,
    commit,
    green,
    one_test_kata_tail,
    plan,
    red,
    refactor,
    text_only,
    two_test_kata,
)
from rgr.fake_model import write

__all__ = [
    "ASSERT_1", "ASSERT_2", "IMPL_1", "IMPL_2", "TEST_1", "TEST_2", "TEST_FILE_1",
    "TEST_FILE_2", "commit", "descendants", "git", "green", "kill_tree", "make_project",
    "one_test_kata_tail", "plan", "red", "refactor", "rgr", "rgr_env", "text_only",
    "two_test_kata", "write",
]


def make_project(root: Path) -> Path:
    """A Python project with no tests yet, committed on main."""
    return _kata.make_project(root, [sys.executable, "-m", "pytest", "-q"],
                              str(ensure_claude()))


def rgr_env(home: Path, url: str) -> dict[str, str]:
    env = claude_env(home, url)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def rgr(args: list[str], cwd: Path, env: dict[str, str],
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rgr", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (Linux /proc), children first."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found: list[int] = []
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and everything it started, as a power cut would."""
    for victim in [pid, *descendants(pid)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)
