"""JavaScript's calls whose arguments the mutator leaves alone
(rgr.check.mutation.arid.ARID): a new or thrown error's message, and the strings of an
``assert``."""

from __future__ import annotations

from rgr.ecosystems.tokens import Token


def call_kind(tokens: list[Token], paren: int, name: str, receiver: str) -> str | None:
    before = tokens[paren - 2].text if paren >= 2 else ""
    if before in ("new", "throw") and name.endswith(("Error", "Exception")):
        return "all"
    return "strings" if name == "assert" or receiver == "assert" else None
