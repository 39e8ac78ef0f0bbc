"""The public interface a Ruby test file uses: the files it loads with
``require_relative`` (the project's own code; ``require`` names a gem or a load-path
entry rgr cannot place), and in each the heads of the classes, modules and public
methods whose names the test mentions: ``class Calc``, ``def add(a, b)``, never a
body (an endless method's ``= a + b`` included)."""

from __future__ import annotations

import posixpath
import re

from rgr.ecosystems.language import Lister, Reader

_REQUIRE_RELATIVE = re.compile(
    r"""^[ \t]*require_relative[ \t]*\(?[ \t]*(['"])(?P<spec>[^'"]+)\1""", re.MULTILINE)
_NAMESPACE = re.compile(r"^[ \t]*(?P<kind>class|module)[ \t]+(?P<name>[A-Z][\w:]*)"
                        r"(?P<parent>[ \t]*<[ \t]*[A-Z][\w:]*)?")
_METHOD = re.compile(r"^[ \t]*def[ \t]+(?P<receiver>self\.)?(?P<name>[\w]+[?!=]?|[-+*/%<>=!\[\]]+)"
                     r"(?P<params>[ \t]*\([^)]*\))?")
_VISIBILITY = re.compile(r"^[ \t]*(?P<word>private|protected|public)[ \t]*$")
_WORD = re.compile(r"[A-Za-z_]\w*[?!]?")


def interface(test_path: str, text: str, read: Reader) -> list[str]:
    """``# lib/calc.rb (require_relative '../lib/calc')`` then the used heads, per file
    the test loads."""
    used = set(_WORD.findall(_code(text)))
    out: list[str] = []
    for match in _REQUIRE_RELATIVE.finditer(text):
        spec = match["spec"]
        path = posixpath.normpath(posixpath.join(posixpath.dirname(test_path), spec))
        if not path.endswith(".rb"):
            path += ".rb"
        source = read(path)
        if source is None:
            continue
        heads = _heads(source, used)
        if heads:
            out.append(f"# {path} (require_relative '{spec}')")
            out += heads
    return out


def _heads(source: str, used: set[str]) -> list[str]:
    heads: list[str] = []
    hidden = False
    for line in _code(source).splitlines():
        if (namespace := _NAMESPACE.match(line)) is not None:
            hidden = False
            name = namespace["name"]
            if name.split("::")[-1] in used or name in used:
                heads.append(f"{namespace['kind']} {name}{namespace['parent'] or ''}".strip())
        elif (visibility := _VISIBILITY.match(line)) is not None:
            hidden = visibility["word"] != "public"
        elif (method := _METHOD.match(line)) is not None and not hidden \
                and method["name"] in used:
            params = (method["params"] or "").strip()
            heads.append(f"def {method['receiver'] or ''}{method['name']}{params}")
    return heads


def _code(text: str) -> str:
    """``text`` without its whole-line comments."""
    return "\n".join("" if line.lstrip().startswith("#") else line
                     for line in text.splitlines())


class RubyInterface:
    """The examiner's view of a Ruby test file: what it loads with require_relative."""

    suffixes = (".rb",)
    shows_imports = True

    def interface(self, test_path: str, text: str, read: Reader,
                  listing: Lister | None) -> list[str]:
        return interface(test_path, text, read)


INTERFACE = RubyInterface()
