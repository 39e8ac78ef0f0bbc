"""The in-flight record: which phase attempt rgr is in the middle of, on disk.

Notes say what was verified; they cannot say what was happening when rgr died. Without
that, ``rgr resume`` could not tell an interrupted agent's commits (rgr's to judge)
from commits the user made after the interruption (never rgr's to move). So before an
agent starts, rgr writes ``<git dir>/rgr/inflight.json`` (phase, cycle, attempt, the
base commit, the session), adds the agent's structured output once it has it, and
removes the file once the attempt is noted or set aside. It lives in the git dir:
never committed, invisible to ``git status``, the same on every branch.

Writes are atomic (a temporary file, fsync, rename), so a crash leaves either the old
record or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pydantic

from rgr.store.handoff import Phase

INFLIGHT = Path("rgr") / "inflight.json"


class Inflight(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")

    run_id: str | None
    phase: Phase
    cycle: int
    attempt: int
    base: str  # the verified commit the attempt started from
    session_id: str
    started_at: str
    #: The agent's structured output and result summary, once the session has ended.
    output: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    #: The attempt's scratch folder (rgr.sandbox.sealer): where its commits are until imported.
    scratch: str | None = None
    #: The attempt's tip once its commits are imported (the base when it made none).
    tip: str | None = None
    #: Why the import was refused, if it was.
    import_error: str | None = None
    #: Which kind of work the attempt was (rgr.loop.kernel.Work.mode): a TDD phase, a
    #: refactor batch or a merge fix. Records older than the field were TDD phases.
    mode: str = "tdd"


def path(git_dir: Path) -> Path:
    return git_dir / INFLIGHT


def write(git_dir: Path, record: Inflight) -> None:
    target = path(git_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(record.model_dump_json())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, target)


def read(git_dir: Path) -> Inflight | None:
    """The record, or None when there is none or it cannot be read (then it is stale
    anyway: a record is only ever replaced whole)."""
    try:
        return Inflight.model_validate(json.loads(path(git_dir).read_text("utf-8")))
    except (OSError, ValueError):
        return None


def clear(git_dir: Path) -> None:
    path(git_dir).unlink(missing_ok=True)
