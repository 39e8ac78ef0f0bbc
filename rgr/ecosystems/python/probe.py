"""A probe for a line of Python where rgr has no per-test line data (a runner other
than pytest, such as unittest): a statement inserted before the line's statement that
ends the test process at once. No test can absorb it: ``os._exit`` raises nothing, so
neither ``assertRaises`` nor ``except BaseException`` sees it. A suite that still
passes with the probe in place never ran the line. The mutation gate asks for it
through ``Language.tree_mutation`` (``probe_at``); the other languages' probes are made
on their tokens (rgr.check.mutation.textual.probe_of)."""

from __future__ import annotations

import ast

from rgr.ecosystems.base import PROBE_EXIT_CODE
from rgr.ecosystems.mutant import Mutant

__all__ = ["PROBE", "probe_at", "probe_of", "run_line"]

#: ``__import__`` rather than ``import os``: binds no name the module may use itself.
PROBE = f'__import__("os")._exit({PROBE_EXIT_CODE})'


def run_line(source: str, line: int) -> int:
    """The line whose running says whether the tests run the statement at ``line``: a
    function's header (its default values, its decorators' arguments) is evaluated when
    the module loads, before any test, but what it sets acts when the function runs, so
    its first body statement; any other statement's own line."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return line
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == line:
            return node.body[0].lineno
    return line


def probe_of(path: str, source: str, line: int) -> Mutant | None:
    """The probe before ``line``'s statement, at its indentation; None where no
    statement can stand before it (an ``elif``, ``else``, ``except``...: the probed
    file would not compile)."""
    texts = source.splitlines(keepends=True)
    if not 0 < line <= len(texts) or not texts[line - 1].strip():
        return None
    text = texts[line - 1]
    indent = text[:len(text) - len(text.lstrip())]
    start = sum(len(t) for t in texts[:line - 1])
    inserted = f"{indent}{PROBE}\n"
    try:
        compile(source[:start] + inserted + source[start:], path, "exec")
    except (SyntaxError, ValueError):
        return None
    return Mutant(path, line, 1, "probe", "", inserted, start, start, line)


def probe_at(path: str, source: str, line: int) -> Mutant | None:
    """The probe that says whether the tests run the statement at ``line``: before the
    line whose running says it (``run_line``), or None where none can stand."""
    return probe_of(path, source, run_line(source, line))
