"""An agent CLI's ``--version`` text, read once per installed binary.

Every ``rgr run``, ``rgr resume`` and ``rgr refactor`` says which release it drives, and
the daemon starts one such process per phase: each paid a start of the CLI for one
line (claude's 245 MB binary: about 0.1 s of CPU and 0.3 s of wall time; a node CLI
more). The text is kept under ``$XDG_CACHE_HOME/rgr/versions/``, named by what
identifies the installed file: its real path, device, inode, size and modification
time, plus a digest of its bytes when it is small (a wrapper script or a test's
stand-in, which can be rewritten within one tick of the file system's clock). An
upgrade, a reinstall or an edited wrapper is a new name, read again. A failed read is
never kept: a missing or broken binary fails at every start, as before.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

#: Files at most this big are also identified by their bytes (scripts, not binaries).
HASHED_BYTES = 1 << 20
#: Where under the cache directory the texts are kept.
FOLDER = Path("rgr") / "versions"
#: A longer text is not a version line: never kept.
MAX_TEXT = 4096


def memo_path(binary: str, env: Mapping[str, str]) -> Path | None:
    """The file that holds ``binary``'s version text, or None when the binary cannot
    be identified (not found: reading it reports that)."""
    try:
        real = os.path.realpath(binary)
        info = os.stat(real)
        identity = f"{real}\0{info.st_dev}\0{info.st_ino}\0{info.st_size}\0{info.st_mtime_ns}"
        if info.st_size <= HASHED_BYTES:
            identity += "\0" + hashlib.sha256(Path(real).read_bytes()).hexdigest()
    except OSError:
        return None
    cache = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or "/nonexistent",
                                                       ".cache")
    name = hashlib.sha256(identity.encode()).hexdigest()[:32]
    return Path(cache) / FOLDER / name


def remembered(binary: str, env: Mapping[str, str], read: Callable[[], str]) -> str:
    """``read()`` (which raises when the binary cannot say its version), or what it
    returned the last time for this very file."""
    path = memo_path(binary, env)
    if path is not None:
        try:
            kept = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            kept = ""
        if kept:
            return kept
    text = read()
    if path is not None and 0 < len(text) <= MAX_TEXT:
        _write(path, text)
    return text


def _write(path: Path, text: str) -> None:
    """Whole or not at all (two rgr processes may write it at once); a cache that
    cannot be written only costs the next start the read."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".version-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
