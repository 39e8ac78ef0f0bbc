"""Where the interpreter a virtualenv was made from lives (``home`` in its pyvenv.cfg,
and where its ``python`` link leads: pyenv, uv's managed Pythons, a system one), found
without running it: rgr.sandbox.toolchain shows it beside the virtualenv, whose scripts
cannot start without it."""

from __future__ import annotations

import os
import re
from contextlib import suppress
from pathlib import Path


def interpreter_prefixes(venv: Path) -> list[Path]:
    """The installation prefixes (``/usr``, ``~/.pyenv/versions/3.12.1``) the virtualenv
    ``venv``'s interpreter may come from, the one its pyvenv.cfg names first."""
    home = _pyvenv_home(venv)
    candidates = [home] if home is not None else []
    with suppress(OSError):
        candidates.append((venv / "bin" / "python").resolve().parent)
    return [bin_dir.parent if bin_dir.name == "bin" else bin_dir for bin_dir in candidates]


def _pyvenv_home(venv: Path) -> Path | None:
    try:
        text = (venv / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(r"^\s*home\s*=\s*(.+?)\s*$", text, re.MULTILINE)
    return Path(match.group(1)) if match and os.path.isabs(match.group(1)) else None
