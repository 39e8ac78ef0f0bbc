"""Is a surviving Python mutant equivalent? Decided by symbolic execution (CrossHair).

A survivor on a line a test runs means one of two things: the tests do not pin what the
line does, or the mutant changes nothing any caller could see (an equivalent mutant, which
no test can kill). Rules decide the commonest equivalent shapes without running anything
(rgr.check.mutation.boundary); for the rest of Python, CrossHair's ``diffbehavior``
compares the original function with the mutated one path by path:

* ``equivalent``: every path explored, no difference ("All paths exhausted"). Not a
  failure: the note counts it ``equivalentByCrossHair`` and lists it.
* ``differs``: an input that tells them apart (``Given: (value=0, low=0, high=0) ...``).
  The survivor stays, and the strengthening RED is given that input in words.
* ``undecided``: the time budget ran out, the function has no types to explore with, it is
  a method, or its module did not load. A remark, not a rejection, unless a test of the
  current item demonstrably should kill it (rgr.check.mutation.rule).

Types come from the function's own annotations; where a parameter has none, from the
values the covering tests passed (recorded by rgr's tracer, rgr.ecosystems.python.
pytest_lines: only builtin scalar and container types). Without either, CrossHair would
explore with any object at all (enums, strings for numbers) and its "difference" would be
one no caller makes, so rgr does not ask it.

CrossHair is an optional extra (rgr.base.installed names the command that adds it where
rgr is installed), used when rgr's own interpreter can import it (``rgr doctor`` says
whether it can). The project's code is untrusted: CrossHair imports and runs it, so it
runs as a separate process of rgr's interpreter inside the same sandbox as the mutants'
test runs (the checkout's launcher), never in rgr's own process, with the checkout's
package root on its path.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rgr.base.errors import CommandError
from rgr.base.proc import run
from rgr.ecosystems.language import Confined, Decision

__all__ = ["PROVER", "Decision", "available", "decide", "target_of", "version"]

#: CPU seconds CrossHair may spend on one mutant, and the wall-clock cap around it.
PER_MUTANT_S = 4.0
_WALL_MARGIN_S = 6.0

#: The types rgr gives CrossHair from the tests' own values (a value's type name as the
#: tracer recorded it -> the annotation written into the typed wrapper).
_TRACED_TYPES = {"int": "int", "float": "float", "str": "str", "bool": "bool",
                 "bytes": "bytes", "NoneType": "None", "list": "list", "dict": "dict",
                 "tuple": "tuple", "set": "set"}

_SAME = "All paths exhausted"
_GIVEN = re.compile(r"^Given: \((?P<args>.*)\),\s*$", re.M)


@dataclass(frozen=True)
class Target:
    """The module-level function holding a mutant's line."""

    name: str
    params: tuple[str, ...]
    annotated: bool  # every parameter has an annotation


def available() -> bool:
    """CrossHair importable by rgr's interpreter (the optional ``equivalence`` extra)."""
    return importlib.util.find_spec("crosshair") is not None


def version() -> str | None:
    if not available():
        return None
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("crosshair-tool")
    except PackageNotFoundError:
        return "unknown version"


def target_of(source: str, line: int) -> Target | None:
    """The module-level function of ``source`` whose body holds ``line``, or None (a
    method, a nested function, module-level code)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.lineno <= line <= (
                node.end_lineno or node.lineno):
            args = node.args
            if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
                return None
            params = tuple(a.arg for a in args.args)
            return Target(node.name, params, all(a.annotation for a in args.args))
    return None


def decide(path: str, original: str, mutated: str, line: int, checkout: Path,
           confinement: Confined | None, env: Mapping[str, str],
           traced: Mapping[str, list[str]] | None = None,
           seconds: float = PER_MUTANT_S) -> Decision:
    """CrossHair's answer for the mutant of ``path`` (original and mutated text) whose
    line is ``line``, run inside ``confinement`` in ``checkout`` (a pristine checkout rgr
    may write to). ``traced``: each parameter's type names as the tests passed them."""
    target = target_of(original, line)
    if target is None:
        return Decision("undecided", "not inside a module-level function with plain "
                        "parameters")
    types = _types(target, traced)
    if types is None:
        return Decision("undecided", "no types: the function has no annotations and the "
                        "tests passed no plain values to learn them from")
    located = module_of(checkout, path)
    if located is None:
        return Decision("undecided", "its file name is no module name")
    root, module = located
    folder = checkout / Path(path).parent
    stem = Path(path).stem
    mutant_name = f"_rgr_mutant_{stem}"
    # The typed wrapper goes where the sandbox can read it (its own tmp), never into the
    # checkout's tree.
    helper = (confinement.tmp if confinement else checkout.parent) \
        / f"rgr-equivalence-{os.getpid()}-{stem}"
    helper.mkdir(parents=True, exist_ok=True)
    (folder / f"{mutant_name}.py").write_text(mutated, encoding="utf-8")
    try:
        parent = module.rpartition(".")[0]
        mutant_module = f"{parent}.{mutant_name}" if parent else mutant_name
        if types == {}:  # annotated: compare the functions themselves
            first, second = f"{module}.{target.name}", f"{mutant_module}.{target.name}"
        else:
            (helper / "rgr_typed_pair.py").write_text(
                _wrapper(module, mutant_module, target, types), encoding="utf-8")
            first, second = "rgr_typed_pair.original", "rgr_typed_pair.mutant"
        child = dict(env)
        child["PYTHONPATH"] = os.pathsep.join(
            filter(None, (str(helper), str(checkout / root), env.get("PYTHONPATH"))))
        child["PYTHONDONTWRITEBYTECODE"] = "1"
        argv = (sys.executable, "-m", "crosshair", "diffbehavior",
                "--per_condition_timeout", f"{seconds:g}", first, second)
        try:
            done = run(argv, cwd=checkout, timeout=seconds + _WALL_MARGIN_S, env=child,
                       launcher=confinement.launcher if confinement else None)
        except CommandError as error:
            return Decision("undecided", f"CrossHair did not start: {error}")
    finally:
        (folder / f"{mutant_name}.py").unlink(missing_ok=True)
        shutil.rmtree(helper, ignore_errors=True)
    if done.timed_out:
        return Decision("undecided", f"CrossHair's time budget ({seconds:g}s) ran out")
    return read(done.stdout, done.stderr, (first, second))


