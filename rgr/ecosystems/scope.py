"""The tests a mutant of one file has to face, as one ``Scope``: the command, the test
files left out of the checkout for its run, a narrower first run, and what must hold
before its kills count. Each runner narrows its own (its language's ``narrowing``
module, listed in rgr.ecosystems.registry.NARROWINGS); rgr.ecosystems.test_scope asks
them. A runner's direct form (JavaScript's, Java's) hands its own readers to the scope,
which names no runner."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from rgr.base.config import TestCommand


@dataclass(frozen=True)
class Scope:
    """How a mutant of one file runs: ``cmd``, with ``left_out`` (relative test files)
    taken out of the checkout for the run. ``exact``: no test left out can notice the
    change."""

    cmd: TestCommand
    left_out: tuple[str, ...] = ()
    exact: bool = True
    #: The kept and the left-out test files share one process (Mocha): one left out
    #: may hold a root hook or install a plugin the kept ones need, so the narrowed
    #: suite has to pass unmutated before its kills count. Jest, Vitest and node's
    #: runner load each file apart.
    shared_process: bool = False
    #: The narrowed suite must pass unmutated before its kills count, for a reason of
    #: its own (a package mixing two runners, rgr.ecosystems.javascript.mixed: its command is
    #: made again from the files the narrowed checkout holds).
    checked: bool = False
    #: A narrower run to try first (Go: the changed package alone): when a test of it
    #: fails, the mutant is killed and ``cmd`` (then: the importing packages) is not run.
    first: TestCommand | None = None
    #: ``cmd`` is rgr's direct form of the user's command (rgr.ecosystems.javascript.direct),
    #: or ``first`` is a direct run of the tests (rgr.ecosystems.jvm.direct, where
    #: ``plain_first`` is set): its unmutated run must give the phase's own results
    #: before its kills count.
    direct: bool = False
    #: What a direct run goes without, as messages name it (``npm``, ``Maven``).
    instead_of: str = ""
    #: The user's command a direct ``cmd`` stands for (None: ``cmd`` is run as it is).
    user: TestCommand | None = None
    #: How a direct ``cmd`` is read again in a checkout as it is now (its globs matched
    #: there), None where it no longer reads as direct: its runner's
    #: (rgr.ecosystems.javascript.direct.read_again).
    reread: Callable[[TestCommand, TestCommand, Path], TestCommand | None] | None = field(
        default=None, compare=False)
    #: ``cmd`` without its npm script's hooks (rgr.ecosystems.javascript.direct.without_hooks):
    #: run when ``cmd`` failed before any test reported, since a mutant is killed by a
    #: test failing, not by a hook (a lint) that stopped the run first.
    hookless: TestCommand | None = None
    #: ``first`` can fail for reasons of its own (cargo refusing a target the manifest
    #: sets apart): only a failing test or a timeout in it settles a mutant; anything
    #: else, a build error included, runs ``cmd``.
    first_needs_a_failing_test: bool = False
    #: Java: the Maven form of ``first``, for a checkout not built for the direct run
    #: yet, a mutant the direct run may not take, and a direct run that disagreed.
    plain_first: TestCommand | None = None
    #: Whether a direct ``first`` may take a mutant of a line of the source (Java's: not
    #: a constant's declaration), whether a checkout has what it needs, and the test
    #: files it runs (those whose results the phase's own run must match): its runner's
    #: (rgr.ecosystems.jvm.direct.may_run, .ready, .test_files).
    may_run: Callable[[str, int], bool] | None = field(default=None, compare=False)
    ready: Callable[[Path, TestCommand], bool] | None = field(default=None, compare=False)
    test_files: Callable[[TestCommand], frozenset[str]] | None = field(default=None,
                                                                        compare=False)

    @property
    def narrowed(self) -> bool:
        return bool(self.left_out)

    def command_in(self, tree: Path) -> TestCommand:
        """The command to run in the checkout ``tree`` now, its left-out files already
        out: a direct command read again there, so that its globs match the files as
        npm's shell would see them at this moment (a test file left out is no argument,
        one a test wrote is); the user's command where it no longer reads as direct."""
        if self.user is None:
            return self.cmd
        again = self.reread(self.cmd, self.user, tree) if self.reread is not None else None
        return again or self.user

    def checked_in(self, tree: Path) -> TestCommand:
        """The command a direct scope's unmutated run checks in ``tree``: Java's direct
        first step, else the direct command."""
        if self.plain_first is not None and self.first is not None:
            return self.first
        return self.command_in(tree)

    def undirected(self, cmd: TestCommand) -> Scope:
        """This scope without rgr's direct runs: the user's ``cmd`` (JavaScript's
        direct scope holds the direct command itself), Java's with Maven's first step."""
        if self.plain_first is not None:
            return replace(self, first=self.plain_first, direct=False, plain_first=None,
                           may_run=None, ready=None, test_files=None, instead_of="")
        return Scope(cmd)

    def first_ready(self, tree: Path) -> bool:
        """Whether the checkout ``tree`` has what ``first`` needs (a direct one: what its
        runner's ``ready`` asks, Java's a Maven run there); False without a ``first``."""
        return self.first is not None and (self.ready is None
                                           or self.ready(tree, self.first))

    def first_in(self, tree: Path, source: str, lines: tuple[int, ...],
                 tainted: set[Path]) -> TestCommand | None:
        """``first`` for a mutant of ``lines`` (of the file's ``source``) in the
        checkout ``tree``: Maven's where the direct run may not take it, the checkout
        lacks what it needs, or is ``tainted`` (rgr.ecosystems.jvm.direct). A mutant of
        a constant built by Maven leaves its value copied into the classes the checkout
        compiled: that checkout joins ``tainted`` and runs no more mutants directly."""
        if self.plain_first is None or self.first is None:
            return self.first
        if self.may_run is not None and not all(self.may_run(source, line)
                                                for line in lines):
            tainted.add(tree)
            return self.plain_first
        if tree not in tainted and (self.ready is None or self.ready(tree, self.first)):
            return self.first
        return self.plain_first


@contextmanager
def left_out(tree: Path, paths: tuple[str, ...]) -> Iterator[None]:
    """``paths`` (files of the checkout ``tree``) taken out for the block, then put back
    byte for byte: the checkout is the gate's own, and the next mutant's run needs them."""
    kept: dict[Path, tuple[bytes, int]] = {}
    try:
        for path in paths:
            file = tree / path
            if file.is_file() and not file.is_symlink():
                kept[file] = (file.read_bytes(), file.stat().st_mode)
                file.unlink()
        yield
    finally:
        for file, (data, mode) in kept.items():
            file.write_bytes(data)
            file.chmod(mode)
