"""``rgr history`` and ``rgr history --limit N`` answered before the CLI loads.

A person runs the table every few seconds, and it should cost what ``git log -N`` does
plus Python's start-up (issue 14). So ``rgr.launch`` hands those two spellings here
before click, pygit2, pydantic or rich are imported. What it needs to know before
starting git comes from a few file-system calls: the work tree, the notes ref (the
default, or the one a ``tdd.toml`` rgr has already validated names: rgr.base.config_seen),
and whether that ref exists. ``git log`` is then started at once and reads while this
process imports what it draws with (rgr.commands.history_table, which brings json and datetime):
on two cores the two overlap.

Anything it is not sure of goes to the full command, which explains or decides: a
``TDD_*`` or git location variable, a ``.git`` that is a file (a linked worktree, a
submodule), a ``tdd.toml`` not yet validated, no notes yet, a note only the model reads,
any git error.
"""

from __future__ import annotations

import os
import sys

from rgr.base import proc
from rgr.base.errors import CommandError
from rgr.store import notes_log

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    from typing import TextIO

#: Rows shown when --limit is not given (rgr.commands.history_table.DEFAULT_TABLE_LIMIT: not
#: imported from there, which would load json and datetime before git is started).
_DEFAULT_LIMIT = 50

#: Variables that make git look for the repository, or its objects or notes, somewhere
#: pygit2 would not: the full command decides what they mean.
_LOCATION_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
                  "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY",
                  "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_NOTES_REF",
                  "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE")


def _limit(args: list[str]) -> int | None:
    """N for ``history`` / ``history --limit N`` (N > 0), else None."""
    if not args:
        return _DEFAULT_LIMIT
    if len(args) == 2 and args[0] == "--limit":
        value = args[1]
    elif len(args) == 1 and args[0].startswith("--limit="):
        value = args[0].removeprefix("--limit=")
    else:
        return None
    return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else None


def _work_tree(start: str) -> str | None:
    """The nearest folder at or above ``start`` with a ``.git`` folder (not a bare
    repository, not a linked worktree: those are the full command's)."""
    path = os.path.abspath(start)
    while True:
        dot_git = os.path.join(path, ".git")
        if os.path.isdir(dot_git):
            return path
        if os.path.lexists(dot_git):
            return None  # a linked worktree or a submodule: its .git is a file
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _has_notes_ref(git_dir: str, ref: str) -> bool:
    """Whether ``ref`` exists, loose or packed (read from the files: no process)."""
    if os.path.isfile(os.path.join(git_dir, *ref.split("/"))):
        return True
    try:
        with open(os.path.join(git_dir, "packed-refs"), "rb") as packed:
            wanted = b" " + ref.encode() + b"\n"
            return any(line.endswith(wanted) for line in packed)
    except OSError:
        return False


def _notes_ref(root: str, git_dir: str) -> str | None:
    """The notes ref to read: the default without a tdd.toml, the one a tdd.toml names
    when rgr has validated exactly that file before (rgr.base.config_seen), else None."""
    try:
        with open(os.path.join(root, "tdd.toml"), "rb") as config:
            text = config.read()
    except FileNotFoundError:
        return notes_log.DEFAULT_REF
    except OSError:
        return None
    from rgr.base import config_seen

    return config_seen.recall(git_dir, text)


def _where(args: list[str]) -> tuple[int, str, str] | None:
    """(rows, work tree, notes ref) when the table can be answered here, else None."""
    count = _limit(args)
    if count is None:
        return None
    environ = os.environ
    if any(name.startswith("TDD_") for name in environ) or any(
            name in environ for name in _LOCATION_VARS):
        return None
    root = _work_tree(os.getcwd())
    if root is None:
        return None
    git_dir = os.path.join(root, ".git")
    ref = _notes_ref(root, git_dir)
    if ref is None:
        return None  # a tdd.toml not yet validated (or invalid): the full command checks it
    if not _has_notes_ref(git_dir, ref):
        return None  # no notes, or an empty repository: the full command says so
    return count, root, ref


def quick(args: list[str], out: TextIO | None = None) -> int | None:
    """``rgr history`` [``--limit N``] answered without the CLI: the exit code, or None
    when the full command must answer (see the module's docstring)."""
    where = _where(args)
    if where is None:
        return None
    count, root, ref = where
    try:
        first = proc.start_output(notes_log.log_argv(ref, "HEAD", count=count + 1,
                                                     repo=root))
    except CommandError:
        return None  # no git to run: the full command says so
    try:
        # Imported while git reads: json, datetime and the drawing code.
        from rgr.base.ui import styles_ok
        from rgr.commands import history_table as table
        from rgr.store.history.newest import newest_texts, plain_row

        texts, more = newest_texts(root, ref, count, first)
    except CommandError:
        return None  # the full command explains what is wrong
    except BaseException:
        first.cancel()
        raise
    rows = []
    for commit, when, text in texts:
        row = plain_row(commit, when, text, True)
        if row is None:
            return None  # a note only the model can read, or say what is wrong with
        rows.append(row)
    rows.reverse()
    stream = out or sys.stdout
    stream.write(table.text(rows, table.newest_more(len(rows)) if more else None,
                            styles_ok(stream), table.terminal_columns(stream)) + "\n")
    stream.flush()
    return 0
