"""Tests that fail in the sandbox only because they write into a dependency folder.

The sandbox shows the user's ``node_modules`` (and virtualenvs) read-only, so a suite
that writes there (pino links a fixture package into ``node_modules``) fails with
``EROFS: read-only file system`` inside while it passes in the user's tree. "Fix or
remove the failing tests" is the wrong advice for that: this module reads the failures'
messages, finds the dependency folder the write was aimed at, and names the setting
that gives each test run a writable copy of it (rgr.sandbox.writable_copy).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from rgr.sandbox.toolchain import Toolchain

#: What a write into a read-only bind says: node (``EROFS: read-only file system,
#: symlink 'a' -> 'b'``), Python (``[Errno 30] Read-only file system: 'p'``), Go and
#: the C library (``read-only file system``); and node's recursive mkdir, which says
#: ``ENOENT: no such file or directory, mkdir '.../node_modules/.vite-temp'`` for a
#: folder it cannot make in a read-only one (Vite 7 loading its config; measured). Run
#: by root, the sandbox's command is an unprivileged user, and the kernel refuses its
#: write into a file of the user's by permission before it looks at the read-only
#: mount: ``EACCES: permission denied`` (``Errno 13``). A line counts only when it
#: names a path in a dependency folder (``_folder_in``).
_READ_ONLY = re.compile(r"EROFS|read-only file system|Errno 30|ENOENT\b.*\bmkdir\b"
                        r"|EACCES|permission denied|Errno 13", re.IGNORECASE)
#: An absolute path in such a line, quoted or bare.
_PATH = re.compile(r"""['"‘](/[^'"’]+)['"’]|(?<![\w.])(/[\w.@+\-/]+)""")


#: The "test" that wrote when no failing test's message says so but the run's own
#: output does: the runner itself (Vite loading its config, Vitest writing its results
#: cache after every test passed, a coverage tool's cache).
THE_RUNNER = "the test command itself"


@dataclass(frozen=True)
class ReadOnlyWrite:
    """Failing tests whose error is a write refused in a dependency folder."""

    @property
    def by_the_runner(self) -> bool:
        """The write was the runner's own, outside any test (``THE_RUNNER``)."""
        return self.tests == (THE_RUNNER,)

    #: The dependency folder, relative to the working copy (``node_modules``).
    folder: str
    #: The failing tests whose message says so.
    tests: tuple[str, ...]
    #: One such error line, as the runner printed it.
    example: str
    #: The folder's top-level entries the refused writes aimed at (``dep`` for
    #: ``node_modules/dep/index.js``): a copy of just these may serve
    #: (rgr.sandbox.tool_caches_inside.narrow_names).
    entries: tuple[str, ...] = ()


def find(failures: Iterable[tuple[str, str]], toolchain: Toolchain,
         copied: Collection[str] = ()) -> ReadOnlyWrite | None:
    """The dependency folder the failing tests (``(test id, message)`` pairs) tried to
    write into, read-only inside; None when no failure says so, or when that folder is
    already a writable copy (``copied``: the setting is on, and something else is
    wrong)."""
    folders = [d.inside for d in toolchain.dependency_folders if d.inside is not None]
    hits: dict[str, list[tuple[str, str]]] = {}
    for test_id, message in failures:
        for line in message.splitlines():
            if not _READ_ONLY.search(line):
                continue
            folder = _folder_in(line, folders)
            if folder is not None and folder not in copied:
                hits.setdefault(folder, []).append((test_id, line.strip()))
                break
    if not hits:
        return None
    folder, found = max(hits.items(), key=lambda item: len(item[1]))
    tests = tuple(dict.fromkeys(test_id for test_id, _ in found))
    entries = tuple(dict.fromkeys(e for _, line in found for e in _entries_in(line, folder)))
    return ReadOnlyWrite(folder, tests, found[0][1][:300], entries)


def find_in_run(failures: Iterable[tuple[str, str]], output: str, toolchain: Toolchain,
                copied: Collection[str] = ()) -> ReadOnlyWrite | None:
    """As ``find``, and when no failing test says so, the run's whole ``output``: a
    config that failed to load, or a runner that failed after its tests, wrote there
    (``THE_RUNNER``)."""
    return (find(failures, toolchain, copied)
            or find([(THE_RUNNER, output)], toolchain, copied))


def _entries_in(line: str, folder: str) -> list[str]:
    """The top-level entries of ``folder`` that ``line``'s paths lie in (the last path
    of a ``symlink 'a' -> 'b'`` is the one written: each is read, the link's target
    is only read when it lies in the folder too)."""
    marker = f"/{folder}/"
    found = []
    for a, b in _PATH.findall(line):
        path = a or b
        if marker in path:
            rest = path.rsplit(marker, 1)[1]
            entry = rest.split("/", 1)[0]
            if entry not in ("", ".", ".."):
                found.append(entry)
    return found


def _folder_in(line: str, folders: list[str]) -> str | None:
    """The dependency folder (deepest first) one of ``line``'s paths lies in."""
    paths = [a or b for a, b in _PATH.findall(line)]
    for folder in sorted(folders, key=lambda f: -f.count("/")):
        marker = f"/{folder}/"
        if any(marker in p + "/" for p in paths):
            return folder
    return None
