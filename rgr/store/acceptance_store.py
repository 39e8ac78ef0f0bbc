"""Where the examiner's acceptance tests are kept: outside the repository, outside every
scratch copy and out of every sandbox.

Not in git: a scratch copy borrows the user's whole object store (``alternates``, shown
read-only inside the sandbox), so a blob, a note or a commit under any ref is readable
by an implementing agent (``git cat-file``, or zlib on the loose object). The notes
hold only the tests' names, the behaviours in words, the outcomes and the file's
SHA-256.

Here: ``$XDG_STATE_HOME/rgr/acceptance/<repository key>/<run id>/`` (by default
``~/.local/state/...``), under the user's HOME, which every sandbox masks with an empty
folder (rgr.sandbox.policy). A state directory outside HOME is not used: a sandbox may
show it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rgr.base.errors import RgrError

#: What the examiner may leave: more is not a test file but an attack on rgr.
MAX_FILE_BYTES = 256 * 1024
_SAFE_RUN = re.compile(r"[A-Za-z0-9._-]{1,80}")


@dataclass(frozen=True)
class StoredTests:
    """One run's acceptance file as stored: its text, where it sits in the checkout,
    the tests the examiner declared (name, behaviour) and the file's SHA-256."""

    folder: Path
    text: str
    placed_at: str
    declared: list[tuple[str, str]]

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def key(self) -> str:
        """What a note keeps of where the file is: the repository's key and the run,
        never a path (every scratch copy reads the notes)."""
        return f"{self.folder.parent.name}/{self.folder.name}"


def state_root(env: Mapping[str, str]) -> Path:
    """rgr's state directory: ``$XDG_STATE_HOME/rgr`` when it lies under HOME, else
    ``$HOME/.local/state/rgr`` (what the sandbox masks is HOME, not any folder)."""
    home = Path(env.get("HOME") or os.path.expanduser("~")).resolve()
    configured = env.get("XDG_STATE_HOME", "")
    if configured and os.path.isabs(configured) \
            and Path(configured).resolve().is_relative_to(home):
        return Path(configured) / "rgr"
    return home / ".local" / "state" / "rgr"


def exposed(store: Path, shown: Path) -> str:
    """Why the examiner refuses to keep its tests in ``store``, and the fix."""
    return (f"not examined: the acceptance tests would be kept in {store}, inside {shown}, "
            "which the sandbox shows to every agent of the run (an install folder or a "
            "toolchain there); fix: install that tool outside HOME's state folder "
            "(npm install -g --prefix ~/.local/share/npm), or point XDG_STATE_HOME at a "
            "folder under HOME that no sandbox shows")


def folder_for(env: Mapping[str, str], git_dir: Path, run_id: str) -> Path:
    if not _SAFE_RUN.fullmatch(run_id):
        raise RgrError(f"run id {run_id!r} cannot name a folder")
    key = hashlib.sha256(str(git_dir.resolve()).encode()).hexdigest()[:16]
    return state_root(env) / "acceptance" / key / run_id


def save(env: Mapping[str, str], git_dir: Path, run_id: str, text: str, placed_at: str,
         declared: list[tuple[str, str]]) -> StoredTests:
    """Keep the acceptance file of ``run_id`` (replacing an earlier one), owner-only."""
    if len(text.encode()) > MAX_FILE_BYTES:
        raise RgrError(f"the acceptance file is over {MAX_FILE_BYTES >> 10} KiB")
    folder = folder_for(env, git_dir, run_id)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    _write(folder / "tests.txt", text)
    _write(folder / "meta.json", json.dumps({"placedAt": placed_at, "declared": [
        {"name": n, "behaviour": b} for n, b in declared]}, indent=2))
    return StoredTests(folder, text, placed_at, declared)


def load(env: Mapping[str, str], git_dir: Path, run_id: str) -> StoredTests | None:
    """The run's stored acceptance file, or None (none written yet, or on another
    machine: the examiner then writes them anew)."""
    folder = folder_for(env, git_dir, run_id)
    try:
        text = (folder / "tests.txt").read_text(encoding="utf-8")
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        declared = [(str(d["name"]), str(d["behaviour"])) for d in meta["declared"]]
        return StoredTests(folder, text, str(meta["placedAt"]), declared)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(path: Path, text: str) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
