"""Shell completion (click's): the scripts generate, and bash completes for real."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import clean_env


def _source(shell: str, tmp_path: Path) -> str:
    env = clean_env(tmp_path / "home", {"_RGR_COMPLETE": f"{shell}_source"})
    done = subprocess.run([sys.executable, "-m", "rgr"], env=env, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("shell", "marker"), [
    ("bash", "complete -o nosort -F _rgr_completion rgr"),
    ("zsh", "compdef _rgr_completion rgr"),
    ("fish", "complete --no-files --command rgr"),
])
def test_the_completion_script_generates(shell: str, marker: str, tmp_path: Path) -> None:
    script = _source(shell, tmp_path)
    assert marker in script and "_RGR_COMPLETE" in script


def test_bash_completes_commands_and_options(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # `rgr` on PATH, as after `pipx install`
    bin_dir.mkdir()
    wrapper = bin_dir / "rgr"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m rgr "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    script = tmp_path / "rgr-complete.bash"
    script.write_text(_source("bash", tmp_path))
    env = clean_env(tmp_path / "home", {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})

    def complete(*words: str) -> list[str]:
        line = " ".join(f"'{w}'" for w in words)
        program = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
                   "_rgr_completion rgr; printf '%s\\n' \"${COMPREPLY[@]}\"")
        done = subprocess.run(["bash", "-c", program], env=env, capture_output=True,
                              text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("rgr", "rep") == ["repair-notes", "report"]
    assert {"run", "resume", "status", "history", "rollback", "repair-notes", "show",
            "report", "demo"} <= set(complete("rgr", ""))
    assert complete("rgr", "report", "--integrate", "") == ["none", "merge", "pr"]
