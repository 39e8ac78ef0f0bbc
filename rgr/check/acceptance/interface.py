"""The public interface the run's tests use: what the examiner is shown of the code.

Deterministic and body-free: each language's reader
(rgr.ecosystems.registry.interface_reader; Python's by the AST, the others' at the
token level) shows the heads of the declarations the tests use, never a body, a
docstring or a comment: the examiner must judge the feature from its text, not from how
(or how far) it was built. A language without a reader: the test files' import lines
only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rgr.ecosystems import registry
from rgr.ecosystems.language import Lister, Reader

#: The interface shown is cut at this many lines (the examiner's prompt stays small).
MAX_LINES = 60

_IMPORT_LINE = re.compile(
    r"^\s*(import\s|from\s+\S+\s+import\s|const\s+\{?[^=]*\}?\s*=\s*require\(|use\s|"
    r"#include\s|require\s*\(?['\"])")


def public_interface(test_files: Iterable[str], read: Reader,
                     listing: Lister | None = None) -> list[str]:
    """The interface lines for ``test_files`` (paths in the tree ``read`` reads and
    ``listing`` lists), in the order first seen, without repeats."""
    lines: list[str] = []
    for path in sorted(set(test_files)):
        text = read(path)
        if text is None:
            continue
        found = _interface(path, text, read, listing)
        lines += [line for line in found if line not in lines]
    return lines[:MAX_LINES]


def _interface(path: str, text: str, read: Reader, listing: Lister | None) -> list[str]:
    reader = registry.interface_reader(path)
    found = [] if reader is None else reader.interface(path, text, read, listing)
    if found or (reader is not None and not reader.shows_imports):
        return found
    # Nothing of the project's code found (a library's API, a language not read yet):
    # the import lines say at least what is used.
    return _import_lines(path, text)


def _import_lines(path: str, text: str) -> list[str]:
    return [f"{path}: {line.strip()}" for line in text.splitlines()
            if _IMPORT_LINE.match(line)][:20]
