"""An input that tells a Python survivor from the original, found from the tests' calls.

A survivor on a line a test runs is RED's gap: the tests run the code but do not check
what the mutated part does (``fmt(1.5) == "1.50"`` leaves ``digits = max(digits, 0)``
free to become ``max(digits, 1)``). The strengthening RED is best helped by an input that
tells the two apart, and the tests hold the likeliest ones: their own calls of the
function. rgr takes each call of the mutant's function in the covering tests whose
arguments are plain literals, and varies one argument at a time, the ones left to their
defaults too, over a few values near it (0, 1, -1, one either side, the other boolean,
the empty string); the first call whose result (its ``repr``, or the exception it raises)
differs between the original and the mutant is the telling input,
``fmt(1.5, digits=0): the original returns '2' against the mutant returns '2.0'``.

The search runs the project's code, so it runs as equivalence's CrossHair does: a child
process of rgr's interpreter inside the checkout's sandbox, never in rgr's own process.
It is cheap (one process, a few dozen calls) and comes before CrossHair: an input found
is proof the mutant is not equivalent. The mutation gate asks for it through
``Language.tree_mutation`` (rgr.ecosystems.python.language); the sandbox it runs in
(``confinement``, rgr.check.verify.Confinement) is the gate's.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from rgr.base.errors import CommandError
from rgr.base.proc import run
from rgr.ecosystems.base import near_values
from rgr.ecosystems.language import Confined
from rgr.ecosystems.python.equivalence import module_of, target_of

__all__ = ["calls_to_try", "find"]

#: How many calls one search tries, and its wall-clock limit.
MAX_CALLS = 48
WALL_S = 8.0

_MISSING = object()
#: A call's arguments longer than this (a test's huge literal) are not tried.
_MAX_CALL_CHARS = 400
_MAX_RESULT_CHARS = 200

#: Run in the sandbox: each call against the original and the mutant; the first that
#: differs, as JSON on stdout. Standard library only.
_SEARCH = '''import importlib, json, sys
original = getattr(importlib.import_module(sys.argv[1]), sys.argv[3])
mutant = getattr(importlib.import_module(sys.argv[2]), sys.argv[3])
def outcome(function, call):
    try:
        return "returns " + repr(eval(call, {"_f": function}))[:200]
    except Exception as error:
        return "raises " + type(error).__name__
for text in json.loads(sys.argv[4]):
    call = "_f(" + text + ")"
    first, second = outcome(original, call), outcome(mutant, call)
    if first != second:
        print(json.dumps({"args": text, "original": first, "mutant": second}))
        break
'''


def calls_to_try(function: str, params: tuple[str, ...], defaults: Mapping[str, object],
                 tests: Iterable[str], limit: int = MAX_CALLS) -> list[str]:
    """The argument lists (source text, ``1.5, digits=0``) to call ``function`` with:
    each call of it in ``tests`` (sources) whose arguments are literals, then the same
    with one argument varied."""
    found: list[dict[str, object]] = []
    for source in tests:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _names(node.func, function):
                given = _literal_args(node, params)
                if given is not None and given not in found:
                    found.append(given)
    out: list[str] = []
    for given in found:
        for variant in [given, *_variants(given, params, defaults)]:
            text = _render(variant, params, given)
            if len(text) <= _MAX_CALL_CHARS and text not in out:
                out.append(text)
    return out[:limit]


def find(path: str, original: str, mutated: str, line: int, test_sources: Iterable[str],
         checkout: Path, confinement: Confined | None, env: Mapping[str, str],
         seconds: float = WALL_S) -> str | None:
    """The telling input of the mutant of ``path`` at ``line`` (in words), or None when
    no call tried tells it apart (or the function is no module-level one)."""
    target = target_of(original, line)
    located = module_of(checkout, path)
    if target is None or located is None:
        return None
    calls = calls_to_try(target.name, target.params, _defaults(original, target.name),
                         test_sources)
    if not calls:
        return None
    root, module = located
    file = Path(path)
    folder = checkout / file.parent
    mutant_name = f"_rgr_telling_{file.stem}"
    mutant_file = folder / (mutant_name + file.suffix)  # beside the original, its kind
    helper = (confinement.tmp if confinement else checkout.parent) \
        / f"rgr-telling-{os.getpid()}-{file.stem}"
    helper.mkdir(parents=True, exist_ok=True)
    script = helper / ("rgr_telling_search" + file.suffix)
    script.write_text(_SEARCH, encoding="utf-8")
    mutant_file.write_text(mutated, encoding="utf-8")
    parent = module.rpartition(".")[0]
    child = dict(env)
    child["PYTHONPATH"] = os.pathsep.join(
        filter(None, (str(checkout / root), env.get("PYTHONPATH"))))
    child["PYTHONDONTWRITEBYTECODE"] = "1"
    argv = (sys.executable, str(script), module,
            f"{parent}.{mutant_name}" if parent else mutant_name, target.name,
            json.dumps(calls))
    try:
        done = run(argv, cwd=checkout, timeout=seconds, env=child,
                   launcher=confinement.launcher if confinement else None)
    except (CommandError, OSError):
        return None
    finally:
        mutant_file.unlink(missing_ok=True)
        shutil.rmtree(helper, ignore_errors=True)
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() \
            else None
    except ValueError:
        return None
    # The project's code runs in that process and could print a line of its own: only
    # an answer naming a call rgr asked for, in the script's words, is believed.
    if not isinstance(answer, dict) or answer.get("args") not in calls:
        return None
    results = [str(answer.get(side, ""))[:_MAX_RESULT_CHARS] for side in ("original", "mutant")]
    if not all(r.startswith(("returns ", "raises ")) for r in results):
        return None
    return (f"{target.name}({answer['args']}): the original {results[0]} against the "
            f"mutant {results[1]}")


def _names(func: ast.expr, function: str) -> bool:
    return (isinstance(func, ast.Name) and func.id == function) \
        or (isinstance(func, ast.Attribute) and func.attr == function)


def _literal_args(call: ast.Call, params: tuple[str, ...]) -> dict[str, object] | None:
    """The call's arguments by parameter name, when every one is a literal."""
    if len(call.args) > len(params):
        return None
    given: dict[str, object] = {}
    try:
        for param, arg in zip(params, call.args, strict=False):
            if isinstance(arg, ast.Starred):
                return None
            given[param] = ast.literal_eval(arg)
        for keyword in call.keywords:
            if keyword.arg is None or keyword.arg not in params:
                return None
            given[keyword.arg] = ast.literal_eval(keyword.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return given


def _variants(given: dict[str, object], params: tuple[str, ...],
              defaults: Mapping[str, object]) -> list[dict[str, object]]:
    out = []
    for param in params:
        value = given.get(param, defaults.get(param, _MISSING))
        for near in near_values(value):
            out.append({**given, param: near})
    return out


def _render(args: dict[str, object], params: tuple[str, ...], given: dict[str, object]
            ) -> str:
    """``1.5, digits=0``: the parameters the test passed positionally stay positional,
    up to the first one it did not pass; the rest by name."""
    parts: list[str] = []
    positional = True
    for param in params:
        if param not in args:
            positional = False
            continue
        if positional and param in given:
            parts.append(repr(args[param]))
        else:
            positional = False
            parts.append(f"{param}={args[param]!r}")
    return ", ".join(parts)


def _defaults(source: str, function: str) -> dict[str, object]:
    """The literal defaults of ``function``'s parameters."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            args = node.args.args
            out: dict[str, object] = {}
            for arg, default in zip(args[len(args) - len(node.args.defaults):],
                                    node.args.defaults, strict=True):
                with contextlib.suppress(ValueError, TypeError, SyntaxError):
                    out[arg.arg] = ast.literal_eval(default)
            return out
    return {}
