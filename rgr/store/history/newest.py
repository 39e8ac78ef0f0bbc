"""The newest handoffs on the branch, read at git's speed with nothing but git and the
standard library: ``rgr history``'s table draws them (rgr.commands.history_table),
before the CLI loads too (rgr.history_quick), and rgr.store.history.rows validates
them. So this module imports only the standard library's lightest modules (see
``tests/test_startup.py``)."""

from __future__ import annotations

from rgr.base import proc
from rgr.store import notes_log
from rgr.store.handoff_read import HISTORY_DEFAULTS, UTC, datetime, history_fields_of, read_plain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    from rgr.store.note_json import HistoryFields, HistoryRow

#: The widest first read when un-noted commits sit between the notes: each window after
#: the first is four times the one before, up to this.
_MAX_WINDOW = 65_536

# ------------------------------------------------------------------------ reading --

def newest_texts(repo: str, ref: str, count: int, first: proc.Reading | None = None,
                 ) -> tuple[list[tuple[str, int, bytes]], bool]:
    """The ``count`` newest noted commits reachable from HEAD in the work tree
    ``repo``, newest first, as (commit, commit time, note text), and whether there are
    more. ``first``: the first read (``log_argv(ref, "HEAD", count=count + 1,
    repo=repo)``), when the caller started it already.

    ``git log`` is asked for ``count + 1`` commits; only when some of them have no note
    does it read further, in growing windows. CommandError when git fails (no HEAD,
    not a repository)."""
    found: list[tuple[str, int, bytes]] = []
    skip, window = 0, count + 1
    reading = first
    while True:
        if reading is None:
            reading = proc.start_output(
                notes_log.log_argv(ref, "HEAD", count=window, skip=skip, repo=repo))
        records = reading.result().split(notes_log.RECORD_SEP)
        reading = None
        found.extend(notes_log.log_records(records))
        if len(found) > count:
            return found[:count], True
        seen = notes_log.count_commits(records)
        if seen < window:
            return found, False
        skip, window = skip + seen, min(window * 4, _MAX_WINDOW)


def iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def finish(commit: str, when: int, reachable: bool, fields: HistoryFields) -> HistoryRow:
    """A history row from a note's history fields: the defaults filled in, ``time`` the
    phase's end (or the commit's time when the note has none)."""
    row: dict[str, object] = {"commit": commit, "reachable": reachable}
    row.update(HISTORY_DEFAULTS)
    row.update(fields)
    row["time"] = row.pop("finishedAt") or iso(when)
    return row  # type: ignore[return-value]  # HistoryRow's keys (tests/store/test_note_json.py)


def plain_row(commit: str, when: int, text: str | bytes,
              reachable: bool) -> HistoryRow | None:
    """The row of a note rgr.store.handoff_read can read as the model would; None for any
    other note (the caller asks the model: rgr.store.history.rows.row)."""
    plain = read_plain(text)
    if plain is None:
        return None
    return finish(commit, when, reachable, history_fields_of(plain))
