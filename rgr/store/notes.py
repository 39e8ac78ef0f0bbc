"""The only reader and writer of the handoff notes ref (``refs/notes/tdd-handoffs``).

Layout. A notes ref points at a commit whose tree maps annotated objects to note
blobs. git uses two layouts and this module reads both, mixed at any depth: flat
(``<40 hex>``) and fan-out (``ab/<38 hex>``, ``ab/cd/<36 hex>`` ...), which
``git notes`` switches to once there are many notes. rgr always writes one level of
fan-out (``ab/<38 hex>``), and splits a subtree one level further once it holds
``SUBTREE_SPLIT`` notes (``ab/cd/<36 hex>``), as git does: a write then rebuilds a few
trees of at most a few hundred entries whatever the number of notes, where libgit2's own
``create_note`` rewrites a single flat tree of every note on every write. Flat entries
left by other writers are moved into fan-out the first time rgr writes, once there are
enough of them to matter.

Concurrency. A write builds a new notes commit on top of the tip it read and moves the
ref with compare-and-swap (libgit2's ``set_target`` checks the old value under the ref
lock). If another writer moved the ref first, the write is rebuilt on the new tip and
tried again, so no update is ever lost.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pygit2
from pygit2.enums import ObjectType

from rgr.base import failpoints
from rgr.base.errors import NotesError, RepositoryError
from rgr.store import git
from rgr.store.notes_log import DEFAULT_REF, RECORD_SEP, log_argv, log_records, no_walk_argv

if TYPE_CHECKING:
    # Imported where used: `rgr status` and `rgr show` read one note without pydantic
    # (rgr.store.handoff_read), and no reader needs tenacity.
    from rgr.store.handoff import HandoffState


#: Once the root tree holds this many flat notes, a write migrates them to fan-out.
FLAT_MIGRATION_THRESHOLD = 256

#: A fan-out subtree holding this many notes is split one level further (``ab/cd/...``)
#: on the next new note: at a million notes a write then rewrites three trees of at
#: most 256 entries instead of one of ~3,900 (66 ms against 24 ms measured here).
SUBTREE_SPLIT = 256

_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class NoteRecord:
    """One note: the commit it annotates, its text, and either a state or a problem."""

    commit: str
    text: str
    state: HandoffState | None
    problem: str | None

    @classmethod
    def parse(cls, commit: str, text: str) -> NoteRecord:
        from rgr.store.handoff import InvalidNote, parse_note

        try:
            return cls(commit, text, parse_note(text), None)
        except InvalidNote as exc:
            return cls(commit, text, None, str(exc))


class _RefMoved(Exception):
    """Another writer moved the notes ref between our read and our update."""


class _RefLocked(Exception):
    """The ref's lock file exists: another writer is mid-update (or died holding it)."""


def _is_hex(name: str) -> bool:
    return bool(name) and all(c in _HEX for c in name)


