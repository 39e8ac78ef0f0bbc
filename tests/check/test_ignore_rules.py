"""Ignore rules that would hide rgr's configuration (rgr.check.ignore_rules; issue 25,
item 3), read as git reads them: each rule held to `git check-ignore` on a real repository.
The rules at work in each phase: tests/check/test_judged_by_content.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rgr.check import ignore_rules
from tests.conftest import make_repo

# -- ignore rules that hide rgr's configuration --------------------------------------------


@pytest.mark.parametrize(("rule", "hides"), [
    ("tdd.toml", True), ("/tdd.toml", True), ("*.toml", True), ("**/tdd.toml", True),
    (".rgr/", True), (".rgr", True), ("/.rgr/*", True), (".r?r/", True), ("*", True),
    ("dist/", False), ("*.pyc", False), ("src/tdd.toml", False), ("!tdd.toml", False),
    ("# tdd.toml", False), (".rgr-cache/", False),
])
def test_the_hook_reads_ignore_rules_as_git_does(tmp_path: Path, rule: str, hides: bool) -> None:
    """The hook's reading of a rule agrees with git's own (`git check-ignore`)."""
    assert (ignore_rules.refusal(".gitignore", "", rule + "\n") is not None) == hides
    repo = make_repo(tmp_path)
    (repo.path / ".gitignore").write_text(rule + "\n")
    probes = list(ignore_rules.PROBES)
    done = subprocess.run(["git", "check-ignore", "--no-index", *probes], cwd=repo.path,
                          capture_output=True, text=True)
    assert bool(done.stdout.strip()) == hides, (rule, done.stdout)
