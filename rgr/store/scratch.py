"""The git side of a sealed attempt (part of the git layer, with git.py and notes.py):
a scratch repository for the agent, the import of what it committed, and pristine
checkouts of a commit for test runs.

The scratch repository is a new ``git init`` with a ``.git`` of its own (hooks, config,
refs, notes: all the agent's to break) whose ``objects/info/alternates`` names the
user's object store, so it holds the whole history without copying it; the sandbox
shows that store read-only. Its branch has the user's branch name and points at the
phase's base commit, with that commit checked out.

Nothing here runs git in the scratch repository or reads its working tree: libgit2
reads refs and objects (it runs no hooks and no fsmonitor), the alternates file is
rewritten by rgr before that, and objects enter the user's repository by content (their
ids recomputed), only those reachable from the attempt's branch, within a size budget.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import pygit2
from pygit2.enums import CheckoutStrategy, DeltaStatus, ObjectType

from rgr.base.errors import RgrError
from rgr.store import git

#: Bounds on what one attempt may bring in: more is not a TDD step but an attack.
MAX_IMPORT_COMMITS = 200
MAX_IMPORT_BYTES = 256 * 1024 * 1024

_PRISTINE = CheckoutStrategy.FORCE | CheckoutStrategy.DONT_UPDATE_INDEX
#: Checking out named paths only: the names are paths, never patterns.
_PATHS_ONLY = _PRISTINE | CheckoutStrategy.DISABLE_PATHSPEC_MATCH


class ImportRefused(RgrError):
    """What the agent committed cannot be brought into the user's repository."""

    category = "phase"


def objects_dir(repo: pygit2.Repository) -> Path:
    """The user's object store (the common one, for a linked worktree)."""
    return git.common_dir(repo) / "objects"


@dataclass(frozen=True)
class Scratch:
    """One attempt's scratch repository: ``work`` is the agent's working directory."""

    work: Path
    branch: str

    @property
    def git_dir(self) -> Path:
        return self.work / ".git"


def make_scratch(repo: pygit2.Repository, base: pygit2.Commit, branch: str, work: Path,
                 identity: pygit2.Signature) -> Scratch:
    """A scratch repository in ``work`` (created, must not exist) at ``base``."""
    work.mkdir(parents=True)
    scratch = pygit2.init_repository(str(work), bare=False, initial_head=branch)
    _write_alternates(Path(scratch.path), objects_dir(repo))
    scratch = pygit2.Repository(str(work))  # re-read with the alternates
    scratch.references.create(f"refs/heads/{branch}", base.id)
    # The checkout writes the index too (with stat data, so git status is fast there).
    _checkout(scratch, scratch[base.id].peel(pygit2.Tree), strategy=CheckoutStrategy.FORCE)
    config = scratch.config
    config["user.name"] = identity.name
    config["user.email"] = identity.email
    config["commit.gpgsign"] = False
    config["core.hooksPath"] = ".git/no-hooks"
    return Scratch(work, branch)


def _write_alternates(git_dir: Path, objects: Path) -> None:
    info = git_dir / "objects" / "info"
    info.mkdir(parents=True, exist_ok=True)
    alternates = info / "alternates"
    alternates.unlink(missing_ok=True)  # a symlink planted there is removed, not followed
    alternates.write_text(f"{objects}\n", encoding="utf-8")


def import_branch(repo: pygit2.Repository, scratch: Scratch, base: pygit2.Oid) -> pygit2.Oid:
    """Copy the objects of the commits on the scratch branch that the user's repository
    lacks into it; returns the branch's tip (``base`` when the agent committed
    nothing, or removed the branch). ImportRefused when the branch is not something to
    judge: not a commit, too many commits, too many bytes.
    """
    git_dir = scratch.git_dir
    if not (git_dir / "objects").is_dir() or (git_dir / "objects").is_symlink():
        raise ImportRefused("the scratch repository's object store is gone or replaced")
    _write_alternates(git_dir, objects_dir(repo))
    try:
        source = pygit2.Repository(str(git_dir), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        ref = source.references.get(f"refs/heads/{scratch.branch}")
        if ref is None:
            return base
        tip = ref.resolve().target
        if not isinstance(tip, pygit2.Oid):
            return base
        if tip == base:
            return base
        commit = source[tip]
    except (pygit2.GitError, KeyError, ValueError) as exc:
        raise ImportRefused(f"the scratch repository cannot be read: {exc}") from None
    if not isinstance(commit, pygit2.Commit):
        raise ImportRefused(f"the branch {scratch.branch} points at a {commit.type_str}, "
                            "not a commit")
    budget = _Budget()
    walker = source.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL)
    if base in source.odb:
        walker.hide(base)
    count = 0
    for found in walker:
        count += 1
        if count > MAX_IMPORT_COMMITS:
            raise ImportRefused(f"more than {MAX_IMPORT_COMMITS} new commits on "
                                f"{scratch.branch}: one phase is a few commits")
        if found.id in repo.odb:
            continue
        _copy_tree(source, repo, found.tree_id, budget)
        _copy(source, repo, found.id, budget)
    return tip


