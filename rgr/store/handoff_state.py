"""A handoff note as a dict, for the commands that print one (``rgr show``,
``rgr status``, the web view): the light reader's answer when it can give one
(rgr.store.handoff_read, no pydantic), else the model's (rgr.store.handoff). It sits above both so
that neither imports the other back."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rgr.store.handoff_read import read_plain

if TYPE_CHECKING:
    from rgr.store.note_json import NoteJson


def read_state(text: str | bytes,
               full: bool = False) -> tuple[NoteJson | None, str | None]:
    """(the note as a dict, None) for a handoff, (None, why not) for anything else.

    The dict has the note's own values; when the model had to decide, or ``full`` asks
    for it (what --json prints), it is the model's JSON dump (every field present)."""
    plain = None if full else read_plain(text)
    if plain is not None:
        return plain, None
    from rgr.store.handoff import InvalidNote, parse_note  # pydantic: only when needed

    try:
        state = parse_note(text)
    except InvalidNote as exc:
        return None, str(exc)
    # The model's JSON is the note's JSON (tests/store/test_note_json.py keeps them the same).
    return cast("NoteJson", state.model_dump(mode="json", by_alias=True)), None
