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
from dataclasses import dataclass, replace

from rgr.check.fakeit.tables import Table, closing, function_tables, module_tables
from rgr.check.mutation.textual import Token, tokens_of
from rgr.ecosystems import registry
from rgr.ecosystems.fact import Fact, token_literal
from rgr.ecosystems.special_case import SpecialCase

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
    params_at: int | None = None  # the token index of its parameters' ``(``


def token_cases(path: str, source: str, language: str, lines: Collection[int] | None,
                facts: Sequence[Fact]) -> list[SpecialCase]:
    tokens = tokens_of(source, language)
    if language in _BRACED:
        tokens = _BRACED[language](tokens)
    found: list[SpecialCase] = []
    outside: dict[int, list[Table]] = {}  # by nesting depth: module-level tables
    functions = _functions(tokens, typed_first=language in _TYPED_FIRST)
    facts = _with_state_filled(facts, {f.name: _slots(tokens, f) for f in functions})
    for function in functions:
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
        plain = [f for f in mine if not f.keywords]
        cases = _cases(path, tokens, function, plain, outside[arity],
                       language in _TAIL_RETURNS)
        slots = _slots(tokens, function)
        if slots is not None:  # defaults and options objects filled in (``_filled``)
            filled = [f for f in (_filled(fact, slots) for fact in mine) if f is not None]
            if len(slots) not in outside:
                outside[len(slots)] = module_tables(tokens, len(slots))
            seen = {(c.line, c.kind) for c in cases}
            cases += [case for case, _ in function_tables(
                path, tokens, function.name, function.body, [s.name for s in slots], filled,
                outside[len(slots)]) if (case.line, case.kind) not in seen]
        found.extend(cases)
    return found


def function_lines(source: str, language: str) -> list[tuple[str, tuple[int, int]]]:
    """Each function fake-it reads in ``source``, by name, with its body's first and
    last line (rgr.check.fakeit.blame)."""
    tokens = tokens_of(source, language)
    if language in _BRACED:
        tokens = _BRACED[language](tokens)
    return [(f.name, (tokens[f.body[0]].line, tokens[f.body[1]].line))
            for f in _functions(tokens, typed_first=language in _TYPED_FIRST)]


def _with_state_filled(facts: Sequence[Fact], slots: dict[str, list[_Slot] | None]
                       ) -> list[Fact]:
    """``facts`` whose earlier calls (``Fact.before``) have their defaults filled in
    from the methods they call (``add("a")`` of ``add (name, times = 1)`` is ``add("a",
    1)``): the state those calls leave is made of every value they pass."""
    out: list[Fact] = []
    for fact in facts:
        if not fact.before:
            out.append(fact)
            continue
        before = []
        for method, args in fact.before:
            method_slots = slots.get(method)
            called = _filled(Fact(method, args, "", ""), method_slots) \
                if method_slots is not None else None
            before.append((method, called.args if called is not None else args))
        out.append(replace(fact, before=tuple(before)))
    return out


@dataclass(frozen=True)
class _Slot:
    """One value a JavaScript function receives: a parameter, or a field of an options
    object it destructures (``{ digits = 0 } = {}``), with its literal default."""

    name: str
    position: int
    field: bool
    default: str | None


def _slots(tokens: list[Token], function: _Function) -> list[_Slot] | None:
    """The values ``function`` receives, when it has a default or an options object
    (else None: its parameters are its inputs as they are); None too when one is written
    another way (``...rest``, ``[a, b]``)."""
    opening = function.params_at
    if opening is None:
        return None
    close = closing(tokens, opening)
    slots: list[_Slot] = []
    for position, (first, last) in enumerate(_parts(tokens, opening + 1, close)):
        if tokens[first].text == "{":
            inner = closing(tokens, first)
            if inner >= last or not (inner + 1 == last or (
                    tokens[inner + 1].text == "=" and inner + 2 < last
                    and tokens[inner + 2].text == "{"
                    and closing(tokens, inner + 2) + 1 == last)):
                return None
            for a, b in _parts(tokens, first + 1, inner):
                slot = _slot(tokens, a, b, position, field=True)
                if slot is None:
                    return None
                slots.append(slot)
            continue
        slot = _slot(tokens, first, last, position, field=False)
        if slot is None:
            return None
        slots.append(slot)
    if not any(s.field or s.default is not None for s in slots):
        return None
    return slots


def _slot(tokens: list[Token], first: int, last: int, position: int, field: bool
          ) -> _Slot | None:
    """``name`` or ``name = literal`` (a TypeScript ``name: type`` too)."""
    if first >= last or tokens[first].kind != "word":
        return None
    equals = next((i for i in range(first, last) if tokens[i].text == "="), None)
    if equals is None:
        return _Slot(tokens[first].text, position, field, None)
    literal = token_literal(tokens, equals + 1) if equals + 1 < last else None
    if literal is None or literal[1] != last:
        return None
    return _Slot(tokens[first].text, position, field, literal[0])


def _parts(tokens: list[Token], start: int, end: int) -> list[tuple[int, int]]:
    """The top-level, comma-separated parts of ``tokens[start:end]``."""
    parts, first, at = [], start, start
    while at < end:
        if tokens[at].text in ("(", "[", "{"):
            at = closing(tokens, at) + 1
            continue
        if tokens[at].text == ",":
            parts.append((first, at))
            first = at + 1
        at += 1
    if first < end:
        parts.append((first, end))
    return parts


def _filled(fact: Fact, slots: list[_Slot]) -> Fact | None:
    """``fact`` with every slot's value: the call's argument, a field of the options
    object it passed (``fact.keywords``, the object standing after the positional
    arguments), or the slot's default (``percent(0.5)`` is ``(0.5, 0, false)`` of
    ``percent (ratio, { digits = 0, sign = false } = {})``); None when one has none."""
    given = dict(fact.keywords)
    fields = {s.name for s in slots if s.field and s.position == len(fact.args)}
    if set(given) - fields:
        return None
    values: list[str] = []
    for slot in slots:
        if not slot.field:
            value = fact.args[slot.position] if slot.position < len(fact.args) \
                else slot.default
        elif slot.position < len(fact.args):
            return None  # a literal where the function takes an object
        else:
            value = given.get(slot.name, slot.default)
        if value is None:
            return None
        values.append(value)
    return Fact(fact.callee, tuple(values), fact.expected, fact.test)


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
    opening, at = at, close + 1
    while at < len(tokens) and tokens[at].text not in ("{", "=>", ";"):
        at += 1  # a return type
    if at < len(tokens) and tokens[at].text == "=>":
        at += 1
        if at < len(tokens) and tokens[at].text != "{":
            end = at
            while end + 1 < len(tokens) and tokens[end + 1].text not in (";",) \
                    and tokens[end + 1].line == tokens[at].line:
                end += 1
            return _Function(tokens[name_at].text, params, (at, end), braced=False,
                             params_at=opening)
    if at >= len(tokens) or tokens[at].text != "{":
        return None
    return _Function(tokens[name_at].text, params, (at, closing(tokens, at)), braced=True,
                     params_at=opening)


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
                             function.params, facts, outside)
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
    # a call with no argument is keyed by the calls before it only: a table's key
    expected = {f.expected: f for f in facts if f.args}
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
