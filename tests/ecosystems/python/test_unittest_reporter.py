"""The mutation gate on unittest suites (real ``python -m unittest`` runs through rgr's
reporter, rgr.ecosystems.python.unittest_reporter): rgr's line tracer runs there as under
pytest, so a mutant faces only the tests that run its line, in a child forked from the
traced run, a line no test runs is ``uncovered`` without a probe, and CrossHair gets the
types of the values the tests passed."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from harness import sweep_only

from rgr.base.config import AdequacyConfig, TestCommand
from rgr.check.mutation import gate as mutation_gate
from rgr.ecosystems.python import lines as coverage_lines
from rgr.ecosystems.python import pytest_lines
from rgr.store.handoff import AdequacyNote
from tests.conftest import Repo, make_repo
from tests.gate_helpers import BARE_ENV, measure_commits

WHERE = "tests/ecosystems/python/test_unittest_reporter.py"
UNITTEST = TestCommand((sys.executable, "-m", "unittest", "discover", "-s", "tests",
                        "-t", "."), "unittest", (), False, "test")

STUB = "def add(a, b):\n    raise NotImplementedError\n"
HONEST = "def add(a, b):\n    return a + b\n"
OVER = "def add(a, b):\n    if a == 1337:\n        return 0\n    return a + b\n"
WEAK = "assertIsNotNone(add(2, 3))"
STRONG = "assertEqual(add(2, 3), 5)"
TEST = """import unittest

from calc import add


class AddTest(unittest.TestCase):
    def test_add(self):
        self.{check}


class OtherTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ready = True

    def test_other(self):
        self.assertTrue(self.ready)