@dataclass
class _Budget:
    used: int = 0

    def take(self, size: int) -> None:
        self.used += size
        if self.used > MAX_IMPORT_BYTES:
            raise ImportRefused(f"the attempt's new objects exceed {MAX_IMPORT_BYTES >> 20} MiB")


def _copy(source: pygit2.Repository, target: pygit2.Repository, oid: pygit2.Oid,
          budget: _Budget) -> None:
    kind, data = source.odb.read(oid)
    budget.take(len(data))
    written = target.odb.write(kind, data)
    if written != oid:
        raise ImportRefused(f"object {oid} does not hash to its id (a forged object)")


def _copy_tree(source: pygit2.Repository, target: pygit2.Repository, tree_id: pygit2.Oid,
               budget: _Budget) -> None:
    """The tree and whatever under it the target lacks (a tree the target has is
    complete there, so it is not descended into)."""
    pending = [tree_id]
    while pending:
        oid = pending.pop()
        if oid in target.odb:
            continue
        tree = source[oid]
        if not isinstance(tree, pygit2.Tree):
            raise ImportRefused(f"object {oid} should be a tree")
        for entry in tree:
            if entry.filemode == pygit2.enums.FileMode.COMMIT:
                continue  # a submodule's commit lives in another repository
            if entry.type == ObjectType.TREE:
                pending.append(entry.id)
            elif entry.id not in target.odb:
                _copy(source, target, entry.id, budget)
        _copy(source, target, oid, budget)


def commit_files(made: Scratch, paths: list[str], message: str,
                 identity: pygit2.Signature) -> pygit2.Oid:
    """Commit ``paths`` of a scratch copy on its branch: rgr's own work there (a rope
    rename), before any agent has touched the copy."""
    repo = pygit2.Repository(str(made.work))
    index = repo.index
    index.read()
    for path in paths:
        if (made.work / path).exists():
            index.add(path)
        else:
            index.remove(path)
    index.write()
    parent = repo.head.peel(pygit2.Commit)
    oid: pygit2.Oid = repo.create_commit("HEAD", identity, identity, message,
                                         index.write_tree(), [parent.id])
    return oid


def checkout_pristine(repo: pygit2.Repository, commit: pygit2.Oid, directory: Path) -> None:
    """Exactly ``commit``'s tree in ``directory`` (which must be new or empty): no
    ``.git``, no ignored or untracked file, nothing from any earlier run."""
    directory.mkdir(parents=True, exist_ok=True)
    if any(directory.iterdir()):
        raise RgrError(f"{directory} is not empty: a pristine checkout needs a new folder")
    _checkout_into(repo, commit, directory, strategy=_PRISTINE)


def _checkout_into(repo: pygit2.Repository, commit: pygit2.Oid, directory: Path,
                   **options: object) -> None:
    """libgit2's checkout of ``commit`` into ``directory``, through a bare repository of
    rgr's with no HEAD whose objects are the user's. Checked out from the user's
    repository, libgit2 would take the user's HEAD for what the folder holds and fail
    on a path that is a file there and a folder in ``commit``."""
    with tempfile.TemporaryDirectory(prefix="rgr-checkout-") as place:
        reader = pygit2.init_repository(place, bare=True)
        _write_alternates(Path(reader.path), objects_dir(repo))
        reader = pygit2.Repository(place)  # re-read with the alternates
        _checkout(reader, reader[commit].peel(pygit2.Tree), directory=str(directory),
                  **options)


