"""One fact a test states (``add(2, 3) == 5``) and the literal values both sides of it are
read as, shared by the readers of the tests (rgr.check.fakeit.facts,
rgr.check.fakeit.token_flow, a language's own: rgr.ecosystems.python.facts) and of the
code (rgr.check.fakeit.tokens, tables, rgr.ecosystems.python.special_cases). Here, below
the checks, so that a language's own reader (``Language.fakeit_tree``) can make them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rgr.ecosystems.tokens import Token

__all__ = ["FUNCTION", "KEY_SEPARATORS", "Fact", "array_parts", "is_callback", "token_literal"]


@dataclass(frozen=True)
class Fact:
    """One assert of a test: ``callee(*args) == expected``."""

    callee: str
    args: tuple[str, ...]
    expected: str
    test: str  # path::name (Python) or path:line (tokens)
    #: Python's keyword arguments (``percent(0.125, digits=1)``): (name, value) each, in
    #: the call's order; the reader of the code fills them (and the defaults) into the
    #: function's parameters before matching a key
    #: (rgr.ecosystems.python.special_cases).
    keywords: tuple[tuple[str, str], ...] = ()
    #: The calls the test made on the same object before this one (``tally.add("a")``
    #: before ``tally.count("a")``): (method, arguments) each, in order. The object's
    #: state comes from them, so they are this call's inputs too (rgr.check.fakeit.tables).
    before: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def inputs(self) -> str:
        """The arguments as one value: ``2`` for one, ``(2, 3)`` for several."""
        return self.args[0] if len(self.args) == 1 else f"({', '.join(self.args)})"


#: Words that are literals in JavaScript, Go and Rust.
_LITERAL_WORDS = {"true", "false", "null", "undefined", "nil", "None"}
#: How code joins several values into one key (JavaScript's ``[a, b]`` as a key is
#: ``"2,3"``; Python's ``",".join(names)``).
KEY_SEPARATORS = (",", ", ", ":", "|", "_", "-", "/", " ")
#: What a fact holds for a function the test passes written in place (an arrow, a
#: function expression): a function, whatever its body.
FUNCTION = "function"
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def is_callback(text: str) -> bool:
    """Whether an argument of a fact is a function the test passes (``size_of``, a
    function its file defines, by name; FUNCTION for one written in place) rather than a
    value: the code calls it, a table of answers is keyed by the values beside it."""
    return _NAME.fullmatch(text) is not None \
        and text not in _LITERAL_WORDS | {"True", "False", "inf", "nan"}


def array_parts(text: str) -> tuple[str, ...] | None:
    """The parts of an argument that is an array of literals (``["a", "bb"]``, as the
    token reader writes one; Python's ``['a', 'bb']`` is read by its AST), each part's
    text; None for any other argument."""
    if len(text) < 2 or text[0] != "[" or text[-1] != "]":
        return None
    parts: list[str] = []
    depth, quoted, first = 0, False, 1
    for at, char in enumerate(text[1:-1], start=1):
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[first:at].strip())
            first = at + 1
    last = text[first:-1].strip()
    return (*parts, last) if last or parts else ()


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
