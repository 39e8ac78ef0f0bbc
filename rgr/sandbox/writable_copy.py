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
"""

from __future__ import annotations

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
        reflink = ["--reflink=auto"] if sys.platform.startswith("linux") else []
        done = run(["cp", "-a", *reflink, "--", str(dep.path), str(target)],
                   cwd=working_copy, timeout=COPY_TIMEOUT_S)
        if done.returncode != 0 or done.timed_out:
            why = ("timed out" if done.timed_out
                   else f"exit {done.returncode}: {done.stderr.strip()[-300:]}")
            raise RgrError(f"could not make the writable copy of {dep.inside} "
                           f"([sandbox] writable_copy) in {working_copy}: {why}",
                           "free space where rgr makes its checkouts ([sandbox] scratch_dir), "
                           f"or remove {dep.inside!r} from [sandbox] writable_copy")
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
