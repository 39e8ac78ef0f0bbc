"""``rgr rollback <commit>``: move the branch back to a noted commit, undoably
(rgr.branches.rollback, which `rgr serve`'s reject calls too)."""

from __future__ import annotations

from rgr.branches.rollback import roll_back
from rgr.commands.common import ask_yes_no, sayer
from rgr.store.workspace import Workspace


def run(ws: Workspace, rev: str, force: bool, assume_yes: bool, interactive: bool) -> int:
    return roll_back(ws, rev, force, assume_yes, ask_yes_no if interactive else None,
                     sayer())
