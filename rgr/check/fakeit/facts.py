"""What the tests call and expect: ``add(2, 3) == 5`` as a fact (``add``, ``(2, 3)``,
``5``), read from the tests' own asserts with literal arguments and a literal
expectation. A language with a reader of its syntax tree (``Language.fakeit_tree``:
Python's, rgr.ecosystems.python.facts) is read by it; the others (JavaScript/TypeScript,
Go, Rust, Java, Ruby) on their tokens, by data flow (rgr.check.fakeit.token_flow).
Values are kept as canonical text (by a syntax tree: the literal's ``repr``; tokens: the
number, or a string's inner text quoted) so that the production side compares like with
like."""

from __future__ import annotations

from rgr.check.fakeit.token_flow import flow_facts
from rgr.check.mutation.textual import language_of, tokens_of
from rgr.ecosystems import registry
from rgr.ecosystems.fact import Fact

__all__ = ["facts_of"]


def facts_of(path: str, source: str) -> list[Fact]:
    """Every fact the test file ``path`` states (none for a language rgr cannot read):
    by its syntax tree where the language has a reader of it (``Language.fakeit_tree``),
    else on its tokens."""
    tree = registry.fakeit_tree(path)
    if tree is not None:
        return tree.facts(path, source)
    language = language_of(path)
    return _token_facts(path, source, language) if language else []


def _token_facts(path: str, source: str, language: str) -> list[Fact]:
    """What the test compares with a call's result, by data flow
    (rgr.check.fakeit.token_flow): never by the shape of one line, which took
    ``expect(f(3)).not.toBe(3)`` or ``console.log(f(3), 'x')`` for an equality."""
    return flow_facts(path, tokens_of(source, language))
