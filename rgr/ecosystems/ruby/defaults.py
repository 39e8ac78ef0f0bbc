"""Ruby's tokens the mutator leaves alone (``MutationSyntax.arid``): the default value of
a parameter its method never reads (``def add name, times = 1`` with a body that never
names ``times``). Changed, no call can tell (a caller that passes it overrides it, one
that does not sees nothing read), as Python's rule (rgr.ecosystems.python.mutants) says: a
survivor there would blame RED for a test no test can be.

The body read is everything after the ``def`` line up to the next ``def`` (more than the
method, never less: a name read anywhere there counts as read). A bare ``super`` passes
every parameter on, ``binding`` and ``local_variables`` read them by name: read, all."""

from __future__ import annotations

from rgr.ecosystems.tokens import Token

_READS_ALL = frozenset({"super", "binding", "local_variables", "eval"})


def _parameters(tokens: list[Token], at: int) -> tuple[list[tuple[str, list[int]]], int]:
    """Each parameter of the ``def`` at ``at`` with its default's token indexes, and the
    index where the body starts."""
    line = tokens[at].line
    index = at + 1
    if [t.text for t in tokens[index:index + 2]] == ["self", "."]:
        index += 2
    index += 1  # the name
    while index < len(tokens) and tokens[index].text in ("?", "!") \
            and not tokens[index].space_before:
        index += 1
    parenthesised = index < len(tokens) and tokens[index].text == "("
    if parenthesised:
        index += 1
    params: list[tuple[str, list[int]]] = []
    depth = 0
    name, in_default = "", False
    default: list[int] = []
    while index < len(tokens):
        token = tokens[index]
        if not parenthesised and token.line != line:
            break
        if token.text in ("(", "[", "{"):
            depth += 1
        elif token.text in (")", "]", "}"):
            if depth == 0:  # the parameters' own ``)``
                index += 1
                break
            depth -= 1
        if depth == 0 and token.text == ",":
            params.append((name, default))
            name, default, in_default = "", [], False
        elif depth == 0 and token.text in ("=", ":") and not in_default and name:
            in_default = True
        elif in_default:
            default.append(index)
        elif token.kind == "word" and not name:
            name = token.text
        index += 1
    if name:
        params.append((name, default))
    return params, index


def unread_defaults(tokens: list[Token]) -> dict[int, str]:
    """index -> ``all`` for each token of a default no line of its method reads."""
    found: dict[int, str] = {}
    starts = [i for i, t in enumerate(tokens) if t.kind == "word" and t.text == "def"]
    for number, at in enumerate(starts):
        params, body = _parameters(tokens, at)
        end = starts[number + 1] if number + 1 < len(starts) else len(tokens)
        read = {t.text for t in tokens[body:end] if t.kind == "word"}
        if read & _READS_ALL:
            continue
        for name, default in params:
            if default and name not in read:
                found.update(dict.fromkeys(default, "all"))
    return found
