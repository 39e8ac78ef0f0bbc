"""``rgr history``: the handoffs on the current branch, oldest to newest.

Built for long histories. The table and ``--limit N`` read the newest N + 1 commits
with their notes through ``git log`` (rgr.store.history.newest; rgr.commands.history_table draws the
table; rgr.history_quick answers ``rgr history`` with it before the CLI is loaded), whatever
the repository holds.
``--json`` over everything takes each row from a content-addressed cache (note blob id
-> row bytes, rgr.store.history.cache) and validates only the notes it lacks: it lists the
notes (``git notes list``) and walks the commits (``git rev-list``), and reads the
missing notes with ``git log --no-walk`` (see :func:`_json_chunks`). With many rows
missing (the first run) it reads ``git log --notes`` as git writes it, each note
validated straight from its JSON text by pydantic-core, through a temporary file
(:func:`_uncached_chunks`), and fills the cache on the way. Either way the bytes are
the model's (tests/store/history/test_cache.py). Rows of notes without finishedAt (the seed's
schema, other tools' notes), whose time is their commit's, are cached too, under a key
that names the commit and the note.
``--all`` reads every note (it has to: it lists the ones no branch reaches).
"""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING

from rgr.base.outcome import Outcome, Verbatim
from rgr.base.ui import styles_ok
from rgr.commands.history_table import DEFAULT_TABLE_LIMIT, newest_more, terminal_columns
from rgr.commands.history_table import text as table_text
from rgr.store import git
from rgr.store.history.newest import newest_texts
from rgr.store.history.rows import ROW_START, cached_part, quick_row, row, validated_rows

if TYPE_CHECKING:
    from collections.abc import Generator, Iterator

    from rgr.base.outcome import TextItem
    from rgr.store.history import cache as history_cache
    from rgr.store.note_json import HistoryRow
    from rgr.store.workspace import Workspace


def _newest(ws: Workspace, count: int) -> tuple[list[HistoryRow], bool]:
    """The ``count`` newest handoffs on the branch, oldest first, and whether there are
    more: reads ``count + 1`` notes, not all of them (rgr.store.history.newest.newest_texts)."""
    git.head_commit(ws.repo)  # an empty repository is an error, said plainly
    if ws.notes.tip() is None:
        return [], False
    found, more = newest_texts(str(ws.root), ws.notes.ref, count)
    rows = [quick_row(c, when, text, True) for c, when, text in found]
    rows.reverse()
    return rows, more


def collect(ws: Workspace, include_all: bool, limit: int | None) -> list[HistoryRow]:
    """Every handoff on the branch (``include_all``: and off it), oldest first; only the
    newest ``limit`` when it is given and not 0."""
    if limit and not include_all:
        return _newest(ws, limit)[0]
    rows: list[HistoryRow] = []
    if not ws.repo.head_is_unborn or not include_all:
        # An empty repository is an error like in `rgr status` (head_commit says so and
        # how to fix it); only --all still lists notes, which need no branch.
        head = str(git.head_commit(ws.repo).id)
        rows = [row(c, when, text, True)
                for c, when, text in ws.notes.reachable_texts(head, oldest_first=True)]
    if include_all:
        # Notes on commits off this branch: failed attempts kept for audit, other
        # runs' branches, or objects that no longer exist.
        seen = {listed["commit"] for listed in rows}
        extra = []
        for hex_id, text in ws.notes.all_texts().items():
            if hex_id in seen:
                continue
            when = git.commit_time(ws.repo, hex_id)
            off_branch = row(hex_id, when or 0, text, reachable=False)
            if when is None:
                off_branch["problem"] = "the annotated commit no longer exists"
            extra.append(off_branch)
        rows.extend(sorted(extra, key=lambda r: r["time"]))
    if limit:
        rows = rows[-limit:]
    return rows


#: Bytes read at a time when the spool is written out backwards.
_SPOOL_BLOCK = 1 << 20

#: Rows written per step on the cached path.
_OUT_BATCH = 4096

