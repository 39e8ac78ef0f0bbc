"""The cache a Go test run reads: the module cache (``GOMODCACHE``, else the first
``GOPATH`` entry's ``pkg/mod``), shown read-only where ``GOMODCACHE`` then points. Go's
build cache stays the sandbox's own: it must be writable."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from rgr.ecosystems.base import CacheSpot, ToolCache


def _module_cache(env: Mapping[str, str], homes: Sequence[Path]) -> tuple[CacheSpot, ...]:
    gopath = (env.get("GOPATH") or str(homes[0] / "go")).split(os.pathsep)[0]
    modcache = Path(env.get("GOMODCACHE") or os.path.join(gopath, "pkg", "mod"))
    if not modcache.is_absolute():
        return ()
    return (CacheSpot(modcache, "Go's module cache", ((modcache, None),),
                      lambda shown, _: {"GOMODCACHE": str(shown)} if shown else {}),)


MODULES = ToolCache("go-modules", _module_cache)
