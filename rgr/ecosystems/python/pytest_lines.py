"""A pytest plugin rgr puts beside one test run: which test ran which changed line.

rgr's own line collector for the mutation gate (rgr.check.mutation): the user's project
may have no coverage.py, and rgr needs only the lines a phase changed, per test. The
files to watch come in ``RGR_MUTATION_TRACE_FILES`` (paths relative to the run's
directory, ``os.pathsep`` between them); when the session ends the plugin writes
``{"tests": {node id: {path: [line, ...]}}, "argTypes": {"path:function": {parameter:
[type name, ...]}}}`` to ``RGR_MUTATION_TRACE_OUT`` (the types of the values the tests
passed to the watched files' functions: CrossHair's types where the code has no hints).

With ``RGR_MUTATION_MUTANTS`` (a JSON file: each mutant's id, path, line, statement line
and its whole mutated source) the same session then runs the mutants, after the normal
test loop: for each mutant the tests that ran its line, each mutant in a child process
forked from this one (``os.fork``: everything imported stays imported, so a mutant
costs a fork and its tests, not a new pytest). The child writes the mutated source to
the file and patches the loaded module in place (each function's ``__code__``, and
methods of classes, replaced by the mutated one's; other module-level names rebound),
then runs the tests (``_pytest.runner.runtestprotocol``) and exits 0 (all passed) or 1;
the parent puts the original file back, kills a child that outlives the per-mutant
timeout (a hang counts as killed), and stops at the deadline
(``RGR_MUTATION_DEADLINE``, epoch seconds): the mutants left are ``not-run``. Results go
into the same output file, under ``"mutants"``.

The tracer is ``sys.settrace`` set around each test's run and removed after it (the one
that was there before is put back): the global trace function returns a line tracer only
for frames of the watched files, so other code pays one call per function entered. With
the watched files' imports hooked (``hook_imports``: before the conftests load under
pytest), it is set only once a test enters one of their functions. It
runs in the project's interpreter, which may be older than rgr's: standard library
only, nothing newer than Python 3.8. Loaded like rgr.ecosystems.python.pytest_own_outcomes,
through a ``pytest11`` entry point of a dist-info folder on PYTHONPATH.

unittest has the same tracer and the same mutant runs: rgr's unittest reporter
(rgr.ecosystems.python.unittest_reporter) imports this module by its plugin name when
``RGR_MUTATION_TRACE_FILES`` is set and calls ``watch``, ``start_test``/``stop_test``
around each test, ``run_mutants`` after its suite, and ``write_out``.
"""

from __future__ import annotations

import ast
import builtins
import importlib.abc
import importlib.machinery
import json
import os
import select
import signal
import sys
import threading
import time
import types
from typing import Any

FILES_ENV = "RGR_MUTATION_TRACE_FILES"
OUT_ENV = "RGR_MUTATION_TRACE_OUT"
MUTANTS_ENV = "RGR_MUTATION_MUTANTS"
DEADLINE_ENV = "RGR_MUTATION_DEADLINE"
TIMEOUT_ENV = "RGR_MUTATION_TIMEOUT"

_watched: dict[str, str] = {}  # absolute path -> the path rgr named
_seen: dict[str, dict[str, set[int]]] = {}
#: "path:function" -> parameter -> the type names of the values the tests passed
#: (rgr.ecosystems.python.equivalence gives CrossHair these when the code has no hints).
_arg_types: dict[str, dict[str, set[str]]] = {}
#: node id -> [path, line]: the watched line each test's code returned or raised from
#: last (rgr.tdd.examine names it when an acceptance test fails, never the test).
_last: dict[str, list[Any]] = {}
_last_line: list[Any] = []  # the running test's, filled by the line tracers
_current_id: Any = None


def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> None:
    """Before the conftests and the test modules import anything: only the tests that
    enter the watched files' functions pay for tracing (``hook_imports``)."""
    if watch():
        hook_imports()


def pytest_configure(config: Any) -> None:
    watch()


