"""The folders cargo's own configuration (``$CARGO_HOME/config.toml``) tells it to read:
the ``directory`` and ``local-registry`` of each ``[source.*]``, as Debian's offline
setup (``replace-with = "debian"``, ``directory = "/usr/share/cargo/registry"``) and
``cargo vendor``'s (``directory = "vendor"``) name them. A relative path is relative to
the folder holding ``.cargo``, as cargo reads it. The sandbox shows them read-only
beside the configuration (rgr.sandbox.toolchain), or cargo, finding its replaced source
gone, would go to the network it does not have."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

#: The keys of a ``[source.*]`` table that name a folder.
FOLDER_KEYS = ("directory", "local-registry")


def source_folders(cargo_home: Path) -> tuple[Path, ...]:
    """The folders ``cargo_home``'s configuration names as sources, existing ones only."""
    found: dict[Path, None] = {}
    for name in ("config.toml", "config"):
        config = cargo_home / name
        try:
            data = tomllib.loads(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        sources = data.get("source")
        if not isinstance(sources, dict):
            continue
        for table in sources.values():
            if not isinstance(table, dict):
                continue
            for key in FOLDER_KEYS:
                value = table.get(key)
                if not isinstance(value, str) or not value:
                    continue
                folder = Path(value) if os.path.isabs(value) else cargo_home.parent / value
                if folder.is_dir():
                    found[Path(os.path.normpath(folder))] = None
    return tuple(found)
