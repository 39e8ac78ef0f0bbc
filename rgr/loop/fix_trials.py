"""Before rgr suggests another test command for a suite it cannot read, it tries it.

A suggestion that was never run is a guess (the runner's own command still reads
nothing on an old release that ignores the report option; one runner breaks on a
package whose files belong to two). So each
command the ecosystem proposes (rgr.ecosystems.registry.alternatives) is run on a
pristine checkout of HEAD, sealed exactly as the baseline was (the same sandbox,
environment and reader), and only a command whose per-test results rgr read is shown,
with what it read. When none reads the tests, the refusal says what each one gave and
asks for ``test_command`` and ``junit_xml``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from rgr.base.config import TestCommand
from rgr.base.errors import ConfigError
from rgr.check.verify import TestReport, blind_run
from rgr.ecosystems.registry import alternatives
from rgr.loop.attempt import Sealer
from rgr.store import git


@dataclass(frozen=True)
class Trial:
    """One command tried, and what its sealed run gave."""

    command: TestCommand
    report: TestReport

    @property
    def reads_the_tests(self) -> bool:
        """Per-test results, every test file loaded, a report rgr could read."""
        report = self.report
        return (not blind_run(report) and not report.timed_out and not report.no_tests_collected
                and not report.collection_errors and report.report_error is None)

    def said(self) -> str:
        """What the run gave, in a few words."""
        report = self.report
        if report.timed_out:
            return "timed out"
        if self.reads_the_tests:
            return (f"reads {len(report.outcomes)} tests ({report.passed} passed, "
                    f"{report.failed} failed, {report.skipped} skipped)")
        if report.collection_errors:
            return (f"reads {len(report.outcomes)} tests but {len(report.collection_errors)} "
                    f"test files do not load ({', '.join(report.collection_errors[:3])})")
        if report.no_tests_collected:
            return "finds no tests"
        return f"reads no test (exit code {report.exit_code})"


def try_alternatives(sealer: Sealer, refused: ConfigError) -> ConfigError:
    """``refused`` (the baseline's runner read no per-test result) with the fix rgr has
    tried: the command that reads the most tests, or, when none reads them, what each
    gave and the settings to write. ``refused`` itself when there is nothing to try."""
    command = sealer.test_command
    candidates = alternatives(command, sealer.ws.root)
    if candidates is None:
        return refused
    head = git.head_commit(sealer.ws.repo)
    trials = [Trial(c, sealer.try_command(c, head)) for c in candidates]
    working = [t for t in trials if t.reads_the_tests]
    tried = "; ".join(f"`{shlex.join(t.command.argv)}` {t.said()}" for t in trials)
    where = command.setting
    if working:
        best = max(working, key=lambda t: len(t.report.outcomes))
        line = shlex.join(best.command.argv)
        return ConfigError(
            f"{refused.message}. rgr tried other commands in the sandbox: {tried}",
            f'set test_command = "{line}"' + _in(where))
    found = (f"rgr tried other commands in the sandbox and none reads the tests: {tried}"
             if trials else "rgr found no other command to try (no runner in the test "
             "script or among the dependencies, no file importing node:test)")
    return ConfigError(
        f"{refused.message}. {found}",
        "set test_command to a command that runs one of the runners rgr reads itself "
        "(docs/runners.md)" + _in(where) + ", or set junit_xml to the JUnit XML files your test "
        "command writes (with test_command)")


def _in(setting: str) -> str:
    """Where the setting goes: tdd.toml, or the variable or flag that overrides it."""
    if setting.endswith("in tdd.toml"):
        return " in tdd.toml"
    return f" ({setting} sets it now: change it there)"
