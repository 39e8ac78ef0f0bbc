"""``rgr history``'s table: the newest handoffs on the branch (read by
rgr.store.history.newest), drawn with nothing but the standard library.

The table is what a person runs every few seconds, so it costs what it shows: ``git
log`` reads the newest ``N + 1`` commits with their notes (more only when commits
without a note are in between), whatever the repository holds. ``rgr history`` and
``rgr history --limit N`` are answered with it before click, pygit2, pydantic or rich
are imported (``rgr.history_quick``), and the full command builds its rows and draws
its table with this same code. So this module imports only the standard library's
lightest modules: not typing, not subprocess (``tests/test_startup.py`` holds the
list).

Rows are the notes' own camelCase fields (``rgr.store.note_json.HistoryRow``), taken by
``rgr.store.handoff_read`` the way the model would take them (``tests/store/history/test_rows.py``).
Everything shown that came from a note or an agent has its control characters replaced:
a note is data, and must not move the cursor or colour the terminal.
"""

from __future__ import annotations

from rgr.base.backend_names import DEFAULT
from rgr.base.ui import phase_label, short
from rgr.store.handoff_read import datetime

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    from typing import TextIO

    from rgr.store.note_json import HistoryRow

#: Rows shown in the table when --limit is not given; --json shows everything.
DEFAULT_TABLE_LIMIT = 50

_HEADERS = ("commit", "when", "phase", "cycle", "result", "took", "agent", "cost",
            "test / error")
_RIGHT_ALIGNED = frozenset({3, 5, 7})
_GAP = "  "

#: On a terminal, the last column is at least this wide; on a narrower one it goes on
#: the lines under its row, indented by _BELOW.
_NARROWEST = 24
_BELOW = "    "

#: C0 and C1 control characters (and DEL) as shown: a visible stand-in.
_CONTROLS = {code: "?" for code in (*range(0x20), *range(0x7F, 0xA0))}
_CONTROLS[ord("\t")] = " "


# ------------------------------------------------------------------------ drawing --

def clean(text: object) -> str:
    """``text`` with control characters shown as ``?`` (a newline too: one cell line)."""
    return str(text).translate(_CONTROLS)


def _when(iso_time: str) -> str:
    return iso_time[5:16].replace("T", " ")  # MM-DD HH:MM; --json has the full timestamp


def took(row: HistoryRow) -> str:
    """The phase's wall time (startedAt to finishedAt), for the shown rows only."""
    started = row.get("startedAt")
    if not started or "problem" in row:
        return "-"
    try:
        seconds = (datetime.fromisoformat(row["time"])
                   - datetime.fromisoformat(started)).total_seconds()
    except (TypeError, ValueError):
        return "-"
    return f"{seconds:.0f}s" if seconds < 60 else f"{seconds / 60:.1f}m"


def cost(row: HistoryRow) -> str:
    agent = row.get("agent") or {}
    usd = agent.get("costUsd")
    if usd is None:
        return "n/a" if agent else "-"  # n/a: the backend reports no cost
    return f"${usd:.4f}"


def agent_name(row: HistoryRow) -> str:
    """Which CLI and model ran the phase: ``codex gpt-5.5``, ``claude``."""
    agent = row.get("agent") or {}
    if not agent:
        return "-"
    return " ".join(str(p) for p in (agent.get("backend") or DEFAULT, agent.get("model")) if p)


def _cells(row: HistoryRow) -> tuple[list[str], list[tuple[str, bool]]]:
    """The eight short cells of a row, and the lines of its last one (text, is an
    error)."""
    commit = short(row["commit"]) + ("" if row["reachable"] else "*")
    if "problem" in row:
        return ([commit, _when(row["time"]), "-", "-", "-", "-", "-", "-"],
                [(f"invalid note: {clean(row['problem'])}", True)])
    batch, case = row.get("batch"), row["currentTest"]
    test = (case["description"] if case else None) or (
        f"batch {batch['id']}: {batch['goal']}" if batch else "-")
    result = str(row["testResult"] or "-")
    if row["retryCount"]:
        result += f" ({row['retryCount']} retr{'y' if row['retryCount'] == 1 else 'ies'})"
    gate = row.get("adequacy") or {}
    if gate.get("tried"):  # the mutation gate's score (rgr.check.mutation)
        result += f", {gate.get('killed', 0)}/{gate['tried']} mutants killed"
    detail = [(clean(test), False)]
    if row["error"]:
        detail.append((clean(row["error"]), True))
    return ([commit, _when(row["time"]), phase_label(row["phase"], row["cycleNumber"]),
             str(row["cycleNumber"]), clean(result), took(row), clean(agent_name(row)),
             cost(row)], detail)


