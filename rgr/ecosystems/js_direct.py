"""The project's JavaScript runner started directly, for the mutation gate's runs: where
the test command is ``npx <runner> ...``, or an ``npm test`` or ``npm run <name>`` whose
script is one plain runner invocation, the same runner with the same arguments, from
``node_modules/.bin``.

Why: on a small suite a mutant's run is mostly start-up, and npm's is the larger part
(``npx mocha --version`` used 0.49 s of CPU here against 0.15 s for
``node_modules/.bin/mocha``). The phase's own run keeps the user's command; only the
gate's mutant runs take this path, and only after the direct command passed unmutated
with the phase's own results (rgr.check.mutation.gate).

Only what rgr can reproduce without a shell takes the direct path. An ``npm test`` keeps
the slow one when its script is more than one command (``&&``, ``;``, ``|``), sets a
variable (``NODE_ENV=test mocha``), has a ``pretest``/``posttest`` hook (``pre<name>``/
``post<name>`` for ``npm run <name>``), uses anything a
shell would expand (``$``, backquotes, unquoted globs, ``~``, redirections), when the
script's first word is not the runner itself, or when the project's ``.npmrc`` may
change how npm runs it. Nothing here ever starts a shell: the script's words are read
by a strict reader that refuses every character a shell gives a meaning to, quotes
excepted.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from rgr.base.config import TestCommand
from rgr.ecosystems.js_modules import package_json

#: The runners whose own executable npm puts in ``node_modules/.bin``.
_BIN_RUNNERS = frozenset({"mocha", "jest", "vitest"})
#: ``npm test`` and its spellings.
_NPM_TEST = (("npm", "test"), ("npm", "t"), ("npm", "run", "test"),
             ("npm", "run-script", "test"))
#: One word of a plain script: unquoted characters no shell expands or splits on,
#: single-quoted text, double-quoted text without ``$``, backquote, ``\`` or ``!``.
_SEGMENT = re.compile(r"""[A-Za-z0-9_./:=@+,-]+|'[^']*'|"[^"$`\\!]*\"""")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def direct_command(cmd: TestCommand, root: Path) -> TestCommand | None:
    """``cmd`` as the runner's own executable with the same arguments, or None where
    that is not provably the same run (then the gate keeps ``cmd``)."""
    if cmd.shell or not cmd.argv:
        return None
    argv = cmd.argv
    if argv[0] == "npx":
        words: list[str] | None = list(argv[1:])
    else:
        words = _npm_test_words(argv, root)
    if not words or words[0] != cmd.runner:
        return None
    if cmd.runner == "node":  # node's runner: node itself, found as npm finds it
        return replace(cmd, argv=tuple(words))
    if cmd.runner not in _BIN_RUNNERS:
        return None
    executable = _bin(root, cmd.runner)
    return None if executable is None else replace(cmd, argv=(executable, *words[1:]))


def _npm_test_words(argv: tuple[str, ...], root: Path) -> list[str] | None:
    """The words ``npm test`` or ``npm run <name>`` runs (its script's, then what follows
    ``--``), or None."""
    head: tuple[str, ...] = argv
    extra: tuple[str, ...] = ()
    if "--" in argv:
        at = argv.index("--")
        head, extra = argv[:at], argv[at + 1:]
    name = _script_name(head)
    if name is None or (root / ".npmrc").exists():
        return None
    scripts = _scripts(root)
    if scripts is None or f"pre{name}" in scripts or f"post{name}" in scripts:
        return None
    script = scripts.get(name)
    words = plain_words(script) if isinstance(script, str) else None
    if not words or _ASSIGNMENT.match(words[0]):
        return None
    return [*words, *extra]


def _script_name(head: tuple[str, ...]) -> str | None:
    """The package script ``npm test`` or ``npm run <name>`` runs, or None."""
    if head in _NPM_TEST:
        return "test"
    if len(head) == 3 and head[:2] in (("npm", "run"), ("npm", "run-script")):
        return head[2]
    return None


def plain_words(script: str) -> list[str] | None:
    """The words of ``script`` when it is one plain command a shell would run as
    written (no expansion, no second command, no redirection), else None."""
    words: list[str] = []
    position = 0
    while position < len(script):
        if script[position] in " \t":
            position += 1
            continue
        word = ""
        while position < len(script) and script[position] not in " \t":
            match = _SEGMENT.match(script, position)
            if match is None:
                return None  # a character the shell would give a meaning to
            segment = match.group()
            word += segment[1:-1] if segment[0] in "'\"" else segment
            position = match.end()
        words.append(word)
    return words or None


def _scripts(root: Path) -> dict[str, Any] | None:
    package = package_json(root)
    scripts = package.get("scripts") if package is not None else None
    return scripts if isinstance(scripts, dict) else None


def _bin(root: Path, runner: str) -> str | None:
    """``node_modules/.bin/<runner>``, relative (every checkout of the gate has its
    own). Where the checkout holds ``node_modules``, the executable must be there and
    lead into it (else ``npx`` would fetch the runner: not the same run). A sealed
    checkout has none on rgr's side (the sandbox maps the user's in): the unmutated
    run the gate checks first is then the proof that it is there."""
    relative = f"node_modules/.bin/{runner}"
    modules = root / "node_modules"
    if not modules.exists():
        return relative
    try:
        target = (root / relative).resolve(strict=True)
        inside = modules.resolve(strict=True)
    except OSError:
        return None
    return relative if target.is_file() and target.is_relative_to(inside) else None
