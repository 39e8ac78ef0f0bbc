"""Rust's calls whose arguments the mutator leaves alone (rgr.check.mutation.arid.ARID):
a message macro's (``panic!``, ``println!``, the log crate's), an assert macro's strings,
``expect``'s message, the strings of an ``Err(...)``."""

from __future__ import annotations

from rgr.ecosystems.tokens import Token

#: Macros whose arguments are only a message (format string and its values).
MESSAGE_MACROS = frozenset({
    "panic", "unreachable", "todo", "unimplemented", "println", "eprintln", "print",
    "eprint", "trace", "debug", "info", "warn", "error"})
#: Macros whose strings are a failure message (their conditions are behaviour).
ASSERT_MACROS = frozenset({
    "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq",
    "debug_assert_ne"})


def call_kind(tokens: list[Token], paren: int, name: str, receiver: str) -> str | None:
    if name == "!" and paren >= 2:  # a macro
        macro = tokens[paren - 2].text
        if macro in MESSAGE_MACROS:
            return "all"
        return "strings" if macro in ASSERT_MACROS else None
    if name == "expect" and receiver:
        return "all"
    return "strings" if name == "Err" else None
