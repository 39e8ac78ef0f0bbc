"""The context every command works in: the repository, its config and its notes.

Built once per command invocation and passed down, instead of module-level state.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pygit2

from rgr import failpoints, git
from rgr.config import Config, find_project_root, load_config
from rgr.notes import NotesStore


@dataclass
class Workspace:
    root: Path
    repo: pygit2.Repository
    config: Config
    notes: NotesStore
    env: Mapping[str, str]
    #: --no-sandbox was given: agents and test runs are not confined (rgr.attempt).
    no_sandbox: bool = False

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.path)


def open_workspace(
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, object] | None = None,
    no_sandbox: bool = False,
) -> Workspace:
    # The crash-point variable is for rgr alone, never for an agent or a test runner.
    environment = failpoints.scrub(os.environ if env is None else env)
    start = find_project_root(cwd or Path.cwd(), environment)
    repo = git.open_repo(start)
    root = git.workdir(repo)
    config = load_config(root, env=environment, flags=flags)
    return Workspace(root, repo, config, NotesStore(repo, config.notes_ref), environment,
                     no_sandbox)
