"""The mutation gate measured on real commits, for the gate's tests
(tests/check/mutation/: test_mutation.py, test_textual.py, test_mutation_probe_exit.py): the
subject of ``base..tip``, each run of it in a fresh pristine checkout of the tip with
its own HOME, judged by the project's real test command."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from rgr.base.config import AdequacyConfig, Config, TestCommand
from rgr.check.mutation.gate import Checkout, measure, subject_of
from rgr.check.verify import TestReport
from rgr.ecosystems.registry import detect_test_command
from rgr.store import git as rgr_git
from rgr.store.handoff import AdequacyNote
from rgr.store.scratch import checkout_pristine
from tests.conftest import Repo, make_repo

#: The environment a checkout's test run starts from when it must not see the caller's.
BARE_ENV = {"PATH": "/usr/bin:/bin"}


def committed(tmp_path: Path, before: Mapping[str, str],
              after: Mapping[str, str]) -> tuple[Repo, str, str]:
    """A repository under ``tmp_path/repo`` with a commit writing ``before`` (RED's) and
    one writing ``after`` (GREEN's): the repository, the two commit ids."""
    (tmp_path / "repo").mkdir()
    repo = make_repo(tmp_path / "repo")
    return repo, repo.commit("test: add", dict(before)), repo.commit("feat: add", dict(after))


def detected_command(repo: Repo) -> TestCommand:
    """The test command rgr detects from the repository's files (there must be one)."""
    command = detect_test_command(repo.path)
    assert isinstance(command, TestCommand), command
    return command


def measure_commits(repo: Repo, base: str, tip: str, command: TestCommand, *,
                    env: Mapping[str, str] | None = None, phase: str = "GREEN",
                    settings: AdequacyConfig | None = None,
                    start_env: Mapping[str, str] | None = None,
                    node_modules: Path | None = None,
                    command_timeout: float = 240,
                    baseline: TestReport | None = None,
                    opened: list[str] | None = None) -> AdequacyNote:
    """The gate's note on ``base..tip`` of ``phase``. Each test run sees ``start_env``
    (by default this process's environment), its own HOME, then ``env``;
    ``node_modules`` is linked into each checkout (a JavaScript project's installed
    runners); ``baseline``: the phase's own run of ``tip``, as rgr hands it to the gate;
    ``opened`` gets the label of each checkout the gate opens."""
    pygit = rgr_git.open_repo(repo.path)
    base_commit = rgr_git.resolve_commit(pygit, base)
    tip_commit = rgr_git.resolve_commit(pygit, tip)
    outer = os.environ if start_env is None else start_env

    @contextmanager
    def open_checkout(label: str) -> Iterator[Checkout]:
        if opened is not None:
            opened.append(label)
        with tempfile.TemporaryDirectory(prefix=f"{label}-") as folder:
            tree = Path(folder) / "tree"
            checkout_pristine(pygit, tip_commit.id, tree)
            if node_modules is not None:
                (tree / "node_modules").symlink_to(node_modules)
            yield tree, None, {**outer, "HOME": folder, **(env or {})}

    subject = subject_of(pygit, Config(), phase, base_commit, tip_commit)
    return measure(subject, settings or AdequacyConfig(), command, open_checkout,
                   Path(pygit.path), command_timeout=command_timeout, baseline=baseline)
