"""Terminal output: one rich Console per invocation, tables, and machine-readable JSON.

rich drops colour and markup when stdout is not a terminal, so output piped into a file
or a CI log stays plain text.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import IO, Any

    from rich.console import Console


def make_console(stderr: bool = False) -> Console:
    # Imported here: rich costs ~50 ms, which views of a few lines (status, show) skip.
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)  # logs: no hard wraps


def styles_ok(stream: IO[str]) -> bool:
    """Whether ``stream`` takes bold and colour the way rich would give them: a terminal
    that is not dumb, or FORCE_COLOR; never with NO_COLOR."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty() and os.environ.get("TERM", "") != "dumb"


def print_fields(rows: Iterable[tuple[str, str]], stream: IO[str] | None = None) -> None:
    """``key  value`` lines, keys aligned and bold on a terminal; values printed as they
    are (no markup: they come from the repository or an agent)."""
    out = stream or sys.stdout
    rows = list(rows)
    width = max((len(key) for key, _ in rows), default=0)
    bold, plain = ("\x1b[1m", "\x1b[0m") if styles_ok(out) else ("", "")
    out.write("".join(f"{bold}{key:<{width}}{plain}  {value}\n" for key, value in rows))


def print_json(data: Any) -> None:
    """JSON on stdout, without rich in the way (no wrapping, no markup)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def print_json_rows(rows: Iterable[Any]) -> None:
    """A JSON array with one compact row per line: the same data as ``print_json``, but
    written by json's C encoder (``indent`` falls back to pure Python, seconds on
    10,000 rows) and still readable line by line."""
    encode = json.JSONEncoder(ensure_ascii=False, default=str).encode
    lines = ",\n".join("  " + encode(row) for row in rows)
    sys.stdout.write(f"[\n{lines}\n]\n" if lines else "[]\n")


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f}s" if seconds < 10 else f"{seconds:.0f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def money(usd: float | None) -> str:
    return "-" if usd is None else f"${usd:.4f}" if usd < 1 else f"${usd:.2f}"


def short(commit: str | None) -> str:
    return (commit or "")[:8]


def esc(text: object) -> str:
    """Escape text from the repository or an agent before it reaches rich markup."""
    from rich.markup import escape

    return escape(str(text))


def phase_label(phase: object, cycle: object) -> str:
    """How a note's phase is shown: the start marker of a TDD run is noted as the REFACTOR
    of cycle 0 (a green baseline, as if a cycle had just ended), but to a reader it is
    the start, not a refactoring."""
    name = str(phase)
    return "START" if name == "REFACTOR" and cycle == 0 else name
