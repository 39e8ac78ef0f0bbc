"""Go's calls whose arguments the mutator leaves alone (rgr.check.mutation.arid.ARID):
an error's message (``errors.New``, ``fmt.Errorf``, ``panic``) and a print call
(``print``, ``fmt.Print*``)."""

from __future__ import annotations

from rgr.ecosystems.tokens import Token

#: Calls whose arguments are an error's message.
ERROR_CALLS = frozenset({"errors.New", "fmt.Errorf", "panic"})
#: Plain print calls, to stdout.
PRINT_CALLS = frozenset({"print", "fmt.Print", "fmt.Printf", "fmt.Println"})


def call_kind(tokens: list[Token], paren: int, name: str, receiver: str) -> str | None:
    dotted = f"{receiver}.{name}" if receiver else name
    return "all" if dotted in ERROR_CALLS or dotted in PRINT_CALLS else None
