"""Ruby's statement-shaped mutants and probes (``MutationSyntax.statement_mutants``,
``MutationSyntax.guarded_statement``), read from its tokens:

* a statement guarded by a trailing ``if``/``unless`` (``return -1 if text ==
  "forever"``) runs only when its condition holds, though its line runs on every call:
  a probe put before the line says only that the condition was evaluated. The probe
  goes inside the statement instead (``(exit!(70); return -1) if ...``), so an unrun
  branch on a line the tests run is told from a run one;
* an early return removed (``statement``, go-mutesting's ``branch/if`` as Go has it in
  rgr.check.mutation.blocks): a ``return`` guarded by a trailing ``if``/``unless``, or
  the one statement of an ``if``/``unless`` block, is removed, so the code after it
  runs instead. Without it a branch no test runs whose value has no mutant of its own
  (``return "" if digits < 0``, a bare ``return if name.nil?``) has nothing to survive;
  the mutator offers it only where no other mutant stands in the returned value;
* a read of a hash made with a default (``@counts = Hash.new 0``, ``Hash.new { ... }``)
  answers the default for a key never stored with no code of its own (``@counts[name]``):
  the read made a ``fetch`` (``constant``), which raises where the default was answered.
  Tests that never read a missing key let it survive: the default answered there is
  unchecked (as Python's ``counts.get(name, 0)`` gets its ``0`` -> ``1``, Go's map read
  its guard).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from rgr.ecosystems.tokens import Token

__all__ = ["guarded_statement", "statement_mutants"]

_MODIFIERS = ("if", "unless")
#: Words after which an ``if`` starts an expression, not a modifier.
_STARTS_EXPRESSION = {"and", "or", "not", "then", "else", "elsif", "do", "when", "in",
                      "begin", "puts", "p", "print", "yield"}
#: Operators after an index that make it written, not read.
_WRITES = {"=", "+=", "-=", "*=", "/=", "%=", "**=", "||=", "&&=", "|=", "&=", "^=",
           "<<=", ">>="}
_PLAIN = {"word", "number", "string"}
#: (operator, start, end, replacement, (value start, value end)): offsets in the source;
#: the mutant is left out where another stands in the value's span.
StatementMutant = tuple[str, int, int, str, tuple[int, int]]


def _lines(tokens: list[Token]) -> dict[int, list[int]]:
    """Each line -> the indexes of the tokens starting on it."""
    found: dict[int, list[int]] = {}
    for index, token in enumerate(tokens):
        found.setdefault(token.line, []).append(index)
    return found


def _modifier(tokens: list[Token], on_line: list[int]) -> int | None:
    """The index of the trailing ``if``/``unless`` of the statement the line's tokens
    make, outside any bracket, or None."""
    depth = 0
    for position, index in enumerate(on_line):
        token = tokens[index]
        if token.text in ("(", "[", "{"):
            depth += 1
        elif token.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and position > 0 and token.kind == "word" \
                and token.text in _MODIFIERS:
            before = tokens[on_line[position - 1]]
            if before.kind in ("number", "string") or before.text in (")", "]", "}") \
                    or _suffix(before) or (before.kind == "word"
                                           and before.text not in _STARTS_EXPRESSION):
                return index
    return None


def _suffix(token: Token) -> bool:
    """Whether ``token`` is a method name's ``?`` or ``!`` (``name.nil?``), no
    operator."""
    return token.text in ("?", "!") and not token.space_before


def _starts_statement(tokens: list[Token], first: int) -> bool:
    """Whether the token at ``first`` (a line's first) starts a statement: the line
    before does not end open (an operator, a comma, a ``(``)."""
    if first == 0:
        return True
    before = tokens[first - 1]
    return _suffix(before) or not (before.kind == "op"
                                   or before.text in (",", "(", "[", "{", "\\", "."))


def guarded_statement(tokens: list[Token], line: int, offset: int
                      ) -> tuple[int, int, int] | None:
    """(start, end, modifier start) of the statement guarded by a trailing
    ``if``/``unless`` on ``line`` when ``offset`` lies in that statement, else None."""
    on_line = _lines(tokens).get(line, [])
    if not on_line or not _starts_statement(tokens, on_line[0]):
        return None
    modifier = _modifier(tokens, on_line)
    if modifier is None:
        return None
    start, end = tokens[on_line[0]].start, tokens[modifier - 1].end
    if not start <= offset < end:
        return None
    return start, end, tokens[modifier].start


def statement_mutants(tokens: list[Token], source: str, lines: Collection[int]
                      ) -> Iterator[StatementMutant]:
    """The early returns removed and the defaulted hashes' reads made ``fetch`` on
    ``lines``."""
    yield from _early_returns(tokens, lines)
    yield from _default_reads(tokens, source, lines)


def _early_returns(tokens: list[Token], lines: Collection[int]
                   ) -> Iterator[StatementMutant]:
    by_line = _lines(tokens)
    for line in sorted(lines):
        on_line = by_line.get(line, [])
        if not on_line or tokens[on_line[0]].text != "return" \
                or not _starts_statement(tokens, on_line[0]):
            continue
        first = tokens[on_line[0]]
        modifier = _modifier(tokens, on_line)
        last = tokens[on_line[-1]]
        if modifier is not None:  # return x if c: the whole statement goes
            yield "statement", first.start, last.end, "", \
                (first.end, tokens[modifier - 1].end)
            continue
        # the one statement of an if/unless block standing on its own lines
        opener = by_line.get(tokens[on_line[0] - 1].line, []) if on_line[0] else []
        closer = on_line[-1] + 1
        if opener and tokens[opener[0]].text in _MODIFIERS \
                and tokens[on_line[0] - 1].line < line \
                and closer < len(tokens) and tokens[closer].text == "end" \
                and tokens[closer].line > line:
            yield "statement", first.start, last.end, "", (first.end, last.end)


def _defaulted_hashes(tokens: list[Token]) -> set[str]:
    """The names (``@counts``, ``counts``) given (``=``, ``||=``) a ``Hash.new`` with a
    default: an argument or a block on its line."""
    names: set[str] = set()
    for index in range(len(tokens) - 3):
        if [t.text for t in tokens[index:index + 3]] != ["Hash", ".", "new"]:
            continue
        after = tokens[index + 3]
        if after.line != tokens[index].line or after.text in (")", "]", "}", ",") \
                or after.kind == "op" or after.text in ("if", "unless", "end"):
            continue
        if after.text == "(" and index + 4 < len(tokens) \
                and tokens[index + 4].text == ")":
            continue  # Hash.new(): no default
        if index >= 2 and tokens[index - 1].text in ("=", "||=") \
                and tokens[index - 2].kind == "word":
            names.add(_held(tokens, index - 2)[1])
    return names


def _held(tokens: list[Token], name: int) -> tuple[int, str]:
    """(index of its first token, text) of the variable whose name is at ``name``, its
    sigils glued before it (``@counts``, ``@@counts``, ``$counts``)."""
    at = name
    while at >= 1 and tokens[at - 1].text in ("@", "$") and not tokens[at].space_before:
        at -= 1
    return at, "".join(t.text for t in tokens[at:name + 1])


def _default_reads(tokens: list[Token], source: str, lines: Collection[int]
                   ) -> Iterator[StatementMutant]:
    hashes = _defaulted_hashes(tokens)
    for index, token in enumerate(tokens):
        if token.text != "[" or token.space_before or token.line not in lines \
                or index == 0 or tokens[index - 1].kind != "word":
            continue
        at, held = _held(tokens, index - 1)
        if at >= 1 and tokens[at - 1].text == "." and not tokens[at].space_before:
            continue  # a method's result, not the name
        if held not in hashes:
            continue
        close = index + 1
        while close < len(tokens) and tokens[close].text != "]" \
                and tokens[close].line == token.line \
                and (tokens[close].kind in _PLAIN or tokens[close].text in (".", "@")):
            close += 1
        if close >= len(tokens) or tokens[close].text != "]" or close == index + 1:
            continue
        after = tokens[close + 1] if close + 1 < len(tokens) else None
        if after is not None and after.line == token.line and after.text in _WRITES:
            continue
        key = source[tokens[index + 1].start:tokens[close - 1].end]
        yield "constant", tokens[at].start, tokens[close].end, \
            f"{held}.fetch({key})", (tokens[close].end, tokens[close].end)
