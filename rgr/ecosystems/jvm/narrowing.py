"""How a mutant of a Java file runs under Maven: first the test classes written for the
changed class (``Foo.java``: ``FooTest``, ``FooTests``, ``TestFoo``, through Surefire's
``-Dtest``), and only when they all pass, the whole suite. Exact: a survivor faces every
test. (Gradle runs the whole suite for each mutant.) With JUnit 4 test classes, that
first step runs without Maven where the checkout is built for it
(rgr.ecosystems.jvm.direct): held, like JavaScript's direct run, to the phase's own
results unmutated.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.jvm import direct as jvm_direct
from rgr.ecosystems.jvm import runner as jvm
from rgr.ecosystems.scope import Scope


def scope(cmd: TestCommand, root: Path, path: str) -> Scope | None:
    """The scope of a change of ``path`` for Maven; None for another runner."""
    if cmd.runner != "maven" or not path.endswith(".java"):
        return None
    # A command that picks its own tests keeps them (as for Go's -run).
    picks = any(word.startswith(("-Dtest=", "-Dtest ")) for word in cmd.argv)
    named = () if picks else jvm.tests_beside(root, path)
    if not named:
        return Scope(cmd)
    maven_first = _maven_tests(cmd, named)
    direct = jvm_direct.direct_command(cmd, root, path, named)
    if direct is None:
        return Scope(cmd, first=maven_first)
    return Scope(cmd, first=direct, direct=True, instead_of="Maven",
                 plain_first=maven_first,
                 may_run=jvm_direct.may_run, ready=jvm_direct.ready,
                 test_files=jvm_direct.test_files)


def _maven_tests(cmd: TestCommand, classes: tuple[str, ...]) -> TestCommand:
    """``cmd`` running only the test classes ``classes`` (Surefire's ``-Dtest``); a module
    without them runs nothing instead of failing (both spellings: Surefire 2 and 3)."""
    return replace(cmd, argv=(*cmd.argv, f"-Dtest={','.join(classes)}",
                              "-DfailIfNoTests=false",
                              "-Dsurefire.failIfNoSpecifiedTests=false"))