def read(stdout: str, stderr: str, names: tuple[str, str] = ("", "")) -> Decision:
    """CrossHair's diffbehavior output as a decision."""
    if _SAME in stdout:
        return Decision("equivalent")
    given = _GIVEN.search(stdout)
    if given:
        block = stdout[given.start():].splitlines()[:3]
        results = [_plain(line, names) for line in block[1:]]
        return Decision("differs", f"({given.group('args')}): " + " against ".join(results))
    said = (stdout.strip() or stderr.strip()).splitlines()
    tail = said[-1] if said else "no answer"
    return Decision("undecided", f"CrossHair found no difference but did not explore "
                    f"every path ({tail[:160]})")


def _plain(line: str, names: tuple[str, str]) -> str:
    """``  pkg.ranges.clamp : returns 0`` -> ``the original returns 0``."""
    who, _, what = line.partition(" : ")
    who = who.strip()
    label = "the original" if who == names[0] else "the mutant" if who == names[1] \
        else who
    return f"{label} {what.strip()}"


def _types(target: Target, traced: Mapping[str, list[str]] | None
           ) -> dict[str, str] | None:
    """{} when the function is annotated (CrossHair reads its hints); else each
    parameter's annotation from the tests' values; None when some parameter has none."""
    if target.annotated:
        return {}
    if not traced:
        return None
    out = {}
    for param in target.params:
        names = [_TRACED_TYPES[t] for t in traced.get(param, []) if t in _TRACED_TYPES]
        if not names:
            return None
        out[param] = " | ".join(dict.fromkeys(sorted(names)))
    return out


def _wrapper(module: str, mutant_module: str, target: Target, types: dict[str, str]) -> str:
    params = ", ".join(f"{p}: {types[p]}" for p in target.params)
    call = ", ".join(target.params)
    return (f"from {module} import {target.name} as _original\n"
            f"from {mutant_module} import {target.name} as _mutant\n\n\n"
            f"def original({params}):\n    return _original({call})\n\n\n"
            f"def mutant({params}):\n    return _mutant({call})\n")


def module_of(checkout: Path, path: str) -> tuple[str, str] | None:
    """(the folder to put on the path, relative to ``checkout``; the dotted module name)
    for ``path``: its package root is the first folder up without ``__init__.py``."""
    file = Path(path)
    names = [file.stem]
    folder = file.parent
    while folder != Path(".") and (checkout / folder / "__init__.py").is_file():
        names.insert(0, folder.name)
        folder = folder.parent
    if not all(n.isidentifier() for n in names):
        return None
    return str(folder), ".".join(names)


@dataclass(frozen=True)
class CrossHair:
    """Python's equivalence prover, as the mutation gate asks it
    (rgr.ecosystems.language.Prover)."""

    name: str = "CrossHair"
    seconds: float = PER_MUTANT_S

    def available(self) -> bool:
        return available()

    def function_at(self, source: str, line: int) -> str | None:
        target = target_of(source, line)
        return None if target is None else target.name

    def decide(self, path: str, original: str, mutated: str, line: int, checkout: Path,
               confinement: Confined | None, env: Mapping[str, str],
               traced: Mapping[str, list[str]] | None, seconds: float) -> Decision:
        return decide(path, original, mutated, line, checkout, confinement, env, traced,
                      seconds)


PROVER = CrossHair()
