"""Cheat idioms in the code an agent changed, each a named rule (rgr.check.cheats.rules):
an equality that ignores its operand, code that tells whether it is under test, code
under test that exits with success, code that patches the test framework. A language
whose own syntax tree rgr reads (Language.syntax_cheats) is judged by it, the others by
their tokens (tokens).
Only findings on lines the diff added count: what the agent wrote, not what it found.
"""

from __future__ import annotations

from collections.abc import Collection

from rgr.check.cheats import tokens
from rgr.check.cheats.rules import RULES, Finding
from rgr.ecosystems import registry
from rgr.ecosystems.language import SyntaxCheats

__all__ = ["MOST_PER_RULE", "RULES", "Finding", "findings", "judged"]

#: Sightings of one rule reported per file: enough to find them all, and a failure
#: brief that stays readable when a file repeats the idiom a thousand times.
MOST_PER_RULE = 10


def judged(path: str) -> bool:
    """Whether rgr reads ``path`` for cheat idioms (a language it knows)."""
    return _syntax_reader(path) is not None or tokens.reads(path)


def _syntax_reader(path: str) -> SyntaxCheats | None:
    language = registry.language_of(path)
    return None if language is None else language.syntax_cheats


def findings(path: str, source: str, added: Collection[int], is_test: bool) -> list[Finding]:
    """The cheat idioms in ``source`` (the file at ``path`` as the agent left it) that
    touch one of the ``added`` lines. ``is_test``: a test file or a conftest.py, where
    only patching the test framework is a cheat."""
    lines = frozenset(added)
    reader = _syntax_reader(path)
    if reader is not None:
        found = [Finding(s.rule, path, s.line, s.end_line, s.detail)
                 for s in reader(path, source, is_test)]
    else:
        found = tokens.findings(path, source, is_test)
    unique = {(f.rule, f.line): f for f in found if f.touches(lines)}
    kept: list[Finding] = []
    for finding in sorted(unique.values(), key=lambda f: (f.line, f.rule)):
        if sum(k.rule == finding.rule for k in kept) < MOST_PER_RULE:
            kept.append(finding)
    return kept