def watch() -> bool:
    """Reads the files to watch from ``RGR_MUTATION_TRACE_FILES`` (relative to the
    working directory); whether there is any."""
    names = [n for n in os.environ.get(FILES_ENV, "").split(os.pathsep) if n]
    root = os.getcwd()
    for name in names:
        path = os.path.realpath(os.path.join(root, name))
        _watched[path] = name
        try:
            found = os.stat(path)
            _watched_files[(found.st_dev, found.st_ino)] = name
        except OSError:
            pass
    return bool(_watched)


#: (device, inode) -> the path rgr named: the same file seen at another path. In rgr's
#: sandbox the checkout is shown again at the repository's own path, and a project
#: installed in editable mode (``pip install -e .``) imports its code from there, so a
#: frame's file name is that other path (seen on iniconfig, a src/ layout).
_watched_files: dict[tuple[int, int], str] = {}
_names: dict[str, str | None] = {}  # a code object's file name -> the watched name


def _watched_name(filename: str) -> str | None:
    if filename in _names:
        return _names[filename]
    name = _watched.get(filename) or _watched.get(os.path.realpath(filename))
    if name is None and _watched_files:
        try:
            found = os.stat(filename)
            name = _watched_files.get((found.st_dev, found.st_ino))
        except OSError:
            name = None
    _names[filename] = name
    return name


def _tracer_for(lines: dict[str, set[int]], types_too: bool = True) -> Any:
    """A global trace function recording the watched lines run into ``lines`` (and
    with ``types_too`` the types of the arguments their functions get)."""
    def global_trace(frame: Any, event: str, arg: Any) -> Any:
        name = _watched_name(frame.f_code.co_filename)
        if name is None:
            return None
        hit = lines.setdefault(name, set())
        hit.add(frame.f_lineno)
        if event == "call" and types_too:
            _note_arguments(name, frame)

        def local_trace(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                hit.add(frame.f_lineno)
            elif event == "return":
                _last_line[:] = (name, frame.f_lineno)
            return local_trace
        return local_trace
    return global_trace


def _note_arguments(name: str, frame: Any) -> None:
    code = frame.f_code
    seen = _arg_types.setdefault(name + ":" + code.co_name, {})
    for param in code.co_varnames[:code.co_argcount]:
        if param in frame.f_locals:
            seen.setdefault(param, set()).add(type(frame.f_locals[param]).__name__)


_in_mutant = False  # True in a mutant's child process: nothing more to trace


def pytest_collection_finish(session: Any) -> None:
    """A watched file loaded past the hook while the tests were collected (a conftest's
    ``spec_from_file_location``): its functions never switch tracing on, so every test
    is traced whole."""
    global _hook_failed
    if _hooked and any(_watched_name(str(getattr(m, "__file__", None) or ""))
                       and not isinstance(getattr(m, "__loader__", None), _Loader)
                       for m in list(sys.modules.values())):
        _hook_failed = True


def pytest_runtest_call(item: Any) -> None:
    start_test(item.nodeid)


def pytest_runtest_teardown(item: Any, nextitem: Any) -> None:
    stop_test()


def start_test(test_id: str) -> None:
    """Traces the watched lines the test ``test_id`` runs, until ``stop_test``. With the
    watched files hooked (``hook_imports``), tracing starts only when the test enters
    one of their functions."""
    global _current, _current_trace, _thread, _current_id
    if not _watched or _in_mutant:
        return
    lines = _seen.setdefault(test_id, {})
    _current_id = test_id
    del _last_line[:]
    if _hooked and not _hook_failed:
        sys.settrace(None)  # the lines run outside the tests end here
        _current, _current_trace = lines, _tracer_for(lines)
        _thread = threading.get_ident()
    else:
        sys.settrace(_tracer_for(lines))


def stop_test() -> None:
    global _current, _current_trace, _current_id
    if _watched and not _in_mutant:
        sys.settrace(None)
        _current = _current_trace = None
        if _current_id is not None and _last_line:
            _last[_current_id] = list(_last_line)
        _current_id = None


# ------------------------------------------------- tracing from the watched code itself
#
# ``sys.settrace`` set for a whole test makes the interpreter call the trace function
# on every Python call and take its slow path throughout: a suite runs 2-2.5 times
# slower (Python 3.11, Python-Markdown's unittest suite). With the watched files hooked,
# each of their functions starts with a call of ``_enter`` (compiled in, on the line of
# its first statement: line numbers unchanged), which switches tracing on for the rest
# of the test. Tests that never enter the watched code run at full speed.

_hooked = False
#: A watched file was imported some other way than from its source (the hook could not
#: instrument it): every test is traced whole from then on.
_hook_failed = False
_current: Any = None  # the lines of the test running, when the hook is on
_current_trace: Any = None
#: The watched lines run outside any test (while modules load, in class fixtures), by
#: path, and their tracer.
_outside: dict[str, set[int]] = {}
_outside_trace = _tracer_for(_outside, types_too=False)  # types: the tests' calls
#: The thread the test runs in: ``sys.settrace`` traces that thread only, and so does
#: ``_enter``.
_thread: Any = None


def hook_imports() -> bool:
    """Instruments the watched files when they are imported from now on; False (every
    test traced whole) when one is loaded already, or one of them has a generator or a
    coroutine (resumed in a later test, its lines would not switch tracing on)."""
    global _hooked
    if any(getattr(finder, "find_spec", None) is None for finder in sys.meta_path):
        return False  # a finder of the old protocol: ``_Finder`` could not stand in front
    if not _watched or any(_watched_name(str(getattr(m, "__file__", None) or ""))
                           for m in list(sys.modules.values())):
        return False
    for path in _watched:
        try:
            with open(path, "rb") as handle:
                tree = ast.parse(handle.read(), path)
        except (OSError, SyntaxError, ValueError):
            return False
        if any(isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await,
                                 ast.AsyncFunctionDef)) for node in ast.walk(tree)):
            return False
    # A builtin the instrumented code calls: a global lookup, where ``__import__`` of
    # this module on every call of a hot function cost seconds per suite.
    setattr(builtins, _ENTER, _enter)
    sys.meta_path.insert(0, _Finder())
    _hooked = True
    return True


