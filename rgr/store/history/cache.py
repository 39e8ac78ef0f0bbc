"""A content-addressed cache of ``rgr history --json`` rows, keyed by note blob id.

Why it is exact. A note blob id names the note's bytes, so it names the validated row
too, as long as the validator is the same: the cached part of a row is every byte of
the JSON row after ``{"commit":"<id>","reachable":true,``, filed under the note's blob id
when none of it depends on the commit (the note has ``finishedAt``, which is the row's
``time``). A row that takes its commit's time (a note without ``finishedAt``, as the
seed's schema and other tools write them; an invalid note's row) is filed under
:func:`pair_key` of the commit and the blob: a commit id names its commit time as a
blob id names the note, so that key names the whole row. So a cache hit gives the bytes
a fresh validation would give, and a changed, added or removed note is a different (or
absent) key: nothing is ever invalidated by hand.

The validator version is part of the file: its first line is ``rgr-history-rows <key>``,
the key a digest of the code that validates and serializes a row (rgr/store/handoff.py,
rgr/store/handoff_read.py, rgr/store/history/newest.py, rgr/store/history/rows.py), of the installed
pydantic and pydantic-core, and of :data:`FORMAT`, bumped when the row's shape changes.
A file with another key is ignored and rewritten. (Source files rather than the live validator's
schema: a run whose rows are all cached then never imports pydantic.)

Format. ``<git common dir>/rgr/cache/history-rows``, one line per note blob::

    <crc32 hex, 8> <key hex, 40> <row JSON suffix>\\n

the key a blob id or a :func:`pair_key`. (Files written before rows were filed under
pair keys also hold marks, lines with nothing after the blob id, for notes whose row was
computed every time: a read takes such a note as missing, and files its row.)

The CRC covers everything after it (blob id and row), so a torn, truncated or corrupted
line is dropped on load, never served (a damaged line that still matches its CRC has a
chance of 1 in 2**32). The caller saves rows only when the notes ref did not move while
it read them, so a row is never filed under a blob id that was not its note's.

New rows are appended with O_APPEND in one write per run: two rgr processes at once can
at worst interleave whole writes, or (a short write on a full disk) leave a torn line
that the CRC then rejects (and the next append starts on a new line). When the file holds
more dead lines (notes no longer in the notes ref, duplicates, bad lines) than live
ones, it is rewritten through a temporary file and a rename, so readers see the old
file or the new one, never half of it. Any OS error (read-only repository, a
permission problem, a full disk) only means no cache: the command never fails for it.

Memory. A reader maps the file rather than reading it: each line it keeps is a view of
the mapping, and the pages it has read are handed back to the page cache as it goes
(:meth:`RowCache.release`). So the rows a run serves cost it an index entry each, not
their bytes: at a million notes that is what keeps ``history --json`` under git's own
peak memory. Since the file is only ever replaced or appended to, never cut short, a
mapping stays valid for as long as it is used.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
import zlib
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import hashlib
    import mmap

#: A cache line: a view of the file as read, or the bytes of a line added since.
Line = bytes | memoryview

#: Bump when the cached bytes of a row change for the same note and validator.
FORMAT = 1

_HEADER = b"rgr-history-rows "
_ORDER = b"rgr-history-order"

#: Bytes indexed per step on load (more for a longer line): the file is mapped, and each
#: block's pages are handed back once its lines are indexed (peak memory is issue 14's
#: other target).
_BLOCK = 1 << 22

#: Lines compared or copied between two hand-backs of the file's pages (RowCache.release).
_RELEASE_EVERY = 16_384

#: Commits per piece when the walk is saved or read (:func:`save_order`, :func:`load_order`).
_ORDER_PIECE = 65_536

#: ``<crc8> <key40> ``: the row starts after this many bytes. A line of exactly this
#: length is a mark (written by older versions): the note's row was computed every time.
ROW_AT = 50

#: The length of a blob id (hex): shorter than any line.
BLOB = 40


def pair_key(commit: bytes, blob: bytes) -> bytes:
    """The key of a row that depends on its commit as well as its note (it takes the
    commit's time): a digest of both ids (hex), 40 hex digits like a blob id. SHA-1 of
    its own prefix and the two ids (each 40 hex digits), so no blob id (SHA-1 of
    ``blob <size>\\0...``) and no other pair gives it but by a SHA-1 collision.

    A read looks one up per note without finishedAt: the prefix is hashed once
    (:func:`_pair_prefix`), each key starts from a copy of it (100,000 keys: 0.09 s
    against 0.27 s importing and hashing all of it each time)."""
    digest = _pair_prefix().copy()
    digest.update(commit)
    digest.update(blob)
    return digest.hexdigest().encode()


@functools.cache
def _pair_prefix() -> hashlib._Hash:
    import hashlib

    return hashlib.sha1(b"rgr-history-row ")


def row_key(commit: bytes, blob: Line, by_note: bool) -> bytes:
    """Where a row is filed: under its note's blob id when it depends on the note alone
    (rgr.store.history.rows.validated_rows says), else under :func:`pair_key`."""
    blob = bytes(blob)  # (a blob id is bytes already: bytes() copies nothing)
    return blob if by_note else pair_key(commit, blob)


def validator_key() -> bytes:
    """The digest of everything a cached row's bytes depend on besides the note: the
    code that validates and serializes it, and the pydantic that runs that code.

    Taken from the source files rather than from the live validator, so that a run
    whose rows are all cached does not import pydantic (about 0.08 s, 10% of the
    target at 100,000 notes)."""
    import hashlib
    from importlib.util import find_spec

    digest = hashlib.sha256(b"%d\n" % FORMAT)
    store = Path(__file__).resolve().parent.parent
    # The note's description (note_json: HistoryFields, which the rows' validator is),
    # the models, the fast reader and its checks, and the row builders
    # (rgr/store/history/rows.py; rgr/store/history/newest.py: finish, iso).
    sources = [store / "note_json.py", store / "handoff.py", store / "handoff_read.py",
               store / "note_checks.py", store / "json_checks.py",
               store / "history" / "newest.py", store / "history" / "rows.py"]
    for package in ("pydantic", "pydantic_core"):
        spec = find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            # pydantic's version file names the pydantic-core it needs; pydantic-core's
            # compiled module is its code (named, sized and dated: a reinstall shows).
            sources.extend(sorted(Path(folder).glob("version.py")))
            for built in sorted(Path(folder).glob("_pydantic_core*")):
                stat = built.stat()
                digest.update(f"{built.name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:32].encode()


def _loaded_code_on_disk() -> bool:
    """The schema's code on disk is still what this process loaded (rgr.store.handoff's
    LOADED_CODE; rows.py and table.py are loaded by the caller just now)."""
    from rgr.store.handoff import LOADED_CODE, file_stamp

    try:
        return all(file_stamp(entry[0]) == entry for entry in LOADED_CODE)
    except OSError:
        return False


def cache_file(common_dir: Path) -> Path:
    return common_dir / "rgr" / "cache" / "history-rows"


def order_file(common_dir: Path) -> Path:
    return common_dir / "rgr" / "cache" / "history-order"


#: The validator key of this process's code, taken once by :func:`add_written`: b""
#: when the files it digests are no longer the ones this process loaded (an upgrade
#: under a running rgr), whose code in memory may then not be the code the key names.
_written_key: bytes | None = None


def add_written(common_dirs: Iterable[Path], commit: str, blob: str, text: str,
                when: int) -> None:
    """File the row of a note rgr has just written: ``text`` on ``commit`` (committed
    at ``when``, epoch seconds: the time of a row without finishedAt), stored as blob
    ``blob``, in the cache of each git dir of ``common_dirs``. The first ``rgr
    history --json`` after it then finds the row instead of validating the note, so a
    repository whose notes this rgr wrote is not read cold (notes fetched from
    elsewhere still are, once).

    Exact for the reason every row here is: the same code builds it
    (rgr.store.history.rows) from the text whose bytes the blob id names. Appended in one
    ``O_APPEND`` write, and only to a file of this validator (with another key it is
    left for the next read to rewrite). Never raises for the file system: a row not
    filed is a note validated at the next read."""
    from rgr.store.history.rows import cached_part, validated_rows

    global _written_key
    if _written_key is None:
        try:
            key = validator_key() if _loaded_code_on_disk() else None
        except OSError:
            key = None  # a file of the key unreadable: reads will say so, not writes
        _written_key = key or b""
    if not _written_key:
        return  # rows filed by this process might not be the rows its key stands for
    header = _HEADER + _written_key + b"\n"
    ((_, row, by_note),) = validated_rows([(commit, when, text)])
    body = row_key(commit.encode(), blob.encode(), by_note) + b" " + cached_part(commit, row)
    line = b"%08x %s\n" % (zlib.crc32(body), body)
    for common_dir in common_dirs:
        _append_row(cache_file(common_dir), header, line)


def _append_row(path: Path, header: bytes, line: bytes) -> None:
    """:func:`add_written` for one file."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError:
        with contextlib.suppress(OSError), _replacing(path, over_existing=False) as file:
            file.write(header + line)
        return
    except OSError:
        return
    try:
        if os.pread(fd, len(header), 0) != header:
            return
        if os.pread(fd, 1, os.fstat(fd).st_size - 1) != b"\n":
            line = b"\n" + line  # after a torn line: it would spoil this one
        _write_all(fd, line)
    except OSError:
        pass
    finally:
        os.close(fd)