def _json_chunks(ws: Workspace) -> Iterator[bytes]:
    """Every handoff on the branch as a JSON list, oldest first, one row per line, in
    chunks as they are read (rendered by rgr.base.render as they come).

    Rows come from the row cache (rgr.store.history.cache: note blob id -> row bytes) where it
    has them: the notes are listed (``git notes list``, commit -> blob) and the commits
    walked (``git rev-list``), and only the notes the cache lacks are read and validated
    (``git log --no-walk`` on those commits). When over a quarter of the notes are
    unknown to the cache (the first run, a new validator) everything is read as before
    (:func:`_uncached_chunks`) and the cache filled on the way. The bytes are the same
    either way: tests/store/history/test_cache.py."""
    from operator import countOf

    from rgr.store.history import cache as history_cache

    head = str(git.head_commit(ws.repo).id)
    tip = ws.notes.tip_id()
    if tip is None:
        yield from _uncached_chunks(ws, head)
        return
    cache = history_cache.RowCache.load(
        history_cache.cache_file(git.common_dir(ws.repo)), history_cache.validator_key())
    # commit -> its note's cache line, or its note's blob id (40 bytes) when the cache
    # has no row for it. One map, not commit -> blob and blob -> line: 25 MB less at
    # 100,000 notes.
    notes: dict[bytes, history_cache.Line] = {}
    # Through a replace ref (or a graft, a shallow boundary) git shows a commit id with
    # another commit's time: rows that take their commit's time are then neither served
    # nor filed (rgr.store.history.cache.pair_key assumes a commit id names its time).
    plain = ws.notes.walk_is_plain()
    for annotated, blobs in ws.notes.note_blobs():
        notes.update(zip(annotated, _lines_of(cache, annotated, blobs, plain), strict=True))
    cache.lines = {}  # the lines still needed are in `notes`
    unknown = countOf(map(len, notes.values()), history_cache.BLOB)
    if unknown * 4 > len(notes):  # many rows missing: read everything at once
        cache.begin_rewrite()
        yield from _uncached_chunks(ws, head, notes, cache, plain)
        # only when the notes did not move: else a row may be under another note's blob
        cache.end_rewrite(notes.values(), keep=ws.notes.tip_id() == tip)
        return
    walk = yield from _cached_chunks(ws, head, tip, notes, cache, plain)
    if walk is None:
        # the notes changed under us: one consistent read
        yield from _uncached_chunks(ws, head)
        return
    if ws.notes.tip_id() == tip:  # else a row may be under another note's blob id
        cache.save(notes.values(), _in_walk_order(notes, walk))


def _lines_of(cache: history_cache.RowCache, annotated: list[bytes], blobs: list[bytes],
              plain: bool) -> list[history_cache.Line]:
    """For each note (``annotated[i]``'s is ``blobs[i]``): its cache line, or its blob id
    when the cache has no row for it. A row is filed under the blob id, or, when it
    takes its commit's time (no finishedAt), under the pair's key
    (rgr.store.history.cache.row_key): looked for only when the blob id has no row, so notes
    with finishedAt cost one C-level lookup each. ``plain``: the walk is plain
    (rgr.store.notes.NotesStore.walk_is_plain), else pair keys are not looked for."""
    from rgr.store.history.cache import ROW_AT, pair_key

    found = cache.lines.get
    lines: list[history_cache.Line] = list(map(found, blobs, blobs))
    if min(map(len, lines), default=ROW_AT + 1) > ROW_AT:
        return lines  # every row found by its blob id
    for at, line in enumerate(lines):
        if len(line) <= ROW_AT:  # no row by the blob id (or an older version's mark)
            pair = found(pair_key(annotated[at], blobs[at])) if plain else None
            lines[at] = pair or blobs[at]
    return lines