def advance_pristine(repo: pygit2.Repository, old: pygit2.Oid, new: pygit2.Oid,
                     directory: Path) -> None:
    """Turn ``directory``, an untouched pristine checkout of ``old``, into exactly one of
    ``new``: delete what ``new`` lacks, then check out only the paths that differ."""
    if old == new:
        return
    diff = repo[old].peel(pygit2.Tree).diff_to_tree(repo[new].peel(pygit2.Tree))
    changed: list[str] = []
    emptied: set[Path] = set()
    for delta in diff.deltas:
        if delta.status in (DeltaStatus.DELETED, DeltaStatus.TYPECHANGE):
            # The checkout is exactly ``old``, so every parent of an old path is a real
            # folder (never a link) inside ``directory``.
            gone = directory / delta.old_file.path
            if gone.is_dir() and not gone.is_symlink():
                shutil.rmtree(gone)  # a submodule's empty folder
            else:
                gone.unlink(missing_ok=True)
            emptied.add(gone.parent)
        if delta.status != DeltaStatus.DELETED:
            changed.append(delta.new_file.path)
    # git keeps no empty folders: a folder whose last file went goes too.
    for folder in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        while folder != directory and folder.is_relative_to(directory):
            with suppress(OSError):
                folder.rmdir()
            folder = folder.parent
    if changed:
        _checkout_into(repo, new, directory, strategy=_PATHS_ONLY, paths=changed)


@dataclass
class _Staged:
    commit: pygit2.Oid
    folder: Path  # rgr's own; the checkout is folder / "tree"
    thread: threading.Thread
    failed: list[BaseException] = field(default_factory=list)


class PristineStager:
    """Pristine checkouts made ahead of need.

    While an agent works, a thread checks its base out into a folder of rgr's that no
    sandbox is shown and nothing else writes; the verification that follows takes that
    tree and checks out only the files its commit changed. On a large repository the
    full checkout is most of what sealing costs; made during the session, it leaves the
    attempt's critical path. At most one tree is staged, and each is used once (a test
    run writes in its checkout, so a used tree is never pristine again).
    """

    def __init__(self, repo_path: str) -> None:
        self._repo_path = repo_path
        self._staged: _Staged | None = None

    def stage(self, commit: pygit2.Oid, folder: Path) -> None:
        """Start checking ``commit`` out into ``folder`` / "tree" (``folder`` exists)."""
        self.discard()
        failed: list[BaseException] = []

        def check_out() -> None:
            try:
                # Its own handle: libgit2 objects are not shared between threads.
                checkout_pristine(pygit2.Repository(self._repo_path), commit, folder / "tree")
            except BaseException as exc:  # reported by take(), which then checks out anew
                failed.append(exc)

        thread = threading.Thread(target=check_out, name="rgr-stage-pristine", daemon=True)
        thread.start()
        self._staged = _Staged(commit, folder, thread, failed)

    def take(self, repo: pygit2.Repository, commit: pygit2.Oid, directory: Path) -> bool:
        """Make ``directory`` (it must not exist) a pristine checkout of ``commit`` from
        the staged tree; False, with ``directory`` absent, when there is none to use."""
        staged, self._staged = self._staged, None
        if staged is None:
            return False
        staged.thread.join()
        try:
            if staged.failed:
                return False
            (staged.folder / "tree").rename(directory)
            try:
                advance_pristine(repo, staged.commit, commit, directory)
            except (OSError, pygit2.GitError):
                shutil.rmtree(directory, ignore_errors=True)
                return False  # the caller checks the commit out whole
            return True
        finally:
            shutil.rmtree(staged.folder, ignore_errors=True)

    def discard(self) -> None:
        """Drop the staged tree, if any (waits for its thread)."""
        staged, self._staged = self._staged, None
        if staged is not None:
            staged.thread.join()
            shutil.rmtree(staged.folder, ignore_errors=True)


def update_worktree(repo: pygit2.Repository, branch: str, old: pygit2.Oid,
                    new: pygit2.Oid, message: str) -> None:
    """Move the checked-out ``branch`` from ``old`` to ``new`` and bring the user's
    working tree along (a safe checkout: it never overwrites the user's own edits)."""
    ref = repo.references[f"refs/heads/{branch}"]
    if ref.target == new:
        return  # already there (commits of the user's adopted by resume)
    if ref.target != old:
        raise RgrError(f"branch {branch} moved while rgr worked (it is at "
                       f"{str(ref.target)[:8]}, rgr expected {str(old)[:8]})",
                       "leave the branch to rgr while a run is going; `rgr resume` "
                       "sorts it out")
    _checkout(repo, repo[new].peel(pygit2.Tree), strategy=CheckoutStrategy.SAFE)
    ref.set_target(new, message)


def _checkout(repo: pygit2.Repository, tree: pygit2.Tree, **options: object) -> None:
    """libgit2's checkout of ``tree`` (pygit2 leaves this one untyped)."""
    repo.checkout_tree(tree, **options)  # type: ignore[no-untyped-call]
