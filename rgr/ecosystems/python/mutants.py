"""Python mutants of the lines a phase changed: a small AST mutator, standard library only.

Why not mutmut or cosmic-ray: both mutate whole modules (mutmut 3 whole functions, through
trampolines it writes into a ``mutants/`` copy; cosmic-ray a module per session database),
neither takes "these lines of this diff" as its scope, and both would have to be installed
in the user's project environment, which rgr never changes. rgr only needs the mutants of
a few changed lines, and applies each one itself to a pristine checkout, so a page of
``ast`` does it: each mutant replaces one node's source text (found by its line and
column offsets) and must still parse.

Operators (``[adequacy] operators``):

* ``arithmetic``: ``+``↔``-``, ``*``↔``/``, ``//``→``*``, ``%``→``*``, ``**``→``*``, in
  place too (``x += 1`` → ``x -= 1``); a sign ``-x`` → ``x``
* ``comparison``: ``==``↔``!=``, ``<``↔``>=``, ``>``↔``<=``, ``<``→``<=``, ``>``→``>=``,
  ``is``↔``is not``, ``in``↔``not in``
* ``constant``: a number n → n + 1, a boolean → its negation, a non-empty string → ``""``
* ``return``: ``return x`` → ``return None``
* ``condition``: the test of ``if``/``while``/a conditional expression → ``not (test)``
* ``boolean``: ``and``↔``or``, ``not x`` → ``x``
* ``statement``: an expression statement, an assignment or a ``raise`` → ``pass``; an
  early bare ``return`` (one that is not its function's last statement) → ``pass``

Never mutated (rgr.check.mutation.arid.ARID): docstrings, annotations, error messages,
log and print calls, assert messages. A boundary comparison whose twin cannot change
what it returns (rgr.check.mutation.boundary's rule, read on the tree:
rgr.ecosystems.python.boundary) is offered marked ``equivalent``: the gate counts it and
runs nothing.

Python's part of the mutation gate (``Language.tree_mutation``, rgr.ecosystems.python.
language), with the probe (rgr.ecosystems.python.probe) and the telling input
(rgr.ecosystems.python.telling) beside it; what the gate asks of a module-level mutant
(``readers``) is here too.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator

from rgr.base.config import MUTATION_OPERATORS
from rgr.ecosystems.mutant import LOG_RECEIVER, TWINS, Mutant, apply
from rgr.ecosystems.python.boundary import BOUNDARY_OPS
from rgr.ecosystems.python.boundary import guards as boundary_guards

__all__ = ["PRINT_CALLS", "mutants_of", "readers"]

#: Python's plain print call, whose arguments are noise (rgr.check.mutation.arid.ARID's
#: ``log-call``; the other languages' are their own, ``MutationSyntax.call_kind``).
PRINT_CALLS = frozenset({"print"})

#: A node with a position in the source.
Located = ast.expr | ast.stmt

_ARITHMETIC: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult, ast.Mod: ast.Mult, ast.Pow: ast.Mult,
}
_COMPARISON: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,), ast.Lt: (ast.GtE, ast.LtE),
    ast.GtE: (ast.Lt,), ast.Gt: (ast.LtE, ast.GtE), ast.LtE: (ast.Gt,),
    ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,),
}


def mutants_of(path: str, source: str, lines: Collection[int],
               operators: Collection[str] = MUTATION_OPERATORS,
               noise: bool = False) -> list[Mutant]:
    """Every mutant of the nodes that start on ``lines`` of ``source`` (a Python file),
    each one still parsing; none when the file does not parse. ``noise``: the noise
    (rgr.check.mutation.arid.ARID) mutated too, only to count what the gate leaves out."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    offsets = _line_offsets(source)
    skip = set() if noise else _docstrings(tree) | _annotations(tree) | _arid(tree)
    guards = boundary_guards(tree)
    unread = _unread_defaults(tree)
    loaded = {id(s) for s in tree.body if not isinstance(
        s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Import | ast.ImportFrom)}
    # a function's last statement, when a bare return: turned ``pass`` it changes nothing
    final = {id(f.body[-1]) for f in ast.walk(tree)
             if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}
    found: dict[tuple[int, int, str], Mutant] = {}
    for statement in ast.walk(tree):
        if not isinstance(statement, ast.stmt):
            continue
        for node, operator, replacement in _candidates(statement, operators, skip, final):
            if node.lineno not in lines or node.end_lineno is None:
                continue
            start = _offset(source, offsets, node.lineno, node.col_offset)
            end = _offset(source, offsets, node.end_lineno, node.end_col_offset or 0)
            original = source[start:end]
            if replacement == original:
                continue
            mutant = Mutant(path, node.lineno, node.col_offset + 1, operator, original,
                            replacement, start, end, statement.lineno,
                            _equivalent(node, replacement, guards) or unread.get(id(node), ""),
                            id(statement) in loaded)
            if _parses(apply(source, mutant)):
                found.setdefault((start, end, replacement), mutant)
    return sorted(found.values(), key=lambda m: (m.line, m.col, m.operator, m.replacement))


