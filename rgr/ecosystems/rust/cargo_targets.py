"""The cargo test targets written for one source file of a crate, for the mutation gate's
first, narrower run of a mutant (rgr.ecosystems.test_scope).

``cargo test`` builds and runs every test target of the package on each mutant: the
library's unit tests (the whole library compiled a second time, with ``cfg(test)``), each
``tests/*.rs`` (a crate of its own), and the doc tests (``rustdoc`` compiles every
example separately, on every run). A mutant of ``src/ranges.rs`` is most often killed by
``tests/ranges.rs`` alone, so its first run is ``cargo test --test ranges``: the library
and that one test crate. The targets, read from the files and the manifest (no cargo
command to run):

* ``--test <name>`` for each integration test whose file is named after the source file
  (``tests/ranges.rs``, ``tests/ranges/main.rs``) or whose text names its module as a
  path (``use itoa::ranges::clamp``, ``ranges::span(...)``);
* ``--lib`` when the source file holds unit tests itself (``#[test]``, ``#[cfg(test)]``).

Only for the package at the root (not a workspace member, not a virtual manifest) and
only targets cargo finds by itself: none the manifest declares under ``[[test]]`` with
settings of their own (``test = false``, ``harness = false``, ``required-features``),
none when ``autotests = false`` or, in edition 2015, once any ``[[test]]`` is declared.
Anything cargo still refuses runs no test, and the gate then runs the whole command (a
first run settles a mutant only by a failing test).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

#: Options that choose test targets or packages: with one of them the user chose what
#: runs, and a target rgr adds could run a test their command never runs.
CHOOSING = frozenset({
    "--lib", "--bin", "--bins", "--test", "--tests", "--example", "--examples",
    "--bench", "--benches", "--all-targets", "--doc",
    "-p", "--package", "--workspace", "--all", "--exclude", "--manifest-path",
})
#: ``#[test]``, ``#[cfg(test)]``, ``#[cfg(all(test, feature = "x"))]``.
_UNIT_TEST = re.compile(r"#\[(?:test\]|cfg\([^\]]*\btest\b)")
#: Keys of a ``[[test]]`` entry that leave it as cargo would find it by itself.
_PLAIN_KEYS = frozenset({"name", "path", "edition"})
#: At most this many integration tests in the first run: beyond, it is the whole suite.
MAX_TARGETS = 4


def narrowable(argv: tuple[str, ...]) -> bool:
    """Whether ``argv`` is a ``cargo test`` that leaves the choice of targets and
    packages to cargo (the words before ``--``; after it they are the test binaries'
    own): one that chooses them itself keeps its choice."""
    cut = argv.index("--") if "--" in argv else len(argv)
    words = argv[:cut]
    return (bool(words) and PurePosixPath(words[0]).name == "cargo" and "test" in words
            and not any(word.split("=", 1)[0] in CHOOSING
                        or (word.startswith("-p") and not word.startswith("--"))
                        for word in words))


def _manifest(root: Path) -> dict[str, Any] | None:
    try:
        return tomllib.loads((root / "Cargo.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def _module_name(path: str) -> str | None:
    """The module a file of ``src/`` defines (``src/a/mod.rs``: ``a``); None for the
    crate roots and binaries, whose tests are the whole crate's."""
    parts = PurePosixPath(path)
    if parts.parts[:1] != ("src",) or parts.suffix != ".rs" or "bin" in parts.parts[1:-1]:
        return None
    name = parts.parent.name if parts.stem == "mod" else parts.stem
    return None if name in ("lib", "main", "src", "build") else name


def _text(file: Path) -> str:
    """The text of a file of the checkout, never through a symlink (the files are the
    agent's): "" when it cannot be read."""
    if file.is_symlink():
        return ""
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _integration_tests(root: Path) -> dict[str, Path]:
    """The integration tests cargo finds by itself: name -> file."""
    tests = root / "tests"
    if not tests.is_dir() or tests.is_symlink():
        return {}
    found: dict[str, Path] = {}
    for file in sorted(tests.glob("*.rs")):
        found[file.stem] = file
    for file in sorted(tests.glob("*/main.rs")):
        found.setdefault(file.parent.name, file)
    return {name: file for name, file in found.items()
            if file.is_file() and not file.is_symlink()}


def targets_for(root: Path, path: str) -> tuple[str, ...]:
    """cargo's options selecting the test targets written for ``path`` (relative to the
    package ``root``): ``("--test", "ranges")``, ``("--lib",)``; empty when rgr cannot
    tell, or the file's tests are the whole crate's."""
    data = _manifest(root)
    package = data.get("package") if data else None
    name = _module_name(path)
    space = data.get("workspace") if data else None
    if data is None or not isinstance(package, dict) or name is None or (
            isinstance(space, dict) and "default-members" in space):
        return ()
    options: list[str] = []
    lib = data.get("lib")
    lib_plain = not isinstance(lib, dict) or (lib.get("test", True) is True
                                              and lib.get("harness", True) is True)
    if lib_plain and _UNIT_TEST.search(_text(root / path)):
        options.append("--lib")
    declared = [t for t in data.get("test") or [] if isinstance(t, dict)]
    # Edition 2015 (the default) finds no test by itself once one is declared.
    if package.get("autotests", True) is not True or (
            declared and package.get("edition", "2015") == "2015"):
        return tuple(options)
    mention = re.compile(rf"\b{re.escape(name)}::|::{re.escape(name)}\b")
    named: list[str] = []
    mentioning: list[str] = []
    for test, file in _integration_tests(root).items():
        relative = file.relative_to(root).as_posix()
        entries = [t for t in declared if t.get("name") == test or t.get("path") == relative]
        if any(set(t) - _PLAIN_KEYS for t in entries):
            continue  # a target with settings of its own: left to the whole command
        if test == name:
            named.append(test)
        elif mention.search(_text(file)):
            mentioning.append(test)
    # The file named after the module first; else those naming it, when they are few
    # (beyond, the first run would be most of the suite).
    chosen = named or (mentioning if len(mentioning) <= MAX_TARGETS else [])
    for test in sorted(chosen):
        options += ["--test", test]
    return tuple(options)
