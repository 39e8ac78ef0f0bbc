"""Token-level mutants that need a statement's shape, not one token (for
rgr.check.mutation.textual), each turned on per language by its ``MutationSyntax``:

* an early return removed (``statement``): an ``if`` block whose one statement is a
  ``return`` that no other operator mutates (``return ""``, ``return nil``, ``return
  lo``) is emptied, so the code after the block runs instead (go-mutesting's
  ``branch/if``, narrowed to the block that always builds: an ``if`` with no ``else``
  never ends a function; in Rust, ``return String::new();``, ``return Ok(());``, what
  cargo-mutants' ``FnValue`` reaches by replacing a function's body with its type's
  default). Without it a branch no test runs has nothing to survive and
  GREEN's over-implementation goes unseen; where the return has a mutant of its own,
  that one already does the work (and costs no extra run);
* a map's missing key made to panic (``constant``): a read ``m[k]`` whose map answers
  the zero value for a key never stored, written with no code of its own (Go's
  ``return t.counts[name]``), gets a guard before its statement that panics when the
  key is missing. The tests that never read a missing key let it survive: the zero
  value answered there is unchecked (as Python's ``counts.get(name, 0)`` gets its
  ``0`` → ``1``). Only where the map and the key are plain names, fields and
  literals (no call evaluated twice); an index of a slice or a string does not build
  with the guard (``unviable``, never killed).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from rgr.ecosystems.tokens import Token

__all__ = ["early_returns", "missing_keys"]

_IF_OPENS = re.compile(r"^\s*(?:\}\s*else\s+)?if\s.*\{\s*$")
_RETURN = re.compile(r"^(\s*)(return\b.*?)\s*$")
#: Tokens an index expression's map or key may hold: no call, no literal block.
_PLAIN = {"word", "number", "string", "char"}
#: Words that start no value (a type or a statement).
_KEYWORDS = {"map", "chan", "func", "struct", "interface", "range", "return", "defer",
             "if", "for", "switch", "case", "var", "const", "type", "else", "select"}
#: A name declared a map: a field, a parameter or a variable of a map type, or one
#: given a map literal or ``make(map[...])``.
_MAP_DECLARED = re.compile(r"\b(\w+)\s*(?::=|=|\s)\s*(?:make\(\s*)?map\[")
#: What after an index expression makes it written, not read.
_WRITTEN = {"=", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++",
            "--", "&^="}


def early_returns(texts: list[str], lines: Collection[int]
                  ) -> Iterator[tuple[int, int, int, str]]:
    """(line, begin, end, replacement) with ``begin``/``end`` in the line's text: each
    changed line that is the only statement of an ``if`` block, ``return ...``, its
    block standing on its own lines (``if c {``, the return, ``}``), removed."""
    for line in sorted(lines):
        if not 1 < line < len(texts):
            continue
        code = texts[line - 1].split("//", 1)[0]
        match = _RETURN.match(code)
        before = _code_near(texts, line, -1)
        after = _code_near(texts, line, 1)
        if match and before is not None and _IF_OPENS.match(before) and after == "}":
            yield line, match.start(2), match.end(2), ""


def _code_near(texts: list[str], line: int, step: int) -> str | None:
    """The code of the nearest line with code before (``step`` -1) or after (1)
    ``line``, its comment left out."""
    at = line - 1 + step
    while 0 <= at < len(texts):
        code = texts[at].split("//", 1)[0].strip()
        if code:
            return code
        at += step
    return None


def missing_keys(tokens: list[Token], lines: Collection[int], guard: str, source: str = ""
                 ) -> Iterator[tuple[int, int, int]]:
    """(token index of the map's first token, of the ``[``, of the ``]``) of each read
    ``m[k]`` on ``lines`` that the language's ``guard`` can check: the map a chain of
    names (``t.counts``) whose last name ``source`` declares a map (``counts
    map[string]int``, ``m := map[...]``, ``make(map[...])``: a slice's index would only
    cost an unviable build), the key plain names and literals, the read not written to
    nor the value of a two-value assignment (``v, ok := m[k]``)."""
    if not guard:
        return
    maps = set(_MAP_DECLARED.findall(source))
    for index, token in enumerate(tokens):
        if token.text != "[" or token.line not in lines or index == 0:
            continue
        if tokens[index - 1].text not in maps:
            continue
        first = _chain_start(tokens, index - 1)
        close = _closing(tokens, index)
        if first is None or close is None or close == index + 1:
            continue
        key = tokens[index + 1:close]
        if any(t.kind not in _PLAIN and t.text != "." for t in key) \
                or any(t.kind == "word" and t.text in _KEYWORDS for t in key):
            continue
        after = tokens[close + 1] if close + 1 < len(tokens) else None
        if after is not None and (after.text in _WRITTEN or after.text in ("[", "(", ":")):
            continue
        if _two_values(tokens, first):
            continue
        yield first, index, close


def _chain_start(tokens: list[Token], at: int) -> int | None:
    """The first token of the chain of names ending at ``at`` (``t.counts``), or None
    when what stands there is no such chain (a call, a type, a literal)."""
    if tokens[at].kind != "word" or tokens[at].text in _KEYWORDS:
        return None
    while at >= 2 and tokens[at - 1].text == "." and tokens[at - 2].kind == "word" \
            and tokens[at - 2].text not in _KEYWORDS:
        at -= 2
    if at >= 1 and tokens[at - 1].text in (".", "]", ")", "}"):
        return None  # the chain goes on through a call, an index or a literal
    return at


def _closing(tokens: list[Token], index: int) -> int | None:
    depth = 0
    for position in range(index, len(tokens)):
        word = tokens[position].text
        depth += word in ("(", "[", "{")
        depth -= word in (")", "]", "}")
        if depth == 0:
            return position
        if tokens[position].line != tokens[index].line:
            return None
    return None


def _two_values(tokens: list[Token], first: int) -> bool:
    """Whether the read at ``first`` is the value of an assignment to two names on its
    line (``v, ok := m[k]``, ``v, ok = m[k]``): the comma-ok form, no zero value."""
    if first == 0 or tokens[first - 1].text not in ("=", ":="):
        return False
    line = tokens[first].line
    at = first - 2
    while at >= 0 and tokens[at].line == line:
        if tokens[at].text == ",":
            return True
        at -= 1
    return False
