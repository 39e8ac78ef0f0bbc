"""``rgr rollback <commit>``: move the branch back to a noted commit, undoably
(rgr.branches.rollback, which `rgr serve`'s reject calls too). The plan is said before the
question, through ``say``; the Outcome is the exit code (1: the person said no)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rgr.base.outcome import Outcome
from rgr.branches.rollback import roll_back
from rgr.commands.common import ask_yes_no
from rgr.store.workspace import Workspace

if TYPE_CHECKING:
    from rgr.base.outcome import Say


def run(ws: Workspace, rev: str, force: bool, assume_yes: bool, interactive: bool,
        say: Say) -> Outcome[None]:
    return Outcome(exit_code=roll_back(ws, rev, force, assume_yes,
                                       ask_yes_no if interactive else None, say))
