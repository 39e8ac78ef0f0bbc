"""The tests a mutant of one file has to face: only those that can see the file. Each
runner narrows its own (its language's ``narrowing`` module, listed once in
rgr.ecosystems.registry.NARROWINGS); a command rgr cannot see into (a shell script) and
a runner that narrows nothing run whole.
"""

from __future__ import annotations

from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.registry import NARROWINGS
from rgr.ecosystems.scope import Scope, left_out

__all__ = ["Scope", "left_out", "scope_of"]


def scope_of(cmd: TestCommand, root: Path, path: str) -> Scope:
    """The scope of a change of ``path`` in the checkout ``root``; the whole ``cmd``
    when rgr cannot tell which tests see it."""
    if cmd.shell:
        return Scope(cmd)
    for narrowing in NARROWINGS:
        found = narrowing(cmd, root, path)
        if found is not None:
            return found
    return Scope(cmd)
