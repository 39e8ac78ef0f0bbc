"""JavaScript and TypeScript, apart from their runners (runner, bun)."""

from __future__ import annotations

import re

from rgr.ecosystems.javascript.cheats import IDIOMS
from rgr.ecosystems.javascript.interface import INTERFACE
from rgr.ecosystems.language import AcceptanceName, Language, Names

#: What a module Node could not load is named in.
_MODULE_NAMED = re.compile(r"Cannot find module '([^']+)'")
#: Source suffixes a module's name may leave out.
_SUFFIXES = ("", ".js", ".cjs", ".mjs", ".json", ".ts", ".node")


def missing_files(text: str, names: Names) -> list[str]:
    """The files each module ``text`` says Node could not find may be: its name with
    each suffix it may leave out, and every tail of that path (``/abs/gen/x.js``:
    ``gen/x.js`` in the work tree is one)."""
    found: list[str] = []
    for match in _MODULE_NAMED.finditer(text):
        for end in _SUFFIXES:
            parts = [p for p in (match.group(1).lstrip("./") + end).split("/")
                     if p and p not in (".", "..")]
            found += ["/".join(parts[i:]) for i in range(len(parts))]
    return found

LANGUAGE = Language(
    "JavaScript/TypeScript", INTERFACE.suffixes,
    # keeps the test file's own kind (test or spec) and suffix
    acceptance_names=(AcceptanceName(re.compile(r".*\.(test|spec)\.(m?[jt]sx?)"),
                                     "{stem}.{0}.{1}"),),
    interface=INTERFACE, cheats=IDIOMS, missing_files=missing_files,
    framework_hooks=(r"process\.on\(\s*['\"](exit|beforeExit)", r"process\.exit\s*\(",
                     r"require\(['\"](jest|vitest|mocha)"),
    # Vitest/Jest skips, todos, conditional skips and expected failures, Mocha's
    # this.skip(), node's { skip: true }
    skip_markers=(r"\b(it|test|describe)\.(skip|todo)\s*\(", r"\bx(it|describe|test)\s*\(",
                  r"\b(it|test|describe)\.(skipIf|runIf|fails|failing)\s*\(",
                  r"\bthis\.skip\s*\(", r"\{\s*(skip|todo)\s*:\s*true\b"))
