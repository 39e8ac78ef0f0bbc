"""Test reports kept on disk by tree id, so a resumed rgr can judge commits against the
report of the last verified commit without checking anything out or running it again.

A report depends only on the tree that was tested (the same assumption the in-memory
cache of :class:`rgr.tdd.engine.Orchestrator` makes within one run). Files live in
``<git dir>/rgr/reports/``: never committed, shared by every branch; the oldest are
pruned so the folder stays small.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.check.verify import TestReport, report_from_json, report_to_json

FOLDER = Path("rgr") / "reports"
KEEP = 64


def save(git_dir: Path, tree: str, report: TestReport) -> None:
    folder = git_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{tree}.{os.getpid()}.tmp"
    temporary.write_text(report_to_json(report), encoding="utf-8")
    os.replace(temporary, folder / f"{tree}.json")
    _prune(folder)


def load(git_dir: Path, tree: str) -> TestReport | None:
    try:
        return report_from_json((git_dir / FOLDER / f"{tree}.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None


def made_by(report: TestReport, command: TestCommand) -> bool:
    """Whether ``report`` is a run of ``command``: the same runner, and the command's
    words in order in what ran (the runner adds its report options and paths to them)."""
    if report.runner != command.runner:
        return False
    ran = iter(report.argv)
    return all(any(word == seen for seen in ran) for word in command.argv)


def _prune(folder: Path) -> None:
    try:
        files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:  # a file vanished mid-listing; prune next time
        return
    for old in files[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()