class NotesStore:
    """Handoff notes of one repository under one ref."""

    def __init__(self, repo: pygit2.Repository, ref: str = DEFAULT_REF,
                 on_written: Callable[[str, str, str], None] | None = None) -> None:
        self.repo = repo
        self.ref = ref
        #: Told (commit, note blob id, text) after each note is written: the workspace
        #: files the note's history row (rgr.store.history.cache.add_written).
        self.on_written = on_written
        #: The root tree this store last wrote: it holds fewer flat notes than
        #: FLAT_MIGRATION_THRESHOLD (a write never adds one there, and moves them all
        #: once there are that many), so the next write on it need not count them.
        self._written_root: pygit2.Oid | None = None

    # ----------------------------------------------------------------- reading --

    def tip(self) -> pygit2.Commit | None:
        """The notes commit the ref points at; None when there are no notes yet."""
        try:
            reference = self.repo.references.get(self.ref)
        except pygit2.InvalidSpecError as exc:
            raise NotesError(f"invalid notes ref name {self.ref!r}") from exc
        if reference is None:
            return None
        target = reference.target
        assert isinstance(target, pygit2.Oid)
        try:
            obj = self.repo[target]
        except KeyError:
            raise NotesError(
                f"{self.ref} points at {target}, which is not in the repository",
                "run `rgr repair-notes` to see the damage, `rgr repair-notes --apply` to fix it",
            ) from None
        if not isinstance(obj, pygit2.Commit):
            raise NotesError(
                f"{self.ref} points at a {obj.type_str}, not a commit",
                "run `rgr repair-notes --apply`",
            )
        return obj

    def read_text(self, commit: str) -> str | None:
        """The raw note text on ``commit`` (full hex id), or None."""
        tip = self.tip()
        if tip is None:
            return None
        blob_id = _lookup(self.repo, tip.tree, commit)
        if blob_id is None:
            return None
        return _blob_text(self.repo, blob_id)

    def read(self, commit: str) -> NoteRecord | None:
        text = self.read_text(commit)
        return None if text is None else NoteRecord.parse(commit, text)

    def iter_raw(self) -> Iterator[tuple[str, pygit2.Oid]]:
        """Every (annotated object hex, note blob id), in either layout."""
        tip = self.tip()
        if tip is None:
            return
        yield from _walk(self.repo, tip.tree, "")

    def all_texts(self) -> dict[str, str]:
        return {commit: _blob_text(self.repo, blob) for commit, blob in self.iter_raw()}

    def all(self) -> dict[str, NoteRecord]:
        """Every note, parsed. Invalid ones come back with ``problem`` set."""
        return {c: NoteRecord.parse(c, t) for c, t in self.all_texts().items()}

    def reachable_texts(self, head: str,
                        oldest_first: bool = False) -> Iterator[tuple[str, int, bytes]]:
        """(commit, commit time, note text) for each noted commit reachable from
        ``head``, newest first (``oldest_first``: git log --reverse, for callers that
        hold every row anyway; git then holds every commit too, about 1.4x the memory
        of the plain log at a million notes)."""
        for batch in self.reachable_batches(head, oldest_first):
            yield from batch

    def reachable_batches(self, head: str, oldest_first: bool = False
                          ) -> Iterator[list[tuple[str, int, bytes]]]:
        """:meth:`reachable_texts` in batches, as git's output arrives (about 1 MiB
        each): a bulk reader's loop then runs once per batch, not once per note.

        This bulk read goes through ``git log --notes``: on a packed repository libgit2
        resolves note blobs about 6x slower than git (no delta-base cache), which for
        100,000 notes is the difference between 8 s and 1.5 s. Streamed: rows come as
        git writes them (rgr.base.proc.stream), and git and Python use both cores.
        """
        if self.repo.references.get(self.ref) is None:
            return
        self.tip()  # a broken ref is reported as such, not as a git failure
        from rgr.base import proc
        from rgr.base.errors import CommandError

        argv = log_argv(self.ref, head, reverse=oldest_first)
        pending = b""
        try:
            for chunk in proc.stream(argv, cwd=self.repo.path, env=_unflushed()):
                records = (pending + chunk).split(RECORD_SEP)
                pending = records.pop()
                yield log_records(records)
        except CommandError as exc:
            raise NotesError(f"git log failed reading {self.ref}: {exc.message}") from None
        yield log_records([pending])

    def tip_id(self) -> str | None:
        """The notes commit's id, without reading it: to tell whether the ref moved."""
        reference = self.repo.references.get(self.ref)
        return None if reference is None else str(reference.target)

    def note_blobs(self) -> Iterator[tuple[list[bytes], list[bytes]]]:
        """Every note as (annotated object ids, note blob ids), hex bytes, in batches as
        git lists them (``git notes list``: git's own reading of the notes tree, in any
        fan-out, odd names and notes at two depths included; libgit2 from Python takes
        twice as long on git's two-level fan-out). Batches, not one list: at 100,000
        notes the whole output and its pieces would be 25 MB more at rgr's peak."""
        from rgr.base.errors import CommandError
        from rgr.store.gitcli import argv

        try:
            for parts in _split_stream(argv("notes", f"--ref={self.ref}", "list"),
                                       self.repo.path):
                yield parts[1::2], parts[0::2]
        except CommandError as exc:
            raise NotesError(f"git notes list failed reading {self.ref}: {exc.message}") from None

    def reachable_commits(self, head: str) -> list[bytes]:
        """The commits reachable from ``head`` (hex bytes), newest first in ``git log``'s
        order: ``git rev-list`` walks the same way, without formatting each commit."""
        from rgr.base.errors import CommandError
        from rgr.store.gitcli import argv

        commits: list[bytes] = []
        try:
            for parts in _split_stream(argv("rev-list", head), self.repo.path):
                commits += parts
        except CommandError as exc:
            raise NotesError(f"git rev-list failed: {exc.message}") from None
        return commits

    def walk_is_plain(self) -> bool:
        """Whether a walk of history depends only on the commit it starts from: no
        replace refs, grafts or shallow boundary (nor variables that move them), which
        could change it later for the same commit."""
        import os

        common = git.common_dir(self.repo)
        if (common / "shallow").exists() or (common / "info" / "grafts").exists():
            return False
        if any(os.environ.get(name) for name in ("GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE",
                                                  "GIT_NO_REPLACE_OBJECTS", "GIT_SHALLOW_FILE")):
            return False
        return not any(name.startswith("refs/replace/") for name in self.repo.references)

    def chain_since(self, head: str, old: str) -> list[bytes] | None:
        """The commits from ``head`` back to ``old`` (excluded), newest first, when they
        are a chain of one-parent commits ending on ``old``; else None. Then the walk
        from ``head`` is this chain and then the walk from ``old``: at each step of the
        chain git's walk holds that one commit, and at ``old`` it is where a walk from
        ``old`` starts, whatever the commit dates."""
        from rgr.base import proc
        from rgr.base.errors import CommandError
        from rgr.store.gitcli import argv

        try:
            walk = argv("rev-list", "--parents", head, f"^{old}")
            lines = b"".join(proc.stream(walk, cwd=self.repo.path, env=_unflushed())
                             ).splitlines()
        except CommandError:
            return None  # `old` is not a commit (any more)
        chain, expect = [], head.encode()
        for line in lines:
            ids = line.split()
            if len(ids) != 2 or ids[0] != expect:
                return None  # a merge, a root, or not one chain
            chain.append(ids[0])
            expect = ids[1]
        return chain if chain and expect == old.encode() else None

    def texts_of(self, commits: list[str]) -> Iterator[list[tuple[str, int, bytes]]]:
        """:meth:`reachable_batches` for the given commits only (``git log --no-walk``,
        so the text is what the full read gives), in batches; commits without a note
        give nothing."""
        from rgr.base import proc
        from rgr.base.errors import CommandError

        for start in range(0, len(commits), _ARGS_PER_LOG):
            argv = no_walk_argv(self.ref, commits[start:start + _ARGS_PER_LOG])
            try:
                data = b"".join(proc.stream(argv, cwd=self.repo.path, env=_unflushed()))
            except CommandError as exc:
                raise NotesError(f"git log failed reading {self.ref}: {exc.message}") from None
            yield log_records(data.split(RECORD_SEP))

    def latest_handoff(self, start: str, doing: str,
                       repair_hint: str) -> tuple[NoteRecord, HandoffState, int]:
        """The newest note on ``start`` or its ancestors as a valid handoff: the record,
        its state and its distance from ``start``. RepositoryError, saying there is
        nothing to ``doing``, when there is no note; ``repair_hint`` when the note found
        is not a handoff."""
        found = self.latest_reachable(start)
        if found is None:
            raise RepositoryError(f"no rgr handoff on this branch: nothing to {doing}",
                                  "start a run with `rgr run \"<feature>\"`")
        record, distance = found
        if record.state is None:
            raise RepositoryError(f"the latest note ({record.commit[:8]}) is not a valid "
                                  f"handoff: {record.problem}", repair_hint)
        return record, record.state, distance

    def latest_reachable(self, start: str) -> tuple[NoteRecord, int] | None:
        """The newest note on ``start`` or its ancestors, and how many commits lie
        between ``start`` and it (0: the note is on ``start`` itself).

        Walks history newest first and looks each commit up directly in the notes tree,
        so the common case (a note on HEAD) costs one lookup, not a load of every note.
        """
        found = self.latest_reachable_text(start)
        if found is None:
            return None
        hex_id, text, distance = found
        return NoteRecord.parse(hex_id, text), distance

    def run_start(self, commit: str, run_id: str | None) -> HandoffState | None:
        """The start note of the run whose handoff is on ``commit`` or its ancestors
        (the first note of that run with its ``sandbox``, first parents back); None
        when a note of another run, or none, comes first."""
        while True:
            found = self.latest_reachable(commit)
            if found is None or found[0].state is None or found[0].state.run_id != run_id:
                return None
            record, state = found[0], found[0].state
            if state.sandbox is not None:
                return state
            parents = git.resolve_commit(self.repo, record.commit).parent_ids
            if not parents:
                return None
            commit = str(parents[0])

    def latest_reachable_text(self, start: str) -> tuple[str, str, int] | None:
        """:meth:`latest_reachable` unparsed: (commit, note text, distance)."""
        tip = self.tip()
        if tip is None:
            return None
        tree = tip.tree
        # Unsorted is lazy; TOPOLOGICAL would read all of history before the first commit.
        walker = self.repo.walk(pygit2.Oid(hex=start))
        for distance, commit in enumerate(walker):
            hex_id = str(commit.id)
            blob_id = _lookup(self.repo, tree, hex_id)
            if blob_id is not None:
                return hex_id, _blob_text(self.repo, blob_id), distance
        return None

    # ----------------------------------------------------------------- writing --

    def write(self, commit: str, state: HandoffState, message: str | None = None) -> None:
        """Note ``state`` on ``commit``, replacing any note it had."""
        self.write_text(commit, state.to_json(), message or f"rgr: {state.phase} on {commit[:12]}")

    def write_text(self, commit: str, text: str, message: str) -> None:
        try:
            blob_id = self.repo.create_blob(text.encode("utf-8"))
            self._update(commit, blob_id, message)
        except (pygit2.GitError, OSError) as exc:
            raise self._write_failed(commit, exc) from exc
        if self.on_written is not None:
            self.on_written(commit, str(blob_id), text)

    def _write_failed(self, commit: str, exc: Exception) -> NotesError:
        """A clear error for a note that could not be written. Nothing was changed: the
        ref only ever moves after every object it needs exists."""
        import shutil

        # libgit2 reports a full disk as "no error"; the free space says what happened.
        free = shutil.disk_usage(self.repo.path).free
        if free < 1024 * 1024 or getattr(exc, "errno", None) == errno.ENOSPC:
            return NotesError(
                f"could not write the note on {commit[:12]}: the disk holding "
                f"{self.repo.path} is full ({free} bytes free); {self.ref} is unchanged",
                "free some space, then `rgr resume` continues from the last handoff")
        return NotesError(f"could not write the note on {commit[:12]}: {exc}; "
                          f"{self.ref} is unchanged")

    def remove(self, commit: str, message: str) -> bool:
        """Drop the note on ``commit``. Returns False when there was none. The note stays
        in the notes ref's own history (its previous commits), so nothing is lost."""
        if self.read_text(commit) is None:
            return False
        self._update(commit, None, message)
        return True

    def _update(self, commit: str, blob_id: pygit2.Oid | None, message: str) -> None:
        if len(commit) != 40 or not _is_hex(commit):
            raise NotesError(f"not a full commit id: {commit!r}")
        from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_random

        retrying = Retrying(
            # Conflicts resolve as soon as the other writer is done; a lock that outlives
            # ~3 s of retries is left by a dead process and needs repair, not patience.
            retry=retry_if_exception_type((_RefMoved, _RefLocked)),
            stop=stop_after_attempt(200),
            wait=wait_random(0.001, 0.03),
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    self._try_update(commit, blob_id, message)
        except _RefLocked:
            raise NotesError(
                f"{self.ref} is locked by another process and stayed locked",
                "if no git or rgr process is running, `rgr repair-notes --apply` removes the "
                "stale lock",
            ) from None
        except _RefMoved:
            raise NotesError(f"{self.ref} kept changing under rgr; nothing was written") from None

    def _try_update(self, commit: str, blob_id: pygit2.Oid | None, message: str) -> None:
        reference = self.repo.references.get(self.ref)
        parent = self.tip() if reference is not None else None
        root = parent.tree if parent is not None else None
        new_root = _put(self.repo, root, commit, blob_id, depth=0,
                        count_flat=root is not None and root.id != self._written_root)
        if root is not None and new_root == root.id:
            return  # nothing to change: the same note was already there
        who = git.signature(self.repo)
        parents = [parent.id] if parent is not None else []
        new_commit = self.repo.create_commit(
            None, who, who, message + "\n", new_root, parents
        )
        failpoints.hit("notes:objects-written")
        try:
            if reference is None:
                self._create_ref(new_commit, message)
            else:
                reference.set_target(new_commit, message)
        except pygit2.AlreadyExistsError:
            raise _RefMoved() from None
        except (pygit2.GitError, OSError) as exc:
            if "old reference value does not match" in str(exc):
                raise _RefMoved() from None
            # libgit2 words it "failed to lock file ..." or, when the lock file already
            # exists, "failed to create locked file ...: File exists".
            if "failed to lock" in str(exc) or "locked file" in str(exc):
                raise _RefLocked() from None
            raise
        self._written_root = new_root
        failpoints.hit("notes:ref-moved")

    def _create_ref(self, target: pygit2.Oid, message: str) -> None:
        """Create the notes ref at ``target``, only if it still does not exist.

        libgit2's own create (``create_reference_direct`` without force) looks for the
        ref before it takes the ref's lock, so two first writers could both create it,
        the second overwriting the first: its note and any written on top of it lost
        (seen under load: tests/store/test_notes.py, test_concurrent_writers_never_lose_a_note).
        A transaction takes the lock first and looks under it; an update of an existing
        ref is already a compare-and-swap under the lock (``set_target``)."""
        with self.repo.transaction() as transaction:
            transaction.lock_ref(self.ref)
            if self.repo.references.get(self.ref) is not None:
                raise _RefMoved()  # created since we looked: build on it instead
            # The reflog's identity as set_target's: libgit2's default, else "unknown"
            # (pygit2 1.21 cannot pass a Signature object to a transaction).
            transaction.set_target(self.ref, target, message=message)

    # ------------------------------------------------------------------ repair --

    def set_tip(self, target: pygit2.Oid | None, message: str) -> None:
        """Point the ref at ``target`` unconditionally (None deletes it). Repair only."""
        if target is None:
            if self.repo.references.get(self.ref) is not None:
                self.repo.references.delete(self.ref)
            return
        self.repo.create_reference_direct(self.ref, target, True, message=message)


#: Commit ids per ``git log --no-walk`` (41 bytes each of argv: far below ARG_MAX).
_ARGS_PER_LOG = 4096

def _split_stream(argv: list[str], cwd: str) -> Iterator[list[bytes]]:
    """The whitespace-separated words of ``argv``'s output, a batch per chunk read (no
    word is cut between two batches: the output is split at its last newline)."""
    from rgr.base import proc

    pending = b""
    for chunk in proc.stream(argv, cwd=cwd, env=_unflushed()):
        data = pending + chunk
        cut = data.rfind(b"\n") + 1
        pending = data[cut:]
        yield data[:cut].split()
    if pending.strip():
        yield pending.split()


def _unflushed() -> dict[str, str]:
    """The environment for a git command whose output rgr reads in bulk: git flushes
    stdout after every commit when it is a pipe, which at 100,000 commits means 100,000
    small reads for rgr (0.3 s of rgr's CPU for `git rev-list`, 0.06 s without)."""
    import os

    return {**os.environ, "GIT_FLUSH": "0"}


def _blob_text(repo: pygit2.Repository, blob_id: pygit2.Oid) -> str:
    blob = repo[blob_id]
    assert isinstance(blob, pygit2.Blob)
    return blob.data.decode("utf-8", "replace")


def _lookup(repo: pygit2.Repository, tree: pygit2.Tree, hex_id: str) -> pygit2.Oid | None:
    """Find the note blob of ``hex_id`` in a notes tree of any fan-out depth."""
    rest = hex_id
    while rest:
        entry = _entry(tree, rest)
        if entry is not None and entry.type == ObjectType.BLOB:
            return entry.id
        sub = _entry(tree, rest[:2])
        if sub is None or sub.type != ObjectType.TREE:
            return None
        subtree = repo[sub.id]
        assert isinstance(subtree, pygit2.Tree)
        tree, rest = subtree, rest[2:]
    return None


def _entry(tree: pygit2.Tree, name: str) -> pygit2.Object | None:
    try:
        return tree[name]
    except KeyError:
        return None


def _walk(
    repo: pygit2.Repository, tree: pygit2.Tree, prefix: str
) -> Iterator[tuple[str, pygit2.Oid]]:
    for entry in tree:
        name = entry.name or ""
        if not _is_hex(name):
            continue  # git notes trees may carry other files; they are not notes
        if entry.type == ObjectType.BLOB and len(prefix) + len(name) == 40:
            yield prefix + name, entry.id
        elif entry.type == ObjectType.TREE and len(name) == 2:
            subtree = repo[entry.id]
            assert isinstance(subtree, pygit2.Tree)
            yield from _walk(repo, subtree, prefix + name)


def _put(
    repo: pygit2.Repository,
    tree: pygit2.Tree | None,
    rest: str,
    blob_id: pygit2.Oid | None,
    depth: int,
    count_flat: bool = True,
) -> pygit2.Oid:
    """Return a tree like ``tree`` where the note for ``rest`` is ``blob_id`` (None removes
    it). ``count_flat``: whether the root may hold enough flat notes to move them into
    fan-out (:func:`_migrate_flat`)."""
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    existing = _entry(tree, rest) if tree is not None else None
    sub = _entry(tree, rest[:2]) if tree is not None else None
    if existing is not None and existing.type == ObjectType.BLOB:
        builder.remove(rest)  # a flat note for this object: replaced in place
        if blob_id is not None:
            builder.insert(rest, blob_id, pygit2.enums.FileMode.BLOB)
    elif sub is not None and sub.type == ObjectType.TREE:
        subtree = repo[sub.id]
        assert isinstance(subtree, pygit2.Tree)
        new_sub = _put(repo, subtree, rest[2:], blob_id, depth + 1)
        builder.remove(rest[:2])
        # Only a removal can empty a subtree; a write does not look the new one up (a
        # lookup searches the pack first: 45 us at a million notes, per level).
        if blob_id is not None or len(repo[new_sub]) > 0:  # type: ignore[arg-type]
            builder.insert(rest[:2], new_sub, pygit2.enums.FileMode.TREE)
    elif blob_id is not None:
        fanned = tree is not None and _fanned_out(tree)
        if depth > 0 and not fanned and (tree is None or len(tree) < SUBTREE_SPLIT):
            builder.insert(rest, blob_id, pygit2.enums.FileMode.BLOB)
        else:
            if depth > 0 and tree is not None and not fanned:
                builder = _split(repo, tree)  # once: this level's notes move one level down
            current = builder.get(rest[:2])
            base = repo[current.id] if current is not None else None
            assert base is None or isinstance(base, pygit2.Tree)
            new_sub = _put(repo, base, rest[2:], blob_id, depth + 1)
            if current is not None:
                builder.remove(rest[:2])
            builder.insert(rest[:2], new_sub, pygit2.enums.FileMode.TREE)
    # A root with fewer entries than the threshold cannot hold that many flat notes.
    if depth == 0 and tree is not None and count_flat and len(tree) >= FLAT_MIGRATION_THRESHOLD:
        _migrate_flat(repo, builder, tree, rest, blob_id)
    return builder.write()


def _fanned_out(tree: pygit2.Tree) -> bool:
    return any(entry.type == ObjectType.TREE for entry in tree)


def _split(repo: pygit2.Repository, tree: pygit2.Tree) -> pygit2.TreeBuilder:
    """A builder for ``tree`` with its notes moved one fan-out level down
    (``cdef...`` to ``cd/ef...``), as git does once a level holds many."""
    builder = repo.TreeBuilder()
    groups: dict[str, pygit2.TreeBuilder] = {}
    for entry in tree:
        name = entry.name or ""
        if entry.type == ObjectType.BLOB and len(name) > 2 and _is_hex(name):
            group = groups.setdefault(name[:2], repo.TreeBuilder())
            group.insert(name[2:], entry.id, pygit2.enums.FileMode.BLOB)
        else:
            builder.insert(name, entry.id, entry.filemode)
    for prefix, group in groups.items():
        builder.insert(prefix, group.write(), pygit2.enums.FileMode.TREE)
    return builder


def _migrate_flat(
    repo: pygit2.Repository,
    builder: pygit2.TreeBuilder,
    tree: pygit2.Tree,
    written: str,
    blob_id: pygit2.Oid | None,
) -> None:
    """Move flat root notes into fan-out once there are many: a one-off O(n) write that
    keeps every later write small. ``written`` is the note this write sets to ``blob_id``
    (None: removes); when it was flat too it moves with the others, with its new blob."""
    flat = [
        e for e in tree
        if e.type == ObjectType.BLOB and len(e.name or "") == 40 and _is_hex(e.name or "")
    ]
    if len(flat) < FLAT_MIGRATION_THRESHOLD:
        return
    by_prefix: dict[str, list[pygit2.Object]] = {}
    for entry in flat:
        by_prefix.setdefault((entry.name or "")[:2], []).append(entry)
    for prefix, entries in by_prefix.items():
        current = builder.get(prefix)
        base = repo[current.id] if current is not None and current.type == ObjectType.TREE else None
        sub_builder = (
            repo.TreeBuilder(base) if isinstance(base, pygit2.Tree) else repo.TreeBuilder()
        )
        for entry in entries:
            name = entry.name or ""
            if builder.get(name) is not None:
                builder.remove(name)
            if name == written:
                # this write's own note: its new value wins over anything in fan-out
                if sub_builder.get(name[2:]) is not None:
                    sub_builder.remove(name[2:])
                if blob_id is not None:
                    sub_builder.insert(name[2:], blob_id, pygit2.enums.FileMode.BLOB)
            elif sub_builder.get(name[2:]) is None:  # a fan-out note already there wins
                sub_builder.insert(name[2:], entry.id, pygit2.enums.FileMode.BLOB)
        if current is not None:
            builder.remove(prefix)
        if len(sub_builder) > 0:
            builder.insert(prefix, sub_builder.write(), pygit2.enums.FileMode.TREE)