#: The name the instrumented functions call ``_enter`` by (a builtin).
_ENTER = "__rgr_mutation_enter__"


def _enter() -> None:
    """Called first by every function of a watched file: traces its frame and, until
    the test ends, every frame after it."""
    if _in_mutant:
        return
    lines, trace = _current, _current_trace
    if lines is None:  # outside the tests
        lines, trace = _outside, _outside_trace
    elif threading.get_ident() != _thread:
        return  # another thread than the test's
    if sys.gettrace() is trace:
        return  # tracing is on already: the call was seen
    frame = sys._getframe(1)
    name = _watched_name(frame.f_code.co_filename)
    if name is None:
        return
    hit = lines.setdefault(name, set())
    # The lines a call event gives under ``sys.settrace``: its ``def`` (decorator) line
    # and the first statement's.
    hit.update((frame.f_code.co_firstlineno, frame.f_lineno))
    if lines is not _outside:
        _note_arguments(name, frame)
    sys.settrace(trace)

    def local_trace(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            hit.add(frame.f_lineno)
        elif event == "return" and lines is not _outside:
            _last_line[:] = (name, frame.f_lineno)
        return local_trace
    frame.f_trace = local_trace


class _Finder(importlib.abc.MetaPathFinder):
    """Finds modules as the finders after it do; a watched file's module gets
    ``_Loader``."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        global _hook_failed
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is None:
                continue
            if spec.origin and _watched_name(spec.origin):
                loader = spec.loader
                if type(loader) is importlib.machinery.SourceFileLoader:
                    spec.loader = _Loader(loader.name, loader.path)
                else:
                    # Loaded otherwise: not instrumented, so from this test on every
                    # test is traced whole (this one from the next call on).
                    _hook_failed = True
                    if _current_trace is not None:
                        sys.settrace(_current_trace)
            return spec
        return None


class _Loader(importlib.machinery.SourceFileLoader):
    def get_code(self, fullname: str) -> Any:
        return compile(_entering(ast.parse(self.get_data(self.path), self.path)),
                       self.path, "exec", dont_inherit=True)


class _Entering(ast.NodeTransformer):
    """Puts a call of ``_enter`` first in every function (after its docstring) and
    lambda, at its first statement's place."""

    def _call(self, line: int, col: int) -> Any:
        call = ast.Call(ast.Name(_ENTER, ast.Load()), [], [])
        for node in ast.walk(call):
            _place(node, line, col)
        return call

    def visit_FunctionDef(self, node: Any) -> Any:
        self.generic_visit(node)
        body = node.body
        docstring = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str)
        if docstring and len(body) == 1:
            # Nothing runs after the docstring: the call stands on the function's first
            # line (its first decorator's), the only line a call event gives.
            first = node.decorator_list[0] if node.decorator_list else node
            line, col = first.lineno, first.col_offset
        else:
            at = body[1] if docstring else body[0]
            line, col = at.lineno, at.col_offset
        body.insert(1 if docstring else 0, _place(ast.Expr(self._call(line, col)), line, col))
        return node

    def visit_Lambda(self, node: Any) -> Any:
        self.generic_visit(node)
        line, col = node.body.lineno, node.body.col_offset
        node.body = _place(ast.BoolOp(ast.Or(), [self._call(line, col), node.body]),
                           line, col)
        return node


