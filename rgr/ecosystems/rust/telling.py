"""The telling input of a Rust survivor (issue 44, item 3; ``MutationSyntax.telling``, as
Go's rgr.ecosystems.go.telling and JavaScript's rgr.ecosystems.javascript.telling): an
input that shows the mutant, found from the tests' own calls.

The survivor's function is the free function around its line (``pub fn percent(ratio:
f64, digits: usize, sign: bool) -> String``; a method needs its receiver's state, and is
not tried). Each call of it whose arguments are plain literals, in the crate's test
files (``tests/``) and in its source files (their ``#[cfg(test)]`` modules), is tried,
then the same call with one argument varied over values near it (0, 1, -1, one either
side, the other boolean, the empty string), each written as the parameter's type takes
it (no negative number for a ``usize``, a ``String::from`` for a ``String``; a type
rgr cannot read, a generic one, gets the tests' own literal only). The tests are read
here, not from the gate's facts: a crate's integration tests stand in ``tests/``, not
beside the code.

rgr appends a ``#[cfg(test)]`` module of its own to the file (no line moves) that calls
the function with each and prints what it returns (``{:?}``) or that it panics, runs
``cargo test`` on that test alone in the sealed checkout, on the original and then on
the mutant, and puts the file back. The first call whose line differs is the telling
input: ``percent(0.0, 0, true): the original returns "0%" against the mutant returns
"+0%"``. The original's answers are kept for the next survivor of the same file in the
same checkout: one build each after the first.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rgr.base.errors import CommandError
from rgr.base.proc import run
from rgr.ecosystems.rust.values import plain_values
from rgr.ecosystems.tokens import Token, bracket_pairs, tokens_of

if TYPE_CHECKING:  # a Protocol, for the type checker only
    from rgr.base.proc import Launcher

__all__ = ["Function", "calls_in", "calls_to_try", "find", "function_at", "program"]

MAX_CALLS = 48
#: The test files read for calls, at most, and the longest one read.
_MAX_FILES = 40
_MAX_FILE_CHARS = 400_000
_MODULE = "rgr_telling_input"
_MARK = "rgr-telling"
_FLOATS = {"f32", "f64"}
_SIGNED = {"i8", "i16", "i32", "i64", "i128", "isize"}
_UNSIGNED = {"u8", "u16", "u32", "u64", "u128", "usize"}
_STRINGS = {"&str", "&'staticstr", "String", "&String"}
_LITERAL_WORDS = {"true", "false"}
_SKIPPED_FOLDERS = {"target", ".git", "node_modules"}
#: The original's answers of the last search: (checkout, path, text, calls) -> them.
_ORIGINAL: dict[tuple[str, str, str, tuple[str, ...]], dict[int, str]] = {}


@dataclass(frozen=True)
class Function:
    """A free function: its name and each parameter's type, as its tokens write it
    (``&str``, ``f64``; empty where the type is generic)."""

    name: str
    types: tuple[str, ...]


def function_at(source: str, line: int) -> Function | None:
    """The free function (declared outside any block: no method, no nested module's)
    whose body holds ``line``, or None."""
    tokens = tokens_of(source, "rust")
    texts = [t.text for t in tokens]
    pairs = bracket_pairs(texts)
    depth = 0
    for at, token in enumerate(tokens):
        if token.text == "{":
            depth += 1
        elif token.text == "}":
            depth -= 1
        if depth != 0 or token.text != "fn" or at + 2 >= len(tokens) \
                or tokens[at + 1].kind != "word":
            continue
        found = _declared(tokens, texts, pairs, at + 1)
        if found is None:
            continue
        function, body = found
        if tokens[body].line <= line <= tokens[pairs.get(body, body)].line:
            return function
    return None


def _declared(tokens: list[Token], texts: list[str], pairs: dict[int, int], name_at: int
              ) -> tuple[Function, int] | None:
    """The function whose name is at ``name_at`` and the index of its body's ``{``."""
    at = name_at + 1
    generic: set[str] = set()
    if texts[at] == "<":  # its generic parameters' names: types rgr cannot write
        while at < len(texts) and texts[at] != "(":
            if tokens[at].kind == "word" and texts[at - 1] in ("<", ","):
                generic.add(texts[at])
            at += 1
    if at >= len(texts) or texts[at] != "(" or at not in pairs:
        return None
    close = pairs[at]
    types: list[str] = []
    for first, last in _parts(texts, pairs, at + 1, close):
        words = texts[first:last]
        if "self" in words:
            return None  # a method
        colon = words.index(":") if ":" in words else -1
        kind = "".join(words[colon + 1:]) if colon >= 0 else ""
        types.append("" if generic & set(words[colon + 1:]) or "impl" in words else kind)
    body = close + 1
    while body < len(texts) and texts[body] not in ("{", ";"):
        body += 1
    if body >= len(texts) or texts[body] != "{":
        return None
    return Function(texts[name_at], tuple(types)), body


def _parts(texts: list[str], pairs: dict[int, int], start: int, end: int
           ) -> list[tuple[int, int]]:
    """The top-level, comma-separated parts of ``texts[start:end]`` (a type's ``<...>``
    held together)."""
    parts, first, at, angle = [], start, start, 0
    while at < end:
        text = texts[at]
        if text in ("(", "[", "{") and at in pairs:
            at = pairs[at] + 1
            continue
        angle += (text == "<") - (text == ">")
        if text == "," and angle <= 0:
            parts.append((first, at))
            first = at + 1
        at += 1
    if first < end:
        parts.append((first, end))
    return parts


def _literal(tokens: list[Token], first: int, last: int) -> str | None:
    """The literal that is the whole of ``tokens[first:last]``, as written, or None."""
    texts = [t.text for t in tokens[first:last]]
    if len(texts) == 2 and texts[0] == "-" and tokens[first + 1].kind == "number":
        return "-" + texts[1]
    if len(texts) != 1:
        return None
    token = tokens[first]
    if token.kind in ("number", "string", "char") or token.text in _LITERAL_WORDS:
        return token.text
    return None


def calls_in(source: str, name: str) -> list[tuple[str, ...]]:
    """The argument lists (each argument's literal, as written) of the calls of ``name``
    in ``source`` whose arguments are all literals (a literal converted, ``"a"
    .to_string()``, ``String::from("a")``, counts as the literal)."""
    tokens = plain_values(tokens_of(source, "rust"))
    texts = [t.text for t in tokens]
    pairs = bracket_pairs(texts)
    found: list[tuple[str, ...]] = []
    for at, text in enumerate(texts[:-1]):
        if text != name or texts[at + 1] != "(" or (at and texts[at - 1] in ("fn", ".")) \
                or at + 1 not in pairs:
            continue
        close = pairs[at + 1]
        args = [_literal(tokens, first, last)
                for first, last in _parts(texts, pairs, at + 2, close)]
        if args and all(a is not None for a in args):
            found.append(tuple(a for a in args if a is not None))
    return found


def calls_to_try(function: Function, given: Iterable[tuple[str, ...]],
                 limit: int = MAX_CALLS) -> list[str]:
    """Argument lists (Rust source) to call ``function`` with: each of ``given`` (the
    tests' calls) then the same with one argument varied, each written for its
    parameter's type."""
    out: list[str] = []
    for args in dict.fromkeys(given):
        if len(args) != len(function.types):
            continue
        kinds = function.types
        variants = [args] + [(*args[:at], near, *args[at + 1:])
                             for at, arg in enumerate(args) for near in _near(arg, kinds[at])]
        for variant in variants:
            text = ", ".join(_as_type(a, k) for a, k in zip(variant, kinds, strict=True))
            if text not in out:
                out.append(text)
    return out[:limit]


def _as_type(arg: str, kind: str) -> str:
    if kind == "String" and arg.startswith('"'):
        return f"String::from({arg})"
    if kind == "&String" and arg.startswith('"'):
        return f"&String::from({arg})"
    return arg


_NUMBER = re.compile(r"-?\d[\d_]*(\.\d[\d_]*)?([eE][-+]?\d+)?$")


def _near(arg: str, kind: str) -> list[str]:
    """Values near ``arg`` for a parameter of type ``kind`` (none for a type rgr does
    not know how to write)."""
    if arg in _LITERAL_WORDS and kind == "bool":
        return ["false" if arg == "true" else "true"]
    if kind in _FLOATS and _NUMBER.match(arg):
        value = float(arg.replace("_", ""))
        return [repr(x) for x in (0.0, -value, value + 1)]
    if (kind in _SIGNED or kind in _UNSIGNED) and _NUMBER.match(arg) and "." not in arg:
        number = int(arg.replace("_", ""))
        near = [0, 1, -1, number - 1, number + 1]
        return [str(x) for x in near if x >= 0 or kind in _SIGNED]
    if kind in _STRINGS and arg.startswith('"') and arg.endswith('"') and len(arg) >= 2:
        inner = arg[1:-1]
        return ['""', f'"{inner}{inner}"'] if inner else ['"a"']
    return []


def program(function: str, calls: list[str]) -> str:
    """The ``#[cfg(test)]`` module appended to the function's file: one test printing,
    for each call, what it returns (``{:?}``) or that it panics."""
    rows = "".join(f"            Box::new(|| std::format!(\"{{:?}}\", super::{function}({c}))),\n"
                   for c in calls)
    # std named in full: a #![no_std] library's module has only core's prelude
    return (f"\n#[cfg(test)]\n#[allow(unused, clippy::all)]\nmod {_MODULE} {{\n"
            f"    extern crate std;\n    use std::prelude::v1::*;\n\n"
            f"    #[test]\n    fn {_MODULE}() {{\n"
            f"        std::panic::set_hook(Box::new(|_| {{}}));\n"
            f"        let calls: Vec<Box<dyn Fn() -> String>> = std::vec![\n{rows}        ];\n"
            f"        for (i, call) in calls.iter().enumerate() {{\n"
            f"            let out = match std::panic::catch_unwind("
            f"std::panic::AssertUnwindSafe(|| call())) {{\n"
            f"                Ok(value) => std::format!(\"returns {{}}\", value),\n"
            f"                Err(_) => String::from(\"panics\"),\n"
            f"            }};\n"
            f"            std::println!(\"{_MARK} {{}} {{:?}}\", i, out);\n"
            f"        }}\n    }}\n}}\n")


def find(path: str, original: str, mutated: str, line: int,
         facts: Iterable[tuple[str, tuple[str, ...]]], tree: Path, launcher: Launcher | None,
         env: Mapping[str, str], seconds: float) -> str | None:
    """The telling input of the mutant of ``path`` at ``line`` (``mutated``: the whole
    file), in words, or None when no call tried tells it apart (or its function is a
    method, or nothing built). ``facts``: the gate's (unused: the tests are read here)."""
    function = function_at(original, line)
    crate = _crate_folder(tree, path)
    if function is None or crate is None:
        return None
    calls = calls_to_try(function, [args for text in test_sources(crate, function.name)
                                    for args in calls_in(text, function.name)])
    if not calls:
        return None
    code = tree / path
    helper = program(function.name, calls)
    argv = ("cargo", "test", "--quiet", _target(crate, tree / path), _MODULE, "--",
            "--nocapture", "--test-threads=1")
    # the original's answers are the same for every survivor of the file in one
    # checkout: one build, not one per survivor
    key = (str(tree), path, original, tuple(calls))
    try:
        first = _ORIGINAL.get(key)
        if first is None:
            code.write_text(original + helper, encoding="utf-8")
            first = _outcomes(argv, crate, launcher, env, seconds / 2)
            _ORIGINAL.clear()
            _ORIGINAL[key] = first
        code.write_text(mutated + helper, encoding="utf-8")
        second = _outcomes(argv, crate, launcher, env, seconds / 2) if first else {}
    finally:
        code.write_text(original, encoding="utf-8")
    for index, call in enumerate(calls):
        was, now = first.get(index), second.get(index)
        if was is not None and now is not None and was != now:
            return f"{function.name}({call}): the original {was} against the mutant {now}"
    return None


def test_sources(crate: Path, name: str) -> list[str]:
    """The texts of the crate's Rust files under ``tests/`` and ``src/`` that name
    ``name`` (the integration tests and the source files' own test modules)."""
    found: list[str] = []
    for folder in (crate / "tests", crate / "src"):
        for where, folders, files in os.walk(folder):
            folders[:] = sorted(f for f in folders if f not in _SKIPPED_FOLDERS)
            for file in sorted(files):
                if not file.endswith(".rs"):
                    continue
                try:
                    text = (Path(where) / file).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                if name in text and len(text) <= _MAX_FILE_CHARS:
                    found.append(text)
                    if len(found) >= _MAX_FILES:
                        return found
    return found


def _crate_folder(tree: Path, path: str) -> Path | None:
    """The folder of the package manifest nearest above ``path``, inside ``tree``."""
    folder = (tree / path).parent
    while True:
        if (folder / "Cargo.toml").is_file():
            return folder
        if folder == tree or tree not in folder.parents:
            return None
        folder = folder.parent


def _target(crate: Path, file: Path) -> str:
    """The cargo target the file is compiled in: the library, unless the crate has none
    or the file is a binary's (``src/main.rs``, ``src/bin/``)."""
    relative = file.relative_to(crate).as_posix()
    if relative == "src/main.rs" or relative.startswith("src/bin/"):
        return "--bins"
    manifest = (crate / "Cargo.toml").read_text(encoding="utf-8", errors="replace")
    has_lib = (crate / "src" / "lib.rs").is_file() or re.search(r"^\[lib\]", manifest, re.M)
    return "--lib" if has_lib else "--bins"


def _outcomes(argv: tuple[str, ...], crate: Path, launcher: Launcher | None,
              env: Mapping[str, str], seconds: float) -> dict[int, str]:
    try:
        done = run(argv, cwd=crate, timeout=max(1.0, seconds), env=env, launcher=launcher)
    except (CommandError, OSError):
        return {}
    found: dict[int, str] = {}
    for line in done.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0] == _MARK and parts[1].isdigit():
            try:  # Rust's {:?} of a string: JSON's escapes but for \u{..}
                found[int(parts[1])] = str(json.loads(parts[2]))[:200]
            except ValueError:
                found[int(parts[1])] = parts[2][1:-1][:200]
    return found
