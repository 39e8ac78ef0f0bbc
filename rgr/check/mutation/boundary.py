"""Equivalent boundary mutants, decided by rule: ``<`` ↔ ``<=`` and ``>`` ↔ ``>=`` where
the comparison only picks which of its own two operands is returned or assigned.

``a < b`` and ``a <= b`` differ only when ``a == b``. When the branch the comparison
guards does nothing but return (or assign) ``a`` or ``b``, both branches give the same
value there, so no test can tell the mutant apart: ``if value < low: return low``,
``if x > high: return high``, ``return a if a < b else b``, ``x = high if x > high``.
Measured on honest work in real projects, these were the commonest survivors; sending
GREEN back for them asks for a test that cannot exist.

The rule is narrow on purpose: both operands are plain names, attributes or numbers
(nothing that runs code), the comparison is the whole condition, and the branch is a
single ``return``/assignment of one of the operands (with an ``else`` doing the same).
A guard without ``else`` assumes what follows it gives the other operand at equality
(true of a clamp, whose next lines return the value itself); a guard that raises
(``if low > high: raise ValueError(...)``) is never equivalent: at equality one raises
and the other does not. Decided mutants are not run; the note counts them
``equivalentByRule`` and lists each one, never as killed and never as a survivor.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

__all__ = ["TWINS", "python_guards", "python_raising_guards", "token_guard", "why"]

#: Each boundary comparison and its strict/non-strict twin.
TWINS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}

_PY_OPS: dict[type[ast.cmpop], str] = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
                                       ast.GtE: ">="}


def why(left: str, op: str, right: str) -> str:
    return (f"{left} {op} {right} and {left} {TWINS[op]} {right} differ only when "
            f"{left} == {right}, where the branch gives the same value either way")


# ------------------------------------------------------------------------ Python


def python_guards(tree: ast.AST) -> dict[int, str]:
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
                found[id(node.test)] = why(ast.unparse(node.test.left),
                                           _PY_OPS[type(node.test.ops[0])],
                                           ast.unparse(node.test.comparators[0]))
    return found


def python_raising_guards(tree: ast.AST) -> dict[int, str]:
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
            op = _PY_OPS[type(node.test.ops[0])]
            found[id(node.test)] = (f"{left} {op} {right} guards a raise: at {left} == "
                                    f"{right} one of {op} and {TWINS[op]} raises and the "
                                    "other does not")
    return found


def _py_operands(test: ast.expr) -> tuple[str, str] | None:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and type(test.ops[0]) in _PY_OPS):
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


# ------------------------------------------------------------------------ tokens


def token_guard(texts: Sequence[str], index: int) -> str | None:
    """Why the comparison token ``texts[index]`` (in JavaScript/TypeScript, Go or Rust
    source, as token texts) is an equivalent boundary when swapped for its twin, or
    None. Shapes: ``if (a < b) return b;``, ``if (a < b) { return a; }``, ``if a < b {
    return b }``, ``if a < b { a } else { b }``, ``a < b ? a : b``, ``if x > hi { x = hi
    }``; an ``else`` branch must pick an operand too."""
    op = texts[index]
    if op not in TWINS:
        return None
    left_start = _operand_start(texts, index - 1)
    right_end = _operand_end(texts, index + 1)
    if left_start is None or right_end is None:
        return None
    left = "".join(texts[left_start:index])
    right = "".join(texts[index + 1:right_end])
    operands = (left, right)
    before = texts[left_start - 1] if left_start > 0 else ""
    after = texts[right_end] if right_end < len(texts) else ""
    if before == "(" and left_start > 1 and texts[left_start - 2] == "if" and after == ")":
        picked = _token_branch(texts, right_end + 1, operands)  # JavaScript
    elif before == "if" and after == "{":
        picked = _token_branch(texts, right_end, operands)  # Go, Rust
    elif after == "?" and before in ("return", "=", "(", ",", "=>", ":"):
        picked = _ternary(texts, right_end + 1, operands)
    else:
        picked = False
    return why(left, op, right) if picked else None


def _operand_start(texts: Sequence[str], last: int) -> int | None:
    """The first index of the plain operand (``x``, ``self.x``, ``this.lo``, ``2``)
    ending at ``last``."""
    position = last
    if position < 0 or not _word(texts[position]):
        return None
    while position >= 2 and texts[position - 1] == "." and _word(texts[position - 2]):
        position -= 2
    return position


def _operand_end(texts: Sequence[str], first: int) -> int | None:
    """One past the plain operand starting at ``first``."""
    position = first
    if position >= len(texts) or not _word(texts[position]):
        return None
    while position + 2 < len(texts) and texts[position + 1] == "." \
            and _word(texts[position + 2]):
        position += 2
    return position + 1


def _word(text: str) -> bool:
    return bool(text) and (text[0].isalnum() or text[0] in "_$") and text not in (
        "if", "return", "else", "true", "false", "null", "undefined", "nil", "None")


def _token_branch(texts: Sequence[str], start: int, operands: tuple[str, str]) -> bool:
    """The branch at ``start`` (braced or not) picks an operand, and so does its ``else``
    if it has one; an assignment guard without ``else`` assigns an operand to itself."""
    end, target = _picks(texts, start, operands)
    if end is None:
        return False
    if end < len(texts) and texts[end] == "else":
        other_end, other_target = _picks(texts, end + 1, operands)
        return other_end is not None and other_target == target
    return target is None or target in operands


def _picks(texts: Sequence[str], start: int, operands: tuple[str, str]
           ) -> tuple[int | None, str | None]:
    """(one past the branch, the assigned target or None) when the branch at ``start``
    is ``return x;``, ``t = x;`` or (braced) a bare ``x`` (a Rust block's value), ``x``
    an operand; (None, None) when it is anything else."""
    braced = start < len(texts) and texts[start] == "{"
    position = start + 1 if braced else start
    target = None
    if position < len(texts) and texts[position] == "return":
        position += 1
    elif position + 1 < len(texts) and texts[position + 1] == "=" and _word(texts[position]):
        target = texts[position]
        position += 2
    elif not braced:
        return None, None
    end = _operand_end(texts, position)
    if end is None or "".join(texts[position:end]) not in operands:
        return None, None
    if end < len(texts) and texts[end] == ";":
        end += 1
    if braced:
        if end >= len(texts) or texts[end] != "}":
            return None, None
        end += 1
    return end, target


def _ternary(texts: Sequence[str], start: int, operands: tuple[str, str]) -> bool:
    """``x : y`` at ``start``, both operands, then the expression ends."""
    first_end = _operand_end(texts, start)
    if first_end is None or first_end >= len(texts) or texts[first_end] != ":":
        return False
    second_end = _operand_end(texts, first_end + 1)
    if second_end is None:
        return False
    ends = second_end >= len(texts) or texts[second_end] in (";", ")", ",", "}", "]")
    return ends and "".join(texts[start:first_end]) in operands \
        and "".join(texts[first_end + 1:second_end]) in operands
