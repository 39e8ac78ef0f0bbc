"""``rgr history``'s table: the newest handoffs on the branch, read and drawn with
nothing but git and the standard library.

The table is what a person runs every few seconds, so it costs what it shows: ``git
log`` reads the newest ``N + 1`` commits with their notes (more only when commits
without a note are in between), whatever the repository holds. ``rgr.launch`` sends
``rgr history`` and ``rgr history --limit N`` here before click, pygit2, pydantic or
rich are imported (:func:`quick`); anything it is not sure of (a ``tdd.toml`` no
command has validated yet, see rgr.config_seen; ``TDD_*`` or git location variables; a
note only the model can read; an error to explain) goes to the full command instead,
which builds its rows and draws its table with this same code.

Rows are the notes' own camelCase fields (``rgr.handoff.HistoryFields``), taken by
``rgr.handoff_read`` the way the model would take them (``tests/test_history_rows.py``).
Everything shown that came from a note or an agent has its control characters replaced:
a note is data, and must not move the cursor or colour the terminal.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rgr import notes_log, proc
from rgr.errors import CommandError
from rgr.handoff_read import HISTORY_DEFAULTS, history_fields_of, read_plain
from rgr.ui import phase_label, short, styles_ok

if TYPE_CHECKING:
    from typing import TextIO

#: Rows shown in the table when --limit is not given; --json shows everything.
DEFAULT_TABLE_LIMIT = 50

#: The widest first read when un-noted commits sit between the notes: each window after
#: the first is four times the one before, up to this.
_MAX_WINDOW = 65_536

#: Variables that make git look for the repository, or its objects or notes, somewhere
#: pygit2 would not: the full command decides what they mean.
_LOCATION_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
                  "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY",
                  "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_NOTES_REF",
                  "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE")

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


# ------------------------------------------------------------------------ reading --

def newest_texts(cwd: str, ref: str, count: int) -> tuple[list[tuple[str, int, bytes]], bool]:
    """The ``count`` newest noted commits reachable from HEAD, newest first, as (commit,
    commit time, note text), and whether there are more.

    ``git log`` is asked for ``count + 1`` commits; only when some of them have no note
    does it read further, in growing windows. CommandError when git fails (no HEAD,
    not a repository)."""
    found: list[tuple[str, int, bytes]] = []
    skip, window = 0, count + 1
    while True:
        out = proc.output(notes_log.log_argv(ref, "HEAD", count=window, skip=skip), cwd=cwd)
        records = out.split(notes_log.RECORD_SEP)
        found.extend(notes_log.log_records(records))
        if len(found) > count:
            return found[:count], True
        seen = notes_log.count_commits(records)
        if seen < window:
            return found, False
        skip, window = skip + seen, min(window * 4, _MAX_WINDOW)


def iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def finish(commit: str, when: int, reachable: bool, fields: dict[str, Any]) -> dict[str, Any]:
    """A history row from a note's history fields: the defaults filled in, ``time`` the
    phase's end (or the commit's time when the note has none)."""
    row: dict[str, Any] = {"commit": commit, "reachable": reachable}
    row.update(HISTORY_DEFAULTS)
    row.update(fields)
    row["time"] = row.pop("finishedAt") or iso(when)
    return row


def plain_row(commit: str, when: int, text: str | bytes,
              reachable: bool) -> dict[str, Any] | None:
    """The row of a note rgr.handoff_read can read as the model would; None for any
    other note (the caller asks the model: rgr.commands.history._row)."""
    plain = read_plain(text)
    if plain is None:
        return None
    return finish(commit, when, reachable, history_fields_of(plain))


# ------------------------------------------------------------------------ drawing --

def clean(text: object) -> str:
    """``text`` with control characters shown as ``?`` (a newline too: one cell line)."""
    return str(text).translate(_CONTROLS)


def _when(iso_time: str) -> str:
    return iso_time[5:16].replace("T", " ")  # MM-DD HH:MM; --json has the full timestamp


def took(row: dict[str, Any]) -> str:
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


def cost(row: dict[str, Any]) -> str:
    agent = row.get("agent") or {}
    usd = agent.get("costUsd")
    if usd is None:
        return "n/a" if agent else "-"  # n/a: the backend reports no cost (codex)
    return f"${usd:.4f}"


def agent_name(row: dict[str, Any]) -> str:
    """Which CLI and model ran the phase: ``codex gpt-5.5``, ``claude``."""
    agent = row.get("agent") or {}
    if not agent:
        return "-"
    return " ".join(str(p) for p in (agent.get("backend") or "claude", agent.get("model")) if p)


def _cells(row: dict[str, Any]) -> tuple[list[str], list[tuple[str, bool]]]:
    """The eight short cells of a row, and the lines of its last one (text, is an
    error)."""
    commit = short(row["commit"]) + ("" if row["reachable"] else "*")
    if "problem" in row:
        return ([commit, _when(row["time"]), "-", "-", "-", "-", "-", "-"],
                [(f"invalid note: {clean(row['problem'])}", True)])
    batch = row.get("batch") or {}
    test = (row["currentTest"] or {}).get("description") or (
        f"batch {batch['id']}: {batch['goal']}" if batch else "-")
    result = str(row["testResult"] or "-")
    if row["retryCount"]:
        result += f" ({row['retryCount']} retr{'y' if row['retryCount'] == 1 else 'ies'})"
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


def table_lines(rows: list[dict[str, Any]], columns: int | None,
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


def render(shown: list[dict[str, Any]], more: str | None, out: TextIO,
           columns: int | None) -> None:
    """Print the table of ``shown`` and what a reader needs under it: the agents' cost,
    what n/a and * mean, and ``more`` (how many rows were left out)."""
    if not shown:
        out.write("no handoffs on this branch yet: start with `rgr run \"<feature>\"`\n")
        return
    lines = table_lines(shown, columns, styles_ok(out))
    costs = [c for row in shown if (c := (row.get("agent") or {}).get("costUsd")) is not None]
    if costs:
        lines.append(f"agent cost of the {len(costs)} phase(s) shown: ${sum(costs):.4f}")
    if any(cost(row) == "n/a" for row in shown):
        lines.append("n/a: the agent's backend reports tokens, not cost (codex); see `rgr show`")
    if more:
        lines.append(more)
    if any(not row["reachable"] for row in shown):
        lines.append("* not on this branch: a rejected attempt kept for audit, or another branch")
    out.write("\n".join(lines) + "\n")
    out.flush()


def newest_more(shown: int) -> str:
    """The line under a table of the newest rows when older ones exist (and were not
    read, so there is no total to give)."""
    return f"(the newest {shown} handoff(s) shown; --limit 0 shows all)"


def terminal_columns(out: TextIO) -> int | None:
    """The width to wrap the table to: None when ``out`` is not a terminal."""
    if not out.isatty():
        return None
    from rgr.launch import terminal_columns as columns

    return columns()


# ---------------------------------------------------------------------- fast path --

def _limit(args: list[str]) -> int | None:
    """N for ``history`` / ``history --limit N`` (N > 0), else None."""
    if not args:
        return DEFAULT_TABLE_LIMIT
    if len(args) == 2 and args[0] == "--limit":
        value = args[1]
    elif len(args) == 1 and args[0].startswith("--limit="):
        value = args[0].removeprefix("--limit=")
    else:
        return None
    return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else None


def _work_tree(start: str) -> str | None:
    """The nearest folder at or above ``start`` with a ``.git`` folder (not a bare
    repository, not a linked worktree: those are the full command's)."""
    path = os.path.abspath(start)
    while True:
        dot_git = os.path.join(path, ".git")
        if os.path.isdir(dot_git):
            return path
        if os.path.lexists(dot_git):
            return None  # a linked worktree or a submodule: its .git is a file
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _has_notes_ref(git_dir: str, ref: str) -> bool:
    """Whether ``ref`` exists, loose or packed (read from the files: no process)."""
    if os.path.isfile(os.path.join(git_dir, *ref.split("/"))):
        return True
    try:
        with open(os.path.join(git_dir, "packed-refs"), "rb") as packed:
            wanted = b" " + ref.encode() + b"\n"
            return any(line.endswith(wanted) for line in packed)
    except OSError:
        return False


def _notes_ref(root: str, git_dir: str) -> str | None:
    """The notes ref to read: the default without a tdd.toml, the one a tdd.toml names
    when rgr has validated exactly that file before (rgr.config_seen), else None."""
    try:
        with open(os.path.join(root, "tdd.toml"), "rb") as config:
            text = config.read()
    except FileNotFoundError:
        return notes_log.DEFAULT_REF
    except OSError:
        return None
    from rgr import config_seen

    return config_seen.recall(git_dir, text)


def quick(args: list[str], out: TextIO | None = None) -> int | None:
    """``rgr history`` [``--limit N``] answered without the CLI: the exit code, or None
    when the full command must answer (see the module's docstring)."""
    count = _limit(args)
    if count is None:
        return None
    environ = os.environ
    if any(name.startswith("TDD_") for name in environ) or any(
            name in environ for name in _LOCATION_VARS):
        return None
    root = _work_tree(os.getcwd())
    if root is None:
        return None
    git_dir = os.path.join(root, ".git")
    ref = _notes_ref(root, git_dir)
    if ref is None:
        return None  # a tdd.toml not yet validated (or invalid): the full command checks it
    if not _has_notes_ref(git_dir, ref):
        return None  # no notes, or an empty repository: the full command says so
    try:
        texts, more = newest_texts(root, ref, count)
    except CommandError:
        return None  # the full command explains what is wrong
    rows = []
    for commit, when, text in texts:
        row = plain_row(commit, when, text, True)
        if row is None:
            return None  # a note only the model can read, or say what is wrong with
        rows.append(row)
    rows.reverse()
    stream = out or sys.stdout
    render(rows, newest_more(len(rows)) if more else None, stream, terminal_columns(stream))
    return 0
