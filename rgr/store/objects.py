"""The git objects the layers above the store hold: pygit2's types, named here so that
pygit2 is imported in rgr.store alone (tests/test_architecture.py holds every other
module to that). Above the store a commit, tree or blob is something the store handed
out and is read through the store's functions or the object's own accessors; how to
find, walk, diff or write them is the store's.
"""

from __future__ import annotations

import pygit2
from pygit2 import LIBGIT2_VERSION, Blob, Commit, Oid, Repository, Tree

#: pygit2's own version, for crash reports ("?" where a build does not say it).
PYGIT2_VERSION: str = getattr(pygit2, "__version__", "?")

__all__ = ["LIBGIT2_VERSION", "PYGIT2_VERSION", "Blob", "Commit", "Oid", "Repository", "Tree"]
