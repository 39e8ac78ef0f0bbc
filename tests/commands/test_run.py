"""A `rgr run` that stops before any phase (its baseline refused, its agent CLI missing)
leaves no run folder behind: nothing happened that a folder could record. Through the
real CLI on a real repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import clean_env, git


def test_a_refused_start_leaves_no_run_folder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    # a command whose results rgr cannot read: the baseline is refused before any phase
    (repo / "tdd.toml").write_text('test_command = "true"\n')
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-q",
        "-m", "initial")
    done = subprocess.run([sys.executable, "-m", "rgr", "run", "--yes", "--skip-preflight",
                           "add a thing"], cwd=repo, env=clean_env(tmp_path / "home"),
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "error: " in done.stderr, done.stderr
    runs = repo / ".git" / "rgr" / "runs"
    assert not runs.exists() or list(runs.iterdir()) == [], list(runs.iterdir())
    assert "run artifacts:" not in done.stdout + done.stderr