def _candidates(statement: ast.stmt, operators: Collection[str], skip: set[int],
                final: Collection[int] = ()
                ) -> Iterator[tuple[Located, str, str]]:
    """(node, operator, the node's replacement text) for one statement's own mutants:
    the statement itself and the expressions inside it that no nested statement owns."""
    if "statement" in operators and isinstance(
            statement, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Raise) \
            and id(statement) not in skip:
        yield statement, "statement", "pass"
    if "arithmetic" in operators and isinstance(statement, ast.AugAssign) \
            and type(statement.op) in _ARITHMETIC and id(statement) not in skip:
        swapped_in_place = ast.AugAssign(statement.target, _ARITHMETIC[type(statement.op)](),
                                         statement.value)
        yield statement, "arithmetic", ast.unparse(swapped_in_place)  # x += 1 -> x -= 1
    if "statement" in operators and isinstance(statement, ast.Return) \
            and id(statement) not in skip and id(statement) not in final \
            and (statement.value is None or (
                isinstance(statement.value, ast.Constant) and statement.value.value is None)):
        yield statement, "statement", "pass"  # an early return: the code after it runs
    if "return" in operators and isinstance(statement, ast.Return) \
            and statement.value is not None \
            and not (isinstance(statement.value, ast.Constant) and statement.value.value is None):
        yield statement, "return", "return None"
    for node in _own_expressions(statement):
        if id(node) in skip:
            continue
        yield from _expression_mutants(node, operators)
    # A single comparison's own mutants already include its negation (a > b -> a <= b).
    if "condition" in operators and isinstance(statement, ast.If | ast.While) \
            and not _single_comparison(statement.test):
        yield statement.test, "condition", f"not ({ast.unparse(statement.test)})"


def _expression_mutants(node: ast.expr, operators: Collection[str]
                        ) -> Iterator[tuple[Located, str, str]]:
    if "arithmetic" in operators and isinstance(node, ast.BinOp) \
            and type(node.op) in _ARITHMETIC:
        swapped = ast.BinOp(node.left, _ARITHMETIC[type(node.op)](), node.right)
        yield node, "arithmetic", ast.unparse(swapped)
    if "comparison" in operators and isinstance(node, ast.Compare) and len(node.ops) == 1:
        for other in _COMPARISON.get(type(node.ops[0]), ()):
            yield node, "comparison", ast.unparse(ast.Compare(node.left, [other()],
                                                              node.comparators))
    if "boolean" in operators and isinstance(node, ast.BoolOp):
        flipped: ast.boolop = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield node, "boolean", ast.unparse(ast.BoolOp(flipped, node.values))
    if "boolean" in operators and isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield node, "boolean", ast.unparse(node.operand)
    if "arithmetic" in operators and isinstance(node, ast.UnaryOp) \
            and isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
        yield node, "arithmetic", ast.unparse(node.operand)  # -x -> x
    if "condition" in operators and isinstance(node, ast.IfExp) \
            and not _single_comparison(node.test):
        yield node.test, "condition", f"not ({ast.unparse(node.test)})"
    if "constant" in operators and isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            yield node, "constant", repr(not value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            yield node, "constant", repr(value + 1)
        elif isinstance(value, str) and value:
            yield node, "constant", '""'


#: Calls through which a function may read its parameters without naming them.
_INTROSPECTION = {"locals", "vars", "currentframe", "getargvalues", "signature", "_getframe"}


def _unread_defaults(tree: ast.Module) -> dict[int, str]:
    """The nodes of each default value of a parameter its function never reads
    (``def add(self, name, times=1): pass``): changed, no call can tell (a caller that
    passes it overrides it, one that does not sees nothing read), so its mutants are
    equivalent by rule, never a survivor blamed on anyone."""
    found: dict[int, str] = {}
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        spec = function.args
        positional = spec.posonlyargs + spec.args
        pairs = list(zip(positional[len(positional) - len(spec.defaults):], spec.defaults,
                         strict=True))
        pairs += [(a, d) for a, d in zip(spec.kwonlyargs, spec.kw_defaults, strict=True)
                  if d is not None]
        body = [n for statement in function.body for n in ast.walk(statement)]
        named = {n.id for n in body if isinstance(n, ast.Name)} | {
            n.attr for n in body if isinstance(n, ast.Attribute)}
        if named & _INTROSPECTION:
            continue
        for arg, default in pairs:
            if arg.arg not in named:
                reason = (f"the default of {arg.arg}, a parameter {function.name} never "
                          "reads: no call can tell it")
                found.update({id(n): reason for n in ast.walk(default)})
    return found


def _equivalent(node: Located, replacement: str, guards: dict[int, str]) -> str:
    """Why ``node`` turned into ``replacement`` is an equivalent boundary, or ""."""
    if not isinstance(node, ast.Compare) or id(node) not in guards:
        return ""
    swapped = ast.parse(replacement, mode="eval").body
    before = BOUNDARY_OPS.get(type(node.ops[0]))
    after = BOUNDARY_OPS.get(type(swapped.ops[0])) if isinstance(swapped, ast.Compare) else None
    return guards[id(node)] if before is not None and TWINS[before] == after else ""


def _single_comparison(test: ast.expr) -> bool:
    return isinstance(test, ast.Compare) and len(test.ops) == 1 \
        and type(test.ops[0]) in _COMPARISON


def _own_expressions(statement: ast.stmt) -> Iterator[ast.expr]:
    """The expression nodes of ``statement`` outside its nested statements (those are
    walked as statements of their own)."""
    pending: list[ast.AST] = [child for child in ast.iter_child_nodes(statement)
                              if not isinstance(child, ast.stmt)]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.expr):
            yield node
        pending += [child for child in ast.iter_child_nodes(node)
                    if not isinstance(child, ast.stmt)]


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of docstring statements and their constants: changing one changes no
    behaviour a test should pin."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant) \
                and isinstance(node.body[0].value.value, str):
            found |= {id(node.body[0]), id(node.body[0].value)}
    return found


