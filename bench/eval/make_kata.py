"""The public sample task set of `rgr eval`: two small Python tasks (slugify, count_words)
on a kata project with an existing, tested behaviour (``shout``) as its regression suite.

    python bench/eval/make_kata.py DIR

writes ``DIR/kata/`` (a git repository: ``util.py``, its test, a ``tdd.toml`` running
pytest), ``DIR/tasks.jsonl`` and the hidden test files beside it. Then, with a model key:

    rgr eval DIR/tasks.jsonl --modes bare,tdd-prompt,rgr --budget-usd 5

The tasks are the ones the scripted profiles play (tests/e2e/eval_profiles.py), so a real
model's numbers sit beside the profiles' (docs/eval.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from eval_profiles import UTIL, UTIL_TEST, write_tasks  # noqa: E402


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def make_kata(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Kata Dev")
    git(root, "config", "user.email", "dev@example.com")
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / ".gitignore").write_text("__pycache__/\n")
    command = json.dumps([sys.executable, "-m", "pytest", "-q"])
    (root / "tdd.toml").write_text(f"test_command = {command}\n")
    (root / "util.py").write_text(UTIL)
    (root / "tests").mkdir()
    (root / "tests" / "test_util.py").write_text(UTIL_TEST)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "kata: shout, tested")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    folder = parser.parse_args().dir.resolve()
    project = make_kata(folder / "kata")
    tasks = write_tasks(folder, project)
    print(f"{tasks} ({project})")


if __name__ == "__main__":
    main()
