"""Special cases in JavaScript/TypeScript, Go, Rust and Java functions, at the token level
(rgr.check.mutation.textual's tokenizer): the same three kinds as the Python reader,
found in functions declared ``function f(``, ``func f(``, ``fn f(``,
``const f = (...) =>``, a JavaScript class's method (``count (name) {``) or, in Java,
``int f(int a) {``:

* ``constant``: every ``return`` (and a Rust body's tail expression) is a literal, one
  of them a test's expected value, and the body decides nothing but by equality with
  fixed values (no ``if (n > 0)``, loop, ternary or ``switch``);
* ``input-branch``: an ``if`` whose condition only compares the parameters with a
  test's arguments (``a === 2 && b === 3``, Rust's ``(a, b) == (2, 3)``) and whose
  block returns that test's expected value, in a function whose every return is a
  literal;
* ``input-table``: data keyed only by the tests' inputs, in the function or a
  module-level table it reads (rgr.check.fakeit.tables).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rgr.check.fakeit.cases import SpecialCase
from rgr.check.fakeit.facts import Fact, token_literal
from rgr.check.fakeit.tables import Table, closing, function_tables, module_tables
from rgr.check.mutation.textual import Token, tokens_of
from rgr.ecosystems import registry

__all__ = ["function_lines", "token_cases"]

#: The languages whose functions are declared type first (``int add(int a) {``).
_TYPED_FIRST = {syntax.language for syntax in registry.mutation_syntax()
                if syntax.typed_declarations}

#: How each language's tokens are put as the brace languages write them, where it says.
_BRACED = {syntax.language: syntax.fakeit_tokens for syntax in registry.mutation_syntax()
           if syntax.fakeit_tokens is not None}

#: The languages whose body's last expression is its value.
_TAIL_RETURNS = {syntax.language for syntax in registry.mutation_syntax()
                 if syntax.tail_returns}

_DECLARES = {"function", "func", "fn"}
_COMPARE = {"==", "==="}
_CONDITION = {"(", ")", ",", "&&", "==", "==="}


@dataclass(frozen=True)
class _Function:
    name: str
    params: list[str]
    body: tuple[int, int]  # token indexes of the body's braces (or expression bounds)
    braced: bool


def token_cases(path: str, source: str, language: str, lines: Collection[int] | None,
                facts: Sequence[Fact]) -> list[SpecialCase]:
    tokens = tokens_of(source, language)
    if language in _BRACED:
        tokens = _BRACED[language](tokens)
    found: list[SpecialCase] = []
    outside: dict[int, list[Table]] = {}  # by nesting depth: module-level tables
    for function in _functions(tokens, typed_first=language in _TYPED_FIRST):
        mine = [f for f in facts if f.callee == function.name]
        if not mine:
            continue
        arity = len(function.params)
        if arity not in outside:
            outside[arity] = module_tables(tokens, arity)
        start, end = function.body
        read = {t.text for t in tokens[start:end + 1] if t.kind == "word"}
        spans = [(tokens[start].line, tokens[end].line), *(
            (tokens[t.open].line, tokens[t.close].line)
            for t in outside[arity] if t.name in read)]
        if lines is not None and not any(first <= n <= last for n in lines
                                         for first, last in spans):
            continue  # neither the function nor a table it reads changed
        found.extend(_cases(path, tokens, function, mine, outside[arity],
                            language in _TAIL_RETURNS))
    return found


def function_lines(source: str, language: str) -> list[tuple[str, tuple[int, int]]]:
    """Each function fake-it reads in ``source``, by name, with its body's first and
    last line (rgr.check.fakeit.blame)."""
    tokens = tokens_of(source, language)
    return [(f.name, (tokens[f.body[0]].line, tokens[f.body[1]].line))
            for f in _functions(tokens, typed_first=language in _TYPED_FIRST)]


#: Words a Java method's name is never (``if (x) {``, ``new A() {``).
_NOT_METHODS = {"if", "while", "for", "switch", "catch", "return", "new", "synchronized",
                "throw", "else", "try", "do", "super", "this"}


def _functions(tokens: list[Token], typed_first: bool = False) -> list[_Function]:
    """The functions declared in ``tokens``; ``typed_first``: a method is declared by
    its type then its name (Java's ``int add(int a, int b) {``)."""
    found: list[_Function] = []
    for index, token in enumerate(tokens):
        name_at: int | None = None
        if typed_first and token.kind == "word" and token.text not in _NOT_METHODS \
                and index > 0 and index + 1 < len(tokens) and tokens[index + 1].text == "(" \
                and (tokens[index - 1].kind == "word" or tokens[index - 1].text in (">", "]")) \
                and tokens[index - 1].text not in _NOT_METHODS:
            function = _declared(tokens, index, typed_first)
            if function is not None:
                found.append(function)
            continue
        if token.kind == "word" and token.text in _DECLARES:
            at = index + 1
            if at < len(tokens) and tokens[at].text == "(":  # a Go method's receiver
                at = closing(tokens, at) + 1
            if at < len(tokens) and tokens[at].kind == "word":
                name_at = at
        elif token.kind == "word" and token.text in ("const", "let", "var") \
                and index + 3 < len(tokens) and tokens[index + 2].text == "=":
            name_at = index + 1
        if name_at is None:
            if not typed_first and token.text == "class":
                found += _methods(tokens, index)
            continue
        function = _declared(tokens, name_at)
        if function is not None:
            found.append(function)
    return found


#: Words before a JavaScript method's name that are not its name.
_METHOD_MODIFIERS = {"static", "async", "get", "set", "*", "#"}


def _methods(tokens: list[Token], class_at: int) -> list[_Function]:
    """The methods of the JavaScript/TypeScript class declared at ``class_at``
    (``count (name) { return 1 }``): each name followed by its parameters and a body,
    directly inside the class's braces."""
    at = class_at + 1
    while at < len(tokens) and tokens[at].text not in ("{", ";", "("):
        at += 1  # its name, ``extends Base``
    if at >= len(tokens) or tokens[at].text != "{":
        return []
    close = closing(tokens, at)
    found: list[_Function] = []
    at += 1
    while at < close:
        token = tokens[at]
        if token.kind == "word" and token.text not in _METHOD_MODIFIERS \
                and at + 1 < close and tokens[at + 1].text == "(":
            method = _declared(tokens, at)
            if method is not None and method.braced:
                found.append(method)
                at = method.body[1] + 1
                continue
        at = closing(tokens, at) + 1 if token.text in ("{", "(", "[") else at + 1
    return found


def _declared(tokens: list[Token], name_at: int, typed_first: bool = False
              ) -> _Function | None:
    """The function whose name is at ``name_at``: its parameters and body."""
    at = name_at + 1
    if at < len(tokens) and tokens[at].text == "=":
        at += 1
        while at < len(tokens) and tokens[at].text in ("async", "function"):
            at += 1
    while at < len(tokens) and tokens[at].text == "<":  # generics: skip to the "("
        at += 1
    if at >= len(tokens) or tokens[at].text != "(":
        return None
    close = closing(tokens, at)
    params = _params(tokens[at + 1:close], typed_first)
    at = close + 1
    while at < len(tokens) and tokens[at].text not in ("{", "=>", ";"):
        at += 1  # a return type
    if at < len(tokens) and tokens[at].text == "=>":
        at += 1
        if at < len(tokens) and tokens[at].text != "{":
            end = at
            while end + 1 < len(tokens) and tokens[end + 1].text not in (";",) \
                    and tokens[end + 1].line == tokens[at].line:
                end += 1
            return _Function(tokens[name_at].text, params, (at, end), braced=False)
    if at >= len(tokens) or tokens[at].text != "{":
        return None
    return _Function(tokens[name_at].text, params, (at, closing(tokens, at)), braced=True)


def _params(tokens: list[Token], typed_first: bool = False) -> list[str]:
    """Each parameter's name: the first word of each top-level, comma-separated part
    (the last one where the type comes first: ``final int a``)."""
    names: list[str] = []
    if typed_first:
        last, depth = "", 0
        for token in tokens:
            depth += token.text in ("(", "[", "{", "<")
            depth -= token.text in (")", "]", "}", ">")
            if token.text == "," and depth == 0:
                names.append(last)
            elif token.kind == "word" and depth == 0:
                last = token.text
        return [*names, last] if last else names
    depth, first = 0, True
    for token in tokens:
        if token.text in ("(", "[", "{", "<"):
            depth += 1
        elif token.text in (")", "]", "}", ">"):
            depth -= 1
        elif token.text == "," and depth == 0:
            first = True
        elif first and depth == 0 and token.kind == "word" and token.text not in (
                "mut", "self", "const"):
            names.append(token.text)
            first = False
    return names


def _single_literal(tokens: list[Token], start: int, end: int) -> str | None:
    """The literal that is the whole of ``tokens[start:end]``, if it is one."""
    if start >= end:
        return None
    literal = token_literal(tokens, start)
    return literal[0] if literal is not None and literal[1] == end else None


def _with_nil_error(tokens: list[Token], start: int, end: int) -> str | None:
    """Go's ``return 90, nil``: a literal with no error is that literal (what a test's
    ``got, err := F(x)`` compares)."""
    literal = token_literal(tokens, start) if start < end else None
    if literal is None or literal[1] >= end:
        return None
    rest = [t.text for t in tokens[literal[1]:end]]
    return literal[0] if rest == [",", "nil"] else None


def _returns(tokens: list[Token], function: _Function, tail_returns: bool = False
             ) -> list[tuple[int, str | None]]:
    """(index, literal or None) of each value the function returns: ``return x``, an
    arrow's expression, a Rust body's tail expression (computed ones too where
    ``tail_returns``: the language returns it)."""
    start, end = function.body
    if not function.braced:
        return [(start, _single_literal(tokens, start, end + 1))]
    found: list[tuple[int, str | None]] = []
    depth = 0
    statement_start = start + 1
    for at in range(start + 1, end):
        text = tokens[at].text
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        if text in (";", "{", "}"):
            statement_start = at + 1
        if text == "return":
            stop = at + 1
            while stop < end and tokens[stop].text not in (";", "}") \
                    and tokens[stop].line == tokens[at].line:
                stop += 1
            found.append((at, _single_literal(tokens, at + 1, stop)
                          or _with_nil_error(tokens, at + 1, stop)))
    if statement_start < end and tokens[statement_start].text not in ("return",) \
            and not any(t.text in ("=", ":=", "let") for t in tokens[statement_start:end]):
        tail = _single_literal(tokens, statement_start, end)
        if tail is not None or tail_returns:
            found.append((statement_start, tail))
    return found


def _cases(path: str, tokens: list[Token], function: _Function, facts: list[Fact],
           outside: list[Table], tail_returns: bool = False) -> list[SpecialCase]:
    found: list[SpecialCase] = []
    start, end = function.body
    tables = function_tables(path, tokens, function.name, function.body,
                             len(function.params), facts, outside)
    found.extend(case for case, _ in tables)
    returns = _returns(tokens, function, tail_returns)
    if not returns or any(value is None for _, value in returns):
        return found  # a general path: branches are base cases
    literal = dict(returns)
    if _decides(tokens, start, end, function.params):
        return found
    # a table's own answers (``case 2: return "two"``) are the table, not constants
    in_branch = {i for i in literal for _, (first, last) in tables if first < i < last}
    for at in range(start, end):
        if tokens[at].text != "if":
            continue
        block, close = _branch(tokens, at, end)
        bound = _bound(tokens[at + 1:block], function.params)
        for fact in facts:
            if bound is None or len(fact.args) != len(function.params) or \
                    bound != dict(zip(function.params, fact.args, strict=True)):
                continue
            answers = [i for i, v in literal.items() if block <= i <= close
                       and v == fact.expected]
            if answers:
                in_branch.update(answers)
                found.append(SpecialCase(path, function.name, tokens[at].line, "input-branch",
                                         fact.inputs, fact))
    expected = {f.expected: f for f in facts}
    for at, value in returns:
        if at not in in_branch and value in expected:
            found.append(SpecialCase(path, function.name, tokens[at].line, "constant",
                                     str(value), expected[str(value)]))
    return found


#: Words and operators that choose an answer by more than equality with fixed values.
_DECIDING = {"for", "while", "switch", "match", "select", "?", "loop"}


def _decides(tokens: list[Token], start: int, end: int, params: list[str]) -> bool:
    """Does the body choose its answer from its inputs other than by equality with fixed
    values (``if (n > 0)``, a loop, a ternary, a ``switch``)? Then its literal returns are
    a computation's answers, not a fake."""
    for at in range(start, end):
        text = tokens[at].text
        if text in _DECIDING:
            return True
        if text == "if":
            block, _ = _branch(tokens, at, end)
            if _bound(tokens[at + 1:block], params) is None:
                return True
    return False


def _branch(tokens: list[Token], at: int, end: int) -> tuple[int, int]:
    """(first, last) token index of the block of the ``if`` at ``at``: braced, or a
    braceless ``if (...) return x;``."""
    depth = 0
    for index in range(at + 1, end):
        text = tokens[index].text
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif depth == 0 and text == "{":
            return index, closing(tokens, index)
        elif depth == 0 and text == "return":
            stop = index
            while stop + 1 < end and tokens[stop + 1].text != ";" \
                    and tokens[stop + 1].line == tokens[index].line:
                stop += 1
            return index, stop
    return end, end


def _bound(condition: list[Token], params: list[str]) -> dict[str, str] | None:
    """The parameter values a condition pins (``a === 2 && b === 3``, ``(a, b) == (2,
    3)``): the parameters and the literals, paired in order; None when the condition
    holds anything else."""
    names: list[str] = []
    values: list[str] = []
    at = 0
    while at < len(condition):
        token = condition[at]
        literal = token_literal(condition, at)
        if literal is not None:
            values.append(literal[0])
            at = literal[1]
            continue
        if token.kind == "word" and token.text in params:
            names.append(token.text)
        elif token.text not in _CONDITION:
            return None
        at += 1
    if not names or len(names) != len(values) or \
            not any(t.text in _COMPARE for t in condition):
        return None
    return dict(zip(names, values, strict=True))