def _place(node: Any, line: int, col: int) -> Any:
    """``node`` at ``line``:``col``, starting and ending there: a statement spanning
    several lines (an ``if`` and its body) must not lend the call its last line."""
    node.lineno = node.end_lineno = line
    node.col_offset = node.end_col_offset = col
    return node


def _entering(tree: Any) -> Any:
    return ast.fix_missing_locations(_Entering().visit(tree))


_mutant_results: dict[str, str] = {}


def pytest_runtestloop(session: Any) -> Any:
    """After pytest's own loop (run first, traced), the mutants, when asked for."""
    spec = os.environ.get(MUTANTS_ENV)
    if not spec or session.testsfailed or session.config.option.collectonly:
        return None
    from _pytest.main import pytest_runtestloop as run_the_tests

    run_the_tests(session)
    if session.testsfailed:
        return True
    run_mutants({item.nodeid: item for item in session.items}, _pytest_passes)
    return True


def _pytest_passes(items: list[Any]) -> bool:
    """Runs pytest's ``items`` in a mutant's child: whether none failed."""
    from _pytest.nodes import Node
    from _pytest.runner import runtestprotocol

    # Only the outcome counts here (a report's outcome is set before its text): pytest's
    # failure text, each frame's source found by parsing its file, cost 30-40 ms a killed
    # mutant on iniconfig, more than the tests.
    Node._repr_failure_py = _failure_line  # type: ignore[method-assign,assignment]
    for index, item in enumerate(items):
        following = items[index + 1] if index + 1 < len(items) else None
        reports = runtestprotocol(item, nextitem=following, log=False)
        if any(report.failed for report in reports):
            return False
    return True


def _failure_line(self: Any, excinfo: Any, style: Any = None) -> str:
    return str(excinfo.exconly())


def run_mutants(tests: dict[str, Any], passes: Any) -> None:
    """The mutants of ``RGR_MUTATION_MUTANTS`` (if set), each in a child forked from this
    process running its covering tests (``tests``: id -> the runner's test object)
    through ``passes(list of test objects) -> bool``; after the traced run (pytest's
    loop, unittest's suite: rgr.ecosystems.python.unittest_reporter)."""
    spec = os.environ.get(MUTANTS_ENV)
    if not spec:
        return
    with open(spec, encoding="utf-8") as handle:
        mutants = json.load(handle)
    deadline = float(os.environ.get(DEADLINE_ENV) or 0) or None
    timeout = float(os.environ.get(TIMEOUT_ENV) or 60)
    #: Covering tests -> whether they pass in a fork unmutated (after the whole suite,
    #: alone and again): only then can their failing in a mutant's fork be the mutant's.
    pass_unmutated: dict[tuple[str, ...], bool] = {}
    for mutant in mutants:
        covering = _covering(mutant)
        if _hooked and (not covering or _ran_outside_tests(mutant)):
            # No result: rgr runs it in a process of its own, with every test. A line
            # no test was seen running may run in a way the hook misses; a line that
            # ran outside the tests (while the modules loaded, in a class fixture) did
            # its work before the fork, where patching the code cannot undo it.
            continue
        if not covering:
            _mutant_results[mutant["id"]] = "uncovered"
        elif deadline is not None and time.time() > deadline - 1:
            _mutant_results[mutant["id"]] = "not-run"
        else:
            left = timeout if deadline is None else min(timeout, deadline - time.time())
            items = [tests[t] for t in covering if t in tests]
            key = tuple(covering)
            if key not in pass_unmutated:
                pass_unmutated[key] = _run_mutant(None, items, left, passes) == "survived"
            if not pass_unmutated[key]:
                continue  # no result, as above: the fork is no place for these tests
            status = _run_mutant(mutant, items, left, passes)
            if status != "unpatched":  # unpatched: no result, as above
                _mutant_results[mutant["id"]] = status


