"""Crash logs: what an unexpected exception leaves behind for a bug report.

Holds versions and the traceback, never the environment (it carries API keys).
"""

from __future__ import annotations

import os
import platform
import sys
import time
import traceback
from pathlib import Path


def crash_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rgr"


def write_crash_log(exc: BaseException, argv: list[str]) -> Path:
    from rgr import __version__
    from rgr.store.objects import LIBGIT2_VERSION, PYGIT2_VERSION

    directory = crash_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"crash-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
    lines = [
        f"rgr {__version__}",
        f"python {sys.version.split()[0]} ({platform.platform()})",
        f"pygit2 {PYGIT2_VERSION}, libgit2 {LIBGIT2_VERSION}",
        f"command: rgr {' '.join(argv)}",
        "",
        "".join(traceback.format_exception(exc)),
    ]
    path.write_text("\n".join(lines))
    return path
