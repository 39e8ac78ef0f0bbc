"""TypeScript's type errors under a type-checking runner, and why each one happened.

Vitest with ``--typecheck`` reports a test whose body does not type-check as failed with
the bare diagnostic (rgr heads it ``TypeCheckError:``, as Vitest's own reporter does);
ts-jest with its diagnostics on fails the file with ``x.test.ts:2:15 - error TS2305: ...``.
A test of code not written yet gives:

- TS2305/TS2724 ``Module '"../src/calc"' has no exported member 'double'``,
- TS2307 ``Cannot find module '../src/words' or its corresponding type declarations``,
- TS2339/TS2551 ``Property 'twice' does not exist on type 'Box'`` (or ``typeof import(..)``),

which are missing code when the module, or the type, is the project's and not test code
(rgr.ecosystems.javascript.modules). Any other diagnostic (a name used without its import, a type
or argument mismatch) is the test's own error: GREEN, which may not touch tests, cannot
fix it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rgr.ecosystems.failure_kind import FailureKind, is_test_path
from rgr.ecosystems.javascript.modules import SOURCES, module_kind

#: The heading rgr gives a Vitest typecheck failure (Vitest's own reporter's words).
TYPECHECK_HEAD = "TypeCheckError: "
_DIAGNOSTIC = re.compile(r"(?:^TypeCheckError: |\berror TS\d+: )(.+)$", re.MULTILINE)
_NO_EXPORT = re.compile(r"""^Module '["'](.+?)["']' has no exported member '|"""
                        r"""^'["'](.+?)["']' has no exported member named '""")
_NO_MODULE = re.compile(r"^Cannot find module '(.+?)'")
_NO_PROPERTY = re.compile(r"^Property '\w+' does not exist on type '(.+?)'\.")
_IMPORT_TYPE = re.compile(r"""^typeof import\(["'](.+?)["']\)$""")
_TYPE_NAME = re.compile(r"^(?:typeof )?([A-Za-z_$][\w$]*)(?:<.*>)?$")


def diagnostic_kind(text: str, importer: str | None, root: Path | None) -> FailureKind | None:
    """Why the type errors in ``text`` happened: ``missing-code`` when every one names
    code of the project not written yet, ``test-error`` otherwise; None when ``text``
    holds no TypeScript diagnostic."""
    said = _DIAGNOSTIC.findall(text)
    if not said:
        return None
    kinds = {_kind(message.strip(), importer, root) for message in said}
    return "missing-code" if kinds == {"missing-code"} else "test-error"


def _kind(message: str, importer: str | None, root: Path | None) -> FailureKind:
    found = _NO_EXPORT.match(message) or _NO_MODULE.match(message)
    if found is not None:
        return module_kind(next(g for g in found.groups() if g), importer, root)
    on_type = _NO_PROPERTY.match(message)
    if on_type is None:
        return "test-error"
    typed = on_type.group(1)
    module = _IMPORT_TYPE.match(typed)
    if module is not None:
        return module_kind(module.group(1), importer, root)
    name = _TYPE_NAME.match(typed)
    if name is None or root is None:
        return "test-error"
    return "missing-code" if declared_in_project(root, name.group(1)) else "test-error"


def declared_in_project(root: Path, name: str) -> bool:
    """Whether a class, interface, type or enum ``name`` is declared in the project's
    sources outside its tests (and outside node_modules): a type GREEN may extend."""
    declaration = re.compile(rf"\b(?:class|interface|type|enum)\s+{re.escape(name)}\b")
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "node_modules" and not d.startswith(".")]
        for file in names:
            path = Path(folder) / file
            if not file.endswith(SOURCES) or file.endswith(".d.ts") \
                    or is_test_path(path.relative_to(root).as_posix()):
                continue
            try:
                if declaration.search(path.read_text(encoding="utf-8", errors="replace")):
                    return True
            except OSError:
                continue
    return False
