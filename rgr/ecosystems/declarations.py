"""Declarations' heads in brace languages (JavaScript, TypeScript, Go), read at the
token level as the mutator reads them: comments and the contents of strings are blanked
first, then each top-level declaration is cut where its body starts, so what is shown is
``export function add(a, b)`` or ``func Add(a, b int) int`` and never a body, a value or
a word of a comment."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rgr.ecosystems.tokens import tokens_of

#: A declaration's head longer than this is cut (a prompt line, not a listing).
MAX_HEAD = 200


@dataclass(frozen=True)
class Declaration:
    name: str
    head: str  # the declaration up to its body, whitespace collapsed
    exported: bool
    default: bool = False  # JavaScript's ``export default``
    member_of: str | None = None  # a class's method: the class


def blank(text: str, language: str) -> str:
    """``text`` with comments removed and every string's contents (quotes kept) blanked;
    line breaks stay where they were, so positions by line still hold. ``language`` is
    the tokenizer's (``"js"`` or ``"go"``, rgr.ecosystems.tokens), so a regular-expression
    literal or a Go raw string is read as the mutator reads it."""
    out: list[str] = []
    position = 0
    for token in tokens_of(text, language):
        out.append(_gap(text[position:token.start]))
        if token.kind in ("string", "char"):
            quote = token.text[0]
            out.append(quote + "\n" * token.text.count("\n") + quote)
        else:
            out.append(token.text)
        position = token.end
    out.append(_gap(text[position:]))
    return "".join(out)


def _gap(between: str) -> str:
    """What lies between two tokens: whitespace, or a comment (dropped, its line breaks
    kept)."""
    if between.strip() == "":
        return between
    return "\n" * between.count("\n") or " "


def head_at(text: str, start: int, angles: bool = True) -> str:
    """The declaration starting at ``start`` up to where its body begins: the first
    ``{``, ``;``, line end or ``=`` (a value) outside brackets, or ``=>`` (kept: it says
    "a function"). ``angles``: ``<...>`` are brackets (TypeScript's generics; not Go's
    ``<-chan``)."""
    opening, closing = ("([<", ")]>") if angles else ("([", ")]")
    depth = 0
    i = start
    while i < len(text) and i - start < MAX_HEAD:
        c = text[i]
        if c in opening:
            depth += 1
        elif c in closing and depth > 0 and not text.startswith("=>", i - 1):
            depth -= 1
        elif depth == 0 and text.startswith("=>", i):
            return _tidy(text[start:i + 2])
        elif depth == 0 and (c in "{;" or (c == "=" and text[i + 1:i + 2] != ">")):
            break
        elif depth == 0 and c == "\n":
            break  # a head spans lines only inside its brackets
        i += 1
    return _tidy(text[start:i])


def _tidy(head: str) -> str:
    return " ".join(head.split()).rstrip(" :")


def depths(text: str) -> list[int]:
    """The brace depth at the start of each line of blanked ``text``."""
    out: list[int] = []
    depth = 0
    for line in text.split("\n"):
        out.append(depth)
        depth = max(0, depth + line.count("{") - line.count("}"))
    return out


def line_starts(text: str) -> list[int]:
    starts = [0]
    starts += [m.end() for m in re.finditer("\n", text)]
    return starts
