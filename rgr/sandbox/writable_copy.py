"""``[sandbox] writable_copy``: a private, writable copy of a dependency folder inside
one working copy, for suites that write into their own dependencies.

The sandbox shows the user's dependency folders read-only (rgr.sandbox.toolchain): test
code is agent code, and a writable ``node_modules`` would let one attempt change what
the next attempt, and the user, run. Some honest suites write there all the same (pino
links a fixture package into ``node_modules`` to test loading a transport by name), and
fail with EROFS inside. A folder this setting names is copied, for real, into the
working copy before the run (where the read-only bind would have gone) and deleted with
it, so whatever a run writes there dies with the run.

Not hard links: writing into an existing file through a hard link changes the user's
file. ``cp --reflink=auto`` shares blocks copy-on-write where the filesystem can (btrfs,
XFS); on tmpfs (rgr's default scratch place, /dev/shm) and ext4 it is a full copy.

A name may also be one entry of a dependency folder (``node_modules/dep``): where the
sandbox makes each ``node_modules`` a folder of links (rgr.sandbox.tool_caches_inside),
that entry's link is replaced by a real copy of the package, and the other packages stay
read-only links: the copy a suite that patches one package needs, a few files instead
of the whole folder (``copy_entries``). rgr picks such a name itself
(rgr.sandbox.tool_caches_inside.narrow_names) when a run's only
failure is a write refused there (rgr.loop.fix_trials).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection
from pathlib import Path

from rgr.base.errors import RgrError
from rgr.base.proc import run
from rgr.sandbox.toolchain import Toolchain

#: Seconds one copy may take (a big node_modules on a loaded machine takes seconds).
COPY_TIMEOUT_S = 600.0


def copy_into(toolchain: Toolchain, names: Collection[str], working_copy: Path) -> list[str]:
    """Copy each dependency folder ``names`` lists (relative paths, as
    ``[sandbox] writable_copy`` has them) into ``working_copy`` at the same place; the
    relative paths copied. A folder the working copy has itself (committed) is left as
    it is, like a shared one; a name that is no dependency folder found is skipped
    (only what the sandbox shows anyway is ever copied)."""
    copied: list[str] = []
    for dep in toolchain.dependency_folders:
        if dep.inside is None or dep.inside not in names:
            continue
        target = working_copy / dep.inside
        if target.exists() or target.is_symlink() or through_a_link(working_copy, dep.inside):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        _copy(dep.path, target, working_copy, dep.inside)
        copied.append(dep.inside)
    return copied


def through_a_link(working_copy: Path, relative: str) -> bool:
    """Whether a folder on the way to ``relative`` in ``working_copy`` is a symbolic
    link: the checkout's files are the agent's, and a committed link
    (``packages -> /home/user``) would take the copy, made on rgr's side of the
    sandbox, out of the checkout."""
    here = working_copy
    for part in Path(relative).parts[:-1]:
        here = here / part
        if here.is_symlink():
            return True
    return False


def copy_entries(toolchain: Toolchain, names: Collection[str], working_copy: Path
                 ) -> list[str]:
    """For each name that is one entry of a dependency folder (``node_modules/dep``),
    replace the link the sandbox made for it in ``working_copy``
    (rgr.sandbox.tool_caches_inside) with a real copy of the user's entry; the names
    copied. Run after those links are made; an entry whose link is not the sandbox's
    (unsandboxed, or the folder itself a writable copy) is left as it is."""
    copied: list[str] = []
    for dep in toolchain.dependency_folders:
        if dep.inside is None:
            continue
        for name in names:
            entry = name[len(dep.inside) + 1:] if name.startswith(dep.inside + "/") else ""
            if not entry or "/" in entry:
                continue
            target = working_copy / name
            source = dep.path / entry
            if (not target.is_symlink() or os.readlink(target) != str(source)
                    or source.is_symlink() or through_a_link(working_copy, name)):
                continue
            target.unlink()
            _copy(source, target, working_copy, name)
            copied.append(name)
    return copied


def _copy(source: Path, target: Path, working_copy: Path, name: str) -> None:
    reflink = ["--reflink=auto"] if sys.platform.startswith("linux") else []
    done = run(["cp", "-a", *reflink, "--", str(source), str(target)],
               cwd=working_copy, timeout=COPY_TIMEOUT_S)
    if done.returncode != 0 or done.timed_out:
        why = ("timed out" if done.timed_out
               else f"exit {done.returncode}: {done.stderr.strip()[-300:]}")
        raise RgrError(f"could not make the writable copy of {name} "
                       f"([sandbox] writable_copy) in {working_copy}: {why}",
                       "free space where rgr makes its checkouts ([sandbox] scratch_dir), "
                       f"or remove {name!r} from [sandbox] writable_copy")
