"""Files rgr's own test runs leave in the work tree are rgr's, not an agent's.

A runner configured to write its JUnit report inside the repository (``junit_xml =
["reports/junit.xml"]``, a Surefire directory that is not ignored…) leaves that file
behind after the baseline or a phase's verification. The next agent session would then
start on a dirty tree, and rgr's leftovers check would set the file aside under
``refs/rgr/leftovers/`` as if that agent had written it. So the files a test run adds
(untracked, not ignored, not there before the run) are removed once it is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pygit2

from rgr import git


@contextmanager
def test_output_removed(repo: pygit2.Repository) -> Iterator[list[str]]:
    """Around one test run: afterwards, delete the untracked files it added. The list
    yielded is filled with their paths when the block ends."""
    before = set(git.untracked_paths(repo))
    removed: list[str] = []
    try:
        yield removed
    finally:
        added = [p for p in git.untracked_paths(repo) if p not in before]
        removed.extend(git.remove_paths(repo, added))


test_output_removed.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
