"""The ``tdd.toml`` files rgr has already validated, remembered by their content.

Every command validates ``tdd.toml`` (a mistake is reported at once, whatever you ran),
and that takes the config model: pydantic, about 100 ms before anything else happens.
``rgr history``'s quick path (``rgr.history_quick``) cannot pay that, and needs one
answer from the file: which notes ref to read. So when a command has validated a
``tdd.toml`` on its own (no ``TDD_*`` variable, no flag), it leaves a mark named by a
digest of this rgr's version and the file's bytes, holding that notes ref. The quick
path trusts a file only when it finds the mark of exactly those bytes; any edit, or
another rgr version, sends it to the full command, which validates and marks again.

The marks live in ``.git/rgr/config-seen/``, which no agent's sandbox can write.
"""

from __future__ import annotations

import os
import zlib

from rgr import __version__

_FOLDER = ("rgr", "config-seen")


def _mark(git_dir: str, text: bytes) -> str:
    """The mark's path. Two files with one name (CRC and length) just take turns."""
    return os.path.join(git_dir, *_FOLDER, f"{zlib.crc32(text):08x}-{len(text)}")


def remember(git_dir: str, text: bytes, notes_ref: str) -> None:
    """Mark ``text`` (a tdd.toml's bytes) as valid, naming ``notes_ref``. Best effort: a
    read-only repository just keeps the slow path."""
    if recall(git_dir, text) == notes_ref:
        return
    mark = _mark(git_dir, text)
    try:
        os.makedirs(os.path.dirname(mark), exist_ok=True)
        partial = f"{mark}.{os.getpid()}.tmp"
        with open(partial, "wb") as out:
            out.write(f"{__version__}\n{notes_ref}\n".encode() + text)
        os.replace(partial, mark)
    except (OSError, UnicodeError):
        pass


def recall(git_dir: str, text: bytes) -> str | None:
    """The notes ref of a tdd.toml with exactly these bytes, if this rgr validated it."""
    try:
        with open(_mark(git_dir, text), "rb") as mark:
            held = mark.read()
    except OSError:
        return None
    version, _, rest = held.partition(b"\n")
    ref, _, seen = rest.partition(b"\n")
    if version != __version__.encode() or seen != text or not ref.startswith(b"refs/notes/"):
        return None
    try:
        return ref.decode()
    except UnicodeDecodeError:
        return None