def _in_walk_order(notes: dict[bytes, history_cache.Line],
                   commits: list[bytes]) -> Iterator[history_cache.Line]:
    """The lines of ``notes`` in the order of the walk (``commits``, newest first), then
    those of notes off it: the order a read uses them in, for a rewritten file. Read
    front to back, a mapped file costs rgr the pages of one batch at a time; in
    ``git notes list``'s order (by commit id) each batch's rows are all over it, and the
    whole file counts as rgr's memory (142 MiB against 101 MiB at 100,000 notes)."""
    yield from filter(None, map(notes.get, commits))
    walked = set(commits)
    yield from (line for commit, line in notes.items() if commit not in walked)


def _cached_chunks(ws: Workspace, head: str, tip: str, notes: dict[bytes, history_cache.Line],
                   cache: history_cache.RowCache, plain: bool,
                   ) -> Generator[bytes, None, list[bytes] | None]:
    """:func:`_json_chunks` when the cache has most rows; returns the walk (the commits
    from ``head``, newest first), or None (nothing written) when the notes ref moved
    from ``tip``, the one ``notes`` was listed at, while they were read."""
    from rgr.store.history.cache import BLOB, ROW_AT, row_key

    commits = _walk(ws, head, plain)
    get = notes.get
    # C loops (map, min) where every row is cached, the case this path is for.
    found = list(map(get, commits))  # per commit: its cache line, its note's blob, None
    misses = [] if min(map(len, filter(None, found)), default=ROW_AT + 1) > ROW_AT else [
        commit.decode() for commit, line in zip(commits, found, strict=True)
        if line is not None and len(line) <= ROW_AT]
    computed: dict[bytes, bytes] = {}  # commit -> whole row, for rows not cached
    for texts in ws.notes.texts_of(misses):
        for name, text, by_note in validated_rows(texts):
            commit = name.encode()
            part = cached_part(name, text)
            if part and len(notes[commit]) == BLOB and (by_note or plain):
                notes[commit] = cache.add(row_key(commit, notes[commit], by_note), part)
            else:
                computed[commit] = text  # (no row to keep, or the note is not a blob)
    if ws.notes.tip_id() != tip:
        return None
    yield b"[\n"
    separator = b""
    for end in range(len(commits), 0, -_OUT_BATCH):
        first = max(0, end - _OUT_BATCH)
        batch, lines = commits[first:end][::-1], found[first:end][::-1]
        if None not in lines and min(map(len, lines)) > ROW_AT:  # type: ignore[arg-type]
            # all cached, as found: the commits' lines have not changed since
            rows = [ROW_START % commit + line[ROW_AT:]  # type: ignore[index]
                    for commit, line in zip(batch, lines, strict=True)]
        else:
            rows = []
            for commit in batch:
                line = get(commit)
                if line is None:
                    continue
                if len(line) > ROW_AT:
                    rows.append(ROW_START % commit + line[ROW_AT:])
                elif (row := computed.get(commit)) is not None:
                    rows.append(row)
                # else: an empty note, or not a blob; git log shows none either
        if rows:
            yield separator + b",\n".join(rows)
            separator = b",\n"
        cache.release()  # the rows' pages of the cache file: rgr's memory stays flat
    yield b"\n]\n" if separator else b"]\n"
    return commits


def _walk(ws: Workspace, head: str, plain: bool) -> list[bytes]:
    """The commits reachable from ``head``, newest first in ``git log``'s order: the
    walk saved by the last run when it started from ``head`` too, or from an ancestor
    that ``head`` extends by a chain of one-parent commits (each rgr phase adds one);
    else ``git rev-list`` (0.3 s of git's CPU at 100,000 commits), then saved."""
    from rgr.store.history import cache as history_cache

    if not plain:  # ws.notes.walk_is_plain()
        return ws.notes.reachable_commits(head)
    path = history_cache.order_file(git.common_dir(ws.repo))
    saved = history_cache.load_order(path)
    if saved is not None:
        old, commits = saved
        if old == head.encode():
            return commits
        chain = ws.notes.chain_since(head, old.decode())
        if chain is not None:
            commits = chain + commits
            history_cache.save_order(path, head.encode(), commits)
            return commits
    commits = ws.notes.reachable_commits(head)
    history_cache.save_order(path, head.encode(), commits)
    return commits


