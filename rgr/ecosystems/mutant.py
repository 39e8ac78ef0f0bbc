"""A mutant: one small change of one changed line, as every mutator of the mutation gate
makes it (the token mutator, rgr.check.mutation.textual; the syntax-tree ones a language
has, ``Language.tree_mutation``: Python's rgr.ecosystems.python.mutants) and the gate
(rgr.check.mutation.gate) runs it, with what those mutators share: the boundary twins
and the receivers whose calls are logging. Here, below both, so that a language's own
mutator makes the same mutants the gate reads."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["LOG_RECEIVER", "TWINS", "Mutant", "apply", "boundary_reason"]

#: Each boundary comparison and its strict/non-strict twin (rgr.check.mutation.boundary).
TWINS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}

#: A receiver whose calls are logging (rgr.check.mutation.arid.ARID's ``log-call``):
#: ``logging``, ``logger``, ``self.log``, ``LOG``, ``console``, ``slog``, ``app_logger``.
LOG_RECEIVER = re.compile(r"^_*(?:\w*_)?(?:log|logs|logger|logging|console|slog)$",
                          re.IGNORECASE)


@dataclass(frozen=True)
class Mutant:
    """One small change of one changed line: where, which operator, and the source text
    it replaces (``start``/``end``: character offsets in the file's text)."""

    path: str
    line: int
    col: int
    operator: str
    original: str
    replacement: str
    start: int
    end: int
    #: The line of the statement holding it: the line a tracer sees run.
    statement_line: int
    #: Why rgr decided it equivalent (rgr.check.mutation.boundary): then it is not run.
    equivalent: str = ""
    #: Its statement is a module-level one that is no definition (``PRECISION = 2``):
    #: it runs when the module loads, never under a test (rgr.check.mutation.gate).
    module_level: bool = False

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}:{self.col}:{self.operator}:{self.replacement}"

    def describe(self) -> str:
        return (f"{self.path}:{self.line}: {self.original!r} -> {self.replacement!r} "
                f"({self.operator})")


def apply(source: str, mutant: Mutant) -> str:
    """``source`` with ``mutant`` applied."""
    return source[:mutant.start] + mutant.replacement + source[mutant.end:]


def boundary_reason(left: str, op: str, right: str) -> str:
    """Why ``left op right`` swapped for its twin is an equivalent boundary, in words."""
    return (f"{left} {op} {right} and {left} {TWINS[op]} {right} differ only when "
            f"{left} == {right}, where the branch gives the same value either way")
