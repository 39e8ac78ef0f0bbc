"""Rust's test code inside its source files: the ``#[cfg(test)]`` items, read on the
tokens (rgr.ecosystems.tokens). The mutator mutates none of their lines; the cheat
idioms count a ``#[cfg(test)] mod`` as test code."""

from __future__ import annotations

from rgr.ecosystems.tokens import Token


def test_lines(tokens: list[Token], texts: list[str], modules_only: bool = False) -> set[int]:
    """The lines of Rust's ``#[cfg(test)]`` items: code compiled only for the test run.
    ``modules_only``: only a ``#[cfg(test)] mod`` (the honest home of tests), not a
    function or constant that exists only when tests run."""
    found: set[int] = set()
    for index, token in enumerate(tokens):
        if token.text == "#" and texts[token.line - 1].strip().startswith("#[cfg(test)]") \
                and (not modules_only or _attributes_a_module(tokens, index)):
            found |= _item_lines(tokens, index)
    return found


def _attributes_a_module(tokens: list[Token], index: int) -> bool:
    """Whether the attribute starting at ``index`` (``#``) stands on a ``mod`` item."""
    position = index
    while position < len(tokens) and tokens[position].text != "]":
        position += 1
    words = [t.text for t in tokens[position + 1:position + 6]]
    while words and words[0] in ("pub", "(", "crate", "super", ")"):
        words.pop(0)
    return bool(words) and words[0] == "mod"


def _item_lines(tokens: list[Token], index: int) -> set[int]:
    """The lines from the token at ``index`` to the end of the first braced block after
    it (an attribute's item)."""
    depth, started = 0, False
    for token in tokens[index:]:
        if token.text == "{":
            depth += 1
            started = True
        elif token.text == "}":
            depth -= 1
            if started and depth == 0:
                return set(range(tokens[index].line, token.line + 1))
    return set(range(tokens[index].line, tokens[-1].line + 1))
