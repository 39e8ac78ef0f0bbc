"""Test runner adapters, one module per family, and the registry ``TestCommand.runner``
names them by.

Each adapter adds what rgr needs to the command for its own run (a reporter flag, an
output file in rgr's temporary directory) and reads the result into per-test outcomes;
``rgr.check.verify.run_tests`` turns them into a TestReport.
"""

from __future__ import annotations

from collections.abc import Mapping

from rgr.ecosystems.base import Finished, Results, Runner, Status, TestOutcome
from rgr.ecosystems.go import Go
from rgr.ecosystems.javascript import Jest, Mocha, NodeTest, Vitest
from rgr.ecosystems.junit import CustomCommand, Gradle, JUnitGlobs, Maven, NpmScript, PHPUnit
from rgr.ecosystems.python import Pytest
from rgr.ecosystems.ruby import RSpec
from rgr.ecosystems.rust import Cargo, Nextest

__all__ = ["RUNNERS", "Finished", "Results", "Runner", "Status", "TestOutcome", "runner_for"]

_JUNIT = JUnitGlobs()

#: Every runner by name. ``npm`` (a test script rgr cannot see into) and ``custom`` (any
#: other command) are read from the ``junit_xml`` globs when there are some.
RUNNERS: Mapping[str, Runner] = {
    runner.name: runner
    for runner in (Pytest(), Jest(), Vitest(), Mocha(), NodeTest(), Cargo(), Nextest(), Go(),
                   Maven(), Gradle(), RSpec(), PHPUnit(), _JUNIT, NpmScript(), CustomCommand())
}


def runner_for(name: str) -> Runner:
    """The adapter for ``name``; an unknown name (a newer note, say) reads JUnit globs."""
    return RUNNERS.get(name, _JUNIT)