def _ran_outside_tests(mutant: dict[str, Any]) -> bool:
    ran = _outside.get(mutant["path"], set())
    return mutant["line"] in ran or mutant["statementLine"] in ran


def _covering(mutant: dict[str, Any]) -> list[str]:
    lines = (mutant["line"], mutant["statementLine"])
    if mutant.get("moduleLevel"):
        # It ran when the module loaded, before any test: the tests that use the module.
        return sorted(test for test, files in _seen.items() if files.get(mutant["path"]))
    return sorted(test for test, files in _seen.items()
                  if any(line in files.get(mutant["path"], ()) for line in lines))


def _run_mutant(mutant: dict[str, Any] | None, items: list[Any], timeout: float,
                passes: Any) -> str:
    """``items`` run in a child forked from this process with ``mutant`` patched in
    (None: unmutated): ``survived`` (all passed), ``killed`` (one failed, or the run
    outlived ``timeout``) or ``unpatched``."""
    path = os.path.join(os.getcwd(), mutant["path"]) if mutant is not None else ""
    original = ""
    if mutant is not None:
        with open(path, encoding="utf-8") as handle:
            original = handle.read()
    # Looked up once, before the fork: children inherit it.
    module = _module_of(path) if mutant is not None else None
    # The child's end of a pipe closes when it exits: the parent wakes then, not at its
    # next poll (polling every 5 ms cost more than a small suite's mutant itself).
    ended, child_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: mutate, run, report by exit code, never return
        global _in_mutant
        _in_mutant = True
        os.close(ended)
        sys.settrace(None)  # nothing more to trace (the fixtures' tracer may be on)
        code = 1
        try:
            if mutant is not None:
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(mutant["source"])
                _patch_loaded(module, path, mutant["source"])
            code = 0 if passes(items) else 1
        except _Unpatchable:
            code = _UNPATCHED_EXIT
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(child_end)
    status = "killed"
    try:
        ends = time.time() + max(timeout, 1)
        while True:
            done, exit_status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.WEXITSTATUS(exit_status) if os.WIFEXITED(exit_status) else -1
                status = {0: "survived", _UNPATCHED_EXIT: "unpatched"}.get(code, "killed")
                break
            left = ends - time.time()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            # A process the child forked may hold the pipe open past the child's end,
            # and a closed pipe reads at once: never more than 50 ms unpolled, and a
            # short pause once the pipe closed, while the child finishes exiting.
            if select.select([ended], [], [], min(left, 0.05))[0]:
                time.sleep(0.0005)
    finally:
        os.close(ended)
        if mutant is not None:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(original)
    return status


_modules: dict[str, Any] = {}


def _module_of(path: str) -> Any:
    """The loaded module of ``path``, or None (not imported yet)."""
    if path not in _modules or _modules[path] is None:
        real = os.path.realpath(path)
        _modules[path] = next(
            (m for m in list(sys.modules.values())
             if _same_file(str(getattr(m, "__file__", None) or ""), real)), None)
    return _modules[path]


