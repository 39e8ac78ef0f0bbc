"""Special cases in Python functions, by their AST.

For a function ``f`` and the facts of the tests that call ``f``:

* ``constant``: every ``return`` of ``f`` gives a literal, one of them a test's
  expected value (``return 5`` for ``assert add(2, 3) == 5``), and ``f`` decides
  nothing from its inputs but by equality with fixed values (no ``if n > 0``, no loop);
* ``input-branch``: an ``if`` on exactly a test's arguments (``(a, b) == (2, 3)``,
  ``a == 2 and b == 3``) that returns that test's expected value, in a function whose
  every return gives a literal;
* ``input-table``: a dict literal whose every key is a test's input (``{(2, 3): 5}``).

A function with a general path (a return that computes, ``return n * f(n - 1)``, or a
condition that is no equality, ``if n > 0: return 1``) keeps its branches and
constants: ``if n == 0: return 0`` there is a base case, ``sign``'s ``return 1`` an
answer, not a fake. A table with any key no test uses is real data.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Sequence

from rgr.check.fakeit.cases import SpecialCase
from rgr.check.fakeit.facts import Fact, literal_text

__all__ = ["python_cases"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def python_cases(path: str, source: str, lines: Collection[int] | None,
                 facts: Sequence[Fact]) -> list[SpecialCase]:
    """The special cases of the functions of ``source`` that touch ``lines`` (None: every
    function), judged against ``facts``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # not Python rgr can read: nothing said about it
    found: list[SpecialCase] = []
    for function in ast.walk(tree):
        if not isinstance(function, _Function):
            continue
        end = function.end_lineno or function.lineno
        if lines is not None and not any(function.lineno <= n <= end for n in lines):
            continue
        mine = [f for f in facts if f.callee == function.name]
        if mine:
            found.extend(_cases(path, function, mine))
    return found


def _own_nodes(function: _Function) -> Iterator[ast.AST]:
    """The nodes of ``function``'s body, nested functions and classes left out."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef
                              | ast.ClassDef | ast.Lambda):
                stack.append(child)


def _cases(path: str, function: _Function, facts: list[Fact]) -> list[SpecialCase]:
    params = [a.arg for a in function.args.posonlyargs + function.args.args
              if a.arg not in ("self", "cls")]
    nodes = list(_own_nodes(function))
    returns = [n for n in nodes if isinstance(n, ast.Return)]
    found: list[SpecialCase] = []
    by_input = {f.inputs: f for f in facts}
    for node in nodes:
        if isinstance(node, ast.Dict) and node.keys:
            keys = [literal_text(k) if k is not None else None for k in node.keys]
            if all(k in by_input for k in keys):
                first = by_input[str(keys[0])]
                found.append(SpecialCase(path, function.name, node.lineno, "input-table",
                                         "{" + ", ".join(str(k) for k in keys) + "}", first))
    literal = {id(r): literal_text(r.value) if r.value is not None else "None"
               for r in returns}
    if not returns or any(v is None for v in literal.values()) or _decides(nodes):
        return found  # a general path: branches are base cases
    expected = {f.expected: f for f in facts}
    in_branch: set[int] = set()
    for node in nodes:
        if not isinstance(node, ast.If):
            continue
        bound = _bound(node.test)
        for fact in facts:
            if bound is None or len(fact.args) != len(params) or \
                    bound != dict(zip(params, fact.args, strict=True)):
                continue
            answers = [r for r in _own_returns(node.body) if literal[id(r)] == fact.expected]
            if answers:
                in_branch.update(id(r) for r in answers)
                found.append(SpecialCase(path, function.name, node.lineno, "input-branch",
                                         fact.inputs, fact))
    for ret in returns:
        value = literal[id(ret)]
        if id(ret) not in in_branch and value in expected:
            found.append(SpecialCase(path, function.name, ret.lineno, "constant", str(value),
                                     expected[str(value)]))
    return found


def _decides(nodes: list[ast.AST]) -> bool:
    """Does the function choose its answer from its inputs other than by equality with
    fixed values (``if n > 0``, a loop, a ``match``)? Then its literal returns are a
    computation's answers (``sign``), not a fake."""
    for node in nodes:
        if isinstance(node, ast.For | ast.AsyncFor | ast.While | ast.Match):
            return True
        if isinstance(node, ast.If | ast.IfExp) and _bound(node.test) is None:
            return True
    return False


def _own_returns(body: list[ast.stmt]) -> list[ast.Return]:
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _bound(test: ast.expr) -> dict[str, str] | None:
    """The parameter values a condition pins: ``(a, b) == (2, 3)`` and ``a == 2 and
    b == 3`` both give ``{a: 2, b: 3}``; None for any other condition."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        merged: dict[str, str] = {}
        for each in test.values:
            part = _bound(each)
            if part is None:
                return None
            merged.update(part)
        return merged
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq | ast.Is)):
        return None
    left, right = test.left, test.comparators[0]
    if literal_text(left) is not None:
        left, right = right, left
    value = literal_text(right)
    if value is None:
        return None
    if isinstance(left, ast.Name):
        return {left.id: value}
    if isinstance(left, ast.Tuple) and isinstance(right, ast.Tuple) \
            and len(left.elts) == len(right.elts) \
            and all(isinstance(e, ast.Name) for e in left.elts):
        values = [literal_text(e) for e in right.elts]
        return {e.id: str(v) for e, v in zip(left.elts, values, strict=True)
                if isinstance(e, ast.Name)}
    return None
