"""What the tests call and expect: ``add(2, 3) == 5`` as a fact (``add``, ``(2, 3)``,
``5``), read from the tests' own asserts with literal arguments and a literal
expectation. Python by its AST; JavaScript/TypeScript, Go and Rust by their tokens
(rgr.check.mutation.textual), one line at a time. Values are kept as canonical text
(Python: ``repr`` of the literal; tokens: the number, or a string's inner text quoted)
so that the production side compares like with like."""

from __future__ import annotations

import ast
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


def _python_facts(path: str, source: str) -> list[Fact]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # not Python rgr can read: nothing said about it
    found: list[Fact] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        test = f"{path}::{function.name}"
        for node in ast.walk(function):
            for call, expected in _compared(node):
                fact = _fact(call, expected, test)
                if fact is not None:
                    found.append(fact)
    return found


def _compared(node: ast.AST) -> list[tuple[ast.expr, ast.expr | bool]]:
    """(one side, the other) of each equality an assert states."""
    if isinstance(node, ast.Assert):
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 \
                and isinstance(test.ops[0], ast.Eq | ast.Is):
            left, right = test.left, test.comparators[0]
            return [(left, right), (right, left)]
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return [(test.operand, False)]
        return [(test, True)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in _EQUAL_ASSERTS and len(node.args) >= 2:
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
