"""What a Python test states: ``add(2, 3) == 5`` as a fact (``add``, ``(2, 3)``, ``5``),
read by its syntax tree (the standard library's ``ast``) from the test's own asserts with
literal arguments and a literal expectation, whatever the comparison's form: a bare
``assert``, unittest's equality asserts, a helper of the project's that compares (by its
name, or by its definition in the file), a name bound once to the call's result or the
expectation, ``pytest.approx``. Values are kept as canonical text (``repr`` of the
literal) so that the reader of the code (rgr.ecosystems.python.special_cases) compares
like with like. Fake-it (rgr.check.fakeit.facts) asks for them through
``Language.fakeit_tree``."""

from __future__ import annotations

import ast
import re

from rgr.ecosystems.fact import Fact

__all__ = ["facts_of", "literal_text"]

#: unittest's equality asserts: their first two arguments are compared.
_EQUAL_ASSERTS = {"assertEqual", "assertEquals", "assertIs", "assert_equal"}


def literal_text(node: ast.AST) -> str | None:
    """The canonical text of a literal expression (``repr`` of its value), or None."""
    try:
        return repr(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


#: Words in a helper's name that say it compares its arguments for equality (a
#: project's own ``assert_equal``, ``check_same``, ``expect_eq``, unittest's
#: ``assertAlmostEqual``), and words that say it compares otherwise.
_EQUALITY_WORDS = frozenset({"assert", "check", "expect", "equal", "equals", "eq",
                             "same", "verify", "compare", "match", "matches"})
_OTHER_WORDS = frozenset({"not", "ne", "raises", "raise", "greater", "less", "lt", "gt",
                          "le", "ge", "instance", "regex", "warns", "in", "count", "true",
                          "false", "none", "output", "call", "called"})


def facts_of(path: str, source: str) -> list[Fact]:
    """Every fact the test file ``path`` states, by its syntax tree (none when it is no
    Python rgr can read)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # not Python rgr can read: nothing said about it
    helpers = _comparing_helpers(tree)
    callbacks = {f.name for f in tree.body if isinstance(f, ast.FunctionDef
                                                         | ast.AsyncFunctionDef)}
    found: list[Fact] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) \
                or function.name in helpers:
            continue
        test = f"{path}::{function.name}"
        values = _bound_once(function)
        made = _calls_made(function)

        for node in ast.walk(function):
            for side, other in _compared(node, helpers):
                call = values.get(side.id, side) if isinstance(side, ast.Name) else side
                expected = values.get(other.id, other) if isinstance(other, ast.Name) \
                    else other
                fact = _fact(_awaited(call), _approx(expected), test, made, callbacks)
                if fact is not None:
                    found.append(fact)
    return found


#: A call a test made on an object: (line, receiver, method, arguments).
_Made = tuple[int, str, str, tuple[str, ...]]


def _calls_made(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[_Made]:
    """The statements of the test that are one call on a name with literal arguments
    (``tally.add("a", times=3)``: a keyword as ``times=3``), and each binding of a name
    (method ``=``: the object's state starts again), in line order."""
    made: list[_Made] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            made += [(node.lineno, t.id, "=", ()) for t in node.targets
                     if isinstance(t, ast.Name)]
        call = node.value if isinstance(node, ast.Expr) else None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) \
                or not isinstance(call.func.value, ast.Name):
            continue
        args = [literal_text(a) for a in call.args]
        keywords = [(k.arg, literal_text(k.value)) for k in call.keywords]
        if any(a is None for a in args) or any(k is None or v is None for k, v in keywords):
            continue
        made.append((call.lineno, call.func.value.id, call.func.attr,
                     (*(a for a in args if a is not None),
                      *(f"{k}={v}" for k, v in keywords))))
    return sorted(made)


def _before(call: ast.Call, made: list[_Made]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The calls made on ``call``'s object before it, since it was last bound."""
    if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)):
        return ()
    receiver = call.func.value.id
    found: list[tuple[str, tuple[str, ...]]] = []
    for line, name, method, args in made:
        if line >= call.lineno:
            break
        if name == receiver:
            found = [] if method == "=" else [*found, (method, args)]
    return tuple(found)


