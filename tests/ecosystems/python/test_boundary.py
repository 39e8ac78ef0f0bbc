"""Python's boundaries read on its syntax tree (rgr.ecosystems.python.boundary): a
comparison that only picks which operand its branch returns has an equivalent twin; one
that guards a ``raise`` has a twin that is never equivalent, the proof the mutation
gate's rule asks for (rgr.check.mutation.rule). The shapes each rule takes are pinned
through the mutator in tests/check/mutation/test_mutation_noise.py."""

from __future__ import annotations

import ast

from rgr.ecosystems.python.boundary import guards, proved_not_equivalent, raising_guards
from rgr.ecosystems.python.mutants import mutants_of

CLAMP = '''def clamp(value, low, high):
    if low > high:
        raise ValueError("low must not exceed high")
    if value < low:
        return low
    return value
'''


def _comparisons(found: dict[int, str], tree: ast.AST) -> dict[str, str]:
    return {ast.unparse(node): found[id(node)] for node in ast.walk(tree) if id(node) in found}


def test_a_guard_that_returns_an_operand_is_equivalent_and_one_that_raises_is_not() -> None:
    tree = ast.parse(CLAMP)
    assert _comparisons(guards(tree), tree) == {
        "value < low": "value < low and value <= low differ only when value == low, "
                       "where the branch gives the same value either way"}
    assert _comparisons(raising_guards(tree), tree) == {
        "low > high": "low > high guards a raise: at low == high one of > and >= raises "
                      "and the other does not"}


def test_only_the_raising_guards_boundary_twin_is_proved_not_equivalent() -> None:
    made = {(m.original, m.replacement): m for m in mutants_of("clamp.py", CLAMP, {2, 4})}
    assert proved_not_equivalent(made[("low > high", "low >= high")], CLAMP)
    assert not proved_not_equivalent(made[("low > high", "low <= high")], CLAMP)
    assert not proved_not_equivalent(made[("value < low", "value <= low")], CLAMP)
    assert not proved_not_equivalent(made[("low > high", "low >= high")], "def broken(:\n")
