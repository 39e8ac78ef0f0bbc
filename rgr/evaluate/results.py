"""What one eval run measured, and where it is kept: ``<out>/runs/<task>/<mode>/<n>.json``.

A run's file is written once, when its measures are taken; an eval started again skips
every run that has one (an interrupted eval resumes). A run that rgr itself could not
carry out (a clone that failed, a sandbox that would not start) writes none: it is tried
again next time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MODES = ("bare", "tdd-prompt", "rgr")
Mode = Literal["bare", "tdd-prompt", "rgr"]


class Measures(BaseModel):
    """One task, one mode, one repeat."""

    model_config = ConfigDict(extra="forbid")

    task: str
    mode: Mode
    repeat: int = Field(ge=1)
    #: ``done``: the agent(s) ran and the result was measured; ``agent-failed``: no
    #: usable result (every session failed), measured as it stands.
    status: Literal["done", "agent-failed"] = "done"
    detail: str = ""
    base: str = ""
    tip: str = ""
    hidden_passed: int = 0
    hidden_total: int = 0
    #: Why the hidden tests did not run (a collection error's words), or "".
    hidden_problem: str = ""
    regression_checked: bool = False
    #: Tests of the regression suite that passed at the base and not on the result.
    regressions: list[str] = Field(default_factory=list)
    #: Test files that existed at the base and were changed or deleted.
    tests_edited: list[str] = Field(default_factory=list)
    tests_removed: list[str] = Field(default_factory=list)
    #: Tests of the regression suite that ran on the result and not at the base.
    tests_written: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    input_tokens: int = 0
    output_tokens: int = 0
    wall_s: float = 0.0
    sessions: int = 0
    #: ``rgr`` only: the referee's rejections, by rule.
    rejections: dict[str, int] = Field(default_factory=dict)
    #: ``rgr`` only: ``rgr run``'s exit code (0: it called the feature complete; 4: it
    #: stopped, the feature not complete, e.g. with fake-it debt open). None elsewhere.
    rgr_exit: int | None = None

    @property
    def hidden_rate(self) -> float:
        return self.hidden_passed / self.hidden_total if self.hidden_total else 0.0

    @property
    def solved(self) -> bool:
        return self.hidden_total > 0 and self.hidden_passed == self.hidden_total


def run_file(out: Path, task: str, mode: str, repeat: int) -> Path:
    return out / "runs" / task / mode / f"{repeat}.json"


def save(out: Path, measures: Measures) -> Path:
    path = run_file(out, measures.task, measures.mode, measures.repeat)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".json.part")
    partial.write_text(measures.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)  # whole or absent: a kill never leaves half a result
    return path


def load(path: Path) -> Measures | None:
    try:
        return Measures.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError):
        return None


def load_all(out: Path) -> list[Measures]:
    found = (load(p) for p in sorted((out / "runs").glob("*/*/*.json")))
    return [m for m in found if m is not None]
