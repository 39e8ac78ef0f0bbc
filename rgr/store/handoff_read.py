"""Read one handoff note without building the pydantic models.

``rgr status`` and ``rgr show`` run every few seconds and read one note; importing
pydantic and building :class:`rgr.store.handoff.HandoffState` costs them more than everything
else together (about 100 ms). :func:`read_plain` answers instead for the notes rgr
writes itself: plain JSON whose every known field already has the type the model wants,
so pydantic would accept it without changing a value. Anything else (a missing or
wrong field, a value pydantic would coerce, a date in another spelling) gets None, and
the caller asks the model (:func:`read_state`), which stays the one definition of a
valid note and of its error messages. The checks are rgr.store.note_checks, generated
from the note's one description (rgr.store.note_json), which the model matches
(``tests/store/test_note_json.py``); ``tests/store/test_handoff_read.py`` checks that reader and
model agree note by note.
"""

from __future__ import annotations

import json

# Re-exported: the C module's datetime classes (rgr.store.json_checks) for
# rgr.store.history.newest and rgr.commands.history_table, and the checks by JSON key
# (generated from rgr.store.note_json).
from rgr.store.json_checks import UTC as UTC
from rgr.store.json_checks import datetime as datetime
from rgr.store.json_checks import object_of
from rgr.store.note_checks import HANDOFF as HANDOFF
from rgr.store.note_checks import HISTORY_DEFAULTS as HISTORY_DEFAULTS
from rgr.store.note_checks import HISTORY_NESTED as HISTORY_NESTED
from rgr.store.note_checks import NESTED as NESTED

# typing.TYPE_CHECKING without typing's import (see rgr.base.proc): annotations only, as
# `rgr history` reads notes before much is loaded.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TypeGuard

    from rgr.store.note_json import HistoryFields, NoteJson

#: ``errorDetails.type`` of a note saying an agent took the honest way out (its task
#: cannot be done honestly; ``errorDetails.message`` is its reason): on the kept commits
#: of that attempt, if any, and on the last verified commit's note, where the run stopped.
NEEDS_ATTENTION = "needs-attention"

#: How the ``errorDetails.message`` of a needs-attention stop over open fake-it debt
#: begins: rgr's own stop (the planner found nothing left while debt is open), not an
#: agent's way out.
DEBT_OPEN = "fake-it debt is open: "
#: How a needs-attention message set by the examiner's acceptance tests starts.
ACCEPTANCE_STOP = "the acceptance tests stop the run: "

#: The phase that follows each phase when a note has no nextPhase (older writers).
FOLLOWS: Mapping[str, str] = {
    "PLAN": "RED", "RED": "GREEN", "GREEN": "REFACTOR", "REFACTOR": "PLAN",
    "COMPLETE": "COMPLETE",
}


_is_handoff = object_of(HANDOFF, ("phase",))


def is_plain_note(data: object) -> TypeGuard[NoteJson]:
    """Is ``data`` plainly a valid handoff, every field of the type the model wants?"""
    return _is_handoff(data)


def read_plain(text: str | bytes) -> NoteJson | None:
    """The note as its JSON (``NoteJson``: JSON names, fields it omits left out) when it
    is plainly a valid handoff; None when only the model can tell. A joined note
    (:func:`records`) is read as its last record."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        joined = records(text)
        if len(joined) < 2:
            return None
        data = joined[-1]
    return data if is_plain_note(data) else None


def records(text: str | bytes) -> list[object]:
    """The JSON values a note holds, in order: one for every note rgr writes; more for
    a note that git joined before rgr kept a note one record (a rebase copying a note
    onto a commit that had one, notes.rewriteMode=concatenate, rgr.daemon.workcopy; a
    notes merge of two versions of one commit's note, rgr.daemon.remote); none when
    the text is not a sequence of JSON values (a note whose lines a merge sorted)."""
    try:
        whole = text.decode("utf-8") if isinstance(text, bytes) else text
    except UnicodeDecodeError:
        return []
    decoder = json.JSONDecoder()
    found: list[object] = []
    at = 0
    while True:
        while at < len(whole) and whole[at].isspace():
            at += 1
        if at == len(whole):
            return found
        try:
            value, at = decoder.raw_decode(whole, at)
        except ValueError:
            return []
        found.append(value)


def joined_note(text: str | bytes) -> str | None:
    """What a reader says of a note holding several records (see :func:`records`):
    which one it read, and the fix; None for a note of one record."""
    try:
        json.loads(text)
        return None
    except (ValueError, UnicodeDecodeError):
        count = len(records(text))
    if count < 2:
        return None
    return (f"this note holds {count} handoff records that git joined (an older rgr's "
            f"rebase or notes merge gave one commit two notes); the last valid one is "
            f"read; `rgr repair-notes --apply` keeps it alone")


def history_fields_of(plain: NoteJson) -> HistoryFields:
    """What rgr.store.handoff.history_fields() gives for a note :func:`read_plain`
    accepted: the keys of note_json.HistoryFields, of nested objects the keys it keeps
    (rgr.store.note_checks.HISTORY_NESTED, generated from it)."""
    raw: Mapping[str, object] = plain
    fields: dict[str, object] = {}
    for key in ("phase", *HISTORY_DEFAULTS):
        if key not in raw:
            continue
        value = raw[key]
        keep = HISTORY_NESTED.get(key)
        if keep is not None and isinstance(value, dict):
            value = {name: value[name] for name in keep if name in value}
            if key == "agent" and value.get("costUsd") is not None:
                value["costUsd"] = float(value["costUsd"])  # the model's type
        fields[key] = value
    return fields  # type: ignore[return-value]  # HistoryFields' keys, as checked


def resume_phase(state: NoteJson) -> str:
    """``nextPhase``, or for notes that omit it the phase that follows ``phase``."""
    following = state.get("nextPhase")
    return str(following) if following else FOLLOWS[str(state["phase"])]
