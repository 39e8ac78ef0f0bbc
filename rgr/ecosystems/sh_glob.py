"""Pathname expansion of one unquoted script word, as npm's ``sh -c`` does it, without a
shell (rgr.ecosystems.javascript.direct starts a script's runner directly, so it must hand the
runner the very arguments the shell would have).

npm runs a package script with ``sh -c`` (dash on Debian and Ubuntu). dash expands an
unquoted word holding ``*``, ``?`` or a bracket expression by POSIX rules: one path
segment at a time (no globstar: ``**`` matches as ``*``, inside one segment); a name
starting with ``.`` only when the segment's pattern starts with ``.`` (and then ``.``
and ``..`` too); a segment followed by ``/`` only through a directory; the results of
the word sorted byte by byte; a pattern matching nothing left as it is (the runner then
gets it literally). tests/ecosystems/test_sh_glob.py holds this to real dash on a tree of files.

Only a strict subset of patterns is taken (``accepts``): ``*``, ``?`` and brackets of
plain characters and ranges (``[abc]``, ``[!a-z]``), relative paths without ``..``,
whose first segment is a plain name (``test/*.js``, not ``*.test.js``) and that never
match or pass through a folder the sandbox maps into a checkout (``node_modules``).
Anything else (character classes, a ``]`` first in a bracket, a stray bracket,
backslashes) is refused: the caller keeps npm and its shell. A directory holding a
name that is not ASCII is refused too: there dash (which matches bytes) and a shell
matching characters in the user's locale (bash, newer dash) could disagree.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: A character the pattern may hold outside brackets, besides the wildcards.
_PLAIN = r"A-Za-z0-9_.:=@+,\-"
#: One segment of an accepted pattern: plain characters, ``*``, ``?`` and brackets
#: (optionally ``!``-negated) of plain characters.
_SEGMENT = re.compile(rf"(?:[{_PLAIN}*?]|\[!?[{_PLAIN}]+\])*")
_BRACKET = re.compile(rf"\[(!?)([{_PLAIN}]+)\]")
_WILD = frozenset("*?[")
#: Folders the sandbox maps into a checkout (rgr.sandbox.toolchain): on rgr's side an
#: empty mount point (or nothing, before the first sealed run), full inside. A pattern
#: that could list or match one is refused, and so is a wildcard in the first segment
#: (the checkout's top holds the mount points, and a virtualenv may have any name).
_MAPPED = frozenset({"node_modules", ".venv", "venv", "vendor"})


def is_pattern(word: str) -> bool:
    """Whether the shell would try to expand ``word`` (an unquoted wildcard)."""
    return any(char in _WILD for char in word)


def accepts(word: str) -> bool:
    """Whether ``word`` is a pattern of the subset rgr reproduces exactly."""
    if not is_pattern(word) or word.startswith("/"):
        return False
    segments = [s for s in word.split("/") if s != "."]
    if not segments or is_pattern(segments[0]) or any(s in _MAPPED for s in segments):
        return False
    return all(_SEGMENT.fullmatch(s) is not None and s != ".." for s in segments)


def expand(word: str, root: Path) -> list[str] | None:
    """The arguments ``word`` becomes when the shell runs in ``root``: the sorted
    matches, or ``[word]`` when nothing matches. None where rgr does not reproduce it
    (a pattern outside the subset, a name that is not ASCII)."""
    if not accepts(word):
        return None
    found: list[str] = []
    if not _walk(root, "", word, found):
        return None
    return sorted(found) if found else [word]


def _walk(root: Path, done: str, rest: str, found: list[str]) -> bool:
    """Adds to ``found`` the paths ``done + rest`` matches, ``done`` being expanded
    text (empty, or ending with ``/``); False when a name met is not ASCII."""
    parts = rest.split("/")
    wild = next((n for n, part in enumerate(parts) if is_pattern(part)), None)
    if wild is None:  # a literal tail: kept when it exists (a broken link does)
        # A string path, not pathlib's: a trailing ``/`` (``test/*/``) must stay, so
        # that only a directory matches.
        if os.path.lexists(os.path.join(root, done + rest)):
            found.append(done + rest)
        return True
    here = done + "".join(f"{part}/" for part in parts[:wild])
    segment, at_end = parts[wild], wild == len(parts) - 1
    matches = _matcher(segment)
    try:
        names = os.listdir(root / here) if here else os.listdir(root)
    except OSError:  # not a directory, or none: nothing matches through it
        return True
    dots = segment.startswith(".")
    for name in ([".", ".."] if dots else []) + names:
        if not name.isascii():
            return False
        if (name.startswith(".") and not dots) or matches.fullmatch(name) is None:
            continue
        if name in _MAPPED or (name == ".." and not at_end):
            return False  # a mount point, or out of the folder the pattern names
        if at_end:
            found.append(here + name)
        elif not _walk(root, f"{here}{name}/", "/".join(parts[wild + 1:]), found):
            return False
    return True


def _matcher(segment: str) -> re.Pattern[str]:
    """``segment`` (an accepted one) as a regular expression over one name."""
    out: list[str] = []
    position = 0
    while position < len(segment):
        char = segment[position]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "[":
            bracket = _BRACKET.match(segment, position)
            assert bracket is not None  # accepts() saw every bracket closed
            out.append(_bracket(bracket.group(2), negated=bool(bracket.group(1))))
            position = bracket.end()
            continue
        else:
            out.append(re.escape(char))
        position += 1
    return re.compile("".join(out), re.DOTALL)


def _bracket(body: str, negated: bool) -> str:
    """A bracket's characters as dash reads them: ``a-c`` a range (by byte value; an
    inverted one matches nothing), a ``-`` first or last itself."""
    chars: set[str] = set()
    position = 0
    while position < len(body):
        char = body[position]
        if position + 2 < len(body) and body[position + 1] == "-":
            low, high = ord(char), ord(body[position + 2])
            chars.update(chr(code) for code in range(low, high + 1))
            position += 3
            continue
        chars.add(char)
        position += 1
    if not chars:  # only inverted ranges: nothing (or, negated, anything) matches
        return "." if negated else "(?!)"
    members = "".join(re.escape(c) for c in sorted(chars))
    return f"[^{members}]" if negated else f"[{members}]"
