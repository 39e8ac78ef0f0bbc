"""Rust's ways of writing a literal value, as fake-it reads a function
(rgr.check.fakeit.tokens, ``MutationSyntax.fakeit_tokens``): a literal converted or
wrapped without computing anything is that literal. ``"hello".to_string()``,
``"hello".to_owned()``, ``"hello".into()``, ``String::from("hello")``, ``format!("hello")``
(no argument, no placeholder) all return ``"hello"``; ``Ok(90)`` and ``Some(90)`` are
what a test's ``f(x).unwrap()`` compares (as Go's ``return 90, nil``). The tokens are
given back with those conversions dropped, every other token and every line kept."""

from __future__ import annotations

from rgr.ecosystems.tokens import Token

#: Methods of a literal that give the same value in another type.
_CONVERSIONS = frozenset({"to_string", "to_owned", "into", "to_vec", "clone"})
#: Calls of one literal that give it in another type, or wrapped for ``unwrap``.
_WRAPPERS = frozenset({"from", "Ok", "Some"})
_LITERAL_WORDS = frozenset({"true", "false"})


def _literal_end(tokens: list[Token], at: int) -> int | None:
    """The index after the literal at ``at`` (a string, char, number, ``-`` number,
    ``true``/``false``), or None."""
    token = tokens[at]
    if token.kind in ("string", "char", "number") or (
            token.kind == "word" and token.text in _LITERAL_WORDS):
        return at + 1
    if token.text == "-" and at + 1 < len(tokens) and tokens[at + 1].kind == "number":
        return at + 2
    return None


def _texts(tokens: list[Token], at: int, count: int) -> list[str]:
    return [t.text for t in tokens[at:at + count]]


def _wrapped(tokens: list[Token], at: int) -> tuple[int, int, int] | None:
    """(first, after) of the literal inside a wrapper call starting at ``at``
    (``String::from(`` / ``Ok(`` / ``Some(`` / ``format!(``), and the call's ``)``."""
    token = tokens[at]
    if token.kind != "word":
        return None
    if token.text == "format" and _texts(tokens, at + 1, 2) == ["!", "("]:
        first = at + 3
        end = _literal_end(tokens, first) if first < len(tokens) else None
        if end is None or tokens[first].kind != "string" or "{" in tokens[first].text:
            return None
    elif token.text in _WRAPPERS and _texts(tokens, at + 1, 1) == ["("] and (
            token.text != "from" or (at >= 2 and _texts(tokens, at - 2, 2) == ["String", "::"])):
        first = at + 2
        end = _literal_end(tokens, first) if first < len(tokens) else None
        if end is None:
            return None
    else:
        return None
    close = _converted(tokens, end)  # Ok("a".into())
    if close >= len(tokens) or tokens[close].text != ")":
        return None
    return first, end, close


def _converted(tokens: list[Token], at: int) -> int:
    """Past the conversions (``.to_string()``, ``.into()``) following ``at``."""
    while _texts(tokens, at, 4)[:1] == ["."] and len(_texts(tokens, at, 4)) == 4 \
            and tokens[at + 1].text in _CONVERSIONS and _texts(tokens, at + 2, 2) == ["(", ")"]:
        at += 4
    return at


def plain_values(tokens: list[Token]) -> list[Token]:
    """``tokens`` with each converted or wrapped literal written as the literal alone."""
    out: list[Token] = []
    at = 0
    while at < len(tokens):
        wrapped = _wrapped(tokens, at)
        if wrapped is not None:
            first, end, close = wrapped
            if tokens[at].text == "from":
                del out[-2:]  # String::from: the type's name goes with the call
            out.extend(tokens[first:end])
            at = _converted(tokens, close + 1)
            continue
        after = _literal_end(tokens, at)
        if after is not None:
            out.extend(tokens[at:after])
            at = _converted(tokens, after)
            continue
        out.append(tokens[at])
        at += 1
    return out
