"""The fake-it ledger: new special cases of a GREEN noted as open debt, open debt
carried forward and settled.

Debt is keyed by the function and the test inputs it answers: ``return 5`` for
``add(2, 3)`` turning into ``if (a, b) == (2, 3): return 5`` is the same debt, still
open (its place and kind follow the code). It is paid when no special case in that
function answers those inputs any more while a test of the function with other values
exists (and passes: only an accepted GREEN or REFACTOR settles, and its suite passed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rgr.base.config import Config
from rgr.check.fakeit.facts import facts_of
from rgr.check.fakeit.tokens import token_cases
from rgr.check.mutation.textual import language_of
from rgr.ecosystems import registry
from rgr.ecosystems.fact import Fact
from rgr.ecosystems.special_case import SpecialCase
from rgr.store import git
from rgr.store.handoff import FakeItDebt
from rgr.store.objects import Commit, Repository

__all__ = ["account", "cases_in", "test_path"]


#: The longest value, inputs or test name a note keeps (a test may hold a huge literal).
KEPT = 200


def _short(text: str) -> str:
    return text if len(text) <= KEPT else text[:KEPT - 1] + "…"


def test_path(test: str) -> str:
    """The file of a fact's test name (``path::name`` or ``path:line``)."""
    return test.split("::", 1)[0] if "::" in test else test.rsplit(":", 1)[0]


def cases_in(path: str, source: str, lines: Iterable[int] | None,
             facts: Sequence[Fact]) -> list[SpecialCase]:
    wanted = None if lines is None else set(lines)
    tree = registry.fakeit_tree(path)
    if tree is not None:  # read by its syntax tree (Language.fakeit_tree)
        return tree.special_cases(path, source, wanted, facts)
    language = language_of(path)
    # a call's keywords (Python's, or a JavaScript options object) are filled in by
    # each reader from the function's own parameters
    return token_cases(path, source, language, wanted, facts) if language else []


def account(repo: Repository, config: Config, debt: Sequence[FakeItDebt],
            tests_since: Commit, base: Commit, tip: Commit, paid_by: str) -> list[FakeItDebt]:
    """The ledger after ``base..tip`` (a GREEN or REFACTOR that passed): the tests are
    those ``tests_since..tip`` changed plus those the debt came from."""
    changed = git.added_lines(repo, tests_since.id, tip.id)
    test_files = {p for p in changed if config.is_test_file(p)}
    test_files |= {test_path(d.test) for d in debt if d.status == "open"}
    facts = [fact for path in sorted(test_files)
             for fact in facts_of(path, git.file_text(repo, tip.id, path) or "")]
    ledger = [_settled(repo, tip, entry, facts, paid_by) for entry in debt]
    code = {p: ls for p, ls in git.added_lines(repo, base.id, tip.id).items()
            if not config.is_test_file(p)}
    for path, lines in sorted(code.items()):
        for case in cases_in(path, git.file_text(repo, tip.id, path) or "", lines, facts):
            if any(_same(entry, case) for entry in ledger if entry.status == "open"):
                continue
            ledger.append(FakeItDebt(path=case.path, line=case.line, function=case.function,
                                     kind=case.kind, value=_short(case.value),
                                     test=case.fact.test, inputs=_short(case.fact.inputs)))
    return ledger


def _same(entry: FakeItDebt, case: SpecialCase) -> bool:
    return (entry.path, entry.function, entry.inputs) == (case.path, case.function,
                                                          _short(case.fact.inputs))


def _settled(repo: Repository, tip: Commit, entry: FakeItDebt, facts: Sequence[Fact],
             paid_by: str) -> FakeItDebt:
    if entry.status != "open":
        return entry
    mine = [f for f in facts if f.callee == entry.function]
    source = git.file_text(repo, tip.id, entry.path) or ""
    still = [c for c in cases_in(entry.path, source, None, mine)
             if c.function == entry.function and _short(c.fact.inputs) == entry.inputs]
    if still:
        case = still[0]
        return entry.updated(line=case.line, kind=case.kind, value=_short(case.value))
    if any(_short(f.inputs) != entry.inputs for f in mine):
        return entry.updated(status="paid", paid_by=paid_by)
    return entry
