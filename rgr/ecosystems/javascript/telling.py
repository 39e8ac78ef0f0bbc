"""An input that tells a JavaScript survivor from the original, found from the tests'
calls (``MutationSyntax.telling``; Python's is rgr.ecosystems.python.telling, Go's
rgr.ecosystems.go.telling).

The survivor's enclosing function (``function percent (ratio, opts)``, ``const f =
(a) =>``, ``export function f``) is looked up among the module's exports; each call of
it in the project's test files whose arguments are plain literals (numbers, strings,
booleans, ``null``, arrays and objects of them: ``percent(0.05, { sign: true })``) is
tried, then the same with one argument, or one field of an object argument, varied over a
few values near it (0, 1, -1, one either side, the other boolean, the empty string). The
first call whose result (``returns`` its value, ``resolves`` for a promise, ``raises``
the error's class) differs between the original and the mutant is the telling input:
``percent(0, {"sign": true}): the original returns "0%" against the mutant returns
"+0%"``. The tests are read here, not from the gate's facts: JavaScript's stand in a
folder of their own and pass options objects.

It runs the project's code, so it runs as the tests do: node in the checkout's sandbox,
the mutant and rgr's search script written beside the original (its relative imports
resolve the same) and removed after, never in rgr's process. Methods of a class are not
tried (an object's state comes from calls the search cannot know to make): no input is
then said, as before.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rgr.base.errors import CommandError
from rgr.base.proc import run
from rgr.ecosystems.base import near_values
from rgr.ecosystems.failure_kind import is_test_path
from rgr.ecosystems.javascript.modules import SOURCES
from rgr.ecosystems.tokens import Token, matching, tokens_of

if TYPE_CHECKING:  # a Protocol, for the type checker only
    from rgr.base.proc import Launcher

__all__ = ["calls_to_try", "enclosing_function", "find", "function_at", "test_sources"]

#: How many calls one search tries, and its wall-clock limit.
MAX_CALLS = 48
WALL_S = 8.0
_MAX_CALL_CHARS = 400
_MAX_RESULT_CHARS = 200
_MISSING = object()

#: Run by node in the sandbox: each call against the original and the mutant; the
#: first that differs, as JSON on stdout. A .cjs file: it runs whatever the package's
#: module type; ``import()`` loads either kind of module.
_SEARCH = r"""'use strict'
const { pathToFileURL } = require('node:url')
const { inspect } = require('node:util')
const [original, mutant, name, calls] = process.argv.slice(2)
const show = (v) => typeof v === 'string' ? JSON.stringify(v) : inspect(v, { depth: 4 })
async function load (file) {
  const found = await import(pathToFileURL(file).href)
  for (const where of [found, found.default]) {
    if (where && typeof where[name] === 'function') return where[name]
  }
  return typeof found.default === 'function' && found.default.name === name
    ? found.default : null
}
async function outcome (f, text) {
  try {
    const value = new Function('_f', `return _f(${text})`)(f)
    if (value && typeof value.then === 'function') {
      try { return 'resolves ' + show(await value).slice(0, 200) } catch (e) {
        return 'rejects ' + (e && e.constructor ? e.constructor.name : typeof e)
      }
    }
    return 'returns ' + show(value).slice(0, 200)
  } catch (e) {
    return 'raises ' + (e && e.constructor ? e.constructor.name : typeof e)
  }
}
async function main () {
  const first = await load(original)
  const second = await load(mutant)
  if (!first || !second) return
  for (const text of JSON.parse(calls)) {
    const a = await outcome(first, text)
    const b = await outcome(second, text)
    if (a !== b) {
      process.stdout.write('\n' + JSON.stringify({ args: text, original: a, mutant: b }) + '\n')
      return
    }
  }
}
main().then(() => process.exit(0), () => process.exit(0))
"""

#: Words that end a function's name search: ``if (`` is no call of a function ``if``.
_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "function", "typeof",
             "await", "new", "super", "import", "require"}
_WORDS = {"true": True, "false": False, "null": None}


def enclosing_function(source: str, line: int, language: str = "js"
                       ) -> tuple[str, int] | None:
    """(name, the line of its ``{``) of the innermost named function whose body holds
    ``line``: ``function name (…) {``, ``name = (…) => {``, ``name = function (…) {``;
    None when it stands in none, or in a class's method (``name (…) {`` in a class)."""
    tokens = tokens_of(source, language)
    texts = [t.text for t in tokens]
    best: tuple[str, int, int] | None = None  # name, open line, body size
    for at, token in enumerate(tokens):
        if token.text != "{":
            continue
        close = matching(tokens, at)
        if close is None or not tokens[at].line <= line <= tokens[close].line:
            continue
        name = _named_by(tokens, texts, at)
        if name is not None and (best is None or close - at < best[2]):
            best = (name, tokens[at].line, close - at)
    return (best[0], best[1]) if best else None


def _named_by(tokens: list[Token], texts: list[str], brace: int) -> str | None:
    """The function name a body's ``{`` belongs to, when it is a function's."""
    before = brace - 1
    if before >= 0 and texts[before] == "=>":
        before -= 1
        if before >= 0 and texts[before] == ")":
            opening = _opening(texts, before)
            if opening is None:
                return None
            before = opening - 1
        elif before >= 0 and tokens[before].kind == "word":
            before -= 1
        if before >= 0 and texts[before] == "async":
            before -= 1
        if before >= 1 and texts[before] == "=" and tokens[before - 1].kind == "word":
            return texts[before - 1]
        return None
    if before < 0 or texts[before] != ")":
        return None
    opening = _opening(texts, before)
    if opening is None or opening < 1:
        return None
    name_at = opening - 1
    if tokens[name_at].kind == "word" and name_at >= 1 and texts[name_at - 1] == "function":
        return texts[name_at]
    if texts[name_at] == "function" and name_at >= 2 and texts[name_at - 1] == "=" \
            and tokens[name_at - 2].kind == "word":
        return texts[name_at - 2]
    return None


def _opening(texts: list[str], close: int) -> int | None:
    depth = 0
    for at in range(close, -1, -1):
        if texts[at] == ")":
            depth += 1
        elif texts[at] == "(":
            depth -= 1
            if depth == 0:
                return at
    return None


def calls_to_try(function: str, tests: Iterable[str], language: str = "js",
                 limit: int = MAX_CALLS) -> list[str]:
    """The argument lists (JavaScript text, ``0.05, {"sign": true}``) to call
    ``function`` with: each call of it in ``tests`` (sources) whose arguments are
    literals, then the same with one argument (or one field of an object) varied."""
    found: list[list[object]] = []
    for source in tests:
        tokens = tokens_of(source, language)
        for at, token in enumerate(tokens[:-1]):
            if token.text != function or tokens[at + 1].text != "(" \
                    or (at and tokens[at - 1].text in ("function", "def")):
                continue
            close = matching(tokens, at + 1)
            if close is None:
                continue
            args = _literals(tokens, at + 2, close)
            if args is not None and args not in found:
                found.append(args)
    out: list[str] = []
    for args in found:
        for variant in [args, *_variants(args)]:
            text = ", ".join(_render(a) for a in variant)
            if len(text) <= _MAX_CALL_CHARS and text not in out:
                out.append(text)
    return out[:limit]


def _literals(tokens: list[Token], start: int, end: int) -> list[object] | None:
    """The comma-separated literal values of ``tokens[start:end]``, or None when any
    is not a literal."""
    values: list[object] = []
    at = start
    while at < end:
        read = _literal(tokens, at, end)
        if read is None:
            return None
        value, at = read
        values.append(value)
        if at < end:
            if tokens[at].text != ",":
                return None
            at += 1
    return values


def _literal(tokens: list[Token], at: int, end: int) -> tuple[object, int] | None:
    token = tokens[at]
    if token.text == "-" and at + 1 < end and tokens[at + 1].kind == "number":
        number = _number(tokens[at + 1].text)
        return (None if number is None else (-number, at + 2))
    if token.kind == "number":
        number = _number(token.text)
        return None if number is None else (number, at + 1)
    if token.kind == "string" and token.text[:1] in "'\"`" and "${" not in token.text:
        return token.text[1:-1], at + 1
    if token.kind == "word" and token.text in _WORDS:
        return _WORDS[token.text], at + 1
    if token.text in ("[", "{"):
        close = matching(tokens, at)
        if close is None or close >= end:
            return None
        if token.text == "[":
            items = _literals(tokens, at + 1, close)
            return None if items is None else (items, close + 1)
        fields = _fields(tokens, at + 1, close)
        return None if fields is None else (fields, close + 1)
    return None


def _fields(tokens: list[Token], start: int, end: int) -> dict[str, object] | None:
    fields: dict[str, object] = {}
    at = start
    while at < end:
        key = tokens[at]
        if key.kind not in ("word", "string") or at + 2 > end or tokens[at + 1].text != ":":
            return None
        read = _literal(tokens, at + 2, end)
        if read is None:
            return None
        fields[key.text.strip("'\"")], at = read
        if at < end:
            if tokens[at].text != ",":
                return None
            at += 1
    return fields


def _number(text: str) -> int | float | None:
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        return None
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() \
        else value


def _variants(args: list[object]) -> list[list[object]]:
    out: list[list[object]] = []
    for index, value in enumerate(args):
        if isinstance(value, dict):
            for key, field in value.items():
                out += [[*args[:index], {**value, key: near}, *args[index + 1:]]
                        for near in near_values(field, float_zero=0)]
        else:
            out += [[*args[:index], near, *args[index + 1:]]
                    for near in near_values(value, float_zero=0)]
    return out


def _render(value: object) -> str:
    return json.dumps(value)


#: How many test files the search reads, at most (those naming the function).
_MAX_TEST_FILES = 200


def test_sources(tree: Path, function: str) -> list[str]:
    """The text of the project's test files in ``tree`` that name ``function``."""
    found: list[str] = []
    for folder, dirs, names in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d != "node_modules" and not d.startswith("."))
        for name in sorted(names):
            rel = (Path(folder) / name).relative_to(tree).as_posix()
            if not name.endswith(SOURCES) or not is_test_path(rel):
                continue
            try:
                text = (Path(folder) / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if function in text:
                found.append(text)
                if len(found) >= _MAX_TEST_FILES:
                    return found
    return found


def function_at(source: str, line: int, language: str = "js") -> str | None:
    """The name of the function holding ``line`` (``enclosing_function``), or None."""
    found = enclosing_function(source, line, language)
    return found[0] if found else None


def find(path: str, original: str, mutated: str, line: int,
         facts: Iterable[tuple[str, tuple[str, ...]]], tree: Path,
         launcher: Launcher | None, env: Mapping[str, str], seconds: float = WALL_S
         ) -> str | None:
    """The telling input of the mutant of ``path`` at ``line`` (in words), or None when
    no call of the project's tests tells it apart (or its function is no export node
    can call). ``facts``: the gate's (unused: the tests are read here)."""
    name = function_at(original, line)
    node = shutil.which("node", path=env.get("PATH"))
    if name is None or node is None:
        return None
    calls = calls_to_try(name, test_sources(tree, name))
    if not calls:
        return None
    file = Path(path)
    folder = tree / file.parent
    mutant_file = folder / f"_rgr_telling_{file.stem}{file.suffix}"
    script = folder / f"_rgr_telling_search_{os.getpid()}.cjs"
    script.write_text(_SEARCH, encoding="utf-8")
    mutant_file.write_text(mutated, encoding="utf-8")
    argv = (node, str(script), str(tree / path), str(mutant_file), name, json.dumps(calls))
    try:
        done = run(argv, cwd=tree, timeout=min(seconds, WALL_S), env=dict(env),
                   launcher=launcher)
    except (CommandError, OSError):
        return None
    finally:
        mutant_file.unlink(missing_ok=True)
        script.unlink(missing_ok=True)
    lines = done.stdout.strip().splitlines()
    try:
        answer = json.loads(lines[-1]) if lines else None
    except ValueError:
        return None
    # the project's code runs in that process and could print a line of its own: only
    # an answer naming a call rgr asked for, in the script's words, is believed
    if not isinstance(answer, dict) or answer.get("args") not in calls:
        return None
    results = [str(answer.get(side, ""))[:_MAX_RESULT_CHARS] for side in ("original", "mutant")]
    if not all(r.startswith(("returns ", "raises ", "resolves ", "rejects "))
               for r in results):
        return None
    return (f"{name}({answer['args']}): the original {results[0]} against the "
            f"mutant {results[1]}")
