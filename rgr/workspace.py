"""The context every command works in: the repository, its config and its notes.

Built once per command invocation and passed down, instead of module-level state.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pygit2

from rgr import failpoints, git
from rgr.agents import OVERRIDE_DIR
from rgr.config import CONFIG_FILE, Config, find_project_root, load_config
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
    #: Where tdd.toml and the .rgr/ overrides are read from: the working tree, or for a
    #: run a snapshot of the committed tree (see ``pinned``).
    config_root: Path = Path()
    #: What the configuration was read from, for the start note.
    config_source: str | None = None
    #: The command line's overrides (--model, --max-retries), kept for ``pinned``.
    flags: Mapping[str, object] | None = None

    def __post_init__(self) -> None:
        if self.config_root == Path():
            self.config_root = self.root

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.path)

    def pinned(self) -> Workspace:
        """This workspace with its configuration read from HEAD's committed tree (a
        snapshot of tdd.toml and .rgr/ under the git dir), never from files in the
        working tree that nobody committed: what agents could leave there (ignored or
        not) cannot change an agent's definition, permissions or the test command."""
        head = git.head_commit(self.repo)
        snapshot = self.git_dir / "rgr" / "config" / str(head.tree.id)
        source = git.materialize(self.repo, head, (CONFIG_FILE, OVERRIDE_DIR), snapshot)
        config = load_config(snapshot, env=self.env, flags=self.flags)
        return replace(self, config=config, notes=NotesStore(self.repo, config.notes_ref),
                       config_root=snapshot,
                       config_source=f"commit {str(head.id)[:12]}: {source}")


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
                     no_sandbox, flags=flags)
