"""``rgr history``: the handoffs on the current branch, oldest to newest.

Built for long histories: notes are loaded by walking the notes tree once, commits by
one revision walk, and each note is validated straight from its JSON text.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Any

import pydantic_core
import pygit2
from pydantic import ValidationError

from rgr import git
from rgr.handoff import HISTORY_DEFAULTS, InvalidNote, history_fields, parse_note
from rgr.ui import esc, make_console, short
from rgr.workspace import Workspace

#: Rows shown in the table when --limit is not given; --json shows everything.
DEFAULT_TABLE_LIMIT = 50


def _row(commit: str, when: int, text: str | bytes, reachable: bool) -> dict[str, Any]:
    validate = history_fields().validate_json
    """One history row: the note's own (camelCase) fields that a listing needs."""
    row: dict[str, Any] = {"commit": commit, "reachable": reachable}
    try:
        fields = validate(text)
    except ValidationError:
        try:
            parse_note(text)
        except InvalidNote as exc:
            row.update(time=_iso(when), problem=str(exc))
            return row
        raise
    row.update(HISTORY_DEFAULTS)
    row.update(fields)
    row["time"] = row.pop("finishedAt") or _iso(when)
    return row


def _when(iso: str) -> str:
    return iso[5:16].replace("T", " ")  # MM-DD HH:MM; --json has the full timestamp


def _took(row: dict[str, Any]) -> str:
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


def _cost(row: dict[str, Any]) -> str:
    agent = row.get("agent") or {}
    cost = agent.get("costUsd")
    if cost is None:
        return "n/a" if agent else "-"  # n/a: the backend reports no cost (codex)
    return f"${cost:.4f}"


def _agent(row: dict[str, Any]) -> str:
    """Which CLI and model ran the phase: ``codex gpt-5.5``, ``claude``."""
    agent = row.get("agent") or {}
    if not agent:
        return "-"
    return " ".join(str(p) for p in (agent.get("backend") or "claude", agent.get("model")) if p)


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def collect(ws: Workspace, include_all: bool, limit: int | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if not ws.repo.head_is_unborn or not include_all:
        # An empty repository is an error like in `rgr status` (head_commit says so and
        # how to fix it); only --all still lists notes, which need no branch.
        head = str(git.head_commit(ws.repo).id)
        rows = [_row(c, when, text, True) for c, when, text in ws.notes.reachable_texts(head)]
        rows.reverse()  # oldest first
    if include_all:
        # Notes on commits off this branch: failed attempts kept for audit, other
        # runs' branches, or objects that no longer exist.
        seen = {row["commit"] for row in rows}
        extra = []
        for hex_id, text in ws.notes.all_texts().items():
            if hex_id in seen:
                continue
            obj = ws.repo.get(hex_id)
            when = obj.commit_time if isinstance(obj, pygit2.Commit) else 0
            row = _row(hex_id, when, text, reachable=False)
            if obj is None:
                row["problem"] = "the annotated commit no longer exists"
            extra.append(row)
        rows.extend(sorted(extra, key=lambda r: r["time"]))
    if limit:
        rows = rows[-limit:]
    return rows


def run(ws: Workspace, include_all: bool, limit: int | None, as_json: bool) -> int:
    if as_json:
        rows = collect(ws, include_all, limit)
        # One row per line: readable, and 3x faster than indenting 100,000 rows.
        lines = b",\n".join(pydantic_core.to_json(row) for row in rows)
        sys.stdout.buffer.write(b"[\n" + lines + (b"\n]\n" if rows else b"]\n"))
        return 0
    rows = collect(ws, include_all, None)
    shown = rows[-(limit or DEFAULT_TABLE_LIMIT):] if limit != 0 else rows
    out = make_console()
    if not out.is_terminal:
        out.width = 200  # a pipe or a log: one line per handoff, not wrapped at 80
    if not rows:
        out.print("no handoffs on this branch yet: start with `rgr run \"<feature>\"`")
        return 0
    from rich.table import Table  # only the table view pays for it

    table = Table(box=None, pad_edge=False)
    table.add_column("commit", no_wrap=True)
    table.add_column("when", no_wrap=True)
    table.add_column("phase", no_wrap=True)
    table.add_column("cycle", no_wrap=True, justify="right")
    table.add_column("result", no_wrap=True)
    table.add_column("took", no_wrap=True, justify="right")
    table.add_column("agent", no_wrap=True)
    table.add_column("cost", no_wrap=True, justify="right")
    table.add_column("test / error", ratio=1, overflow="fold")
    for row in shown:
        commit = short(row["commit"]) + ("" if row["reachable"] else "*")
        if "problem" in row:
            table.add_row(commit, _when(row["time"]), "-", "-", "-", "-", "-", "-",
                          f"[red]invalid note: {esc(row['problem'])}[/red]")
            continue
        batch = row.get("batch") or {}
        test = (row["currentTest"] or {}).get("description") or (
            f"batch {batch['id']}: {batch['goal']}" if batch else "-")
        result = row["testResult"] or "-"
        if row["retryCount"]:
            result += f" ({row['retryCount']} retr{'y' if row['retryCount'] == 1 else 'ies'})"
        detail = esc(test) + (f"\n[red]{esc(row['error'])}[/red]" if row["error"] else "")
        table.add_row(commit, _when(row["time"]), row["phase"], str(row["cycleNumber"]),
                      result, _took(row), esc(_agent(row)), _cost(row), detail)
    out.print(table)
    costs = [c for row in shown if (c := (row.get("agent") or {}).get("costUsd")) is not None]
    if costs:
        out.print(f"agent cost of the {len(costs)} phase(s) shown: ${sum(costs):.4f}")
    if any(_cost(row) == "n/a" for row in shown):
        out.print("n/a: the agent's backend reports tokens, not cost (codex); see `rgr show`")
    if len(shown) < len(rows):
        out.print(f"({len(shown)} of {len(rows)} handoffs shown; --limit 0 shows all)")
    if any(not row["reachable"] for row in shown):
        out.print("* not on this branch: a rejected attempt kept for audit, or another branch")
    return 0
