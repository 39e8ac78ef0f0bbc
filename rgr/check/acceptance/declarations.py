"""Declarations' heads in brace languages (JavaScript, TypeScript, Go), read at the
token level as the mutator reads them: comments and the contents of strings are blanked
first, then each top-level declaration is cut where its body starts, so what is shown is
``export function add(a, b)`` or ``func Add(a, b int) int`` and never a body, a value or
a word of a comment."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A declaration's head longer than this is cut (a prompt line, not a listing).
MAX_HEAD = 200


@dataclass(frozen=True)
class Declaration:
    name: str
    head: str  # the declaration up to its body, whitespace collapsed
    exported: bool
    default: bool = False  # JavaScript's ``export default``
    member_of: str | None = None  # a class's method: the class


def blank(text: str) -> str:
    """``text`` with comments removed and every string's contents (quotes kept) blanked;
    line breaks stay where they were, so positions by line still hold."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            stop = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, stop))
            i = stop
        elif c in "'\"`":
            j = i + 1
            while j < n and text[j] != c and not (c != "`" and text[j] == "\n"):
                j += 2 if text[j] == "\\" else 1
            out.append(c + "\n" * text.count("\n", i + 1, min(j, n)) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


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
