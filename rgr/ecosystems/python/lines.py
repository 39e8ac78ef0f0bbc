"""Which test runs which changed line of Python: rgr's line tracer (pytest_lines, beside
this module) run once with the project's tests, for the mutation gate's traced path
(rgr.check.mutation.gate) and the examiner's last lines (rgr.tdd.examine), which ask for
it as Python's ``LineTracer`` (``TRACER``: ``TreeMutation.tracer``, the traced runners'
``Ecosystem.line_tracer``), never by this module's name.

The test run itself is the caller's (``run``: rgr.check.verify.run_tests on a pristine
sealed checkout, like every test run of rgr's, a layer above this one): this module
puts the tracer where the run's pytest or unittest finds it and reads what it wrote.
What it read, and its cache by tree id, are rgr.ecosystems.traced's: no language's.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

from rgr.ecosystems.python.pytest_lines import (
    DEADLINE_ENV,
    FILES_ENV,
    MUTANTS_ENV,
    OUT_ENV,
    TIMEOUT_ENV,
)
from rgr.ecosystems.traced import Coverage, LineTracer, Placed, Report, arg_types, frozen_tests

_PLUGIN = "rgr_mutation_lines"


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
    return Coverage(frozen_tests(tests), report, traced, statuses, arg_types(types),
                    _last(last))


class _Tracer:
    """Python's ``LineTracer``: ``collect`` above, its signature written once."""

    collect = staticmethod(collect)


#: rgr's line tracer of Python, as the checks ask for it.
TRACER: LineTracer = _Tracer()


def _last(data: object) -> dict[str, tuple[str, int]]:
    if not isinstance(data, dict):
        return {}
    return {str(test): (str(at[0]), at[1]) for test, at in data.items()
            if isinstance(at, list) and len(at) == 2 and isinstance(at[1], int)}


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
