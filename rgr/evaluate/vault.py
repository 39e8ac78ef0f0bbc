"""Where `rgr eval` keeps its tasks and their hidden tests: beside the examiner's tests,
in rgr's state directory under HOME (rgr.store.acceptance_store.state_root), which every
sandbox masks with an empty folder. Never in a repository an agent works in: a clone's
objects, refs and notes are all readable from its session.

``<state>/eval/<key of the tasks file>/tasks.jsonl``: the tasks with every hidden file's
text inline, owner-only. The eval's output folder holds results and reports, never a
hidden test.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from rgr.evaluate.tasks import Task, dump_line, parse_line
from rgr.store.acceptance_store import state_root


def vault_for(env: Mapping[str, str], tasks_file: Path) -> Path:
    key = hashlib.sha256(str(tasks_file.resolve()).encode()).hexdigest()[:16]
    return state_root(env) / "eval" / key


def store(env: Mapping[str, str], tasks_file: Path, tasks: Sequence[Task]) -> Path:
    """Keep ``tasks`` (hidden texts inline) in the vault, replacing an earlier copy."""
    folder = vault_for(env, tasks_file)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    path = folder / "tasks.jsonl"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write("".join(dump_line(task) + "\n" for task in tasks))
    return path


def load(path: Path) -> list[Task]:
    """The stored tasks (validated again: the vault is a file like any other)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [parse_line(text, number, str(path)) for number, text in enumerate(lines, 1)
            if text.strip()]
