"""The tests a mutant of one file has to face: only those that can see the file.

* Go: the command's ``./...`` becomes the changed file's package and the packages that
  import it, directly or not (rgr.ecosystems.go.runner.packages_reaching). Exact: a package's
  test binary contains only what it imports, so no other test can notice. Run in two
  steps, each stopping at the first failure: first the tests of the file's own
  ``_test.go`` (``x.go``: ``x_test.go``; else the whole package), and only when they
  all pass, the rest. A mutant is killed by one failing test, so most end after the
  first step; a survivor still faces every test that can see it. Every Go run of a
  mutant has ``-vet=off -count=1`` where the command does not say otherwise
  (rgr.ecosystems.go.runner.for_mutants: vet is no test, and costs most of a cold build cache's
  run; no answer replayed from the test cache).
* JavaScript/TypeScript (Mocha, Jest, Vitest, node:test): the test files that do not
  load the changed module (rgr.ecosystems.javascript.reach) are left out of the mutant's
  checkout for its run, and put back after. Leaving files out, rather than naming the
  kept ones on the command line, works with every runner and configuration: Mocha adds
  named files to the ``spec`` of its configuration or of an ``npm test`` script (it
  would still run them all), Jest and Vitest read names as patterns. Not exact (a test
  can load a module in ways a reading of its text cannot follow), so the gate runs a
  survivor again with every test. A package mixing node's runner and Jest
  (rgr.ecosystems.javascript.mixed) is narrowed the same way: its script is settled in the
  narrowed checkout, so each runner gets its kept files only; its narrowed suite must
  pass unmutated, as Mocha's must, before its kills count.
* JavaScript, the command itself: ``npx mocha ...``, or an ``npm test`` or ``npm run X``
  whose script is one plain runner invocation, runs as the runner's own executable with
  the same arguments (rgr.ecosystems.javascript.direct): npm's start-up is most of a small
  suite's run.
  The script's hooks are not run, and its unquoted globs are expanded as npm's shell
  would, in the checkout as it is for each run (``Scope.command_in``).
  Not exact either: the gate holds the direct run, unmutated, to the phase's own
  results before its kills count, and runs a survivor again with the user's command.
* Java (Maven): first the test classes written for the changed class (``Foo.java``:
  ``FooTest``, ``FooTests``, ``TestFoo``, through Surefire's ``-Dtest``), and only when
  they all pass, the whole suite. Exact: a survivor faces every test. (Gradle runs the
  whole suite for each mutant.) With JUnit 4 test classes, that first step runs without
  Maven where the checkout is built for it (rgr.ecosystems.jvm.direct): held, like
  JavaScript's direct run, to the phase's own results unmutated.
* Rust (``cargo test``, a package at the root): first the test targets written for the
  changed file (``src/ranges.rs``: ``--test ranges`` for ``tests/ranges.rs``, ``--lib``
  when the file holds unit tests; rgr.ecosystems.rust.cargo_targets), without the other test
  crates, the library's second build with ``cfg(test)`` and the doc tests; only when they
  all pass, the whole command. A first run settles a mutant only by a failing test (or a
  timeout): one that builds nothing or runs no test, for whatever reason, gives way to
  the whole command. Exact: a survivor faces every test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.go import runner as go
from rgr.ecosystems.javascript import direct as js_direct
from rgr.ecosystems.javascript import mixed as js_mixed
from rgr.ecosystems.javascript import modules as js_modules
from rgr.ecosystems.javascript import reach as js_reach
from rgr.ecosystems.jvm import direct as jvm_direct
from rgr.ecosystems.jvm import runner as jvm
from rgr.ecosystems.rust import cargo_targets

#: The JavaScript runners whose suite is the test files found in the project.
_JS_RUNNERS = frozenset({"mocha", "jest", "vitest", "node"})


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
    #: The user's command a direct ``cmd`` stands for (None: ``cmd`` is run as it is).
    user: TestCommand | None = None
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
        return js_direct.read_again(self.cmd, self.user, tree) or self.user

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
            return replace(self, first=self.plain_first, direct=False, plain_first=None)
        return Scope(cmd)

    def first_in(self, tree: Path, source: str, lines: tuple[int, ...],
                 tainted: set[Path]) -> TestCommand | None:
        """``first`` for a mutant of ``lines`` (of the file's ``source``) in the
        checkout ``tree``: Maven's where the direct run may not take it, the checkout
        lacks what it needs, or is ``tainted`` (rgr.ecosystems.jvm.direct). A mutant of
        a constant built by Maven leaves its value copied into the classes the checkout
        compiled: that checkout joins ``tainted`` and runs no more mutants directly."""
        if self.plain_first is None or self.first is None:
            return self.first
        if not all(jvm_direct.may_run(source, line) for line in lines):
            tainted.add(tree)
            return self.plain_first
        if tree not in tainted and jvm_direct.ready(tree, self.first):
            return self.first
        return self.plain_first


def scope_of(cmd: TestCommand, root: Path, path: str) -> Scope:
    """The scope of a change of ``path`` in the checkout ``root``; the whole ``cmd``
    when rgr cannot tell which tests see it."""
    if cmd.shell:
        return Scope(cmd)
    if cmd.runner == "go" and path.endswith(".go"):
        return _go_scope(replace(cmd, argv=go.for_mutants(cmd.argv)), root, path)
    if cmd.runner == "maven" and path.endswith(".java"):
        # A command that picks its own tests keeps them (as for Go's -run).
        picks = any(word.startswith(("-Dtest=", "-Dtest ")) for word in cmd.argv)
        named = () if picks else jvm.tests_beside(root, path)
        if not named:
            return Scope(cmd)
        maven_first = _maven_tests(cmd, named)
        direct = jvm_direct.direct_command(cmd, root, path, named)
        if direct is None:
            return Scope(cmd, first=maven_first)
        return Scope(cmd, first=direct, direct=True, plain_first=maven_first)
    if cmd.runner == "cargo" and path.endswith(".rs") and cargo_targets.narrowable(cmd.argv):
        targets = cargo_targets.targets_for(root, path)
        if targets:
            return Scope(cmd, first=_cargo_targets(cmd, targets),
                         first_needs_a_failing_test=True)
        return Scope(cmd)
    if cmd.runner == js_mixed.NAME and path.endswith(js_modules.SOURCES):
        return _mixed_scope(cmd, root, path)
    if cmd.runner in _JS_RUNNERS and path.endswith(js_modules.SOURCES):
        found = js_reach.reach(root, path)
        kept_out = found.left_out if found is not None else ()
        direct = js_direct.direct_command(cmd, root)
        if kept_out or direct is not None:
            return Scope(direct or cmd, kept_out, exact=False,
                         shared_process=cmd.runner == "mocha", direct=direct is not None,
                         user=cmd if direct is not None else None)
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


def _maven_tests(cmd: TestCommand, classes: tuple[str, ...]) -> TestCommand:
    """``cmd`` running only the test classes ``classes`` (Surefire's ``-Dtest``); a module
    without them runs nothing instead of failing (both spellings: Surefire 2 and 3)."""
    return replace(cmd, argv=(*cmd.argv, f"-Dtest={','.join(classes)}",
                              "-DfailIfNoTests=false",
                              "-Dsurefire.failIfNoSpecifiedTests=false"))


def _cargo_targets(cmd: TestCommand, targets: tuple[str, ...]) -> TestCommand:
    """``cmd`` running only the test targets ``targets`` (cargo's own options, before a
    ``--`` whose words belong to the test binaries)."""
    cut = cmd.argv.index("--") if "--" in cmd.argv else len(cmd.argv)
    return replace(cmd, argv=(*cmd.argv[:cut], *targets, *cmd.argv[cut:]))


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
