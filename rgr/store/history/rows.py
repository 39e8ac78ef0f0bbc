"""The JSON rows of ``rgr history``, validated by the model: the one builder of them.

A row (rgr.store.note_json.HistoryRow) is the note's own (camelCase) fields that a
listing needs, as the model validates them (rgr.store.note_json.HistoryFields), with
the commit, its reachability and a time. The full command, the bulk ``--json`` read
and the row cache (rgr.store.history.cache, filled by that read and by every note rgr
writes) all take their rows from here, so a cached row is byte for byte the row a
fresh validation gives.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rgr.store.history.newest import finish, iso, plain_row

if TYPE_CHECKING:
    from rgr.store.note_json import HistoryRow

#: How every reachable row starts; the cache keeps what follows it (:func:`cached_part`).
ROW_START = b'{"commit":"%s","reachable":true,'


def row(commit: str, when: int, text: str | bytes, reachable: bool) -> HistoryRow:
    """One history row; an invalid note gives a row saying why (``problem``)."""
    from pydantic import ValidationError

    from rgr.store.handoff import InvalidNote, history_fields, parse_note

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
    return finish(commit, when, reachable, fields)


def quick_row(commit: str, when: int, text: str | bytes, reachable: bool) -> HistoryRow:
    """:func:`row` without pydantic for the notes rgr.store.handoff_read can read (the same
    row: tests/store/history/test_rows.py), for listings of a few rows."""
    plain = plain_row(commit, when, text, reachable)
    return row(commit, when, text, reachable) if plain is None else plain


def validated_rows(batch: Iterable[tuple[str, int, str | bytes]]
                   ) -> list[tuple[str, bytes, bool]]:
    """(commit, JSON row, whether all of the row after :data:`ROW_START` depends only on
    the note: else it takes the commit's time too) for each note of ``batch``, as
    reachable rows: :func:`row` without its fallbacks for the notes that validate, the
    one place where 100,000 notes pass."""
    from pydantic import ValidationError
    from pydantic_core import to_json

    from rgr.store.handoff import history_fields

    validate = history_fields().validate_json
    out = []
    for commit, when, text in batch:
        try:
            fields = validate(text)
        except ValidationError:
            out.append((commit, to_json(row(commit, when, text, True)), False))  # says why
            continue
        # The note's alone when the row's time is its own finishedAt, not the commit's.
        out.append((commit, to_json(finish(commit, when, True, fields)),
                    bool(fields.get("finishedAt"))))
    return out


def cached_part(commit: str, text: bytes) -> bytes:
    """What the row cache keeps of ``commit``'s row ``text`` (from
    :func:`validated_rows`): the bytes after :data:`ROW_START` (filed under a key that
    names all they depend on: rgr.store.history.cache.row_key); nothing for a row that does
    not start so (never kept)."""
    start = ROW_START % commit.encode()
    return text[len(start):] if text.startswith(start) else b""
