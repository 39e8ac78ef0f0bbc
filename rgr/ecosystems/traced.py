"""Which test ran which line: what a language's line tracer (``LineTracer``: Python's,
rgr.ecosystems.python.lines) says of one test run, and where rgr keeps it.

The mutation gate's traced path (rgr.check.mutation.gate) faces each mutant with only the
tests that ran its line; the impact hints (rgr.check.impact) and the examiner's last lines
(rgr.tdd.examine) read the same data. None of them names the language whose tracer
wrote it: the tracer is the language's part (``TreeMutation.tracer``, the traced
runners' ``Ecosystem.line_tracer``), the data and its cache are here, below both.

The data is kept by tree id (and the files watched) under ``<git dir>/rgr/coverage/``,
so a resumed rgr or a second gate on the same tree does not run the tracer again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

#: Where the line data is kept, under the git directory.
FOLDER = Path("rgr") / "coverage"
#: How many trees' line data are kept: the newest.
KEEP = 64

#: The report of the run the tracer watched (rgr.check.verify.TestReport, a layer above).
Report = TypeVar("Report")


class Placed(Protocol):
    """Where a mutant stands (rgr.ecosystems.mutant.Mutant)."""

    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def statement_line(self) -> int: ...
    @property
    def module_level(self) -> bool: ...


@dataclass(frozen=True)
class Coverage(Generic[Report]):
    """Which test ran which watched line; ``report`` is the run that said so (None when
    it came from the cache). ``traced`` is False when the tracer never reported (the
    runner is not one it runs under, or it was not loaded): then no line is known to be
    unrun, and each mutant runs the whole suite."""

    by_test: Mapping[str, Mapping[str, frozenset[int]]]
    report: Report | None = None
    traced: bool = True
    #: Each mutant's status, when the same run ran them (the fast path).
    mutants: Mapping[str, str] | None = None
    #: "path:function" -> parameter -> the type names of the values the tests passed.
    arg_types: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict)
    #: Each test's last watched line: the one its code returned or raised from last
    #: (path, line); not cached (only rgr.tdd.examine asks, of a fresh run).
    last: Mapping[str, tuple[str, int]] = field(default_factory=dict)

    def types_of(self, path: str, function: str) -> Mapping[str, list[str]]:
        return self.arg_types.get(f"{path}:{function}", {})

    def tests_running(self, path: str, lines: tuple[int, ...]) -> list[str]:
        return sorted(test for test, files in self.by_test.items()
                      if any(line in files.get(path, frozenset()) for line in lines))

    def tests_for(self, mutant: Placed) -> list[str]:
        """The tests that can notice ``mutant``: those that run its line; for a
        module-level statement (it runs when the module loads, before any test, so no
        test is seen running it), those that run any line of its file."""
        if mutant.module_level:
            return sorted(test for test, files in self.by_test.items()
                          if files.get(mutant.path))
        return self.tests_running(mutant.path, (mutant.line, mutant.statement_line))


class LineTracer(Protocol):
    """rgr's own line tracer of a language: put where that language's test run finds it,
    it says which test ran which line of the files watched. The run itself is the
    caller's (rgr.check.verify.run_tests on a pristine sealed checkout, a layer above),
    so a tracer only adds itself to the run's environment and reads what it wrote."""

    def collect(self, run: Callable[[Mapping[str, str]], Report], files: list[str], *,
                env: Mapping[str, str], scratch: Path,
                mutants: Mapping[str, tuple[Placed, str]] | None = None,
                deadline: float | None = None, per_mutant_timeout: float = 60
                ) -> Coverage[Report]:
        """The project's tests run once (``run``, given the environment to run them in:
        ``env`` with the tracer added) with the tracer watching ``files``, its folder
        under ``scratch``; with ``mutants`` (id -> the mutant and its whole mutated
        file) the same session then runs them, stopping at ``deadline`` (epoch
        seconds)."""
        ...


def cache_key(tree: str, files: list[str]) -> str:
    """The cache's key for the line data of ``files`` on the tree ``tree``."""
    digest = hashlib.sha256("\0".join(sorted(files)).encode()).hexdigest()[:16]
    return f"{tree}-{digest}"


def load(git_dir: Path, key: str) -> Coverage[Report] | None:
    """The line data kept under ``key``, or None (none kept, being replaced, damaged)."""
    try:
        data = json.loads((git_dir / FOLDER / f"{key}.json").read_text("utf-8"))
        return Coverage(frozen_tests(data["tests"]),
                        arg_types=arg_types(data.get("argTypes")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save(git_dir: Path, key: str, coverage: Coverage[Report]) -> None:
    """``coverage`` kept under ``key`` (written whole, then moved in place: a reader
    never sees half a file), and only the newest ``KEEP`` kept."""
    folder = git_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{key}.{os.getpid()}.tmp"
    temporary.write_text(json.dumps({"tests": {
        test: {path: sorted(lines) for path, lines in files.items()}
        for test, files in coverage.by_test.items()},
        "argTypes": coverage.arg_types}), encoding="utf-8")
    os.replace(temporary, folder / f"{key}.json")
    with contextlib.suppress(OSError):
        files_by_age = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime,
                              reverse=True)
        for old in files_by_age[KEEP:]:
            old.unlink()


def frozen_tests(tests: object) -> dict[str, dict[str, frozenset[int]]]:
    """Test -> file -> lines, read from JSON (a tracer's output or the cache)."""
    if not isinstance(tests, dict):
        return {}
    return {str(test): {str(path): frozenset(int(n) for n in lines)
                        for path, lines in files.items()}
            for test, files in tests.items() if isinstance(files, dict)}


def arg_types(data: object) -> dict[str, dict[str, list[str]]]:
    """"path:function" -> parameter -> type names, read from JSON."""
    if not isinstance(data, dict):
        return {}
    return {str(key): {str(p): [str(n) for n in names] for p, names in params.items()
                       if isinstance(names, list)}
            for key, params in data.items() if isinstance(params, dict)}
