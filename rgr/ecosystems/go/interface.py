"""The public interface a Go test file uses: the exported functions, methods, types,
constants and variables of its package's other files (the folder's non-test ``.go``
files) whose names the test mentions, each by its declaration head
(rgr.ecosystems.declarations): ``func Add(a, b int) int``, never a body."""

from __future__ import annotations

import posixpath
import re

from rgr.ecosystems.declarations import Declaration, blank, depths, head_at, line_starts
from rgr.ecosystems.language import Lister, Reader

_FUNC = re.compile(r"func\s+(?:\((?P<receiver>[^)]*)\)\s*)?(?P<name>[A-Z]\w*)")
_TYPE = re.compile(r"type\s+(?P<name>[A-Z]\w*)")
_VALUE = re.compile(r"(?:const|var)\s+(?P<name>[A-Z]\w*)")


def interface(test_path: str, text: str, read: Reader, listing: Lister) -> list[str]:
    """``# calc.go (package calc)`` then the heads of what the test uses, per file."""
    used = set(re.findall(r"\b[A-Z]\w*", blank(text, "go")))
    folder = posixpath.dirname(test_path)
    out: list[str] = []
    for path in listing(folder):
        if not path.endswith(".go") or path.endswith("_test.go"):
            continue
        source = read(path)
        if source is None:
            continue
        heads = [d.head for d in declarations(source)
                 if d.name in used]
        package = re.search(r"^\s*package\s+(\w+)", blank(source, "go"), re.MULTILINE)
        if heads:
            out.append(f"# {path} (package {package[1] if package else '?'})")
            out += heads
    return out


def declarations(source: str) -> list[Declaration]:
    """The file's exported top-level declarations, in order (a method names its type)."""
    text = blank(source, "go")
    starts = line_starts(text)
    out: list[Declaration] = []
    for number, depth in enumerate(depths(text)):
        if depth != 0:
            continue
        at = starts[number]
        end = starts[number + 1] if number + 1 < len(starts) else len(text)
        line = text[at:end].strip()
        start = at + len(text[at:end]) - len(text[at:end].lstrip())
        match = _FUNC.match(line)
        if match is not None:
            receiver = (match["receiver"] or "").replace("*", " ").split()
            out.append(Declaration(match["name"], head_at(text, start, angles=False), exported=True,
                                   member_of=receiver[-1] if receiver else None))
            continue
        match = _TYPE.match(line) or _VALUE.match(line)
        if match is not None:
            out.append(Declaration(match["name"], head_at(text, start, angles=False),
                                   exported=True))
    return out


class GoInterface:
    """The examiner's view of a Go test file: its package's exported declarations that
    it uses (none without a listing of the package's folder)."""

    suffixes = (".go",)
    shows_imports = True

    def interface(self, test_path: str, text: str, read: Reader,
                  listing: Lister | None) -> list[str]:
        return [] if listing is None else interface(test_path, text, read, listing)


INTERFACE = GoInterface()
