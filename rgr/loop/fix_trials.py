"""Before rgr suggests another test command for a suite it cannot read, it tries it;
and the same for a writable copy of a dependency folder the tests write into.

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
from rgr.base.errors import ConfigError, RepositoryError
from rgr.check.verify import TestReport, blind_run
from rgr.ecosystems.registry import alternatives
from rgr.sandbox import read_only, tool_caches_inside
from rgr.sandbox.sealer import Sealer
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
    proposed = alternatives(command, sealer.ws.root)
    if proposed is None:
        return refused
    candidates, searched = proposed
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
             if trials else f"rgr found no other command to try ({searched})")
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


def apply_writable_copy(sealer: Sealer, report: TestReport,
                        written: read_only.ReadOnlyWrite
                        ) -> tuple[TestReport, RepositoryError | None]:
    """The baseline's failing tests (or its runner) wrote into a dependency folder the
    sandbox shows read-only. rgr tries a private writable copy on a sealed run: of the
    packages written into alone (``node_modules/dep``) where that serves, else of the
    whole folder. When the suite then passes, the write was its only failure: the
    sealer applies that copy to every test run of this run (``Sealer.applied``, said
    in ``Sealer.applied_note`` with its measured cost) and the tried report is the
    baseline. Otherwise the refusal, naming the folder and what still fails."""
    folder = written.folder
    head = git.head_commit(sealer.ws.repo)
    narrow = tool_caches_inside.narrow_names(sealer.toolchain, folder, written.entries)
    tried = report
    for names in ([narrow] if narrow else []) + [[folder]]:
        tried = sealer.try_writable_copy(names, head)
        if tried.all_passed:
            sealer.applied = (*sealer.applied, *names)
            sealer.applied_note = applied_note(names, written, tried, sealer.copy_s)
            return tried, None
    return tried, read_only_refusal(report, written, tried)


def applied_note(names: list[str], written: read_only.ReadOnlyWrite, tried: TestReport,
                 copy_s: float) -> str:
    """What rgr says before anything else when it applies a writable copy itself."""
    shown = ", ".join(names)
    who = ("the test command itself writes" if written.by_the_runner
           else f"{_ids(written)} write{'s' if len(written.tests) == 1 else ''}")
    setting = ", ".join(f'"{n}"' for n in names)
    return (f"note: rgr gives each test run a private writable copy of {shown}: {who} into "
            f"{written.folder}, which the sandbox shows read-only ({written.example}), and "
            f"that is the suite's only failure there: with the copy it passes "
            f"({tried.passed} passed). Cost: {copy_s:.2f}s to make the copy per test run "
            f"(measured now), deleted with it; your {written.folder} is never written. To "
            f"skip the failing first try, set [sandbox] writable_copy = [{setting}] in "
            "tdd.toml")


def _ids(written: read_only.ReadOnlyWrite) -> str:
    return ", ".join(written.tests[:5]) + (
        f" and {len(written.tests) - 5} more" if len(written.tests) > 5 else "")


def read_only_refusal(report: TestReport, written: read_only.ReadOnlyWrite,
                      tried: TestReport) -> RepositoryError:
    """The baseline wrote into a dependency folder the sandbox shows read-only, and a
    sealed run with a writable copy of it (``tried``) still fails: those failures are
    the suite's own (or the copy fixed some tests and others fail for another reason)."""
    folder = written.folder
    ids = _ids(written)
    others = [t for t in report.failing_ids if t not in written.tests]
    who = (f"{ids} fails in the sandbox because it writes" if written.by_the_runner
           else f"{ids} fail in the sandbox because they write")
    problem = (f"the test suite is not green before rgr starts: {who} into {folder}, "
               f"which it shows read-only (test code is agent code: your {folder} is never "
               f"writable inside): {written.example}"
               + (f"; {', '.join(others[:5])} fail too" if others else ""))
    fix = (f'give each test run its own writable copy of it: [sandbox] writable_copy = '
           f'["{folder}"] in tdd.toml (a real copy per test run, deleted after it)')
    still = [t for t in written.tests if t in tried.failing_ids]
    if written.by_the_runner:
        return RepositoryError(
            f"{problem}. rgr tried a writable copy of {folder} in the sandbox and the "
            f"suite still fails: {tried.problem()}",
            "TDD starts from green: fix or remove the failing tests, then run again")
    if not still:
        return RepositoryError(
            f"{problem}. rgr tried it in the sandbox: with a writable copy of {folder} "
            f"those tests pass, and {tried.problem()} still fail", fix
            + ", and fix or remove the other failing tests")
    return RepositoryError(
        f"{problem}. rgr tried a writable copy of {folder} in the sandbox and "
        f"{', '.join(still[:5])} still fail: {tried.problem()}",
        "TDD starts from green: fix or remove the failing tests, then run again")