def load_order(path: Path) -> tuple[bytes, list[bytes]] | None:
    """The commit the saved walk started from and the walk (commit ids, newest first,
    as ``git rev-list`` gave them); None when there is none or it is damaged.

    A commit id names its whole history, so the walk from it is the same every time
    (what git could change it with, replace refs, grafts, a shallow clone, is checked
    by the caller); only a file damaged since it was written is rejected (its CRC)."""
    # Read in pieces, as it was written: the whole file at once beside its split would
    # be 41 MB more at rgr's peak at a million commits.
    commits: list[bytes] = []
    crc, carry = 0, b""
    try:
        with open(path, "rb") as file:
            header = file.readline().split()
            while piece := file.read(_ORDER_PIECE * 41):
                crc = zlib.crc32(piece, crc)
                data = carry + piece
                cut = data.rfind(b"\n") + 1
                commits += data[:cut].split()
                carry = data[cut:]
    except OSError:
        return None
    commits += carry.split()
    if len(header) != 4 or header[0] != _ORDER or header[3] != b"%08x" % crc \
            or not header[2].isdigit() or int(header[2]) != len(commits):
        return None
    return header[1], commits


def save_order(path: Path, head: bytes, commits: list[bytes]) -> None:
    """Keep the walk from ``head`` for the next run (through a rename: a reader sees
    the old walk or the new one). Never raises for the file system.

    Written in pieces, its CRC computed as they go and put in the header last: the
    whole walk joined at once would be 41 MB more at rgr's peak at a million commits."""
    def header(crc: int) -> bytes:
        return b"%s %s %d %08x\n" % (_ORDER, head, len(commits), crc)

    try:
        with _replacing(path) as file:
            file.write(header(0))  # the same length as the real one
            crc = 0
            for start in range(0, len(commits), _ORDER_PIECE):
                piece = b"\n".join(commits[start:start + _ORDER_PIECE])
                if start:
                    piece = b"\n" + piece
                crc = zlib.crc32(piece, crc)
                file.write(piece)
            file.seek(0)
            file.write(header(crc))
    except OSError:
        pass