def _same_file(one: str, other: str) -> bool:
    """The same file, at its own path or at another (the sandbox's alias of the checkout,
    where an editable install imports from)."""
    if not one:
        return False
    if os.path.realpath(one) == other:
        return True
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def _patch_loaded(module: Any, path: str, source: str) -> None:
    """``module`` (``path``'s, if loaded) made to run ``source``: functions keep their
    identity (tests that imported them by name see the change), their code is the
    mutated one's."""
    if module is None:
        return  # imported later by the tests, from the mutated file
    fresh: dict[str, Any] = {"__name__": module.__name__, "__file__": path}
    exec(compile(source, path, "exec"), fresh)
    for name, value in fresh.items():
        old = module.__dict__.get(name)
        if _patched(old, value):
            continue
        if isinstance(value, type) and isinstance(old, type):
            for attr, member in vars(value).items():
                if not _patched(vars(old).get(attr), member) and not attr.startswith("__"):
                    setattr(old, attr, member)
        elif not name.startswith("__") and not isinstance(value, types.ModuleType):
            module.__dict__[name] = value
    # A name the mutated source no longer sets (``PRECISION = 2`` -> ``pass``) is gone,
    # as it would be from a fresh import: a test that reads it must notice.
    for name in [n for n, v in module.__dict__.items() if n not in fresh
                 and not n.startswith("__") and not isinstance(v, types.ModuleType)]:
        del module.__dict__[name]


class _Unpatchable(Exception):
    """A loaded function whose code the mutated one's cannot replace (their free
    variables differ: ``super()`` mutated away): this mutant needs a fresh process."""


#: A mutant's child's exit code when ``_Unpatchable``: the mutant has no result here.
_UNPATCHED_EXIT = 97


def _patched(old: Any, new: Any) -> bool:
    """Whether ``old`` (a loaded object) now runs ``new``'s code in place: a function,
    a static or class method, a property's functions, the function a decorator's
    wrapper keeps (``__wrapped__``)."""
    if isinstance(old, types.FunctionType) and isinstance(new, types.FunctionType):
        _patch_function(old, new, set())
        return True
    pairs: list[tuple[Any, Any]] = []
    if type(old) is type(new) and isinstance(new, (staticmethod, classmethod)):
        pairs = [(old.__func__, new.__func__)]
    elif type(old) is type(new) and isinstance(new, property):
        pairs = [(old.fget, new.fget), (old.fset, new.fset), (old.fdel, new.fdel)]
    wrapped = getattr(new, "__wrapped__", None) if not isinstance(new, type) else None
    if isinstance(wrapped, types.FunctionType):
        pairs.append((getattr(old, "__wrapped__", None), wrapped))
    if not pairs or not all(
            (a is None and b is None) or (isinstance(a, types.FunctionType)
                                          and isinstance(b, types.FunctionType))
            for a, b in pairs):
        return False
    for mine, theirs in pairs:
        if mine is not None:
            _patch_function(mine, theirs, set())
    # A cache in front of the function (functools.lru_cache) still holds the unmutated
    # results of the traced run's calls.
    clear = getattr(old, "cache_clear", None)
    if callable(clear):
        clear()
    return True


def _patch_function(old: Any, new: Any, seen: set[int]) -> None:
    if id(old) in seen:
        return
    seen.add(id(old))
    try:
        old.__code__ = new.__code__
    except ValueError as error:
        raise _Unpatchable(str(error)) from error
    old.__defaults__ = new.__defaults__
    old.__kwdefaults__ = new.__kwdefaults__
    # A decorator's wrapper keeps the function it wraps in its closure: that one must
    # run the mutated code too, or the mutant never runs.
    fresh_cells = new.__closure__ or ()  # as many as ``old``'s: its code took
    for index, mine in enumerate(old.__closure__ or ()):
        try:
            inner, fresh = mine.cell_contents, fresh_cells[index].cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(inner, types.FunctionType) and isinstance(fresh, types.FunctionType) \
                and inner.__code__.co_name == fresh.__code__.co_name:
            _patch_function(inner, fresh, seen)


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    write_out()


def write_out() -> None:
    """The lines each test ran, the argument types seen and the mutants' results, to
    ``RGR_MUTATION_TRACE_OUT``."""
    out = os.environ.get(OUT_ENV)
    if not out:
        return
    data: dict[str, Any] = {"tests": {test: {path: sorted(lines) for path, lines in files.items()}
                                      for test, files in _seen.items()}}
    data["argTypes"] = {key: {param: sorted(names) for param, names in params.items()}
                        for key, params in _arg_types.items()}
    data["last"] = _last
    if os.environ.get(MUTANTS_ENV):
        data["mutants"] = _mutant_results
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
