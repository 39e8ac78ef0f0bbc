"""Writable cache folders inside a read-only ``node_modules``, for a sealed test run
and an agent's session.

The sandbox shows the user's ``node_modules`` read-only (rgr.sandbox.toolchain): test
code is agent code. But JavaScript tools write their own caches and temp files there, by
design and with no setting to move some of them:

- Vite 6+ bundles a TypeScript or ESM config (``vitest.config.mts``, ``vite.config.ts``)
  into ``node_modules/.vite-temp`` before loading it: read-only, Vitest stops with
  "failed to load config" and runs no test;
- Vitest keeps its results cache in ``node_modules/.vite/vitest`` (``.vitest`` before 1.0)
  and exits 1 after every test passed when it cannot write it;
- nyc, ava and babel keep theirs in ``node_modules/.cache`` (find-cache-dir): ava 6
  runs no test when it cannot (nyc 15 runs uncached; both measured).

For a sealed test run, each ``node_modules`` the sandbox would show is instead a real
folder of the run's checkout: each entry is a link to the same entry of the user's
folder, which the sandbox shows read-only at its own path (a symbolic link is made again
as the same link), and only the cache names below are new, writable, empty folders,
deleted with the checkout. The folder itself is the checkout's, so a test may also add
an entry of its own there (pino links a fixture package): it dies with the run too.
Nothing a test writes there reaches the user's tree or the next run, the user's packages
stay read-only (a write into one is still EROFS), and nothing is copied:
``[sandbox] writable_copy``, a real copy of the whole folder, stays the answer for a
suite that writes into a package itself.

An agent's scratch copy gets the same folder (rgr.sandbox.sealer's seat): the agent's own
``npx vitest`` loads a Vite config and keeps its results as the test run does. The
folder is named in the copy's ``info/exclude`` (rgr.store.generated.exclude_folders), so
``git add -A`` leaves it out; whatever the agent does to its links dies with the copy,
and every test run judges a pristine checkout with a fresh folder of its own.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

from rgr.sandbox.toolchain import Toolchain
from rgr.sandbox.writable_copy import through_a_link

#: The folders tools create inside ``node_modules`` for their caches and temp files.
CACHE_NAMES = (".vite", ".vite-temp", ".vitest", ".cache")

#: The dependency folders this applies to (by name).
FOLDER_NAME = "node_modules"


def bind_into(toolchain: Toolchain, working_copy: Path) -> tuple[tuple[Path, Path], ...]:
    """Make each ``node_modules`` of ``toolchain``'s dependency folders a real folder in
    ``working_copy`` (a test run's checkout, an agent's scratch copy) with its cache
    folders writable; the ``(source, target)`` read-only
    binds its links need (the user's folders, each at its own path). A folder the
    working copy has already (a writable copy, ``[sandbox] writable_copy``, or a
    committed one) is left as it is."""
    pairs: list[tuple[Path, Path]] = []
    for dep in toolchain.dependency_folders:
        inside = dep.inside
        if inside is None or Path(inside).name != FOLDER_NAME:
            continue
        target = working_copy / inside
        if target.exists() or target.is_symlink() or through_a_link(working_copy, inside):
            continue
        if not dep.path.is_dir():
            continue
        target.mkdir(parents=True)
        # The user's folder itself, read-only at its own path (where the sandbox shows
        # it today, under the working copy's alias at the repository's path): one bind,
        # and each entry a link to it. A bind per entry costs bubblewrap ~3 ms each,
        # and a project has hundreds.
        pairs.append((dep.path, dep.path))
        for entry in sorted(dep.path.iterdir()):
            if entry.name in CACHE_NAMES:
                continue
            here = target / entry.name
            if entry.is_symlink():
                # the same link: relative ones (pnpm's, a workspace's) lead where the
                # user's do, relative to the folder
                here.symlink_to(os.readlink(entry))
            else:
                here.symlink_to(entry)
        for name in CACHE_NAMES:
            (target / name).mkdir()
    return tuple(pairs)


def narrow_names(toolchain: Toolchain, folder: str, entries: Collection[str]
                 ) -> list[str] | None:
    """``folder/entry`` for each of ``entries`` (the top-level entries of the dependency
    folder ``folder`` that refused writes aimed at), when each is a real folder or file
    of the user's (a link, pnpm's, leads elsewhere: copying it would copy a link) and
    the folder is one whose entries the sandbox links (``node_modules``); None when a
    copy of the whole folder is the only one that can serve."""
    dep = next((d for d in toolchain.dependency_folders if d.inside == folder), None)
    if dep is None or Path(folder).name != FOLDER_NAME or not entries:
        return None
    names = []
    for entry in entries:
        source = dep.path / entry
        if entry in CACHE_NAMES or source.is_symlink() or not source.exists():
            return None
        names.append(f"{folder}/{entry}")
    return names