def _annotations(tree: ast.Module) -> set[int]:
    """The ids of nodes inside type annotations (no runtime behaviour to mutate)."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    return {id(inner) for root in roots for inner in ast.walk(root)}


def _arid(tree: ast.Module) -> set[int]:
    """The ids of the nodes rgr does not mutate (rgr.check.mutation.arid.ARID): error
    messages (``error-message``), log and print calls with their statements
    (``log-call``), assert messages (``assert-message``)."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            roots += [arg for arg in node.exc.args if _text(arg)]  # error-message
        elif isinstance(node, ast.Assert) and node.msg is not None:
            roots.append(node.msg)  # assert-message
        elif isinstance(node, ast.Call) and _logs(node.func):
            roots.append(node)  # log-call
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and _logs(node.value.func):
            roots.append(node)  # log-call: the statement too (no ``pass`` for it)
    return {id(inner) for root in roots for inner in ast.walk(root)}


def _text(node: ast.expr) -> bool:
    """A string, an f-string, or one formatted (``"..." % x``, ``"..." + x``,
    ``"...".format(x)``): a message, not a value a caller computes with."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod | ast.Add):
        return _text(node.left)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "format" and _text(node.func.value)


def _logs(func: ast.expr) -> bool:
    """``print``, or a method of a logger (``logging.info``, ``self.logger.debug``)."""
    if isinstance(func, ast.Name):
        return func.id in PRINT_CALLS
    if not isinstance(func, ast.Attribute):
        return False
    receiver = func.value
    name = receiver.attr if isinstance(receiver, ast.Attribute) else \
        receiver.id if isinstance(receiver, ast.Name) else ""
    return bool(LOG_RECEIVER.match(name))


def _line_offsets(source: str) -> list[int]:
    offsets, total = [0], 0
    for line in source.splitlines(keepends=True):
        total += len(line)
        offsets.append(total)
    return offsets


def _offset(source: str, offsets: list[int], line: int, col_bytes: int) -> int:
    """The character offset of (line, UTF-8 byte column), as ast reports positions."""
    start = offsets[line - 1]
    text = source[start:offsets[line] if line < len(offsets) else len(source)]
    return start + len(text.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))


def readers(source: str, line: int) -> list[tuple[int, ...]]:
    """The body lines of each function of ``source`` that reads a name the module-level
    statement at ``line`` binds (``_UNITS = {"h": 3600}`` beside ``parse`` that reads
    it): a test that runs one of them runs that statement's value (the gate asks, of a
    module-level survivor, whether a test runs any, rgr.check.mutation.gate). Empty when
    the statement binds no plain name or the file does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    bound: set[str] = set()
    for statement in tree.body:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            targets = statement.targets if isinstance(statement, ast.Assign) else \
                [statement.target] if isinstance(statement, ast.AnnAssign) else []
            bound |= {t.id for t in targets if isinstance(t, ast.Name)}
    if not bound:
        return []
    return [tuple(range(function.body[0].lineno, (function.end_lineno or function.lineno) + 1))
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                isinstance(n, ast.Name) and n.id in bound for n in ast.walk(function))]


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True
