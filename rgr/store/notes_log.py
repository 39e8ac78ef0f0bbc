"""Handoff notes as ``git log --notes`` writes them: the command and its parser.

Bulk reads of notes go through git's own log rather than libgit2 (see
``rgr.store.notes.NotesStore.reachable_batches``), and so does ``rgr history``'s table, which
answers before pygit2 is even imported (``rgr.history_quick``). Both read the same
records, built here, so they agree on order and content. No pygit2 here: this module is
on the start-up path.
"""

from __future__ import annotations

from rgr.store.gitcli import argv

#: The handoffs' notes ref (``notes_ref`` in tdd.toml names another).
DEFAULT_REF = "refs/notes/tdd-handoffs"

#: Between records. A NUL cannot occur in a commit id or a timestamp, and git prints a
#: note's text as it is; rgr's notes are JSON, which has no raw NUL either.
RECORD_SEP = b"\x00\x1e"

#: One record: the separator, "<commit> <commit time>", a newline, the note (or nothing).
_FORMAT = "--format=%x00%x1e%H %ct%n%N"


def _records_of(ref: str) -> list[str]:
    """``git log``'s options for :data:`_FORMAT` records with the notes in ``ref``.

    ``--no-notes`` first, so the notes shown are ``ref``'s alone, whatever
    ``core.notesRef`` or ``notes.displayRef`` say; no signature check, whatever
    ``log.showSignature`` says (it would print into the records)."""
    return ["--no-show-signature", "--no-notes", f"--notes={ref}", _FORMAT]


def log_argv(ref: str, head: str, *, count: int | None = None, skip: int = 0,
             reverse: bool = False, repo: str | None = None) -> list[str]:
    """``git log`` printing each commit reachable from ``head`` with its note in ``ref``,
    in the repository at ``repo`` (``git -C``) when given, else in the working directory."""
    window = [f"--max-count={count}", f"--skip={skip}"] if count is not None else []
    where = ["-C", repo] if repo is not None else []
    return argv(*where, "log", *_records_of(ref), *window,
                *(["--reverse"] if reverse else []), head, "--")


def no_walk_argv(ref: str, commits: list[str]) -> list[str]:
    """``git log`` printing exactly ``commits`` (in that order) with their notes in
    ``ref``, as :func:`log_argv`'s records."""
    return argv("log", *_records_of(ref), "--no-walk=unsorted", *commits, "--")


def log_records(records: list[bytes]) -> list[tuple[str, int, bytes]]:
    """(commit, commit time, note text) of each record that has a note, in git's order:
    the pieces of git's output split at :data:`RECORD_SEP`."""
    out = []
    for record in records:
        head, _, note = record.partition(b"\n")
        note = note.strip()
        if not head or not note:
            continue  # the empty piece before the first separator, or an un-noted commit
        commit, _, when = head.partition(b" ")
        out.append((commit.decode(), int(when), note))
    return out


def count_commits(records: list[bytes]) -> int:
    """How many commits (noted or not) the records of one git log call cover."""
    return sum(1 for record in records if record)
