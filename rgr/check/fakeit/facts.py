"""What the tests call and expect: ``add(2, 3) == 5`` as a fact (``add``, ``(2, 3)``,
``5``), read from the tests' own asserts with literal arguments and a literal
expectation. Python by its AST; JavaScript/TypeScript, Go and Rust by their tokens
(rgr.check.mutation.textual), one line at a time. Values are kept as canonical text
(Python: ``repr`` of the literal; tokens: the number, or a string's inner text quoted)
so that the production side compares like with like."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from rgr.check.mutation.textual import Token, language_of, tokens_of

__all__ = ["Fact", "facts_of", "literal_text", "token_literal"]


@dataclass(frozen=True)
class Fact:
    """One assert of a test: ``callee(*args) == expected``."""

    callee: str
    args: tuple[str, ...]
    expected: str
    test: str  # path::name (Python) or path:line (tokens)

    @property
    def inputs(self) -> str:
        """The arguments as one value: ``2`` for one, ``(2, 3)`` for several."""
        return self.args[0] if len(self.args) == 1 else f"({', '.join(self.args)})"


def facts_of(path: str, source: str) -> list[Fact]:
    """Every fact the test file ``path`` states (none for a language rgr cannot read)."""
    if path.endswith(".py"):
        return _python_facts(path, source)
    language = language_of(path)
    return _token_facts(path, source, language) if language else []


# ------------------------------------------------------------------------- Python

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


def _python_facts(path: str, source: str) -> list[Fact]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # not Python rgr can read: nothing said about it
    helpers = _comparing_helpers(tree)
    found: list[Fact] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) \
                or function.name in helpers:
            continue
        test = f"{path}::{function.name}"
        values = _bound_once(function)

        for node in ast.walk(function):
            for side, other in _compared(node, helpers):
                call = values.get(side.id, side) if isinstance(side, ast.Name) else side
                expected = values.get(other.id, other) if isinstance(other, ast.Name) \
                    else other
                fact = _fact(call, _approx(expected), test)
                if fact is not None:
                    found.append(fact)
    return found


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


def _fact(call: ast.expr, expected: ast.expr | bool, test: str) -> Fact | None:
    if not isinstance(call, ast.Call) or call.keywords or not call.args:
        return None
    func = call.func
    name = func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else None
    if name is None:
        return None
    args = [literal_text(arg) for arg in call.args]
    value = repr(expected) if isinstance(expected, bool) else literal_text(expected)
    if value is None or any(arg is None for arg in args):
        return None
    return Fact(name, tuple(a for a in args if a is not None), value, test)


# ------------------------------------------------------------------------- tokens

#: Words that are literals in JavaScript, Go and Rust.
_LITERAL_WORDS = {"true", "false", "null", "undefined", "nil", "None"}
#: Calls whose first string argument names or explains a test, never an expectation.
_LABEL_CALLS = {"test", "it", "describe", "Run", "Errorf", "Fatalf", "Error", "Fatal",
                "Logf", "Log", "Sprintf", "Printf", "println", "panic"}


#: Assertion calls whose literal argument is the expectation (``.toBe(5)``).
_MATCHERS = {"toBe", "toEqual", "toStrictEqual", "equal", "strictEqual", "deepEqual",
             "deepStrictEqual", "toBeCloseTo", "is", "eq", "Equal", "assertEquals"}


def token_literal(tokens: list[Token], index: int) -> tuple[str, int] | None:
    """(canonical text, index after it) of the literal at ``index``, if one is there:
    a number (with its sign), a string or a literal word."""
    token = tokens[index]
    if token.kind == "op" and token.text == "-" and index + 1 < len(tokens) \
            and tokens[index + 1].kind == "number":
        return "-" + tokens[index + 1].text.replace("_", ""), index + 2
    if token.kind == "number":
        return token.text.replace("_", ""), index + 1
    if token.kind in ("string", "char"):
        text = token.text
        quote = text.find(text[-1]) if text else -1
        inner = text[quote + 1:-1] if quote >= 0 and len(text) >= 2 else text
        return '"' + inner + '"', index + 1
    if token.kind == "word" and token.text in _LITERAL_WORDS:
        return token.text, index + 1
    return None


def literal_call(tokens: list[Token], index: int) -> tuple[str, tuple[str, ...], int] | None:
    """(callee, literal arguments, index after ``)``) of a call ``name(lit, ...)`` whose
    name is at ``index`` and whose every argument is a literal."""
    if tokens[index].kind != "word" or index + 2 >= len(tokens) \
            or tokens[index + 1].text != "(":
        return None
    args: list[str] = []
    at = index + 2
    while at < len(tokens):
        if tokens[at].text == ")" and not args:
            return None  # no arguments: nothing to triangulate
        literal = token_literal(tokens, at)
        if literal is None:
            return None
        args.append(literal[0])
        at = literal[1]
        if at < len(tokens) and tokens[at].text == ")":
            return tokens[index].text, tuple(args), at + 1
        if at >= len(tokens) or tokens[at].text != ",":
            return None
        at += 1
    return None


def _token_facts(path: str, source: str, language: str) -> list[Fact]:
    tokens = tokens_of(source, language)
    by_line: dict[int, list[int]] = {}
    for index, token in enumerate(tokens):
        by_line.setdefault(token.line, []).append(index)
    found: list[Fact] = []
    for line, indexes in sorted(by_line.items()):
        calls: list[tuple[str, tuple[str, ...]]] = []
        others: list[str] = []
        at, last = indexes[0], indexes[-1]
        while at <= last:
            call = literal_call(tokens, at)
            if call is not None and call[0] not in _MATCHERS:
                calls.append((call[0], call[1]))
                at = call[2]
                continue
            literal = token_literal(tokens, at)
            if literal is not None:
                if not _is_label(tokens, at):
                    others.append(literal[0])
                at = literal[1]
                continue
            at += 1
        if len(calls) == 1 and len(others) == 1:
            callee, args = calls[0]
            found.append(Fact(callee, args, others[0], f"{path}:{line}"))
    return found


def _is_label(tokens: list[Token], index: int) -> bool:
    """A string that names a test or formats a message (``it("adds", ...)``)."""
    return (tokens[index].kind == "string" and index >= 2 and tokens[index - 1].text == "("
            and tokens[index - 2].text in _LABEL_CALLS)
