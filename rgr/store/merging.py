"""The git side of a merge fix (part of the git layer, with git.py and scratch.py): what
git's own merge of a job into its base makes of each file, the conflicted merge state a
merge-fixer session starts from, and what the fixer's commit changed relative to it.

The merge runs in libgit2 (no hooks, no fsmonitor, no merge drivers of the agent's
config): in the user's repository only in memory, and in a scratch copy before any
agent has touched it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import ObjectType, SortMode

from rgr.store.scratch import Scratch


@dataclass(frozen=True)
class AutoMerge:
    """git's merge of ``theirs`` into ``ours``: the blob of every path it could merge,
    and the paths it could not."""

    blobs: dict[str, pygit2.Oid]
    conflicts: tuple[str, ...]


def auto_merge(repo: pygit2.Repository, ours: pygit2.Oid, theirs: pygit2.Oid) -> AutoMerge:
    """The in-memory merge (the repository's info/attributes apply: rgr's union driver
    for test-list.md)."""
    index = repo.merge_commits(ours, theirs)
    conflicts: set[str] = set()
    if index.conflicts is not None:
        for entries in index.conflicts:
            conflicts.update(e.path for e in entries if e is not None)
    blobs = {entry.path: entry.id for entry in index if entry.path not in conflicts}
    return AutoMerge(blobs, tuple(sorted(conflicts)))


def tree_blobs(repo: pygit2.Repository, commit: pygit2.Oid) -> dict[str, pygit2.Oid]:
    """path -> blob id of every file in ``commit``'s tree (links included)."""
    found: dict[str, pygit2.Oid] = {}
    pending: list[tuple[str, pygit2.Tree]] = [("", repo[commit].peel(pygit2.Tree))]
    while pending:
        prefix, tree = pending.pop()
        for entry in tree:
            path = f"{prefix}{entry.name}"
            if entry.type == ObjectType.TREE:
                pending.append((f"{path}/", repo[entry.id].peel(pygit2.Tree)))
            elif entry.type == ObjectType.BLOB:
                found[path] = entry.id
    return found


def changed_from_merge(repo: pygit2.Repository, merged: AutoMerge,
                       result: pygit2.Oid) -> list[str]:
    """The paths whose content in ``result`` is not what git's merge made of them: every
    conflicted path, and any other file the fixer added, removed or edited."""
    files = tree_blobs(repo, result)
    changed = set(merged.conflicts)
    for path in set(files) | set(merged.blobs):
        if files.get(path) != merged.blobs.get(path):
            changed.add(path)
    return sorted(changed)


def new_commits(repo: pygit2.Repository, head: pygit2.Oid,
                known: tuple[pygit2.Oid, ...]) -> list[pygit2.Commit]:
    """Commits reachable from ``head`` and from none of ``known``, oldest first."""
    walker = repo.walk(head, SortMode.TOPOLOGICAL | SortMode.REVERSE)
    for oid in known:
        walker.hide(oid)
    return list(walker)


def prepare_merge(made: Scratch, source: pygit2.Repository, theirs: pygit2.Oid,
                  message: str) -> None:
    """Leave ``git merge --no-commit theirs`` in the scratch copy (conflict markers in the
    conflicted files, MERGE_HEAD, the message), as the fixer's starting point: its
    ``git commit`` then records a merge of both parents. Called before the agent runs.
    The user's info/attributes (rgr's union driver) apply to this merge too."""
    attributes = Path(source.path) / "info" / "attributes"
    if attributes.is_file():
        target = made.git_dir / "info" / "attributes"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(attributes.read_bytes())
    scratch = pygit2.Repository(str(made.work))
    scratch.merge(theirs)
    (made.git_dir / "MERGE_MSG").write_text(message, encoding="utf-8")


def merge_base(repo: pygit2.Repository, one: pygit2.Oid, other: pygit2.Oid) -> pygit2.Oid | None:
    found: pygit2.Oid | None = repo.merge_base(one, other)
    return found
