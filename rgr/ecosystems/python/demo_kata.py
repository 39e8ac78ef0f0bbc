"""What ``rgr demo``'s slugify kata is as a Python project: the files its repository
starts with (an empty pytest.ini that marks pytest's root, git ignoring bytecode) and
the command that runs its tests (pytest beside rgr, else a pytest on PATH). rgr.demo
scripts the agents' sessions; this module says which language and runner they meet."""

from __future__ import annotations

import importlib.util
import shutil
import sys

#: The runner of the kata's tests, as the demo names it to the person.
RUNNER = "pytest"

#: The files the kata's repository starts with, beside its tdd.toml.
PROJECT_FILES = {"pytest.ini": "[pytest]\n", ".gitignore": "__pycache__/\n"}


def test_command() -> list[str] | None:
    """The kata's test command: pytest importable by rgr's own interpreter (the demo
    extra installs it there), else a pytest on PATH; None when there is neither."""
    if importlib.util.find_spec(RUNNER) is not None:
        return [sys.executable, "-m", RUNNER, "-q"]
    found = shutil.which(RUNNER)
    return [found, "-q"] if found is not None else None
