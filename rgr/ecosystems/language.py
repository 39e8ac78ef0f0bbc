"""What the language-neutral checks (rgr.check) ask of a language beyond its runners, each
a small protocol that a language's sub-package fills and rgr.ecosystems.registry lists
once: check/ names no language, it asks the registry for the one a path is written in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

#: Reads a file of the examined tree (a path relative to the project), or None.
Reader = Callable[[str], str | None]
#: The paths of the files directly in a folder of the examined tree (Go's package).
Lister = Callable[[str], list[str]]


class ExaminerInterface(Protocol):
    """What the examiner is shown of the code a language's test file uses
    (rgr.check.acceptance.interface): the heads of the declarations it uses, never a
    body."""

    #: The suffixes of the test files it reads.
    @property
    def suffixes(self) -> tuple[str, ...]: ...

    def interface(self, test_path: str, text: str, read: Reader,
                  listing: Lister | None) -> list[str]:
        """The interface lines for the test file ``test_path`` (its ``text``); empty
        when none of the project's code is found (then its import lines are shown)."""
        ...