def _bound_once(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    """The names the test binds once (``got = add(2, 3)``, ``want = 5``): a comparison
    of ``got`` with ``want`` compares the call's result with the literal (data flow,
    not the assert's shape). A name bound twice is left out: what it holds depends on
    the line."""
    bound: dict[str, list[ast.expr]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets: list[ast.expr] = list(node.targets) if isinstance(node, ast.Assign) \
                else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and node.value is not None:
                    bound.setdefault(target.id, []).append(node.value)
        else:
            # bound by a loop, a with, a walrus or in place: not one value
            rebound: list[ast.AST] = []
            if isinstance(node, ast.AugAssign | ast.For | ast.AsyncFor | ast.NamedExpr):
                rebound.append(node.target)
            elif isinstance(node, ast.With | ast.AsyncWith):
                rebound += [v for i in node.items if (v := i.optional_vars) is not None]
            for name in (n for t in rebound for n in ast.walk(t)):
                if isinstance(name, ast.Name):
                    bound.setdefault(name.id, []).extend([name, name])
    return {name: values[0] for name, values in bound.items() if len(values) == 1}


def _approx(expected: ast.expr | bool) -> ast.expr | bool:
    """``pytest.approx(0.5)`` (or ``approx(0.5)``) compares with ``0.5``."""
    if isinstance(expected, ast.Call) and expected.args and _name_of(expected.func) == "approx":
        return expected.args[0]
    return expected


def _name_of(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else None


def _equality_helper(name: str) -> bool:
    """Whether a function or method named ``name`` reads as an equality check, word by
    word (``assert_equal``, ``expectEq``; never ``assertNotEqual``, ``assertIn``)."""
    words = {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)}
    return bool(words & _EQUALITY_WORDS) and not words & _OTHER_WORDS


def _comparing_helpers(tree: ast.Module) -> set[str]:
    """The file's own functions that compare two of their parameters for equality (an
    ``assert a == b`` or an equality assert of both, in their body), whatever their
    name: a test calling one with a call's result and a literal states a fact."""
    found: set[str] = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = {a.arg for a in function.args.args + function.args.posonlyargs}
        for node in ast.walk(function):
            sides = _compared(node, set())
            if any(isinstance(a, ast.Name) and isinstance(b, ast.Name)
                   and {a.id, b.id} <= params and a.id != b.id for a, b in sides):
                found.add(function.name)
                break
    return found


def _compared(node: ast.AST, helpers: set[str]) -> list[tuple[ast.expr, ast.expr | bool]]:
    """(one side, the other) of each equality a test states: a bare ``assert``, an
    equality assert of unittest's, or any call of a helper that compares (by its name,
    or by its definition in the file: ``helpers``) with two arguments."""
    if isinstance(node, ast.Assert):
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 \
                and isinstance(test.ops[0], ast.Eq | ast.Is):
            left, right = test.left, test.comparators[0]
            return [(left, right), (right, left)]
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return [(test.operand, False)]
        return [(test, True)]
    if isinstance(node, ast.Call) and len(node.args) >= 2:
        name = _name_of(node.func)
        if name is not None and (name in _EQUAL_ASSERTS or name in helpers
                                 or _equality_helper(name)):
            first, second = node.args[0], node.args[1]
            return [(first, second), (second, first)]
    return []


def _awaited(node: ast.expr) -> ast.expr:
    """The call whose result ``node`` is, through the event loop: ``await f(x)``,
    ``asyncio.run(f(x))`` and ``loop.run_until_complete(f(x))`` are ``f(x)``'s value."""
    while True:
        if isinstance(node, ast.Await):
            node = node.value
        elif isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                and isinstance(node.func, ast.Attribute) and (
                    node.func.attr == "run_until_complete" or (
                        node.func.attr == "run" and isinstance(node.func.value, ast.Name)
                        and node.func.value.id == "asyncio")):
            node = node.args[0]
        else:
            return node


def _argument(node: ast.expr, callbacks: set[str]) -> str | None:
    """An argument's canonical text: a literal's, or the name of a function the test file
    defines at its top (a callback such as ``size_of``: one value, fixed in the file)."""
    if isinstance(node, ast.Name) and node.id in callbacks:
        return node.id
    return literal_text(node)


def _fact(call: ast.expr, expected: ast.expr | bool, test: str,
          made: list[_Made] | None = None, callbacks: set[str] | None = None
          ) -> Fact | None:
    if not isinstance(call, ast.Call):
        return None
    before = _before(call, made or [])
    if not (call.args or call.keywords or before):
        return None
    func = call.func
    name = func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else None
    if name is None:
        return None
    args = [_argument(arg, callbacks or set()) for arg in call.args]
    keywords = [(k.arg, _argument(k.value, callbacks or set())) for k in call.keywords]
    value = repr(expected) if isinstance(expected, bool) else literal_text(expected)
    if value is None or any(arg is None for arg in args) \
            or any(k is None or v is None for k, v in keywords):  # ``**options``: unknown
        return None
    return Fact(name, tuple(a for a in args if a is not None), value, test,
                tuple((k, v) for k, v in keywords if k is not None and v is not None),
                before)
