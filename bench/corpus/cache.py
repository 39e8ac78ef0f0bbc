"""Where fetched sources are kept: one folder per source, name and version, so a second
run reads them from disk instead of downloading them again."""

from __future__ import annotations

import os
import re
from pathlib import Path

#: Overrides the cache folder (default ``~/.cache/rgr-corpus``).
CACHE_VAR = "RGR_CORPUS_CACHE"

_SAFE = re.compile(r"[^A-Za-z0-9._+-]")


def cache_root() -> Path:
    """The cache folder: ``$RGR_CORPUS_CACHE``, else ``~/.cache/rgr-corpus``."""
    chosen = os.environ.get(CACHE_VAR, "")
    return Path(chosen) if chosen else Path.home() / ".cache" / "rgr-corpus"


def slot(kind: str, name: str, version: str, root: Path | None = None) -> Path:
    """The folder holding ``name`` at ``version`` from the source ``kind`` (``pypi``,
    ``npm``, ``debian-go``, ``debian-rust``); a scoped npm name such as ``@scope/pkg``
    becomes one safe folder name."""
    base = root if root is not None else cache_root()
    return base / kind / f"{_SAFE.sub('_', name)}-{_SAFE.sub('_', version)}"
