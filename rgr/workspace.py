"""The context every command works in: the repository, its config and its notes.

Built once per command invocation and passed down, instead of module-level state.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

from rgr import failpoints, git
from rgr.notes import DEFAULT_REF, NotesStore

if TYPE_CHECKING:
    from rgr.config import Config

#: The file rgr.config reads (rgr.config.CONFIG_FILE; not imported: it loads pydantic).
_CONFIG_FILE = "tdd.toml"


class Workspace:
    """``config`` None: loaded on first use (see :func:`open_workspace`)."""

    def __init__(self, root: Path, repo: pygit2.Repository, config: Config | None,
                 notes: NotesStore, env: Mapping[str, str],
                 flags: Mapping[str, object] | None = None) -> None:
        self.root = root
        self.repo = repo
        self._config = config
        self.notes = notes
        self.env = env
        self.flags = flags

    @property
    def config(self) -> Config:
        """The validated config. Loaded on first use only when nothing could be wrong
        with it (no tdd.toml, no TDD_* variable, no flag: the defaults)."""
        if self._config is None:
            from rgr.config import load_config

            self._config = load_config(self.root, env=self.env, flags=self.flags)
        return self._config

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.path)


def _has_settings(root: Path, env: Mapping[str, str],
                  flags: Mapping[str, object] | None) -> bool:
    """Whether the config has anything but defaults, i.e. anything to validate. Any
    TDD_* variable counts (more than rgr.config reads: a superset is safe)."""
    return ((root / _CONFIG_FILE).exists()
            or any(value for name, value in env.items()
                   if name.startswith("TDD_") and name != "TDD_PROJECT_ROOT")
            or any(value is not None for value in (flags or {}).values()))


def open_workspace(
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, object] | None = None,
) -> Workspace:
    # The crash-point variable is for rgr alone, never for an agent or a test runner.
    environment = failpoints.scrub(os.environ if env is None else env)
    start = _project_root(cwd or Path.cwd(), environment)
    repo = git.open_repo(start)
    root = git.workdir(repo)
    if not _has_settings(root, environment, flags):
        return Workspace(root, repo, None, NotesStore(repo, DEFAULT_REF), environment, flags)
    # A mistake in tdd.toml or a variable is reported by every command, at once.
    from rgr.config import load_config

    config = load_config(root, env=environment, flags=flags)
    return Workspace(root, repo, config, NotesStore(repo, config.notes_ref), environment)


def _project_root(cwd: Path, env: Mapping[str, str]) -> Path:
    if not env.get("TDD_PROJECT_ROOT", ""):
        return cwd
    from rgr.config import find_project_root

    return find_project_root(cwd, env)