@contextlib.contextmanager
def _replacing(path: Path, *, over_existing: bool = True) -> Iterator[IO[bytes]]:
    """A new file for ``path``, written beside it and put in place when the block ends,
    so a reader sees the old file or the new one, never half of it; removed when the
    block fails. ``over_existing`` False: put in place only while there is no file at
    ``path`` (else FileExistsError), so a file a read has just put there stays."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
        if over_existing:
            os.replace(temp, path)
        else:
            os.link(temp, path)
            os.unlink(temp)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _write_all(fd: int, data: bytes) -> None:
    """``data`` to ``fd``: in one write (appends of whole lines), unless the file system
    cuts it short."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _good(line: bytes) -> bool:
    """The line is as written: its CRC matches (a torn or damaged line passes with a
    chance of 1 in 2**32)."""
    try:
        return zlib.crc32(line[9:]) == int(line[:8], 16)
    except ValueError:
        return False


class RowCache:
    """The rows of one repository's cache file, and the rows to add to it."""

    def __init__(self, path: Path, key: bytes) -> None:
        self.path = path
        self.key = key
        #: blob id (hex bytes) -> its whole cache line (a view of the file as read, or
        #: the bytes of a line added); the row is ``line[ROW_AT:]``. The caller may drop
        #: it once it has looked up its notes (peak memory).
        self.lines: dict[bytes, Line] = {}
        self.on_disk = 0  # lines in the file, good or bad: compaction counts dead ones
        self.current = False  # the file exists with this key
        self.added: list[bytes] = []
        self.torn = False  # the file ends in a partial line (a write cut short)
        #: While rewriting (:meth:`begin_rewrite`): the new file, written as rows come.
        self._out: IO[bytes] | None = None
        self._temp: Path | None = None
        self._off = False  # the new file could not be written: rows are not kept at all
        self._map: mmap.mmap | None = None  # the file as read (see _read)

    @classmethod
    def load(cls, path: Path, key: bytes) -> RowCache:
        cache = cls(path, key)
        try:
            with open(path, "rb") as file:
                if file.readline() != _HEADER + key + b"\n":
                    return cache  # another validator's rows (or no header): rewritten
                cache.current = True
                cache._read(file.fileno(), file.tell())
        except (OSError, ValueError):
            pass  # no cache yet, or none readable: every row is computed
        return cache

    def _read(self, fd: int, start: int) -> None:
        """Index the lines after the header (``start``): each good line becomes a view
        of the file, mapped read-only, not a copy. The rows then cost rgr their index
        (about 250 bytes a note), not their bytes (about 480): at a million notes that
        keeps ``history --json`` under git's own peak memory. Pages of the file that
        were read are handed back to the page cache as the reading goes
        (:meth:`release`), so they do not count as rgr's either.

        The file is only ever replaced (a new file, renamed) or appended to, never cut
        short, so the mapping stays valid while it is used."""
        import mmap
        from itertools import accumulate

        size = os.fstat(fd).st_size
        if size <= start:
            return
        self._map = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        view = memoryview(self._map)
        lines = self.lines
        crc32 = zlib.crc32
        pos, block_size = start, _BLOCK
        while pos < size:
            block = self._map[pos:pos + block_size]
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                if pos + len(block) < size:  # one line longer than a block: read more
                    block_size *= 2
                    continue
                self.on_disk, self.torn = self.on_disk + 1, True  # a partial last line
                break
            pieces = block[:cut].split(b"\n")
            pieces.pop()  # after the last newline
            self.on_disk += len(pieces)
            starts = accumulate((len(line) + 1 for line in pieces), initial=pos)
            try:
                lines.update({line[9:49]: view[at:at + len(line)]
                              for line, at in zip(pieces, starts, strict=False)
                              if crc32(line[9:]) == int(line[:8], 16)})
            except ValueError:  # a damaged CRC field: this block line by line
                starts = accumulate((len(line) + 1 for line in pieces), initial=pos)
                lines.update({line[9:49]: view[at:at + len(line)]
                              for line, at in zip(pieces, starts, strict=False)
                              if _good(line)})
            pos += cut
            block_size = _BLOCK
            self.release()

    def release(self) -> None:
        """Hand the pages of the file read so far back to the page cache: they stop
        counting as rgr's memory, and are read again (from memory) if used again."""
        if self._map is not None:
            import mmap

            advice = getattr(mmap, "MADV_DONTNEED", None)
            if advice is not None:
                self._map.madvise(advice)

    def add(self, key: Line, row: bytes) -> bytes:
        """Remember ``row`` (no newline inside: rows are compact JSON) under ``key`` (a
        blob id or a pair key: :func:`row_key`); returns the cache line."""
        body = bytes(key) + b" " + row  # (a key is bytes: bytes() copies nothing)
        line = b"%08x %s" % (zlib.crc32(body), body)
        if self._out is not None:
            self.keep(line)
        elif not self._off:
            self.added.append(line)
        return line

    def keep(self, line: Line) -> None:
        """While rewriting: put a line of the old file in the new one now, in the order
        the rows come (:meth:`end_rewrite` adds the lines left over)."""
        if self._out is not None:
            try:
                self._out.write(line)
                self._out.write(b"\n")
            except OSError:
                self._abandon()

    def begin_rewrite(self) -> None:
        """Write a new file as rows are added rather than hold them (the full read adds
        every row: 480 MB at a million notes), until :meth:`end_rewrite`."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".history-rows.")
        except OSError:
            self._off = True
            return
        self._out, self._temp = os.fdopen(fd, "wb"), Path(temp)
        try:
            self._out.write(_HEADER + self.key + b"\n")
        except OSError:
            self._abandon()

    def end_rewrite(self, current: Collection[Line], keep: bool) -> None:
        """Finish the new file with the lines of the old one that ``current`` (see
        :meth:`save`) still uses and that were not kept already (:meth:`keep`), and put
        it in place; ``keep`` False: drop it."""
        out, temp = self._out, self._temp
        if out is None or temp is None:
            return
        try:
            if keep:
                out.writelines(self._with_newlines(current))
                out.close()
                os.replace(temp, self.path)
                self._out = None
                return
        except OSError:
            pass
        self._abandon()

    def _abandon(self) -> None:
        """No new file after all (a full disk, say): never a reason to fail."""
        out, temp = self._out, self._temp
        self._out, self._temp, self._off = None, None, True
        if out is not None:
            with contextlib.suppress(OSError):
                out.close()
        if temp is not None:
            temp.unlink(missing_ok=True)

    def save(self, current: Collection[Line], in_order: Iterable[Line] | None = None) -> None:
        """Write the added rows. ``current`` holds, for each note the notes ref has now,
        its cache line (read or added) or its blob id (not cached): the rows are
        appended, or, when the file is new, has another key or holds more dead lines
        than live ones, it is rewritten with the live lines only, in the order of
        ``in_order`` when given (the same lines, in the order reads use them). Never
        raises for the file system: a cache that cannot be written is no cache."""
        try:
            if not self.current or self.on_disk > 2 * len(current) or (
                    self.on_disk > len(current) and self._dead(current) > len(current)):
                self._rewrite(current if in_order is None else in_order)
            elif self.added:
                self._append()
        except OSError:
            pass

    def _dead(self, current: Collection[Line]) -> int:
        """Lines in the file that no current note needs (gone notes, bad lines, twice
        written rows)."""
        added = set(self.added)
        return self.on_disk - sum(1 for line in self._live(current) if line not in added)

    def _live(self, current: Iterable[Line]) -> Iterator[Line]:
        """Each distinct line of ``current`` (not the blob ids), in order. Comparing
        lines reads them: the file's pages are handed back as it goes (:meth:`release`)."""
        seen: set[Line] = set()
        for count, line in enumerate(current, 1):
            if len(line) > BLOB and line not in seen:
                seen.add(line)
                yield line
            if count % _RELEASE_EVERY == 0:
                self.release()

    def _with_newlines(self, current: Iterable[Line]) -> Iterator[Line]:
        """:meth:`_live`, each line followed by a newline: for writelines, which takes
        views of the old file as they are."""
        for line in self._live(current):
            yield line
            yield b"\n"

    def _append(self) -> None:
        # After a torn line, a newline first: the torn bytes would spoil the first row.
        data = b"\n" * self.torn + b"".join(line + b"\n" for line in self.added)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)

    def _rewrite(self, current: Iterable[Line]) -> None:
        with _replacing(self.path) as file:
            file.write(_HEADER + self.key + b"\n")
            file.writelines(self._with_newlines(current))
