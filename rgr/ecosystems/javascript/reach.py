"""Which JavaScript/TypeScript test files can see a change of one module: the test files
that load it, directly or through other modules (an ``index.js`` that re-exports it, a
helper), read from the files' text, no runner started.

A file "loads" every project file that a relative string literal in it names
(``require('../lib/x')``, ``import x from './x.js'``, ``export * from './x'``,
``import('./x')``, and also ``proxyquire('../lib/x', ...)`` or ``jest.mock('./x')``: any
``'./...'``/``'../...'`` string that resolves to a file), and the package itself when it
names its own package (``require('chai-string')`` in chai-string's tests). Reading every
relative string, not only import statements, errs towards loading more: a test the
graph keeps that does not need the module costs time; a test it drops that does need
it would let a mutant survive, which the gate guards against by running a survivor
again with every test (rgr.check.mutation.gate).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from rgr.ecosystems.failure_kind import is_test_path
from rgr.ecosystems.javascript.modules import SOURCES, package_json

_RELATIVE = re.compile(r"""(['"`])(\.\.?(?:/[^'"`\n]*)?)\1""")
_QUOTED = re.compile(r"""(['"`])([^'"`\n]+)\1""")
#: A file that defines tests (Mocha, Jest, Vitest, node:test, Jasmine, tap alike).
_DEFINES_TESTS = re.compile(r"\b(?:describe|it|test|suite|context)(?:\.\w+)?\s*\(")
_SKIPPED_DIRS = ("node_modules", "coverage", "dist", "build")


@dataclass(frozen=True)
class Reach:
    """The test files (relative paths) a change of one module is seen by, and the ones
    that may be left out of a run: test files that do not load the module and that no
    kept file loads."""

    selected: tuple[str, ...]
    left_out: tuple[str, ...]


def reach(root: Path, path: str) -> Reach | None:
    """What can see a change of ``path`` (relative to ``root``); None when no test file
    is found to load it (then every test must run: it may load it in a way this
    reading cannot follow)."""
    files = _sources(root)
    package = _package_entry(root)
    loads: dict[str, set[str]] = {}
    texts: dict[str, str] = {}
    for rel in files:
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        texts[rel] = text
        loads[rel] = _loaded_by(root, rel, text, package)
    loaded_by: dict[str, set[str]] = {}
    for rel, targets in loads.items():
        for target in targets:
            loaded_by.setdefault(target, set()).add(rel)
    seeing, frontier = {path}, [path]
    while frontier:
        for importer in loaded_by.get(frontier.pop(), ()):
            if importer not in seeing:
                seeing.add(importer)
                frontier.append(importer)
    tests = {rel for rel in files if is_test_path(rel) and _DEFINES_TESTS.search(texts[rel])}
    selected = sorted(tests & seeing)
    if not selected:
        return None
    kept, frontier = set(selected), list(selected)
    while frontier:  # what the kept tests load stays, test files included
        for target in loads.get(frontier.pop(), ()):
            if target not in kept:
                kept.add(target)
                frontier.append(target)
    # Only test files no kept file loads may be left out; everything else stays.
    return Reach(tuple(selected), tuple(sorted(tests - kept)))


def _sources(root: Path) -> list[str]:
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith(".")]
        for name in names:
            if name.endswith(SOURCES):
                found.append((Path(folder) / name).relative_to(root).as_posix())
    return sorted(found)


def _package_entry(root: Path) -> tuple[str, str | None] | None:
    """The package's name and its main file (relative), from package.json."""
    data = package_json(root)
    if data is None or not isinstance(data.get("name"), str):
        return None
    return data["name"], _resolve(root, ".", ".")


def _loaded_by(root: Path, rel: str, text: str,
               package: tuple[str, str | None] | None) -> set[str]:
    folder = PurePosixPath(rel).parent.as_posix()
    found = {target for _, spec in _RELATIVE.findall(text)
             if (target := _resolve(root, folder, spec)) is not None}
    if package is not None:
        name, entry = package
        for _, spec in _QUOTED.findall(text):
            if spec == name and entry is not None:
                found.add(entry)
            elif spec.startswith(name + "/"):
                target = _resolve(root, ".", "./" + spec[len(name) + 1:])
                if target is not None:
                    found.add(target)
    found.discard(rel)
    return found


def _resolve(root: Path, folder: str, spec: str, depth: int = 0) -> str | None:
    """The project file ``spec`` names from ``folder`` as node resolves it (the file,
    with a source suffix, a folder's ``index``), relative to ``root``; None if none."""
    joined = os.path.normpath(os.path.join(folder, spec.split("?", 1)[0]))
    if joined.startswith(".."):
        return None
    base = root / joined
    candidates: list[Path] = []
    if joined != ".":
        candidates += [base, *(base.with_name(base.name + s) for s in SOURCES)]
        if base.suffix in (".js", ".mjs", ".cjs", ".jsx"):  # TypeScript's ESM convention
            candidates += [base.with_suffix(s) for s in (".ts", ".mts", ".cts", ".tsx")]
    if depth < 2 and (main := _main_of(base)) is not None:  # a folder's package.json
        target = _resolve(root, joined, main if main.startswith(".") else f"./{main}",
                          depth + 1)
        if target is not None:
            return target
    candidates += [base / f"index{s}" for s in SOURCES]
    for candidate in candidates:
        if candidate.is_file():
            found = candidate.relative_to(root).as_posix()
            return None if found.startswith(("node_modules/", ".")) else found
    return None


def _main_of(folder: Path) -> str | None:
    data = package_json(folder)
    main = data.get("main") if data is not None else None
    return main if isinstance(main, str) and main else None
