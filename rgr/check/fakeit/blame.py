"""Survivors inside a fake are GREEN's fake-it, not RED's weak test (issue 44, item 2).

A function that answers the tests from a special case (a table keyed by their inputs,
a branch on their values: rgr.check.fakeit.ledger's new debt) passes its tests because
it was written to their values: a mutant of its table (``"c": 0`` → ``""``: a missing
key answers 0 all the same) survives whatever RED wrote, and sending RED back to
strengthen its test blames the phase that did nothing wrong. When every survivor of a
``test-too-weak`` gate lies in a function the new debt names (its body, or the table it
reads), the survivors are the fake's: the gate does not send RED back (``pass``, the
note says why), and the debt, open in the ledger, is what GREEN owes (a test with other
values pays it; the run never completes while it is open).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rgr.check.fakeit.tokens import function_lines
from rgr.check.mutation.textual import language_of
from rgr.ecosystems import registry
from rgr.store.handoff import AdequacyNote, FakeItDebt

__all__ = ["fake_lines", "survivors_of_fakes"]


def fake_lines(path: str, source: str, debt: Sequence[FakeItDebt]) -> set[int]:
    """The lines of ``path`` that belong to the special cases of ``debt`` open there:
    the whole function each names, and each one's own line (a table outside it)."""
    mine = [d for d in debt if d.status == "open" and d.path == path]
    if not mine:
        return set()
    names = {d.function for d in mine}
    lines = {d.line for d in mine}
    for name, (first, last) in _functions(path, source):
        if name in names:
            lines.update(range(first, last + 1))
    return lines


def survivors_of_fakes(note: AdequacyNote, debt: Sequence[FakeItDebt],
                       sources: Mapping[str, str]) -> AdequacyNote:
    """``note`` with a ``test-too-weak`` decision lifted when every survivor lies in a
    special case of ``debt`` (the module's rule); otherwise ``note`` as it was."""
    survivors = note.survivors
    if note.decision != "test-too-weak" or not survivors or not debt:
        return note
    inside = {path: fake_lines(path, sources.get(path, ""), debt)
              for path in {m.path for m in survivors}}
    if not all(m.line in inside[m.path] for m in survivors):
        return note
    cases = ", ".join(sorted({f"{d.path}:{d.line} {d.function}" for d in debt
                              if d.status == "open"}))
    said = (f"{len(survivors)} survivor(s) inside fake-it special cases ({cases}): "
            "GREEN's fake-it debt, not a weak test")
    return note.updated(decision="pass",
                        remark="; ".join(filter(None, (note.remark, said))))


def _functions(path: str, source: str) -> list[tuple[str, tuple[int, int]]]:
    """Each function of ``source`` by name, with its first and last line: on its tokens,
    or by its syntax tree where its language has a reader of it
    (``Language.fakeit_tree``), as the ledger found the special cases there."""
    language = language_of(path)
    if language:
        return function_lines(source, language)
    tree = registry.fakeit_tree(path)
    return tree.functions(source) if tree is not None else []
