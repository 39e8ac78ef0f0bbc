"""What the language-neutral checks (rgr.check) ask of a language beyond its runners: one
``Language`` per language sub-package (its ``language`` module), made of small parts,
listed once in rgr.ecosystems.registry. check/ names no language: it asks the registry
for the one a path is written in."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class AcceptanceName:
    """How a language's runners collect a test file (``pattern``, matched against the
    whole file name), and the name the examiner's acceptance file gets beside one:
    ``made``, with ``{stem}`` and the match's groups (``{0}``, ``{1}`` ...) filled in."""

    pattern: re.Pattern[str]
    made: str

    def name_beside(self, test_file_name: str, stem: str) -> str | None:
        """The acceptance file's name beside ``test_file_name``, or None when this
        naming does not collect that file."""
        match = self.pattern.fullmatch(test_file_name)
        return None if match is None else self.made.format(*match.groups(), stem=stem)


@dataclass(frozen=True)
class Language:
    """What rgr knows of one language apart from its runners."""

    name: str
    #: The suffixes of its source files.
    suffixes: tuple[str, ...]
    #: How its test files are named, first match first (rgr.check.acceptance.placing).
    acceptance_names: tuple[AcceptanceName, ...] = ()
    #: Its runners' test ids name a package and a test but no file (Go's
    #: ``example.com/calc::TestSums``): a test is told by its name alone.
    ids_name_no_file: bool = False
    #: What the examiner is shown of the code its test files use; None: their import
    #: lines.
    interface: ExaminerInterface | None = None

    def writes(self, path: str) -> bool:
        """Whether ``path`` is a file of this language."""
        return path.endswith(self.suffixes)
