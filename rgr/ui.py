"""Terminal output: one rich Console per invocation, tables, and machine-readable JSON.

rich drops colour and markup when stdout is not a terminal, so output piped into a file
or a CI log stays plain text.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape


def make_console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=True)  # logs: no hard wraps


def print_json(data: Any) -> None:
    """JSON on stdout, without rich in the way (no wrapping, no markup)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def short(commit: str | None) -> str:
    return (commit or "")[:8]


def esc(text: object) -> str:
    """Escape text from the repository or an agent before it reaches rich markup."""
    return escape(str(text))


def phase_label(phase: object, cycle: object) -> str:
    """How a note's phase is shown: the start marker of a TDD run is noted as the REFACTOR
    of cycle 0 (a green baseline, as if a cycle had just ended), but to a reader it is
    the start, not a refactoring."""
    name = str(phase)
    return "START" if name == "REFACTOR" and cycle == 0 else name
