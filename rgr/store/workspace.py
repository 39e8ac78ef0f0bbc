"""The context every command works in: the repository, its config and its notes.

Built once per command invocation and passed down, instead of module-level state.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

from rgr.base import failpoints
from rgr.store import git
from rgr.store.history import ROWS_ALSO_IN
from rgr.store.notes import NotesStore
from rgr.store.notes_log import DEFAULT_REF

if TYPE_CHECKING:
    from rgr.base.config import Config

#: The file rgr.base.config reads (rgr.base.config.CONFIG_FILE; not imported: it loads pydantic).
_CONFIG_FILE = "tdd.toml"


class Workspace:
    """The repository, its config and its notes for one command.

    ``config`` None: loaded on first use, which :func:`open_workspace` allows only when
    nothing could be wrong with it (no tdd.toml, no TDD_* variable, no flag), so that
    `rgr status` and `rgr show` never load the config model (pydantic) for defaults.
    """

    def __init__(self, root: Path, repo: pygit2.Repository, config: Config | None,
                 notes: NotesStore, env: Mapping[str, str], no_sandbox: bool = False,
                 config_root: Path | None = None, config_source: str | None = None,
                 flags: Mapping[str, object] | None = None) -> None:
        self.root = root
        self.repo = repo
        self._config = config
        self.notes = notes
        self.env = env
        #: --no-sandbox was given: agents and test runs are not confined (rgr.sandbox.sealer).
        self.no_sandbox = no_sandbox
        #: Where tdd.toml and the .rgr/ overrides are read from: the working tree, or
        #: for a run a snapshot of the committed tree (see ``pinned``).
        self.config_root = config_root if config_root is not None else root
        #: What the configuration was read from, for the start note.
        self.config_source = config_source
        #: The command line's overrides (--model, --max-retries), kept for ``pinned``.
        self.flags = flags

    @property
    def config(self) -> Config:
        if self._config is None:
            from rgr.base.config import load_config

            self._config = load_config(self.config_root, env=self.env, flags=self.flags)
        return self._config

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.path)

    def reopened(self) -> Workspace:
        """This workspace on a newly opened repository (same config, notes ref and
        environment): a pygit2 repository is not shared between threads, so each
        request of `rgr serve` reads through its own."""
        repo = git.open_repo(self.root)
        return Workspace(self.root, repo, self._config,
                         _notes(repo, self.notes.ref, self.env), self.env, self.no_sandbox,
                         config_root=self.config_root, config_source=self.config_source,
                         flags=self.flags)

    def pinned(self) -> Workspace:
        """This workspace with its configuration read from HEAD's committed tree (a
        snapshot of tdd.toml and .rgr/ under the git dir), never from files in the
        working tree that nobody committed: what agents could leave there (ignored or
        not) cannot change an agent's definition, permissions or the test command."""
        from rgr.base.config import CONFIG_FILE, load_config
        from rgr.store.agents import OVERRIDE_DIR

        head = git.head_commit(self.repo)
        snapshot = self.git_dir / "rgr" / "config" / str(head.tree.id)
        source = git.materialize(self.repo, head, (CONFIG_FILE, OVERRIDE_DIR), snapshot)
        config = load_config(snapshot, env=self.env, flags=self.flags,
                             label=f"{CONFIG_FILE} as committed at {str(head.id)[:8]}")
        notes = _notes(self.repo, config.notes_ref, self.env)
        return Workspace(self.root, self.repo, config, notes,
                         self.env, self.no_sandbox, config_root=snapshot,
                         config_source=f"commit {str(head.id)[:12]}: {source}",
                         flags=self.flags)


def _notes(repo: pygit2.Repository, ref: str, env: Mapping[str, str]) -> NotesStore:
    """The workspace's notes, each note written filing its ``rgr history --json`` row:
    in this repository's cache, and in the daemon's when a daemon runs this rgr in a
    job's clone (rgr.store.history.ROWS_ALSO_IN)."""
    also = env.get(ROWS_ALSO_IN, "")
    # Only a git dir that exists: the variable never makes rgr create directories.
    daemons = [Path(also).resolve()] if os.path.isabs(also) and os.path.isdir(also) else []

    def file_history_row(commit: str, blob: str, text: str) -> None:
        from rgr.store.history.cache import add_written

        when = git.commit_time(repo, commit)  # a row without finishedAt takes it
        if when is None:
            return  # a note on no commit: a read says so, in a row of its own
        # (once per file, should the daemon's git dir be this repository's own)
        add_written(dict.fromkeys([git.common_dir(repo), *daemons]), commit, blob, text,
                    when)

    return NotesStore(repo, ref, on_written=file_history_row)


def _overridden(env: Mapping[str, str], flags: Mapping[str, object] | None) -> bool:
    """Whether a TDD_* variable or a flag sets anything beside tdd.toml. Any TDD_*
    variable counts (more than rgr.base.config reads: a superset is safe)."""
    return (any(value for name, value in env.items()
                if name.startswith("TDD_") and name != "TDD_PROJECT_ROOT")
            or any(value is not None for value in (flags or {}).values()))


def _has_settings(root: Path, env: Mapping[str, str],
                  flags: Mapping[str, object] | None) -> bool:
    """Whether the config has anything but defaults, i.e. anything to validate."""
    return (root / _CONFIG_FILE).exists() or _overridden(env, flags)


def open_workspace(
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, object] | None = None,
    no_sandbox: bool = False,
) -> Workspace:
    # The crash-point variable is for rgr alone, never for an agent or a test runner.
    environment = failpoints.scrub(os.environ if env is None else env)
    start = _project_root(cwd or Path.cwd(), environment)
    repo = git.open_repo(start)
    root = git.workdir(repo)
    if not _has_settings(root, environment, flags):
        return Workspace(root, repo, None, _notes(repo, DEFAULT_REF, environment), environment,
                         no_sandbox, flags=flags)
    # A mistake in tdd.toml or a variable is reported by every command, at once.
    from rgr.base.config import load_config

    config = load_config(root, env=environment, flags=flags)
    _remember_valid_file(repo, environment, flags, config)
    return Workspace(root, repo, config, _notes(repo, config.notes_ref, environment), environment,
                     no_sandbox, flags=flags)


def _remember_valid_file(repo: pygit2.Repository, env: Mapping[str, str],
                         flags: Mapping[str, object] | None, config: Config) -> None:
    """When tdd.toml alone made this config, mark the bytes it was validated from as
    valid for the quick read paths (rgr.base.config_seen)."""
    if _overridden(env, flags) or config.file_bytes is None:
        return
    from rgr.base import config_seen

    config_seen.remember(repo.path, config.file_bytes, config.notes_ref)


def _project_root(cwd: Path, env: Mapping[str, str]) -> Path:
    if not env.get("TDD_PROJECT_ROOT", ""):
        return cwd
    from rgr.base.config import find_project_root

    return find_project_root(cwd, env)
