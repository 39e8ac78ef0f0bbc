"""javac's compile errors as Maven and Gradle print them, and why each one happened.

A RED whose test calls a class or method not written yet fails at ``testCompile``::

    [ERROR] /abs/src/test/java/kata/CalcTest.java:[6,46] cannot find symbol
      symbol:   method twice(int)
      location: class kata.Slug

(Gradle: ``/abs/CalcTest.java:6: error: cannot find symbol`` and the same ``symbol:`` and
``location:`` lines). That is the code under test missing, a right RED, when the symbol is
one the project's own code would hold: a class (javac says ``variable Calc`` for
``Calc.add(..)`` when Calc does not exist: a capitalised name is read as a class), or a
method or field of one of the project's classes (its source file is in the tree, outside
the tests). A class named like test code, a name missing from the test class itself, a
method of a library class, a package that is not the project's (a library not on the
class path), a syntax or type error: the test's own error, which GREEN cannot fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rgr.ecosystems.base import relative
from rgr.ecosystems.failure_kind import FailureKind, is_test_module, is_test_path

# Maven: "[ERROR] /abs/x/FooTest.java:[12,5] message"; Gradle: "/abs/x/FooTest.java:12: error: m"
_HEAD = re.compile(r"^(?:\[ERROR\] )?(/\S+?\.java)(?::\[(\d+),(\d+)\]|:(\d+): error:) (.*)$")
_DETAIL = re.compile(r"^(?:\[ERROR\])?\s+(symbol|location):\s+(.*?)\s*$")
#: A name javac reports as a variable that is written like a class: ``Calc``, not ``LIMIT``.
_CLASS_LIKE = re.compile(r"^[A-Z]\w*[a-z]\w*$")
#: Java names test code in camel case: ``SlugTestHelper``, ``TestUtils``, ``FakeClock``.
_TEST_CLASS = re.compile(
    r"(?:^|[a-z0-9])(?:Tests?|Spec|Fixtures?)(?:[A-Z]|$)|^(?:Mock|Fake|Stub)[A-Z]")


def _test_class(simple: str) -> bool:
    return bool(_TEST_CLASS.search(simple)) or is_test_module(simple)


@dataclass(frozen=True)
class JavacError:
    file: str
    line: int
    message: str
    symbol: str = ""
    location: str = ""


def javac_errors(output: str, root: Path) -> list[JavacError]:
    """Each compile error once (Maven prints them twice), its file relative to ``root``."""
    found: dict[tuple[str, int, str], JavacError] = {}
    current: dict[str, str] | None = None

    def close() -> None:
        if current is not None:
            key = (current["file"], int(current["line"]), current["column"])
            found.setdefault(key, JavacError(current["file"], int(current["line"]),
                                             current["message"], current.get("symbol", ""),
                                             current.get("location", "")))

    for line in output.splitlines():
        head = _HEAD.match(line)
        if head is not None:
            close()
            path, m_line, m_col, g_line, said = head.groups()
            current = {"file": relative(path, root), "line": m_line or g_line,
                       "column": m_col or "", "message": said.strip()}
            continue
        detail = _DETAIL.match(line)
        if detail is not None and current is not None:
            current.setdefault(detail.group(1), detail.group(2))
        elif current is not None and line.startswith("[INFO]"):
            close()
            current = None
    close()
    return list(found.values())


def _named(described: str) -> tuple[str, str]:
    """``method twice(int)`` -> ("method", "twice"); ``class kata.Slug`` -> ("class",
    "kata.Slug"); ``variable c of type kata.Calc`` -> ("variable", "kata.Calc")."""
    words = described.split()
    if len(words) >= 4 and words[-3:-1] == ["of", "type"]:
        return words[0], words[-1]
    kind, _, name = described.partition(" ")
    return kind, name.split("(", 1)[0].strip()


def _project_class(root: Path, qualified: str) -> bool:
    """Whether the class ``kata.Slug`` (``Outer.Inner`` too) has its source in the tree,
    outside the tests."""
    parts = qualified.split("<", 1)[0].split(".")
    for cut in range(len(parts), 0, -1):
        relative_path = "/".join(parts[:cut]) + ".java"
        for source in _sources(root, relative_path):
            if not is_test_path(source.relative_to(root).as_posix()):
                return True
    return False


def _sources(root: Path, relative_path: str) -> Iterator[Path]:
    return (p for p in root.rglob(relative_path.rsplit("/", 1)[-1])
            if p.as_posix().endswith("/" + relative_path) and not _built(root, p))


def _built(root: Path, path: Path) -> bool:
    """Whether ``path`` lies in a build's output (Maven's target/, Gradle's build/)."""
    return bool({"target", "build"} & set(path.relative_to(root).parts))


def _project_package(root: Path, package: str) -> bool:
    """Whether a package that does not exist yet would be the project's: its parent
    package has sources in the tree, outside the tests."""
    parent = "/".join(package.split(".")[:-1])
    if not parent:
        return False
    return any(not is_test_path(d.relative_to(root).as_posix())
               for d in root.rglob(parent.rsplit("/", 1)[-1])
               if d.is_dir() and d.as_posix().endswith("/" + parent) and not _built(root, d))


def error_kind(error: JavacError, root: Path) -> FailureKind:
    """Why one compile error happened (see the module's doc)."""
    if not is_test_path(error.file):
        return "unknown"
    package = re.match(r"package (\S+) does not exist$", error.message)
    if package is not None:
        return "missing-code" if _project_package(root, package.group(1)) else "test-error"
    if error.message != "cannot find symbol" or not error.symbol:
        return "test-error"
    kind, name = _named(error.symbol)
    where_kind, where = _named(error.location) if error.location else ("", "")
    simple = name.rsplit(".", 1)[-1]
    if kind in ("class", "interface", "enum", "record") or (
            kind == "variable" and _CLASS_LIKE.match(simple) and where_kind != "package"
            and not _project_class(root, where)):
        return "test-error" if _test_class(simple) else "missing-code"
    if kind in ("method", "variable") and where_kind in ("class", "interface", "enum",
                                                           "record", "variable"):
        return "missing-code" if _project_class(root, where) else "test-error"
    return "test-error"


def compile_kinds(output: str, root: Path) -> dict[str, FailureKind]:
    """Each file javac could not compile and why: ``missing-code`` only when every one of
    its errors is."""
    kinds: dict[str, FailureKind] = {}
    for error in javac_errors(output, root):
        kind = error_kind(error, root)
        if kinds.get(error.file, "missing-code") == "missing-code":
            kinds[error.file] = kind
    return kinds
