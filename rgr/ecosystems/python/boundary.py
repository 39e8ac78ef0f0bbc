"""Python's equivalent boundaries, read on its syntax tree: the rule of
rgr.check.mutation.boundary (``<`` ↔ ``<=`` and ``>`` ↔ ``>=`` where the comparison only
picks which of its own two plain operands its branch returns or assigns), and its
converse, a boundary that guards a ``raise``, whose twin is never equivalent (the
mutation gate's proof that a survivor a test runs is no equivalent one,
rgr.check.mutation.rule)."""

from __future__ import annotations

import ast

from rgr.ecosystems.mutant import TWINS, Mutant, boundary_reason

__all__ = ["BOUNDARY_OPS", "guards", "proved_not_equivalent", "raising_guards"]

#: The boundary comparisons, as their twins (rgr.ecosystems.mutant.TWINS) name them.
BOUNDARY_OPS: dict[type[ast.cmpop], str] = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
                                            ast.GtE: ">="}


def guards(tree: ast.AST) -> dict[int, str]:
    """id of each comparison of ``tree`` whose twin is equivalent -> why."""
    found: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.IfExp):
            operands = _py_operands(node.test)
            if operands is None:
                continue
            if isinstance(node, ast.IfExp):
                picks = _py_is_operand(node.body, operands) \
                    and _py_is_operand(node.orelse, operands)
            else:
                target = _py_target(node.body)
                picks = _py_branch(node.body, operands) and (
                    not node.orelse or (_py_branch(node.orelse, operands)
                                        and _same(_py_target(node.orelse), target)))
                # An assignment guard with no else must assign to an operand itself (x
                # = high when x > high): at equality that changes nothing.
                if picks and target is not None and not node.orelse:
                    picks = _py_is_operand(target, operands)
            if picks:
                assert isinstance(node.test, ast.Compare)
                found[id(node.test)] = boundary_reason(ast.unparse(node.test.left),
                                                       BOUNDARY_OPS[type(node.test.ops[0])],
                                                       ast.unparse(node.test.comparators[0]))
    return found


def raising_guards(tree: ast.AST) -> dict[int, str]:
    """id of each boundary comparison of ``tree`` that guards a ``raise`` -> why its twin
    is never equivalent: ``if low > high: raise ValueError`` and ``low >= high`` differ at
    ``low == high``, where one raises and the other goes on (the shape of the real gap
    CrossHair found on real code: ``(value=0, low=0, high=0)`` returns 0 against raises)."""
    found: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _py_operands(node.test) is not None \
                and len(node.body) == 1 and isinstance(node.body[0], ast.Raise):
            assert isinstance(node.test, ast.Compare)
            left, right = ast.unparse(node.test.left), ast.unparse(node.test.comparators[0])
            op = BOUNDARY_OPS[type(node.test.ops[0])]
            found[id(node.test)] = (f"{left} {op} {right} guards a raise: at {left} == "
                                    f"{right} one of {op} and {TWINS[op]} raises and the "
                                    "other does not")
    return found


def proved_not_equivalent(mutant: Mutant, source: str) -> bool:
    """Whether ``mutant`` of ``source`` is the boundary twin of a comparison that guards
    a ``raise`` (``raising_guards``): at equality one raises and the other does not, so
    it is no equivalent mutant."""
    if mutant.operator != "comparison":
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    found = raising_guards(tree)
    for node in ast.walk(tree):
        if id(node) in found and isinstance(node, ast.Compare) \
                and node.lineno == mutant.line and node.col_offset + 1 == mutant.col:
            op = BOUNDARY_OPS[type(node.ops[0])]
            return mutant.replacement == ast.unparse(node).replace(f" {op} ",
                                                                   f" {TWINS[op]} ", 1)
    return False


def _py_operands(test: ast.expr) -> tuple[str, str] | None:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and type(test.ops[0]) in BOUNDARY_OPS):
        return None
    left, right = test.left, test.comparators[0]
    if not (_py_plain(left) and _py_plain(right)):
        return None
    return ast.dump(left), ast.dump(right)


def _py_plain(node: ast.expr) -> bool:
    """A name, an attribute of one, or a number: reading it runs no code of the user's."""
    if isinstance(node, ast.Attribute):
        return _py_plain(node.value)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    return isinstance(node, ast.Name)


def _py_is_operand(node: ast.expr, operands: tuple[str, str]) -> bool:
    return ast.dump(_loaded(node)) in operands


def _loaded(node: ast.expr) -> ast.expr:
    """``node`` as read (an assignment's target has a Store context)."""
    if isinstance(node, ast.Name):
        return ast.Name(node.id, ast.Load())
    if isinstance(node, ast.Attribute):
        return ast.Attribute(_loaded(node.value), node.attr, ast.Load())
    return node


def _py_branch(body: list[ast.stmt], operands: tuple[str, str]) -> bool:
    """A branch of one statement: ``return a`` or ``t = a``, ``a`` an operand."""
    if len(body) != 1:
        return False
    statement = body[0]
    if isinstance(statement, ast.Return):
        return statement.value is not None and _py_is_operand(statement.value, operands)
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        return _py_is_operand(statement.value, operands)
    return False


def _same(one: ast.expr | None, other: ast.expr | None) -> bool:
    """Both branches return (None, None) or assign the same target."""
    return (one is None and other is None) or (
        one is not None and other is not None and ast.dump(one) == ast.dump(other))


def _py_target(body: list[ast.stmt]) -> ast.expr | None:
    statement = body[0] if body else None
    return statement.targets[0] if isinstance(statement, ast.Assign) else None

