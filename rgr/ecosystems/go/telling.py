"""The telling input of a Go survivor (issue 44, item 3): an input that shows it, found
from the tests' own calls, as Python's (rgr.ecosystems.python.telling) is.

A survivor on a line a test runs is RED's gap, and the strengthening RED is best helped
by a call that tells the mutant from the original. The tests hold the likeliest ones:
each call of the survivor's function that a test compares with a value (the facts
rgr.check.fakeit reads: ``if got := Percent(0.05, 0, true); got != "+5%"``, table-driven
rows too), and the same call with one literal argument varied (0, 1, -1, one either
side, the other boolean, the empty string). rgr writes a test file of its own into the
package that calls the function with each, printing what each returns (``fmt.Sprint``
of all its results) or that it panics, and runs ``go test`` on it twice in the sealed
checkout: the original, then the mutant. The first call whose line differs is the
telling input, ``Percent(0, 0, true): the original returns "0%" against the mutant
returns "+0%"``. Only package-level functions (a method needs its receiver's state).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from rgr.base.errors import CommandError
from rgr.base.proc import run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rgr.base.proc import Launcher

__all__ = ["calls_to_try", "find", "function_at", "program"]

MAX_CALLS = 48
#: The file rgr writes beside the package's tests, and its test function's name.
FILE = "rgr_telling_test.go"
_TEST = "TestRgrTellingInput"
_MARK = "rgr-telling"
_PACKAGE = re.compile(r"^package\s+(\w+)", re.MULTILINE)
_NUMBER = re.compile(r"-?\d+(\.\d+)?$")


def calls_to_try(function: str, facts: Iterable[tuple[str, tuple[str, ...]]],
                 limit: int = MAX_CALLS) -> list[str]:
    """Argument lists (Go source, ``0.5, 0, false``) to call ``function`` with: each of
    the tests' calls of it (``facts``: callee and literal arguments), then each with one
    argument varied."""
    given = [args for callee, args in facts if callee == function and args]
    out: list[str] = []
    for args in dict.fromkeys(given):
        for variant in [args, *_variants(args)]:
            text = ", ".join(variant)
            if text not in out:
                out.append(text)
    return out[:limit]


def _variants(args: tuple[str, ...]) -> list[tuple[str, ...]]:
    out = []
    for at, arg in enumerate(args):
        for near in _near(arg):
            out.append((*args[:at], near, *args[at + 1:]))
    return out


def _near(arg: str) -> list[str]:
    if arg in ("true", "false"):
        return ["false" if arg == "true" else "true"]
    if _NUMBER.match(arg):
        if "." in arg:
            value = float(arg)
            return [repr(x) for x in (0.0, -value, value + 1)]
        number = int(arg)
        return [str(x) for x in (0, 1, -1, number - 1, number + 1)]
    if arg.startswith('"') and arg.endswith('"') and len(arg) >= 2:
        inner = arg[1:-1]
        return ['""', json.dumps(inner + inner)] if inner else ['"a"']
    return []


def program(package: str, function: str, calls: list[str]) -> str:
    """The test file that prints, for each call, what it returns or that it panics."""
    rows = "".join(f"\t\tfunc() string {{ return rgrtellingfmt.Sprint({function}({c})) }},\n"
                   for c in calls)
    return (f"package {package}\n\nimport (\n\trgrtellingfmt \"fmt\"\n"
            f"\trgrtellingtesting \"testing\"\n)\n\n"
            f"func {_TEST}(t *rgrtellingtesting.T) {{\n"
            f"\tfor i, call := range []func() string{{\n{rows}\t}} {{\n"
            f"\t\trgrtellingfmt.Printf(\"{_MARK} %d %q\\n\", i, rgrTellingOutcome(call))\n"
            f"\t}}\n}}\n\n"
            f"func rgrTellingOutcome(call func() string) (out string) {{\n"
            f"\tdefer func() {{\n\t\tif r := recover(); r != nil {{\n"
            f"\t\t\tout = \"panics\"\n\t\t}}\n\t}}()\n"
            f"\treturn \"returns \" + call()\n}}\n")


def find(path: str, original: str, mutated: str, line: int,
         facts: Iterable[tuple[str, tuple[str, ...]]], tree: Path, launcher: Launcher | None,
         env: Mapping[str, str], seconds: float) -> str | None:
    """The telling input of the mutant of ``path`` at ``line`` (``mutated``: the whole
    file), in words, or None when no call tried tells it apart (or its function is a
    method, or nothing built)."""
    function = function_at(original, line)
    if function is None:
        return None
    package = _PACKAGE.search(original)
    calls = calls_to_try(function, facts)
    if package is None or not calls:
        return None
    folder = (tree / path).parent
    helper = folder / FILE
    code = tree / path
    helper.write_text(program(package.group(1), function, calls), encoding="utf-8")
    try:
        first = _outcomes(tree, folder, launcher, env, seconds / 2)
        code.write_text(mutated, encoding="utf-8")
        second = _outcomes(tree, folder, launcher, env, seconds / 2)
    finally:
        code.write_text(original, encoding="utf-8")
        helper.unlink(missing_ok=True)
    for index, call in enumerate(calls):
        was, now = first.get(index), second.get(index)
        if was is not None and now is not None and was != now:
            return f"{function}({call}): the original {was} against the mutant {now}"
    return None


def function_at(source: str, line: int) -> str | None:
    """The package-level function whose declaration is the last one at or before
    ``line`` (None for a method, or no function)."""
    for text in reversed(source.splitlines()[:line]):
        if text.startswith("func "):
            found = re.match(r"func\s+(\w+)\s*[\[(]", text)
            return found.group(1) if found else None
    return None


def _outcomes(tree: Path, folder: Path, launcher: Launcher | None,
              env: Mapping[str, str], seconds: float) -> dict[int, str]:
    package = "./" + folder.relative_to(tree).as_posix()
    argv = ("go", "test", "-count=1", "-v", "-run", f"^{_TEST}$", package)
    try:
        done = run(argv, cwd=tree, timeout=max(1.0, seconds), env=env, launcher=launcher)
    except (CommandError, OSError):
        return {}
    found: dict[int, str] = {}
    for line in done.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0] == _MARK and parts[1].isdigit():
            try:
                found[int(parts[1])] = str(json.loads(parts[2]))[:200]
            except ValueError:
                continue
    return found