"""


def project(tmp_path: Path, check: str, code: str) -> tuple[Repo, str, str]:
    repo = make_repo(tmp_path)
    base = repo.commit("test: add", {"calc.py": STUB, "tests/__init__.py": "",
                                     "tests/test_calc.py": TEST.format(check=check)})
    tip = repo.commit("feat: add", {"calc.py": code})
    return repo, base, tip


def gate(repo: Repo, base: str, tip: str, jobs: int = 2,
         opened: list[str] | None = None) -> AdequacyNote:
    return measure_commits(repo, base, tip, UNITTEST, start_env=BARE_ENV,
                           command_timeout=60, settings=AdequacyConfig(jobs=jobs),
                           opened=opened)


def test_an_honest_green_kills_every_mutant_on_the_traced_path(tmp_path: Path) -> None:
    note = gate(*project(tmp_path, STRONG, HONEST))
    assert note.tried == 2 and note.killed == 2, note
    assert note.decision == "pass" and note.remark is None, note


def test_a_survivor_names_only_the_test_that_runs_its_line(tmp_path: Path) -> None:
    note = gate(*project(tmp_path, WEAK, HONEST))
    survivors = {(m.original, m.replacement, m.status) for m in note.mutants}
    assert ("a + b", "a - b", "survived") in survivors, note
    assert all(m.tests == ["tests/test_calc.py::AddTest::test_add"]
               for m in note.mutants), note
    assert note.decision == "test-too-weak"


def test_a_line_no_test_runs_is_uncovered_without_a_probe(tmp_path: Path) -> None:
    note = gate(*project(tmp_path, STRONG, OVER))
    assert {m.line for m in note.mutants if m.status == "uncovered"} == {3}, note
    assert note.decision == "over-implemented"
    assert "no per-test line data" not in (note.remark or ""), note
    # The tests passed ints: CrossHair, typed by them, tells 1337 -> 1338 apart (an
    # input), where without the types it stayed undecided.
    line_2 = [m for m in note.mutants if m.line == 2 and m.original == "1337"]
    assert line_2 and all(m.status == "survived" and m.telling_input
                          for m in line_2), note


@sweep_only(WHERE, "the probe path without the tracer, two whole-suite runs per mutant")
def test_without_the_tracer_survivors_lines_are_probed(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """Where the reporter cannot load rgr's tracer (here: installed under a name it does
    not import), each mutant runs the whole suite and each survivor's line is probed
    (rgr.ecosystems.python.probe): the line no test runs is still ``uncovered``."""
    monkeypatch.setattr(coverage_lines, "_PLUGIN", "rgr_lines_not_found")
    note = gate(*project(tmp_path, STRONG, OVER))
    assert "no per-test line data" in (note.remark or ""), note
    assert {m.line for m in note.mutants if m.status == "uncovered"} == {3}, note
    assert note.decision == "over-implemented"


TRICKY = '''import functools


def deco(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)
    return wrapper


def plain(a, b):
    return a + b


def only_doc():
    """Nothing else."""


@deco
def decorated(x,
              y=2):
    if x > y and (
            x < 100):
        return x
    return y


square = lambda v: v * v  # noqa: E731


class Base:
    def __init__(self, n):
        self.n = n


class Child(Base):
    scale = staticmethod(lambda v: v * 3)

    def __init__(self, n):
        super().__init__(n)
        self.m = n

    @property
    def double(self):
        return self.n * 2

    @classmethod
    def make(cls):
        return cls(4)


def outer(n):
    def inner(k):
        return k + n
    return [inner(i) for i in range(n)]


def raises():
    raise ValueError("x")
'''
TRICKY_TESTS = {
    "plain": "assert tricky.plain(2, 3) == 5",
    "only_doc": "assert tricky.only_doc() is None",
    "decorated": "assert tricky.decorated(5) == 5 and tricky.decorated(1, y=3) == 3",
    "square": "assert tricky.square(3) == 9",
    "child": "c = tricky.Child.make(); assert (c.double, c.m, c.scale(2)) == (8, 4, 6)",
    "outer": "assert tricky.outer(3) == [3, 4, 5]",
    "nothing": "assert True",
}
DRIVER = '''import json, sys, traceback
import rgr_mutation_lines as lines
lines.watch()
hooked = sys.argv[1] == "hook" and lines.hook_imports()
import tricky
tests = json.loads(sys.argv[2])
for name, body in sorted(tests.items()):
    lines.start_test(name)
    exec(body, {"tricky": tricky})
    lines.stop_test()
try:
    tricky.raises()
except ValueError as error:
    raised_at = traceback.extract_tb(error.__traceback__)[-1].lineno
lines.write_out()
print(json.dumps({"hooked": hooked, "raisedAt": raised_at, "enters": hasattr(
    tricky.plain.__code__, "co_names") and "__rgr_mutation_enter__" in
    tricky.plain.__code__.co_names}))
'''


def test_the_hooked_tracer_sees_what_settrace_sees(tmp_path: Path) -> None:
    """The tracer hooked into the watched file's functions (tracing starts when a test
    enters one) records the same lines and argument types, per test, as ``sys.settrace``
    over the whole test: lambdas, decorated and nested functions, methods calling
    ``super()``, properties, a function that is only a docstring, a first statement
    spanning lines; line numbers in tracebacks are the file's."""
    (tmp_path / "tricky.py").write_text(TRICKY, encoding="utf-8")
    shutil.copyfile(Path(pytest_lines.__file__), tmp_path / "rgr_mutation_lines.py")
    (tmp_path / "driver.py").write_text(DRIVER, encoding="utf-8")
    runs = {}
    for mode in ("hook", "settrace"):
        out = tmp_path / f"{mode}.json"
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path),
               pytest_lines.FILES_ENV: "tricky.py", pytest_lines.OUT_ENV: str(out)}
        done = subprocess.run([sys.executable, "driver.py", mode, json.dumps(TRICKY_TESTS)],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=60, check=True)
        runs[mode] = (json.loads(done.stdout), json.loads(out.read_text(encoding="utf-8")))
    (hooked, traced), (plain, whole) = runs["hook"], runs["settrace"]
    raise_line = _line_of(TRICKY, 'raise ValueError("x")')
    assert hooked == {"hooked": True, "raisedAt": raise_line, "enters": True}, hooked
    assert plain == {"hooked": False, "raisedAt": raise_line, "enters": False}, plain
    assert traced == whole
    assert traced["tests"]["nothing"] == {}
    # the wrapper's first line and return, the decorated function's first line, its
    # condition's two lines and both returns
    assert traced["tests"]["decorated"]["tricky.py"] == [
        _line_of(TRICKY, text) for text in ("@functools.wraps", "return f(*args", "@deco",
                                            "if x > y", "x < 100", "return x", "return y")]
    assert traced["argTypes"]["tricky.py:plain"] == {"a": ["int"], "b": ["int"]}


