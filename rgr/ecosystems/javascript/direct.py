"""The project's JavaScript runner started directly, for the mutation gate's runs: where
the test command is ``npx <runner> ...``, or an ``npm test`` or ``npm run <name>`` whose
script is one plain runner invocation, the same runner with the same arguments, from
``node_modules/.bin``.

Why: on a small suite a mutant's run is mostly start-up, and npm's is the larger part
(``npx mocha --version`` used 0.49 s of CPU here against 0.15 s for
``node_modules/.bin/mocha``). The phase's own run keeps the user's command; only the
gate's mutant runs take this path, and only after the direct command passed unmutated
with the phase's own results (rgr.check.mutation.gate).

The script's ``pre<name>``/``post<name>`` hooks (``pretest``, ``posttest``) are not run:
a hook is not a test (a lint, a build, a coverage report), and a mutant is killed by a
test that fails, never by a linter that dislikes it. A hook the tests need (a build
they load) shows as a direct run that does not give the phase's results unmutated, or
as survivors, which the gate runs again with the user's command; where that run stops
before any test reports (the lint failing on the mutant), the gate looks again without
the hooks (``without_hooks``) before it counts a kill.

An unquoted glob in the script (``mocha test/**/*.js``) is expanded as npm's ``sh -c``
(dash) would expand it (rgr.ecosystems.sh_glob: no globstar, one segment per ``*``,
sorted), in the checkout as it is for the run; rgr.check.mutation.gate re-reads the
command for every run (``Scope.command_in``).

Only what rgr can reproduce without a shell takes the direct path. An ``npm test`` keeps
the slow one when its script is more than one command (``&&``, ``;``, ``|``), sets a
variable (``NODE_ENV=test mocha``), uses anything else a shell would expand (``$``,
backquotes, ``~``, redirections, a glob outside sh_glob's subset or mixed with quotes),
when the script's first word is not the runner itself, or when the project's ``.npmrc``
may change how npm runs it. Nothing here ever starts a shell: the script's words are
read by a strict reader that refuses every character a shell gives a meaning to, quotes
and the globs it reproduces excepted.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from rgr.base.config import TestCommand
from rgr.ecosystems import sh_glob
from rgr.ecosystems.javascript.modules import package_json

#: The runners whose own executable npm puts in ``node_modules/.bin``.
_BIN_RUNNERS = frozenset({"mocha", "jest", "vitest"})
#: ``npm test`` and its spellings.
_NPM_TEST = (("npm", "test"), ("npm", "t"), ("npm", "run", "test"),
             ("npm", "run-script", "test"))
#: One word of a plain script: unquoted characters no shell expands or splits on, the
#: glob characters sh_glob reproduces, single-quoted text, double-quoted text without
#: ``$``, backquote, ``\`` or ``!``.
_SEGMENT = re.compile(r"""[A-Za-z0-9_./:=@+,*?\[\]!-]+|'[^']*'|"[^"$`\\!]*\"""")
#: What the shell gives a meaning to in an unquoted segment, beyond plain characters.
_GLOB = frozenset("*?[]!")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def direct_command(cmd: TestCommand, root: Path) -> TestCommand | None:
    """``cmd`` as the runner's own executable with the same arguments, or None where
    that is not provably the same run (then the gate keeps ``cmd``)."""
    words = _runner_words(cmd, root)
    if words is None:
        return None
    if cmd.runner == "node":  # node's runner: node itself, found as npm finds it
        return replace(cmd, argv=tuple(words))
    if cmd.runner not in _BIN_RUNNERS:
        return None
    executable = _bin(root, cmd.runner)
    return None if executable is None else replace(cmd, argv=(executable, *words[1:]))


def read_again(direct: TestCommand, user: TestCommand, root: Path) -> TestCommand | None:
    """``direct`` (``direct_command(user, ...)``) with its arguments read again in the
    checkout ``root`` as it is now (its globs matched against the files there), or None
    where they no longer read as direct. The executable stays: after a sealed run the
    checkout holds the sandbox's empty mount point for ``node_modules``."""
    words = _runner_words(user, root)
    return None if words is None else replace(direct, argv=(direct.argv[0], *words[1:]))


def without_hooks(cmd: TestCommand, root: Path) -> TestCommand | None:
    """``npm test`` or ``npm run <name>`` with npm's ``--ignore-scripts``, where the
    script has a ``pre``/``post`` hook (None otherwise: nothing to leave out). npm 7 and
    later still run the named script then, and none of its hooks: the user's own run
    with the tests only, for the gate's second look at a run that stopped before any
    test reported (a lint failing on the mutant is no test failing)."""
    if cmd.shell:
        return None
    at = cmd.argv.index("--") if "--" in cmd.argv else len(cmd.argv)
    name = _script_name(cmd.argv[:at])
    scripts = _scripts(root)
    if name is None or scripts is None or not {f"pre{name}", f"post{name}"} & set(scripts):
        return None
    return replace(cmd, argv=(*cmd.argv[:at], "--ignore-scripts", *cmd.argv[at:]))


def _runner_words(cmd: TestCommand, root: Path) -> list[str] | None:
    """The runner's name and arguments that ``cmd`` runs, or None."""
    if cmd.shell or not cmd.argv:
        return None
    words = list(cmd.argv[1:]) if cmd.argv[0] == "npx" else _npm_test_words(cmd.argv, root)
    return words if words and words[0] == cmd.runner else None


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
    # Its pre/post hooks are left out on purpose (the module's docstring says why).
    scripts = _scripts(root)
    script = scripts.get(name) if scripts is not None else None
    words = script_words(script, root) if isinstance(script, str) else None
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
    read = _read_words(script)
    if read is None or any(globbed for _word, globbed in read):
        return None
    return [word for word, _globbed in read] or None


def script_words(script: str, root: Path) -> list[str] | None:
    """The arguments ``sh -c script`` would run in ``root``: its plain words, each
    unquoted glob expanded as the shell would (rgr.ecosystems.sh_glob), or None where
    rgr cannot reproduce it (the runner's own name a glob, a glob sh_glob refuses)."""
    read = _read_words(script)
    if not read or read[0][1]:
        return None
    words: list[str] = []
    for word, globbed in read:
        expanded = sh_glob.expand(word, root) if globbed else [word]
        if expanded is None:
            return None
        words += expanded
    return words


def _read_words(script: str) -> list[tuple[str, bool]] | None:
    """Each word of ``script`` with whether the shell would expand it as a glob (an
    unquoted ``*``, ``?`` or ``[``), or None for any character the shell gives another
    meaning to, or a glob word that also holds quotes (rgr does not mix the two)."""
    words: list[tuple[str, bool]] = []
    position = 0
    while position < len(script):
        if script[position] in " \t":
            position += 1
            continue
        word, quoted, globbed = "", False, False
        while position < len(script) and script[position] not in " \t":
            match = _SEGMENT.match(script, position)
            if match is None:
                return None  # a character the shell would give a meaning to
            segment = match.group()
            if segment[0] in "'\"":
                word, quoted = word + segment[1:-1], True
            else:
                word += segment
                globbed = globbed or any(char in _GLOB for char in segment)
            position = match.end()
        if globbed and (quoted or not sh_glob.is_pattern(word)):
            return None  # quotes inside a glob, or a lone ``]``/``!``: not reproduced
        words.append((word, globbed))
    return words


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
