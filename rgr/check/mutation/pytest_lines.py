"""A pytest plugin rgr puts beside one test run: which test ran which changed line.

rgr's own line collector for the mutation gate (rgr.check.mutation): the user's project
may have no coverage.py, and rgr needs only the lines a phase changed, per test. The
files to watch come in ``RGR_MUTATION_TRACE_FILES`` (paths relative to the run's
directory, ``os.pathsep`` between them); when the session ends the plugin writes
``{"tests": {node id: {path: [line, ...]}}}`` to ``RGR_MUTATION_TRACE_OUT``.

The tracer is ``sys.settrace`` set around each test's run and removed after it (the one
that was there before is put back): the global trace function returns a line tracer only
for frames of the watched files, so other code pays one call per function entered. It
runs in the project's interpreter, which may be older than rgr's: standard library
only, nothing newer than Python 3.8. Loaded like rgr.runners.pytest_own_outcomes,
through a ``pytest11`` entry point of a dist-info folder on PYTHONPATH.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

FILES_ENV = "RGR_MUTATION_TRACE_FILES"
OUT_ENV = "RGR_MUTATION_TRACE_OUT"

_watched: dict[str, str] = {}  # absolute path -> the path rgr named
_seen: dict[str, dict[str, set[int]]] = {}


def pytest_configure(config: Any) -> None:
    names = [n for n in os.environ.get(FILES_ENV, "").split(os.pathsep) if n]
    root = os.getcwd()
    for name in names:
        _watched[os.path.realpath(os.path.join(root, name))] = name


def _tracer_for(lines: dict[str, set[int]]) -> Any:
    def global_trace(frame: Any, event: str, arg: Any) -> Any:
        name = _watched.get(frame.f_code.co_filename) or _watched.get(
            os.path.realpath(frame.f_code.co_filename))
        if name is None:
            return None
        hit = lines.setdefault(name, set())
        hit.add(frame.f_lineno)

        def local_trace(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                hit.add(frame.f_lineno)
            return local_trace
        return local_trace
    return global_trace


def pytest_runtest_call(item: Any) -> None:
    if _watched:
        sys.settrace(_tracer_for(_seen.setdefault(item.nodeid, {})))


def pytest_runtest_teardown(item: Any, nextitem: Any) -> None:
    if _watched:
        sys.settrace(None)


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    out = os.environ.get(OUT_ENV)
    if not out:
        return
    data = {"tests": {test: {path: sorted(lines) for path, lines in files.items()}
                      for test, files in _seen.items()}}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
