"""``rgr history``: the handoffs on the current branch, oldest to newest.

Built for long histories. The table and ``--limit N`` read the newest N + 1 commits
with their notes through ``git log`` (rgr.history_table, which also draws the table and
answers ``rgr history`` before the CLI is loaded), whatever the repository holds.
``--json`` over everything reads ``git log --notes`` as git writes it, each note validated
straight from its JSON text by pydantic-core, through a temporary file (see
:func:`_stream_json`): flat memory at any number of notes.
``--all`` reads every note (it has to: it lists the ones no branch reaches).
"""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING, Any

from rgr import git
from rgr.handoff_read import HISTORY_DEFAULTS
from rgr.history_table import (
    DEFAULT_TABLE_LIMIT,
    finish,
    iso,
    newest_more,
    newest_texts,
    plain_row,
    render,
    terminal_columns,
)

if TYPE_CHECKING:
    from rgr.workspace import Workspace


def _row(commit: str, when: int, text: str | bytes, reachable: bool) -> dict[str, Any]:
    """One history row: the note's own (camelCase) fields that a listing needs, as the
    model validates them (rgr.handoff.HistoryFields)."""
    from pydantic import ValidationError

    from rgr.handoff import InvalidNote, history_fields, parse_note

    try:
        fields = history_fields().validate_json(text)
    except ValidationError:
        try:
            state = parse_note(text)
        except InvalidNote as exc:
            return {"commit": commit, "reachable": reachable, "time": iso(when),
                    "problem": str(exc)}
        # Valid, in a spelling only the full model reads (a date as epoch seconds, say):
        # the row is taken from the model's canonical dump.
        fields = history_fields().validate_python(state.model_dump(mode="json", by_alias=True))
    return finish(commit, when, reachable, dict(fields))


def _plain_row(commit: str, when: int, text: str | bytes, reachable: bool) -> dict[str, Any]:
    """:func:`_row` without pydantic for the notes rgr.handoff_read can read (the same
    row: tests/test_history_rows.py), for listings of a few rows."""
    row = plain_row(commit, when, text, reachable)
    return _row(commit, when, text, reachable) if row is None else row


def _newest(ws: Workspace, count: int) -> tuple[list[dict[str, Any]], bool]:
    """The ``count`` newest handoffs on the branch, oldest first, and whether there are
    more: reads ``count + 1`` notes, not all of them (rgr.history_table.newest_texts)."""
    git.head_commit(ws.repo)  # an empty repository is an error, said plainly
    if ws.notes.tip() is None:
        return [], False
    found, more = newest_texts(str(ws.root), ws.notes.ref, count)
    rows = [_plain_row(c, when, text, True) for c, when, text in found]
    rows.reverse()
    return rows, more


def collect(ws: Workspace, include_all: bool, limit: int | None) -> list[dict[str, Any]]:
    """Every handoff on the branch (``include_all``: and off it), oldest first; only the
    newest ``limit`` when it is given and not 0."""
    if limit and not include_all:
        return _newest(ws, limit)[0]
    rows: list[dict[str, Any]] = []
    if not ws.repo.head_is_unborn or not include_all:
        # An empty repository is an error like in `rgr status` (head_commit says so and
        # how to fix it); only --all still lists notes, which need no branch.
        head = str(git.head_commit(ws.repo).id)
        rows = [_row(c, when, text, True)
                for c, when, text in ws.notes.reachable_texts(head, oldest_first=True)]
    if include_all:
        # Notes on commits off this branch: failed attempts kept for audit, other
        # runs' branches, or objects that no longer exist.
        seen = {row["commit"] for row in rows}
        extra = []
        for hex_id, text in ws.notes.all_texts().items():
            if hex_id in seen:
                continue
            when = git.commit_time(ws.repo, hex_id)
            row = _row(hex_id, when or 0, text, reachable=False)
            if when is None:
                row["problem"] = "the annotated commit no longer exists"
            extra.append(row)
        rows.extend(sorted(extra, key=lambda r: r["time"]))
    if limit:
        rows = rows[-limit:]
    return rows


#: Bytes read at a time when the spool is written out backwards.
_SPOOL_BLOCK = 1 << 20


def _stream_json(ws: Workspace) -> None:
    """Every handoff on the branch as a JSON list, oldest first, one row per line.

    git gives the notes newest first; asking it for oldest first (``--reverse``) makes it
    hold every commit before the first line (900 MB against 650 MB at a million notes).
    So each row is serialized as git produces it into a temporary file (newest first),
    which is then written out backwards: rgr's memory stays flat and git's is what
    ``git log --notes`` needs, however many notes. The loop is :func:`_row` inlined, the
    one place where 100,000 notes pass."""
    import tempfile

    from pydantic import ValidationError
    from pydantic_core import to_json

    from rgr.handoff import history_fields

    validate = history_fields().validate_json
    head = str(git.head_commit(ws.repo).id)
    with tempfile.TemporaryFile() as spool:
        for batch in ws.notes.reachable_batches(head):
            lines = []
            for commit, when, text in batch:
                try:
                    fields = validate(text)
                except ValidationError:
                    lines.append(to_json(_row(commit, when, text, True)))  # says why
                    continue
                row = {"commit": commit, "reachable": True, **HISTORY_DEFAULTS, **fields}
                row["time"] = row.pop("finishedAt") or iso(when)
                lines.append(to_json(row))
            if lines:
                spool.write(b"\n".join(lines) + b"\n")
        _write_backwards(spool, sys.stdout.buffer)


def _write_backwards(spool: IO[bytes], out: IO[bytes]) -> None:
    """The spool's lines (JSON rows, no newline inside) last first, as a JSON list."""
    out.write(b"[\n")
    end = spool.seek(0, 2)
    carry = b""  # the start of a line whose beginning is in the block before
    separator = b""
    while end > 0:
        start = max(0, end - _SPOOL_BLOCK)
        spool.seek(start)
        lines = (spool.read(end - start) + carry).split(b"\n")
        carry = lines.pop(0) if start > 0 else b""
        rows = [line for line in reversed(lines) if line]
        if rows:
            out.write(separator + b",\n".join(rows))
            separator = b",\n"
        end = start
    out.write(b"\n]\n" if separator else b"]\n")
    out.flush()


def run(ws: Workspace, include_all: bool, limit: int | None, as_json: bool) -> int:
    if as_json:
        if not limit and not include_all:
            _stream_json(ws)
            return 0
        rows = collect(ws, include_all, limit)
        # One row per line: readable, and 3x faster than indenting 100,000 rows.
        from pydantic_core import to_json

        lines = b",\n".join(to_json(row) for row in rows)
        sys.stdout.buffer.write(b"[\n" + lines + (b"\n]\n" if rows else b"]\n"))
        return 0
    if include_all or limit == 0:
        rows = collect(ws, include_all, None)
        shown = rows[-(limit or DEFAULT_TABLE_LIMIT):] if limit != 0 else rows
        more = (f"({len(shown)} of {len(rows)} handoff(s) shown; --limit 0 shows all)"
                if len(shown) < len(rows) else None)
    else:
        shown, newer = _newest(ws, limit or DEFAULT_TABLE_LIMIT)
        # Only the rows shown (and one more) were read: no total to give.
        more = newest_more(len(shown)) if newer else None
    render(shown, more, sys.stdout, terminal_columns(sys.stdout))
    return 0
