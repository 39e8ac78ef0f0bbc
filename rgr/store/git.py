"""Every pygit2 call that is not about notes: opening the repository with clear errors,
HEAD and branches, diffs between commits, resets and backup refs.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pygit2
from pygit2.enums import DeltaStatus, FileStatus, ObjectType, ResetMode, SortMode

from rgr.base.errors import RepositoryError

BACKUP_PREFIX = "refs/rgr/backups/"
#: Rejected attempts (and commits set aside), kept reachable for an audit.
ATTEMPTS_PREFIX = "refs/rgr/attempts/"


def open_repo(path: Path) -> pygit2.Repository:
    """The repository containing ``path``; refuses bare ones (rgr needs a work tree)."""
    if not path.exists():
        raise RepositoryError(f"{path} does not exist", "run rgr inside a git repository")
    found = pygit2.discover_repository(str(path))
    if found is None:
        raise RepositoryError(
            f"not a git repository: {path}",
            "run rgr inside a git repository (or `git init` one and make a first commit)",
        )
    try:
        repo = pygit2.Repository(found)
    except pygit2.GitError as exc:
        if "not owned by current user" not in str(exc):
            raise
        # git's safe.directory check (CVE-2022-24765): an unpacked archive or another
        # user's checkout. The fix is the user's call, so name it rather than crash.
        top = Path(found).parent if Path(found).name == ".git" else Path(found)
        raise RepositoryError(
            f"{top} is owned by another user, and git refuses to work in it",
            f"if you trust it: `git config --global --add safe.directory {top}`",
        ) from None
    if repo.is_bare:
        raise RepositoryError(
            f"{found} is a bare repository: rgr needs a working tree",
            "clone it (`git clone <bare> <dir>`) and run rgr in the clone",
        )
    return repo


def check_branch_name(name: str) -> str | None:
    """Why ``name`` cannot be a branch (git's check-ref-format rules), or None."""
    if not name.strip():
        return "it is empty"
    if name.startswith("-"):
        return "it starts with '-'"
    if not pygit2.reference_is_valid_name(f"refs/heads/{name}"):
        return "git does not allow it (no spaces, '..', '~^:?*[\\', or a '.lock' end)"
    return None


def workdir(repo: pygit2.Repository) -> Path:
    assert repo.workdir is not None  # open_repo refused bare repositories
    return Path(repo.workdir)


def head_commit(repo: pygit2.Repository) -> pygit2.Commit:
    if repo.head_is_unborn:
        raise RepositoryError(
            "the repository has no commits yet",
            "make a first commit (`git commit --allow-empty -m init`), then run rgr again",
        )
    commit = repo.head.peel(pygit2.Commit)
    return commit


def current_branch(repo: pygit2.Repository) -> str | None:
    """The checked-out branch's short name, or None on a detached HEAD."""
    if repo.head_is_detached:
        return None
    if repo.head_is_unborn:
        target = repo.references["HEAD"].target
        return str(target).removeprefix("refs/heads/")
    return repo.head.shorthand


def require_branch(repo: pygit2.Repository) -> str:
    branch = current_branch(repo)
    if branch is None:
        raise RepositoryError(
            "HEAD is detached: rgr works on a named branch",
            "check out a branch first (`git switch -c <name>`)",
        )
    return branch


def describe_paths(paths: list[str], limit: int = 5) -> str:
    """``a, b, c ...``: the first ``limit`` paths, for one-line messages."""
    return ", ".join(paths[:limit]) + (" ..." if len(paths) > limit else "")


def uncommitted_paths(repo: pygit2.Repository) -> list[str]:
    """Paths with staged, unstaged or untracked (not ignored) changes."""
    changed = []
    for path, flags in repo.status(untracked_files="all", ignored=False).items():
        if flags != FileStatus.CURRENT and not flags & FileStatus.IGNORED:
            changed.append(path)
    return sorted(changed)


def changed_tracked(repo: pygit2.Repository) -> list[str]:
    """Tracked files the working tree changed or deleted (untracked files aside)."""
    changed = FileStatus.WT_MODIFIED | FileStatus.WT_DELETED | FileStatus.WT_TYPECHANGE
    return sorted(path for path, flags in repo.status(untracked_files="no").items()
                  if flags & changed)


def tracked_folders(repo: pygit2.Repository, depth: int = 3) -> set[str]:
    """The folders, down to ``depth`` levels, that hold a file in the index (tracked):
    ``{"src", "src/pkg", ...}``."""
    if repo.is_bare:
        return set()
    found: set[str] = set()
    for entry in repo.index:
        parts = entry.path.split("/")[:-1]
        for level in range(1, min(len(parts), depth) + 1):
            found.add("/".join(parts[:level]))
    return found


def ignored_names(repo: pygit2.Repository, names: tuple[str, ...]) -> set[str]:
    """Those of ``names`` (paths relative to the work tree) that git's ignore rules
    match; none for a bare repository."""
    if repo.is_bare:
        return set()
    return {name for name in names if repo.path_is_ignored(name)}


def untracked_folders(repo: pygit2.Repository) -> list[str]:
    """Untracked folders that git does not ignore, each as one ``path/`` entry (git's
    own "normal" listing: a folder nothing in is tracked, not every file in it)."""
    return sorted(path for path, flags in
                  repo.status(untracked_files="normal", ignored=False).items()
                  if path.endswith("/") and flags & FileStatus.WT_NEW)


def resolve_commit(repo: pygit2.Repository, rev: str) -> pygit2.Commit:
    try:
        obj = repo.revparse_single(rev)
    except (KeyError, ValueError, pygit2.InvalidSpecError):
        raise RepositoryError(
            f"unknown revision {rev!r}", "name a commit: a hash, a branch or HEAD~N"
        ) from None
    try:
        return obj.peel(pygit2.Commit)
    except (pygit2.InvalidSpecError, ValueError):
        raise RepositoryError(f"{rev!r} is not a commit") from None


def common_dir(repo: pygit2.Repository) -> Path:
    """The git directory every worktree of ``repo`` shares (a linked worktree's own
    holds a ``commondir`` file naming it): the object store, rgr's caches."""
    git_dir = Path(repo.path)
    try:
        return (git_dir / (git_dir / "commondir").read_text("utf-8").strip()).resolve()
    except OSError:
        return git_dir


def commit_time(repo: pygit2.Repository, hex_id: str) -> int | None:
    """When ``hex_id`` was committed (epoch seconds): 0 for an object that is not a
    commit, None when the repository has no such object."""
    obj = repo.get(hex_id)
    if obj is None:
        return None
    return obj.commit_time if isinstance(obj, pygit2.Commit) else 0


def is_ancestor(repo: pygit2.Repository, ancestor: pygit2.Oid, descendant: pygit2.Oid) -> bool:
    return ancestor == descendant or repo.descendant_of(descendant, ancestor)


def commits_between(
    repo: pygit2.Repository, base: pygit2.Oid, head: pygit2.Oid
) -> list[pygit2.Commit]:
    """Commits reachable from ``head`` but not from ``base``, oldest first."""
    walker = repo.walk(head, SortMode.TOPOLOGICAL | SortMode.REVERSE)
    walker.hide(base)
    return list(walker)


@dataclass(frozen=True)
class FileChange:
    path: str
    status: str  # added, modified, deleted, renamed, typechange...
    old_path: str | None = None


_STATUS_NAMES = {
    DeltaStatus.ADDED: "added",
    DeltaStatus.DELETED: "deleted",
    DeltaStatus.MODIFIED: "modified",
    DeltaStatus.RENAMED: "renamed",
    DeltaStatus.COPIED: "copied",
    DeltaStatus.TYPECHANGE: "typechange",
}


def changed_files(repo: pygit2.Repository, base: pygit2.Oid, head: pygit2.Oid) -> list[FileChange]:
    """What ``head`` changed relative to ``base``, renames detected."""
    old = repo[base].peel(pygit2.Tree)
    new = repo[head].peel(pygit2.Tree)
    diff = old.diff_to_tree(new)
    diff.find_similar()
    changes = []
    for delta in diff.deltas:
        status = _STATUS_NAMES.get(delta.status, str(delta.status).lower())
        old_path = delta.old_file.path if delta.status == DeltaStatus.RENAMED else None
        path = delta.new_file.path if delta.status != DeltaStatus.DELETED else delta.old_file.path
        changes.append(FileChange(path, status, old_path))
    return changes


def file_text(repo: pygit2.Repository, commit: pygit2.Oid, path: str) -> str | None:
    """The content of ``path`` at ``commit``, or None where it does not exist."""
    tree = repo[commit].peel(pygit2.Tree)
    try:
        entry = tree[path]
    except KeyError:
        return None
    blob = repo[entry.id]
    if not isinstance(blob, pygit2.Blob):
        return None
    return blob.data.decode("utf-8", "replace")


def ignored_paths(repo: pygit2.Repository, commit: pygit2.Oid,
                  paths: tuple[str, ...]) -> set[str]:
    """Which of ``paths`` the ``.gitignore`` files of ``commit``'s tree ignore, as git
    itself matches them: the ignore files on the way to each path are written into a
    throwaway repository (no global excludes file) and libgit2 is asked there."""
    import tempfile

    tree = repo[commit].peel(pygit2.Tree)
    with tempfile.TemporaryDirectory(prefix="rgr-ignore-") as folder:
        probe = pygit2.init_repository(folder)
        probe.config["core.excludesFile"] = "/dev/null"
        for path in paths:
            parts = path.split("/")[:-1]
            for depth in range(len(parts) + 1):
                ignore = "/".join([*parts[:depth], ".gitignore"])
                text = file_text(repo, commit, ignore) if _is_blob(tree, ignore) else None
                if text is not None:
                    target = Path(folder, ignore)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(text, encoding="utf-8")
        return {p for p in paths if probe.path_is_ignored(p)}


def folder_files(repo: pygit2.Repository, commit: pygit2.Oid, folder: str) -> list[str]:
    """The paths of the files directly in ``folder`` ("" for the root) at ``commit``."""
    tree = repo[commit].peel(pygit2.Tree)
    if folder:
        try:
            entry = tree[folder]
        except KeyError:
            return []
        if entry.type != ObjectType.TREE:
            return []
        tree = repo[entry.id].peel(pygit2.Tree)
    prefix = f"{folder}/" if folder else ""
    return sorted(f"{prefix}{e.name}" for e in tree if e.type == ObjectType.BLOB)


def _is_blob(tree: pygit2.Tree, path: str) -> bool:
    try:
        return tree[path].type == ObjectType.BLOB
    except KeyError:
        return False


def materialize(repo: pygit2.Repository, commit: pygit2.Commit, paths: tuple[str, ...],
                into: Path) -> str:
    """Write the regular files of ``paths`` (files or folders) in ``commit``'s tree
    under ``into``, replacing what was there; links and submodules are skipped. Returns
    what was found, e.g. ``tdd.toml 1a2b3c4d, .rgr/ 5e6f7a8b`` or ``none of tdd.toml, .rgr``.
    """
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    found = []
    tree = commit.tree
    for path in paths:
        try:
            entry = tree[path]
        except KeyError:
            continue
        found.append(f"{path}{'/' if entry.type_str == 'tree' else ''} {str(entry.id)[:8]}")
        pending: list[tuple[str, pygit2.Object]] = [(path, entry)]
        while pending:
            name, item = pending.pop()
            if isinstance(item, pygit2.Tree) or item.type_str == "tree":
                pending += [(f"{name}/{child.name}", child)
                            for child in repo[item.id].peel(pygit2.Tree)]
            elif getattr(item, "filemode", None) in (pygit2.enums.FileMode.BLOB,
                                   pygit2.enums.FileMode.BLOB_EXECUTABLE):
                blob = repo[item.id]
                assert isinstance(blob, pygit2.Blob)
                target = into / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(blob.data)
    return ", ".join(found) if found else f"none of {', '.join(paths)}"


def link_target(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> str | None:
    """Where the symbolic link ``path`` in ``tree`` points, or None if it is no link."""
    try:
        entry = tree[path]
    except KeyError:
        return None
    if entry.filemode != pygit2.enums.FileMode.LINK:
        return None
    blob = repo[entry.id]
    return blob.data.decode("utf-8", "replace") if isinstance(blob, pygit2.Blob) else None


def backup_ref(repo: pygit2.Repository, target: pygit2.Oid, label: str) -> str:
    """Keep ``target`` reachable under a new ``refs/rgr/backups/...`` ref; returns its name."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{BACKUP_PREFIX}{label}-{stamp}-{str(target)[:8]}"
    name, n = base, 1
    while repo.references.get(name) is not None:
        n += 1
        name = f"{base}-{n}"
    repo.create_reference_direct(name, target, False, message=f"rgr: backup before {label}")
    return name


def create_ref(repo: pygit2.Repository, name: str, target: pygit2.Oid, message: str) -> None:
    """Create (or move) ``name`` to ``target``."""
    repo.create_reference_direct(name, target, True, message=message)


def reset_hard(repo: pygit2.Repository, target: pygit2.Oid) -> None:
    """Move the checked-out branch and the working tree to ``target``."""
    repo.reset(target, ResetMode.HARD)


def stash_everything(repo: pygit2.Repository, message: str) -> pygit2.Oid | None:
    """Stash tracked and untracked changes (``git stash -u``); None when there were none."""
    if not uncommitted_paths(repo):
        return None
    oid: pygit2.Oid = repo.stash(signature(repo), message, include_untracked=True)
    return oid


def signature(repo: pygit2.Repository) -> pygit2.Signature:
    """The user's identity, or rgr's own when no user.name/user.email is configured
    (commits rgr makes for itself, like notes commits, must not fail on that)."""
    try:
        return repo.default_signature
    except (KeyError, pygit2.GitError):
        return pygit2.Signature("rgr", "rgr@localhost")


def remove_untracked(repo: pygit2.Repository) -> list[str]:
    """Delete untracked, not ignored files (``git clean -f``, ignored files kept)."""
    root = workdir(repo)
    removed = []
    for path, flags in repo.status(untracked_files="all", ignored=False).items():
        if flags & FileStatus.WT_NEW:
            target = root / path
            if target.is_file() or target.is_symlink():
                target.unlink()
                removed.append(path)
                _prune_empty_dirs(root, target.parent)
    return removed


def _prune_empty_dirs(root: Path, directory: Path) -> None:
    while directory != root and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent


def set_aside(repo: pygit2.Repository, ref: str, message: str) -> str | None:
    """Save uncommitted work (tracked and untracked) as a stash-shaped commit under
    ``ref`` and clean the tree. Returns the ref, or None when there was nothing."""
    oid = stash_everything(repo, message)
    if oid is None:
        return None
    repo.create_reference_direct(ref, oid, True, message=message)
    repo.stash_drop(0)  # the ref keeps it; the user's stash list stays theirs
    return ref


def create_branch(repo: pygit2.Repository, name: str, at: pygit2.Commit) -> None:
    """Create branch ``name`` at ``at`` and check it out (the tree is already there)."""
    branch = repo.branches.local.create(name, at)
    repo.checkout(branch.name)


def commit_empty(repo: pygit2.Repository, message: str, parent: pygit2.Commit) -> pygit2.Oid:
    """An empty commit on top of ``parent`` that no branch points at yet (rgr's start
    marker: it is noted before any branch moves, so a crash leaves no half-started run)."""
    who = signature(repo)
    oid: pygit2.Oid = repo.create_commit(None, who, who, message, parent.tree.id, [parent.id])
    return oid


def advance_branch(repo: pygit2.Repository, name: str, to: pygit2.Oid, message: str) -> None:
    """Move the checked-out branch ``name`` forward to ``to``, a commit with HEAD's tree."""
    repo.branches.local[name].set_target(to, message)


def patch_text(repo: pygit2.Repository, base: str | None, head: str,
               max_bytes: int = 400_000) -> tuple[str, bool]:
    """The unified diff from ``base`` (None: the empty tree) to ``head``, renames
    detected, and whether it was cut at ``max_bytes`` (a page of a run shows every
    phase's diff; one generated file must not make it megabytes)."""
    new = repo[head].peel(pygit2.Tree)
    if base is None:
        diff = new.diff_to_tree(swap=True)
    else:
        diff = repo[base].peel(pygit2.Tree).diff_to_tree(new)
    diff.find_similar()
    text = diff.patch or ""
    if len(text) <= max_bytes:
        return text, False
    return text[:max_bytes], True


def merge_base(repo: pygit2.Repository, one: str, other: str) -> str | None:
    """The best common ancestor of two commits, or None when they share no history."""
    found = repo.merge_base(pygit2.Oid(hex=one), pygit2.Oid(hex=other))
    return None if found is None else str(found)


def branch_tip(repo: pygit2.Repository, name: str) -> str | None:
    """The commit local branch ``name`` points at, or None when there is no such branch."""
    reference = repo.branches.local.get(name)
    return None if reference is None else str(reference.peel(pygit2.Commit).id)


def commits_under(repo: pygit2.Repository, prefix: str) -> dict[str, str]:
    """Every ref whose name starts with ``prefix``, and the commit it points at (refs
    that point at no commit are left out)."""
    found = {}
    for name in repo.references:
        if name.startswith(prefix):
            try:
                found[name] = str(repo.references[name].peel(pygit2.Commit).id)
            except (pygit2.InvalidSpecError, ValueError, KeyError):
                continue
    return found


def added_lines(repo: pygit2.Repository, base: pygit2.Oid, head: pygit2.Oid
                ) -> dict[str, set[int]]:
    """The lines ``head`` added or changed relative to ``base``: each file's new line
    numbers (1-based) that are not in ``base``, deleted files left out."""
    old = repo[base].peel(pygit2.Tree)
    new = repo[head].peel(pygit2.Tree)
    diff = old.diff_to_tree(new)
    diff.find_similar()
    found: dict[str, set[int]] = {}
    for patch in diff:
        if patch is None or patch.delta.is_binary or patch.delta.status == DeltaStatus.DELETED:
            continue
        lines = {line.new_lineno for hunk in patch.hunks for line in hunk.lines
                 if line.origin == "+"}
        if lines:
            found[patch.delta.new_file.path] = lines
    return found