def _line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1)
                if line.strip().startswith(start))


SCRIPT = """def add(a, b):
    return a + b


def main():
    return add(2, 3) * 10


if __name__ == "__main__":
    raise SystemExit(main())
"""
RUNS_THE_SCRIPT = """import runpy
import unittest


class ScriptTest(unittest.TestCase):
    def test_main(self):
        with self.assertRaises(SystemExit) as ended:
            runpy.run_path("calc.py", run_name="__main__")
        self.assertEqual(ended.exception.code, 50)
"""


def test_a_line_run_past_the_hook_still_meets_every_test(tmp_path: Path) -> None:
    """``runpy.run_path`` compiles the file itself: the hook never sees ``main`` run,
    so its mutant has no covering test; it runs with every test in a fresh process
    before it may be called uncovered, and the test that runs the script kills it."""
    repo = make_repo(tmp_path)
    base = repo.commit("test: main", {"calc.py": STUB, "tests/__init__.py": "",
                                      "tests/test_script.py": RUNS_THE_SCRIPT})
    tip = repo.commit("feat: main", {"calc.py": SCRIPT})
    note = gate(repo, base, tip)
    line_6 = [m for m in note.mutants if m.line == 6]
    assert not line_6, note  # killed: killed mutants are not listed
    assert note.killed >= 2, note


def test_the_hook_stands_aside_for_generators_and_modules_loaded_before_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A watched file with a generator (resumed in a later test, its lines would not
    switch tracing on) or one imported already is traced whole: no hook."""
    (tmp_path / "gen.py").write_text("def numbers():\n    yield 1\n", encoding="utf-8")
    (tmp_path / "plain.py").write_text("def one():\n    return 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for watched, loaded in (("gen.py", False), ("plain.py", True)):
        copy = _fresh_tracer(f"rgr_lines_copy_{watched[:-3]}")
        monkeypatch.setenv(pytest_lines.FILES_ENV, watched)
        assert copy.watch()
        if loaded:
            monkeypatch.syspath_prepend(str(tmp_path))
            monkeypatch.setitem(sys.modules, "plain", importlib.import_module("plain"))
        meta_path = list(sys.meta_path)
        assert copy.hook_imports() is False
        assert sys.meta_path == meta_path


def _fresh_tracer(name: str) -> ModuleType:
    """A copy of the tracer module with globals of its own."""
    spec = importlib.util.spec_from_file_location(name, pytest_lines.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WRAPPED = """import functools


def logged(f):
    @functools.wraps(f)
    def wrapper(*args):
        return f(*args)
    return wrapper


@logged
def add(a, b):
    return a + b


class Base:
    def __init__(self):
        self.ready = True


class Child(Base):
    def __init__(self):
        super().__init__()
        self.size = 2
"""
WRAPPED_TESTS = """import unittest

from calc import Child, add


class WrappedTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_child(self):
        self.assertEqual(Child().size, 2)
"""


def test_a_decorated_function_and_a_super_call_are_mutated_for_real(tmp_path: Path) -> None:
    """The fork patches the function a decorator's wrapper keeps (else ``a + b`` would
    survive untouched); a mutant that drops ``super()`` changes the method's free
    variables, so no loaded code can take it: it runs in a process of its own, where
    it survives (no test reads ``ready``) instead of being "killed" by the patching;
    the decorator's own body ran only at import."""
    repo = make_repo(tmp_path)
    base = repo.commit("test: add", {"calc.py": STUB, "tests/__init__.py": "",
                                     "tests/test_calc.py": WRAPPED_TESTS})
    tip = repo.commit("feat: add", {"calc.py": WRAPPED})
    note = gate(repo, base, tip)
    listed = {(m.original, m.replacement): m.status for m in note.mutants}
    assert not any(original == "a + b" for original, _ in listed), note
    # The decorator's ``return wrapper`` runs only while the module loads, before any
    # test: patching the loaded code cannot undo what it did, so it runs in a fresh
    # process with every test, and is killed there (``add`` would be None).
    assert ("return wrapper", "return None") not in listed, note
    # not killed: it ran, and CrossHair does not check methods (a remark)
    assert listed.get(("super().__init__()", "pass")) in ("survived", "undecided"), note


