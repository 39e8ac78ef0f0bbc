"""The public interface a JavaScript or TypeScript test file uses: the names it imports
from the project's own modules (a relative specifier: ``import { add } from
'./calc.js'``, ``const calc = require('../calc')`` then ``calc.add``), and each one's
declaration head in that module (rgr.ecosystems.declarations): never a body."""

from __future__ import annotations

import posixpath
import re

from rgr.ecosystems.declarations import Declaration, blank, depths, head_at, line_starts
from rgr.ecosystems.language import Lister, Reader

_SPEC = r"""(?P<q>['"])(?P<spec>\.{1,2}/[^'"]+)(?P=q)"""
_IMPORT = re.compile(r"\bimport\s+(?P<what>[^'\";]*?)\s+from\s+" + _SPEC)
_REQUIRE = re.compile(r"\b(?:const|let|var)\s+(?P<what>\{[^}]*\}|[\w$]+)\s*=\s*require\(\s*"
                      + _SPEC + r"\s*\)")
_SCRIPT = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
_AS_TS = {".js": ".ts", ".mjs": ".mts", ".cjs": ".cts", ".jsx": ".tsx"}

_FUNCTION = re.compile(r"(?P<export>export\s+(?P<default>default\s+)?)?(?:async\s+)?"
                       r"function\s*\*?\s*(?P<name>[\w$]*)")
_CLASS = re.compile(r"(?P<export>export\s+(?P<default>default\s+)?)?(?:abstract\s+)?"
                    r"class\s+(?P<name>[\w$]+)")
_VARIABLE = re.compile(r"(?P<export>export\s+)?(?:const|let|var)\s+(?P<name>[\w$]+)")
_TYPE = re.compile(r"(?P<export>export\s+)?(?:interface|type|enum)\s+(?P<name>[\w$]+)")
_COMMONJS = re.compile(r"(?:module\.)?exports\.(?P<name>[\w$]+)\s*=\s*")
_EXPORTS_OBJECT = re.compile(r"module\.exports\s*=\s*\{(?P<names>[^}]*)\}")
_CALLABLE = re.compile(r"(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|[\w$]+\s*=>)")
_METHOD = re.compile(r"(?:(?:static|async|get|set|public|readonly|override)\s+)*"
                     r"(?P<name>[\w$]+)\s*(?:<[^>]*>)?\(")
_HIDDEN_MEMBER = re.compile(r"(?:private|protected)\s|#|_")


def interface(test_path: str, text: str, read: Reader) -> list[str]:
    """``# src/calc.js (module ./calc.js)`` then the used declarations' heads, per
    module the test file imports."""
    out: list[str] = []
    for spec, names in _imports(text).items():
        found = _module_file(posixpath.dirname(test_path), spec, read)
        if found is None:
            continue
        path, source = found
        heads = [d.head for d in declarations(source) if _wanted(d, names)]
        if heads:
            out.append(f"# {path} (module {spec})")
            out += heads
    return out


def _imports(text: str) -> dict[str, set[str]]:
    """Each relative module the test imports -> the names it uses of it ("default" for a
    default import; a whole-module binding adds the attributes the test reads of it)."""
    wanted: dict[str, set[str]] = {}
    for match in [*_IMPORT.finditer(text), *_REQUIRE.finditer(text)]:
        names = wanted.setdefault(match["spec"], set())
        what = match["what"].strip()
        braced = re.search(r"\{([^}]*)\}", what)
        if braced:
            names.update(part.split(" as ")[0].split(":")[0].strip()
                         for part in braced[1].split(",") if part.strip())
        whole = re.sub(r"\{[^}]*\}", "", what).replace(",", " ").split()
        for binding in whole:
            if binding in ("*", "as", "type"):
                continue
            if not what.startswith("*") and binding == whole[0] and match.re is _IMPORT:
                names.add("default")
            names.update(re.findall(rf"(?<![\w$.]){re.escape(binding)}\.([\w$]+)", text))
    return wanted


def _module_file(folder: str, spec: str, read: Reader) -> tuple[str, str] | None:
    base = posixpath.normpath(posixpath.join(folder, spec))
    if base.startswith(".."):
        return None  # outside the project
    stem, suffix = posixpath.splitext(base)
    candidates = [base] if suffix in _SCRIPT else []
    if suffix in _AS_TS:
        candidates.append(stem + _AS_TS[suffix])  # TypeScript's './calc.js' is calc.ts
    candidates += [base + s for s in _SCRIPT] + [f"{base}/index{s}" for s in _SCRIPT]
    for path in candidates:
        source = read(path)
        if source is not None:
            return path, source
    return None


def _wanted(declaration: Declaration, names: set[str]) -> bool:
    owner = declaration.member_of or declaration.name
    if not names:
        return declaration.exported
    return owner in names or ("default" in names and declaration.default)


def declarations(source: str) -> list[Declaration]:
    """The module's top-level declarations and its classes' public methods, in order."""
    text = blank(source, "js")
    starts = line_starts(text)
    out: list[Declaration] = []
    exported_names: set[str] = set()
    for match in _EXPORTS_OBJECT.finditer(text):
        exported_names.update(part.split(":")[0].strip()
                              for part in match["names"].split(",") if part.strip())
    cls: str | None = None
    for number, depth in enumerate(depths(text)):
        at = starts[number]
        line = text[at:starts[number + 1] if number + 1 < len(starts) else len(text)]
        start = at + len(line) - len(line.lstrip())
        line = line.strip()
        if depth == 0:
            cls = None
            found = _top_level(text, start, line)
            if found is not None:
                out.append(found)
                if _CLASS.match(line):
                    cls = found.name
        elif depth == 1 and cls is not None:
            method = _METHOD.match(line)
            if method and not _HIDDEN_MEMBER.match(line) and method["name"] not in (
                    "if", "for", "while", "switch", "return"):
                out.append(Declaration(method["name"], "    " + head_at(text, start),
                                       exported=True, member_of=cls))
    return [Declaration(d.name, d.head, d.exported or d.name in exported_names, d.default,
                        d.member_of) for d in out]


def _top_level(text: str, start: int, line: str) -> Declaration | None:
    for pattern in (_FUNCTION, _CLASS, _TYPE):
        match = pattern.match(line)
        if match is not None:
            return Declaration(match["name"] or "default", head_at(text, start),
                               bool(match["export"]), bool(match.groupdict().get("default")))
    match = _VARIABLE.match(line) or _COMMONJS.match(line)
    if match is None:
        return None
    name = _tidy_name(line[:match.end()])
    after = line[match.end():].lstrip()
    rest = after[1:].lstrip() if after.startswith("=") and not after.startswith("==") \
        else after if match.re is _COMMONJS else ""
    # A function's head is shown to its "=>" or its body; a value's name only, never
    # the value.
    head = (f"{name} = {head_at(text, start + len(line) - len(rest))}"
            if rest and _CALLABLE.match(rest) else name)
    exported = bool(match.groupdict().get("export")) or match.re is _COMMONJS
    return Declaration(match["name"], head, exported)


def _tidy_name(text: str) -> str:
    return " ".join(text.split()).rstrip(" =")


class ScriptInterface:
    """The examiner's view of a JavaScript or TypeScript test file: the declarations it
    imports from the project's own modules."""

    suffixes = _SCRIPT
    shows_imports = True

    def interface(self, test_path: str, text: str, read: Reader,
                  listing: Lister | None) -> list[str]:
        return interface(test_path, text, read)


INTERFACE = ScriptInterface()
