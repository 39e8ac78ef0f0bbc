"""The demo's kata as a Python project (rgr.ecosystems.python.demo_kata): the files
rgr.demo.kata starts its repository with, and the test command its tdd.toml names (a
real git repository)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rgr.demo.kata import make_project
from rgr.ecosystems.python import demo_kata


def test_the_kata_starts_with_its_languages_files_and_names_its_test_command(
        tmp_path: Path) -> None:
    command = demo_kata.test_command()
    assert command is not None
    root = make_project(tmp_path / "kata", command, "claude")
    for name, text in demo_kata.PROJECT_FILES.items():
        assert (root / name).read_text() == text
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True,
                             text=True, check=True).stdout.split()
    assert sorted(tracked) == sorted([*demo_kata.PROJECT_FILES, "tdd.toml"])
    # pytest beside rgr (this suite's own) runs the kata's tests; the demo's e2e runs
    # (tests/e2e/test_demo.py) run them
    assert command == [sys.executable, "-m", "pytest", "-q"]
    assert "test_command = " + json.dumps(command) in (root / "tdd.toml").read_text()
