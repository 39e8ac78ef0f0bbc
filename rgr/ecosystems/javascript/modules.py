"""Whether a JavaScript module a test could not load is the code under test, not yet
written (a right RED), or something of the test's own making (a test helper, a package
that is not installed).

Node, Jest, Vitest and Mocha name the module as the test wrote it (``'../src/ranges.js'``,
``'left-pad'``) or as resolved (``'/abs/src/ranges.js'``, ``file://`` URLs), and the
importing file beside it where they know it (``imported from /abs/test/x.js``, CommonJS's
``Require stack:``). A module is the code under test when it lies inside the project,
outside ``node_modules``, and is not named like test code.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

from rgr.ecosystems.failure_kind import FailureKind, is_test_module, is_test_path

#: ``Cannot find module 'x'`` (CommonJS, ESM's ERR_MODULE_NOT_FOUND), Vite's ``Failed to
#: load url x`` / ``Failed to resolve import "x"``, ESM's ``Cannot find package 'x'``,
#: and an ESM import of a name the module does not export.
_MISSING = re.compile(
    r"Cannot find (?:module|package) '(?P<module>[^']+)'"
    r"|Failed to (?:load|resolve import) (?:url )?[\"'](?P<vite>[^\"']+)[\"']"
    r"|The requested module '(?P<export>[^']+)' does not provide an export named")
_IMPORTED_FROM = re.compile(r"\bimported from (\S+)")
_REQUIRE_STACK = re.compile(r"^Require stack:\n- (.+)$", re.MULTILINE)
#: What a module specifier can be when it is an npm package: ``name``, ``@scope/name``,
#: with a path after it. ``@/x`` and ``~/x`` (path aliases) cannot.
_PACKAGE = re.compile(r"^(@[\w.-]+/)?[\w][\w.-]*(/.*)?$")
#: The JavaScript and TypeScript sources a module or a test can be written in (one list
#: for every reader of JavaScript projects).
SOURCES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")


def package_json(folder: Path) -> dict[str, Any] | None:
    """``folder``'s package.json as an object, or None when it is missing, unreadable or
    not an object: for the readers that fall back quietly (the gate's direct runner, its
    import graph). Detection reads it loudly (rgr.ecosystems.javascript.runner)."""
    try:
        data = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def missing_module(head: str, text: str) -> tuple[str, str | None] | None:
    """The module ``head`` (an error's first lines) says could not be found or lacks an
    export, and the file that imported it where the whole error ``text`` says; None if
    ``head`` says neither."""
    found = _MISSING.search(head)
    if found is None:
        return None
    module = found.group("module") or found.group("vite") or found.group("export")
    importer = _IMPORTED_FROM.search(head) or _REQUIRE_STACK.search(text)
    return module, importer.group(1).strip() if importer else None


def module_kind(module: str, importer: str | None, root: Path | None) -> FailureKind:
    """``missing-code`` when ``module`` (as an error names it, imported by ``importer``)
    is code of the project that is not test code; ``test-error`` for a test module, a
    package that is not installed, a node builtin or a file outside the project. Without
    ``root`` (no run to read it against) a relative module is taken as the project's."""
    raw = module.removeprefix("file://")
    if raw.startswith("/"):
        # Judged by its place in the project only: the folders above the project
        # (a temporary directory named test_x, say) say nothing.
        if root is None:
            return "test-error" if is_test_module(raw) else "missing-code"
        first = PurePosixPath(raw).parts[1:2]
        if not _inside(Path(raw), root) and first and (root / first[0]).exists():
            raw = str(root / raw.lstrip("/"))  # Vite's URL from the project root: /src/x.js
        return _path_kind(raw, root)
    if is_test_module(raw):
        return "test-error"
    if raw.startswith("#"):
        return "missing-code"  # package.json "imports": the package's own modules
    if raw.startswith("."):
        if root is None or importer is None:
            return "missing-code"
        return _path_kind(os.path.join(_absolute(importer, root).parent, raw), root)
    if raw.startswith("node:") or not _PACKAGE.match(raw):
        # a builtin that does not exist; else a path alias (``@/ranges``, ``~/ranges``)
        return "test-error" if raw.startswith("node:") else "missing-code"
    # A bare name is a package that is not installed, unless it starts with a folder of
    # the project (a ``baseUrl`` or alias such as ``src/ranges``).
    folder = PurePosixPath(raw).parts[0]
    if root is not None and folder != "node_modules" and (root / folder).exists():
        return _path_kind(str(root / raw), root)
    return "test-error"


def importers(root: Path, module: str) -> list[str]:
    """The project's test files (relative, sorted) that import ``module`` as written: who
    asked for a missing export when the runner does not say."""
    quoted = (f"'{module}'", f'"{module}"')
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "node_modules" and not d.startswith(".")]
        for name in names:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if not name.endswith(SOURCES) or not is_test_path(rel):
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if any(q in text for q in quoted):
                found.append(rel)
    return sorted(found)


def _absolute(path: str, root: Path) -> Path:
    raw = Path(path.removeprefix("file://"))
    return raw if raw.is_absolute() else root / raw


def _relative(path: Path, root: Path) -> str | None:
    resolved = Path(os.path.normpath(path))
    for base in (root, root.resolve()):
        try:
            return resolved.relative_to(base).as_posix()
        except ValueError:
            continue
    return None


def _inside(path: Path, root: Path) -> bool:
    return _relative(path, root) is not None


def _path_kind(path: str, root: Path) -> FailureKind:
    rel = _relative(Path(path), root)
    if rel is None:
        return "test-error"  # outside the project: not code a GREEN could write
    if "node_modules" in PurePosixPath(rel).parts or is_test_path(rel):
        return "test-error"
    return "missing-code"
