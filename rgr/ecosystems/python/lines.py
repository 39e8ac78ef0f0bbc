"""Which test runs which changed line of Python: rgr's line tracer (pytest_lines, beside
this module) run once with the project's tests, for the mutation gate's traced path
(rgr.check.mutation.gate) and the examiner's last lines (rgr.tdd.examine).

The test run itself is the caller's (``run``: rgr.check.verify.run_tests on a pristine
sealed checkout, like every test run of rgr's, a layer above this one): this module
puts the tracer where the run's pytest or unittest finds it and reads what it wrote.
The result is kept by tree id (and the files watched) under ``<git dir>/rgr/coverage/``,
so a resumed rgr or a second gate on the same tree does not run it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from rgr.ecosystems.python.pytest_lines import (
    DEADLINE_ENV,
    FILES_ENV,
    MUTANTS_ENV,
    OUT_ENV,
    TIMEOUT_ENV,
)

FOLDER = Path("rgr") / "coverage"
KEEP = 64
_PLUGIN = "rgr_mutation_lines"

#: The report of the run the tracer watched (rgr.check.verify.TestReport).
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
    runner is not pytest, or pytest did not load the plugin): then no line is known to
    be unrun, and each mutant runs the whole suite."""

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


def collect(run: Callable[[Mapping[str, str]], Report], files: list[str], *,
            env: Mapping[str, str], scratch: Path,
            mutants: Mapping[str, tuple[Placed, str]] | None = None,
            deadline: float | None = None, per_mutant_timeout: float = 60
            ) -> Coverage[Report]:
    """The project's tests run once (``run``, given the environment to run them in:
    ``env`` with the tracer added) with the tracer watching ``files``, its folder under
    ``scratch``; with ``mutants`` (id -> the mutant and its whole mutated file) the same
    session then runs them, stopping at ``deadline`` (epoch seconds)."""
    child = dict(env)
    folder = scratch / "mutation-lines"
    _install_plugin(folder, child)
    out = folder / "lines.json"
    child[FILES_ENV] = os.pathsep.join(files)
    child[OUT_ENV] = str(out)
    if mutants:
        spec = folder / "mutants.json"
        spec.write_text(json.dumps([
            {"id": key, "path": m.path, "line": m.line, "statementLine": m.statement_line,
             "moduleLevel": m.module_level, "source": source}
            for key, (m, source) in mutants.items()]), encoding="utf-8")
        child[MUTANTS_ENV] = str(spec)
        child[TIMEOUT_ENV] = f"{per_mutant_timeout:g}"
        if deadline is not None:
            child[DEADLINE_ENV] = f"{deadline:.3f}"
    report = run(child)
    try:
        data = json.loads(out.read_text(encoding="utf-8"))
        tests, traced = data["tests"], True
        ran, types, last = data.get("mutants"), data.get("argTypes"), data.get("last")
    except (OSError, ValueError, KeyError, AttributeError):
        tests, traced, ran, types, last = {}, False, None, None, None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    statuses = ({str(k): str(v) for k, v in ran.items()
                 if v in ("killed", "survived", "uncovered", "not-run")}
                if isinstance(ran, dict) else None)
    return Coverage(_frozen(tests), report, traced, statuses, _types(types), _last(last))


def cache_key(tree: str, files: list[str]) -> str:
    digest = hashlib.sha256("\0".join(sorted(files)).encode()).hexdigest()[:16]
    return f"{tree}-{digest}"


def load(git_dir: Path, key: str) -> Coverage[Report] | None:
    try:
        data = json.loads((git_dir / FOLDER / f"{key}.json").read_text("utf-8"))
        return Coverage(_frozen(data["tests"]), arg_types=_types(data.get("argTypes")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save(git_dir: Path, key: str, coverage: Coverage[Report]) -> None:
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


def _frozen(tests: object) -> dict[str, dict[str, frozenset[int]]]:
    if not isinstance(tests, dict):
        return {}
    return {str(test): {str(path): frozenset(int(n) for n in lines)
                        for path, lines in files.items()}
            for test, files in tests.items() if isinstance(files, dict)}


def _last(data: object) -> dict[str, tuple[str, int]]:
    if not isinstance(data, dict):
        return {}
    return {str(test): (str(at[0]), at[1]) for test, at in data.items()
            if isinstance(at, list) and len(at) == 2 and isinstance(at[1], int)}


def _types(data: object) -> dict[str, dict[str, list[str]]]:
    if not isinstance(data, dict):
        return {}
    return {str(key): {str(p): [str(n) for n in names] for p, names in params.items()
                       if isinstance(names, list)}
            for key, params in data.items() if isinstance(params, dict)}


def _install_plugin(folder: Path, env: dict[str, str]) -> None:
    """The tracer where the run's pytest finds it: a ``pytest11`` entry point of a
    dist-info folder on PYTHONPATH (as rgr.ecosystems.python.pytest_runner adds its own)."""
    info = folder / f"{_PLUGIN}-0.dist-info"
    info.mkdir(parents=True)
    shutil.copyfile(Path(__file__).with_name("pytest_lines.py"), folder / f"{_PLUGIN}.py")
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {_PLUGIN}\nVersion: 0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[pytest11]\nrgr_lines = {_PLUGIN}\n",
                                          encoding="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(folder), env.get("PYTHONPATH"))))
