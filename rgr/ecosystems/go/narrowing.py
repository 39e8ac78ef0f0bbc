"""How a mutant of a Go file runs: the command's ``./...`` becomes the changed file's
package and the packages that import it, directly or not
(rgr.ecosystems.go.runner.packages_reaching). Exact: a package's test binary contains
only what it imports, so no other test can notice. Run in two steps, each stopping at
the first failure: first the tests of the file's own ``_test.go`` (``x.go``:
``x_test.go``; else the whole package), and only when they all pass, the rest. A mutant
is killed by one failing test, so most end after the first step; a survivor still faces
every test that can see it. Every Go run of a mutant has ``-vet=off -count=1`` where the
command does not say otherwise (rgr.ecosystems.go.runner.for_mutants: vet is no test,
and costs most of a cold build cache's run; no answer replayed from the test cache).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.go import runner as go
from rgr.ecosystems.scope import Scope


def scope(cmd: TestCommand, root: Path, path: str) -> Scope | None:
    """The scope of a change of ``path`` for ``go test``; None for another runner."""
    if cmd.runner != "go" or not path.endswith(".go"):
        return None
    return _go_scope(replace(cmd, argv=go.for_mutants(cmd.argv)), root, path)


def _go_scope(cmd: TestCommand, root: Path, path: str) -> Scope:
    """The scope of a change of the .go file ``path``: its package's tests, then the
    packages importing it (``cmd``: the user's command, with a mutant's flags)."""
    packages = go.packages_reaching(root, path) if "./..." in cmd.argv else None
    if packages is None:
        return Scope(cmd)
    own = go.package_pattern(path)
    importers = tuple(p for p in packages if p != own)
    # A command that picks its own tests keeps them: a second -run would replace
    # the user's, and could run a test they leave out on purpose.
    picks = any(word.startswith(("-run", "--run", "-skip", "--skip"))
                for word in cmd.argv)
    named = () if picks else go.tests_beside(root, path)
    if named:  # the tests written for this file first: they kill most mutants
        first = _go_packages(cmd, (own,), ("-run", f"^({'|'.join(named)})$"))
        return Scope(_go_packages(cmd, packages), first=first)
    if not importers:
        return Scope(_go_packages(cmd, (own,)))
    return Scope(_go_packages(cmd, importers), first=_go_packages(cmd, (own,)))


def _go_packages(cmd: TestCommand, packages: tuple[str, ...],
                 flags: tuple[str, ...] = ()) -> TestCommand:
    """``cmd`` with its ``./...`` made ``packages`` (after ``flags``), stopping at a
    package's first failing test (``-failfast``: one failure is all a mutant's run needs
    to know)."""
    at = cmd.argv.index("./...")
    head = cmd.argv[:at]
    if "-failfast" not in head and "test" in head:
        test = head.index("test") + 1
        head = (*head[:test], "-failfast", *head[test:])
    return replace(cmd, argv=(*head, *flags, *packages, *cmd.argv[at + 1:]))