@sweep_only(WHERE, "two gates, timing only")
def test_a_busy_machine_gets_one_traced_session(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Each session of the fast path traces the whole suite: a second one only where a
    CPU is idle to run it beside the first (the load average is the one thing faked)."""
    repo, base, tip = project(tmp_path, STRONG, HONEST)
    monkeypatch.setattr(mutation_gate.os, "getloadavg", lambda: (64.0, 64.0, 64.0))
    busy: list[str] = []
    assert gate(repo, base, tip, opened=busy).killed == 2
    assert busy == ["mutation-0"]
    monkeypatch.setattr(mutation_gate.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    idle: list[str] = []
    assert gate(repo, base, tip, opened=idle).killed == 2
    cpus = len(os.sched_getaffinity(0))
    assert sorted(idle) == [f"mutation-{n}" for n in range(min(2, cpus))]


PATCHED = '''import functools


@functools.lru_cache(maxsize=None)
def twice(x):
    return x * 2


class K:
    @staticmethod
    def s(x):
        return x + 1

    @classmethod
    def c(cls, x):
        return x + 2

    @property
    def p(self):
        return 3
'''
PATCHING = '''import os
import rgr_mutation_lines as lines
import m
from m import K, twice
before = (twice(2), K.s(1), K.c(1), K().p)
mutated = open("m.py").read()
for old, new in (("x * 2", "x * 3"), ("x + 1", "x + 10"), ("x + 2", "x + 20"),
                 ("return 3", "return 30")):
    mutated = mutated.replace(old, new)
lines._patch_loaded(m, os.path.abspath("m.py"), mutated)
print(before, (twice(2), K.s(1), K.c(1), K().p), twice is m.twice)
'''


def test_the_fork_patches_cached_static_class_and_property_code_in_place(
        tmp_path: Path) -> None:
    """What a test imported by name before the fork runs the mutated code: the function
    behind an ``lru_cache`` (its cache of the traced run's results cleared), static and
    class methods, a property's getter."""
    (tmp_path / "m.py").write_text(PATCHED, encoding="utf-8")
    shutil.copyfile(Path(pytest_lines.__file__), tmp_path / "rgr_mutation_lines.py")
    (tmp_path / "patching.py").write_text(PATCHING, encoding="utf-8")
    done = subprocess.run([sys.executable, "patching.py"], cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)},
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "(4, 2, 3, 3) (6, 11, 21, 30) True", done


ONCE = """import unittest

from calc import add

RUNS = []


class OnceTest(unittest.TestCase):
    def test_add_once(self):
        RUNS.append(1)
        self.assertEqual(len(RUNS), 1)  # passes only as the suite's first run of it
        self.assertIsNotNone(add(2, 3))
"""


def test_tests_that_fail_when_run_again_kill_nothing_in_the_fork(tmp_path: Path) -> None:
    """The fork runs a mutant's tests again in the process that ran the suite: a test
    that passes only once fails there mutated or not. Its unmutated run in a fork fails
    too, so its kills would mean nothing: its mutants run in a fresh process, where the
    weak test lets ``a - b`` survive."""
    repo = make_repo(tmp_path)
    base = repo.commit("test: add", {"calc.py": STUB, "tests/__init__.py": "",
                                     "tests/test_calc.py": ONCE})
    tip = repo.commit("feat: add", {"calc.py": HONEST})
    note = gate(repo, base, tip)
    survivors = {(m.original, m.replacement, m.status) for m in note.mutants}
    assert ("a + b", "a - b", "survived") in survivors, note
    assert note.decision == "test-too-weak", note