def cells_of(text: str) -> int:
    """How many terminal cells ``text`` takes: two for a wide (CJK) character, none for
    a combining one. A test description may be in any script."""
    if text.isascii():
        return len(text)
    from unicodedata import combining, east_asian_width

    return sum(0 if combining(ch) else 2 if east_asian_width(ch) in "WF" else 1
               for ch in text)


def _pad(text: str, width: int, right: bool) -> str:
    space = " " * (width - cells_of(text))
    return space + text if right else text + space


def _fold(word: str, width: int) -> list[str]:
    """``word`` cut into pieces of at most ``width`` cells."""
    pieces, piece = [], ""
    for ch in word:
        if piece and cells_of(piece + ch) > width:
            pieces.append(piece)
            piece = ""
        piece += ch
    return [*pieces, piece]


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken between words, a word
    longer than a line folded."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if cells_of(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        *full, line = _fold(word, width)
        lines.extend(full)
    lines.append(line)
    return lines


def table_lines(rows: list[HistoryRow], columns: int | None,
                styled: bool) -> list[str]:
    """The table: a header, then a line per row (more when its last cell wraps or has
    an error). ``columns``: the terminal's width, the last cell wrapped to fit (and put
    under its row when the others leave it too little room); None (a pipe, a log)
    never wraps. ``styled``: bold header, errors in red."""
    cells = [_cells(row) for row in rows]
    widths = [max(len(_HEADERS[i]), *(cells_of(fixed[i]) for fixed, _ in cells))
              for i in range(len(_HEADERS) - 1)]
    indent = sum(widths) + len(_GAP) * len(widths)
    width: int | None = None
    below = False
    if columns:
        width = columns - indent
        if width < _NARROWEST:
            # Too narrow for the last column beside the others: it goes under its row.
            below, indent, width = True, len(_BELOW), max(columns - len(_BELOW), _NARROWEST)
    bold, red, plain = ("\x1b[1m", "\x1b[31m", "\x1b[0m") if styled else ("", "", "")

    def joined(fixed: list[str] | tuple[str, ...]) -> str:
        return _GAP.join(_pad(c, w, i in _RIGHT_ALIGNED)
                         for i, (c, w) in enumerate(zip(fixed, widths, strict=False)))

    lines = [f"{bold}{joined(_HEADERS)}{_GAP}{_HEADERS[-1]}{plain}"]
    for fixed, detail in cells:
        prefix = joined(fixed) + _GAP
        if below:
            lines.append(prefix.rstrip())
            prefix = _BELOW
        for text, is_error in detail:
            for part in (_wrap(text, width) if width else [text]):
                shown = f"{red}{part}{plain}" if is_error and part else part
                lines.append((prefix + shown).rstrip())
                prefix = " " * indent
    return lines


def text(shown: list[HistoryRow], more: str | None, styled: bool,
         columns: int | None) -> str:
    """The table of ``shown`` and what a reader needs under it: the agents' cost, what
    n/a and * mean, and ``more`` (how many rows were left out). ``styled``: bold and
    colour for a terminal; ``columns``: the width to wrap to (None: no wrapping)."""
    if not shown:
        return "no handoffs on this branch yet: start with `rgr run \"<feature>\"`"
    lines = table_lines(shown, columns, styled)
    costs = [c for row in shown if (c := (row.get("agent") or {}).get("costUsd")) is not None]
    if costs:
        lines.append(f"agent cost of the {len(costs)} phase(s) shown: ${sum(costs):.4f}")
    uncosted = sorted({str((row.get("agent") or {}).get("backend") or DEFAULT)
                       for row in shown if cost(row) == "n/a"})
    if uncosted:
        # the backends as the notes recorded them, never a name written here
        lines.append(f"n/a: {', '.join(uncosted)} report{'s' if len(uncosted) == 1 else ''} "
                     "tokens, not cost; see `rgr show`")
    if more:
        lines.append(more)
    if any(not row["reachable"] for row in shown):
        lines.append("* not on this branch: a rejected attempt kept for audit, or another branch")
    return "\n".join(lines)


def newest_more(shown: int) -> str:
    """The line under a table of the newest rows when older ones exist (and were not
    read, so there is no total to give)."""
    return f"(the newest {shown} handoff(s) shown; --limit 0 shows all)"


def terminal_columns(out: TextIO) -> int | None:
    """The width to wrap the table to: None when ``out`` is not a terminal."""
    if not out.isatty():
        return None
    from rgr.base.terminal import terminal_columns as columns

    return columns()
