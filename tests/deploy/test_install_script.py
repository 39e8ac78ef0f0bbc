"""deploy/install.sh, the README's first command. What runs here without installing
anything: its syntax, the Claude Code release it reads (rgr.backends.claude_release's
PINNED, the one place that names it), and its answer off Linux (a stand-in `uname` is
the one boundary faked). The installs themselves were rehearsed in fresh Debian
containers (root, and a user with sudo): see the commit that added the script."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from rgr.backends.claude_release import PINNED
from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "deploy" / "install.sh"


def test_the_script_is_valid_sh() -> None:
    done = subprocess.run(["sh", "-n", str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_off_linux_it_names_the_pinned_release_and_installs_nothing(tmp_path: Path) -> None:
    stubs = tmp_path / "bin"
    stubs.mkdir()
    uname = stubs / "uname"
    uname.write_text("#!/bin/sh\necho Darwin\n")
    uname.chmod(uname.stat().st_mode | stat.S_IXUSR)
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(
        ["sh", str(SCRIPT)], capture_output=True, text=True, timeout=60,
        env={"PATH": f"{stubs}{os.pathsep}{os.environ['PATH']}", "HOME": str(home)})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "on Darwin install Node.js, Python 3.11+ and pipx yourself" in done.stderr
    assert "brew install node python pipx" in done.stderr
    assert f"@anthropic-ai/claude-code@{PINNED} " in done.stderr, done.stderr
    assert f"pipx install '{REPO_ROOT}[demo,web]'" in done.stderr
    assert list(home.iterdir()) == []  # nothing installed


def test_the_readmes_first_command_is_the_script() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    first = readme[readme.index("```sh") + len("```sh"):].split("```", 1)[0].strip()
    assert first == "sh deploy/install.sh"