def _uncached_chunks(ws: Workspace, head: str,
                     notes: dict[bytes, history_cache.Line] | None = None,
                     cache: history_cache.RowCache | None = None, plain: bool = True,
                     ) -> Iterator[bytes]:
    """:func:`_json_chunks` reading every note (``git log --notes``), adding the rows
    ``notes`` (see :func:`_json_chunks`) has no line for to ``cache``, when given (those
    that take their commit's time only when ``plain``: see :func:`_json_chunks`).

    git gives the notes newest first; asking it for oldest first (``--reverse``) makes it
    hold every commit before the first line (900 MB against 650 MB at a million notes).
    So each row is serialized as git produces it into a temporary file (newest first),
    which is then written out backwards: rgr's memory stays flat and git's is what
    ``git log --notes`` needs, however many notes."""
    import tempfile

    from rgr.store.history.cache import BLOB, row_key

    with tempfile.TemporaryFile() as spool:
        for batch in ws.notes.reachable_batches(head):
            lines = []
            for commit, line, by_note in validated_rows(batch):
                lines.append(line)
                if cache is not None and notes is not None:
                    key = commit.encode()
                    known = notes.get(key, b"")
                    if len(known) == BLOB:
                        # written out (begin_rewrite), not kept in `notes`: a million
                        # rows of memory
                        part = cached_part(commit, line)
                        if part and (by_note or plain):
                            cache.add(row_key(key, known, by_note), part)
                    elif known:
                        # Its old line goes in now, in the walk's order (see
                        # _in_walk_order), not with the lines left over at the end.
                        cache.keep(known)
                        notes[key] = b""
            if lines:
                spool.write(b"\n".join(lines) + b"\n")
        yield from _backwards(spool)


def _backwards(spool: IO[bytes]) -> Iterator[bytes]:
    """The spool's lines (JSON rows, no newline inside) last first, as a JSON list."""
    yield b"[\n"
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
            yield separator + b",\n".join(rows)
            separator = b",\n"
        end = start
    yield b"\n]\n" if separator else b"]\n"


def run(ws: Workspace, include_all: bool, limit: int | None) -> Outcome[list[dict[str, object]]]:
    """The handoffs as a table (the newest ``limit``, 50 by default) or, under --json, as
    one JSON list written as it is read; each made only when rendered."""
    return Outcome(lambda: _table(ws, include_all, limit),
                   encoded=_json_chunks(ws) if not limit and not include_all
                   else _listed_chunks(ws, include_all, limit))


def _table(ws: Workspace, include_all: bool, limit: int | None) -> list[TextItem]:
    if include_all or limit == 0:
        rows = collect(ws, include_all, None)
        shown = rows[-(limit or DEFAULT_TABLE_LIMIT):] if limit != 0 else rows
        more = (f"({len(shown)} of {len(rows)} handoff(s) shown; --limit 0 shows all)"
                if len(shown) < len(rows) else None)
    else:
        shown, newer = _newest(ws, limit or DEFAULT_TABLE_LIMIT)
        # Only the rows shown (and one more) were read: no total to give.
        more = newest_more(len(shown)) if newer else None
    # The same drawing as rgr.history_quick's (rgr.commands.history_table).
    return [Verbatim(table_text(shown, more, styles_ok(sys.stdout),
                                terminal_columns(sys.stdout)))]


def _listed_chunks(ws: Workspace, include_all: bool, limit: int | None) -> Iterator[bytes]:
    """The rows as a JSON list, one row per line: readable, and 3x faster than indenting
    100,000 rows (read when the first chunk is asked for)."""
    from pydantic_core import to_json

    rows = collect(ws, include_all, limit)
    lines = b",\n".join(to_json(row) for row in rows)
    yield b"[\n" + lines + (b"\n]\n" if rows else b"]\n")
