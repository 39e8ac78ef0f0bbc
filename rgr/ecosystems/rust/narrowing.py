"""How a mutant of a Rust file runs under ``cargo test`` (a package at the root): first the
test targets written for the changed file (``src/ranges.rs``: ``--test ranges`` for
``tests/ranges.rs``, ``--lib`` when the file holds unit tests;
rgr.ecosystems.rust.cargo_targets), without the other test crates, the library's second
build with ``cfg(test)`` and the doc tests; only when they all pass, the whole command.
A first run settles a mutant only by a failing test (or a timeout): one that builds
nothing or runs no test, for whatever reason, gives way to the whole command. Exact: a
survivor faces every test.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.rust import cargo_targets
from rgr.ecosystems.scope import Scope


def scope(cmd: TestCommand, root: Path, path: str) -> Scope | None:
    """The scope of a change of ``path`` for ``cargo test``; None for another runner or
    a command rgr cannot narrow."""
    if cmd.runner != "cargo" or not path.endswith(".rs") \
            or not cargo_targets.narrowable(cmd.argv):
        return None
    targets = cargo_targets.targets_for(root, path)
    if targets:
        return Scope(cmd, first=_cargo_targets(cmd, targets),
                     first_needs_a_failing_test=True)
    return Scope(cmd)


def _cargo_targets(cmd: TestCommand, targets: tuple[str, ...]) -> TestCommand:
    """``cmd`` running only the test targets ``targets`` (cargo's own options, before a
    ``--`` whose words belong to the test binaries)."""
    cut = cmd.argv.index("--") if "--" in cmd.argv else len(cmd.argv)
    return replace(cmd, argv=(*cmd.argv[:cut], *targets, *cmd.argv[cut:]))
