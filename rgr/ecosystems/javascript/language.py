"""JavaScript and TypeScript, apart from their runners (runner, bun)."""

from __future__ import annotations

import re

from rgr.ecosystems.javascript.cheats import IDIOMS
from rgr.ecosystems.javascript.interface import INTERFACE
from rgr.ecosystems.language import AcceptanceName, Language

LANGUAGE = Language(
    "JavaScript/TypeScript", INTERFACE.suffixes,
    # keeps the test file's own kind (test or spec) and suffix
    acceptance_names=(AcceptanceName(re.compile(r".*\.(test|spec)\.(m?[jt]sx?)"),
                                     "{stem}.{0}.{1}"),),
    interface=INTERFACE, cheats=IDIOMS,
    framework_hooks=(r"process\.on\(\s*['\"](exit|beforeExit)", r"process\.exit\s*\(",
                     r"require\(['\"](jest|vitest|mocha)"),
    # Vitest/Jest skips, todos, conditional skips and expected failures, Mocha's
    # this.skip(), node's { skip: true }
    skip_markers=(r"\b(it|test|describe)\.(skip|todo)\s*\(", r"\bx(it|describe|test)\s*\(",
                  r"\b(it|test|describe)\.(skipIf|runIf|fails|failing)\s*\(",
                  r"\bthis\.skip\s*\(", r"\{\s*(skip|todo)\s*:\s*true\b"))
