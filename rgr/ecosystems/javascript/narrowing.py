"""How a mutant of a JavaScript or TypeScript file runs (Mocha, Jest, Vitest, node's
runner): the test files that do not load the changed module
(rgr.ecosystems.javascript.reach) are left out of the mutant's checkout for its run, and
put back after. Leaving files out, rather than naming the kept ones on the command line,
works with every runner and configuration: Mocha adds named files to the ``spec`` of its
configuration or of an ``npm test`` script (it would still run them all), Jest and
Vitest read names as patterns. Not exact (a test can load a module in ways a reading of
its text cannot follow), so the gate runs a survivor again with every test. A package
mixing node's runner and Jest (rgr.ecosystems.javascript.mixed) is narrowed the same
way: its script is settled in the narrowed checkout, so each runner gets its kept files
only; its narrowed suite must pass unmutated, as Mocha's must, before its kills count.

The command itself: ``npx mocha ...``, or an ``npm test`` or ``npm run X`` whose script
is one plain runner invocation, runs as the runner's own executable with the same
arguments (rgr.ecosystems.javascript.direct): npm's start-up is most of a small suite's
run. The script's hooks are not run, and its unquoted globs are expanded as npm's shell
would, in the checkout as it is for each run (``Scope.command_in``). Not exact either:
the gate holds the direct run, unmutated, to the phase's own results before its kills
count, and runs a survivor again with the user's command.
"""

from __future__ import annotations

from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.javascript import direct as js_direct
from rgr.ecosystems.javascript import mixed as js_mixed
from rgr.ecosystems.javascript import modules as js_modules
from rgr.ecosystems.javascript import reach as js_reach
from rgr.ecosystems.scope import Scope

#: The JavaScript runners whose suite is the test files found in the project.
_JS_RUNNERS = frozenset({"mocha", "jest", "vitest", "node"})


def scope(cmd: TestCommand, root: Path, path: str) -> Scope | None:
    """The scope of a change of ``path`` for a JavaScript runner; None for another
    runner or a file that is not JavaScript's."""
    if not path.endswith(js_modules.SOURCES):
        return None
    if cmd.runner == js_mixed.NAME:
        return _mixed_scope(cmd, root, path)
    if cmd.runner not in _JS_RUNNERS:
        return None
    found = js_reach.reach(root, path)
    kept_out = found.left_out if found is not None else ()
    direct = js_direct.direct_command(cmd, root)
    if kept_out or direct is not None:
        return Scope(direct or cmd, kept_out, exact=False,
                     shared_process=cmd.runner == "mocha", direct=direct is not None,
                     instead_of="npm" if direct is not None else "",
                     user=cmd if direct is not None else None,
                     reread=js_direct.read_again if direct is not None else None)
    return Scope(cmd)


def _mixed_scope(cmd: TestCommand, root: Path, path: str) -> Scope:
    """A package mixing node's runner and Jest (rgr.ecosystems.javascript.mixed): the test files
    that do not load ``path`` left out, as for one runner. The command is settled again
    in the narrowed checkout, so each runner gets only its kept files, and a runner left
    with none is not started. Narrowed only where a kept file is one a runner here is
    sure to run (a JavaScript node:test or tape file, a Jest file): a run of no test at
    all is no test failing, and would read as a kill. The narrowed suite runs once
    unmutated before its kills count (``checked``): a kept test that needs one left out
    (a file it reads, a fixture it writes) fails there, not only on a mutant."""
    found = js_reach.reach(root, path)
    if found is None or not found.left_out:
        return Scope(cmd)
    owned = js_mixed.owners(root)
    if not set(found.selected) & {*owned.node, *owned.jest}:
        return Scope(cmd)
    return Scope(cmd, found.left_out, exact=False, checked=True)
