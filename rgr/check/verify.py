"""Run the project's real test command and read its per-test results.

rgr never takes an agent's word for what the tests do: every phase ends with this run.

How a runner is told to write a machine-readable report, and how that report is read,
lives in ``rgr.ecosystems`` (one module per ecosystem, listed in rgr.ecosystems.registry): pytest,
Jest, Vitest, Mocha, node's runner, cargo test / nextest, go test, Maven, Gradle, RSpec,
PHPUnit, and any command that writes JUnit XML where the ``junit_xml`` globs say. Report
files go to a temporary directory of rgr's, never into the repository (Maven, Gradle and
nextest write theirs into their own build directory, which rgr only reads).
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rgr.base import failpoints
from rgr.base.config import TestCommand
from rgr.base.errors import ConfigError
from rgr.base.proc import Completed, bound, run
from rgr.base.slots import test_slot
from rgr.ecosystems.base import (
    MESSAGE_LIMIT,
    Finished,
    FollowsUp,
    Results,
    Runner,
    Status,
    TestOutcome,
    strip_ansi,
)
from rgr.ecosystems.registry import runner_for, settle

if TYPE_CHECKING:  # a Protocol, so only for the type checker (rgr.base.proc)
    from rgr.base.proc import Launcher

#: How much of the runner's combined output a report keeps (head and tail). The excerpt
#: goes into failure briefs and notes, so it must stay small whatever the tests print.
OUTPUT_EXCERPT_LIMIT = 8 * 1024

__all__ = ["MESSAGE_LIMIT", "OUTPUT_EXCERPT_LIMIT", "Confinement", "Status", "TestOutcome",
           "TestReport", "blind_run", "report_from_json", "report_to_json", "require_results",
           "run_tests"]


@dataclass(frozen=True)
class TestReport:
    __test__ = False

    argv: tuple[str, ...]
    exit_code: int
    duration_s: float
    timed_out: bool
    outcomes: Mapping[str, TestOutcome]
    collection_errors: tuple[str, ...]
    no_tests_collected: bool
    output_excerpt: str
    #: Why per-test results could not be read (no report written, garbled XML), or None.
    report_error: str | None = None
    #: The runner's whole output (stdout, then stderr; bounded like every capture), for
    #: the run artifacts. Briefs and notes use ``output_excerpt``.
    output: str = ""
    #: The runner adapter that read it (``TestCommand.runner``), for messages.
    runner: str = ""
    #: Why files in ``collection_errors`` did not load, where the runner says
    #: (rgr.ecosystems.failure_kind's words; reports written before this have none).
    load_kinds: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: Tests that failed in an earlier run of the same tree and passed in this one
    #: (rgr.check.flaky): named in the note, never hidden.
    flaky: tuple[str, ...] = ()

    def _count(self, status: Status) -> int:
        return sum(1 for o in self.outcomes.values() if o.status == status)

    @property
    def passed(self) -> int:
        return self._count("passed")

    @property
    def failed(self) -> int:
        return self._count("failed")

    @property
    def errors(self) -> int:
        """Tests that broke, plus the files that did not even load or compile."""
        return self._count("error") + len(self.collection_errors)

    @property
    def skipped(self) -> int:
        return self._count("skipped")

    @property
    def failing_ids(self) -> tuple[str, ...]:
        """Ids of the tests that failed or errored, sorted."""
        return tuple(sorted(i for i, o in self.outcomes.items() if o.status in ("failed", "error")))

    def problem(self) -> str:
        """What is wrong with a run that is not green, in one line."""
        if self.timed_out:
            return "the test command timed out"
        if self.failing_ids:
            return ", ".join(self.failing_ids[:10])
        if self.collection_errors:
            return "could not load " + ", ".join(self.collection_errors[:10])
        return self.report_error or f"exit code {self.exit_code}"

    @property
    def all_passed(self) -> bool:
        """Green: nothing failed or broke, and the exit code agrees.

        An empty pytest project (exit code 5) counts as green: it is the baseline before
        the first test is written.
        """
        if self.timed_out or self.collection_errors or self.report_error is not None:
            return False
        if self.failed or self.errors:
            return False
        return self.exit_code == 0 or self.no_tests_collected


def report_to_json(report: TestReport) -> str:
    """The report for rgr's own files: the bounded excerpt, never the full output (which
    can be megabytes; the run folder keeps that)."""
    return json.dumps(dataclasses.asdict(dataclasses.replace(report, output="")))


def report_from_json(text: str) -> TestReport:
    """The inverse of :func:`report_to_json`; ValueError when ``text`` is not one."""
    data = json.loads(text)
    try:
        outcomes = {key: TestOutcome(**value) for key, value in data.pop("outcomes").items()}
        return TestReport(**{**data, "argv": tuple(data["argv"]), "outcomes": outcomes,
                             "collection_errors": tuple(data["collection_errors"]),
                             "flaky": tuple(data.get("flaky") or ())})
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a test report: {exc}") from exc


@dataclass(frozen=True)
class Confinement:
    """Where a test run happens when rgr seals it: inside ``launcher`` (the sandbox),
    with its report files under ``tmp`` (a folder the sandbox can write)."""

    launcher: Launcher
    tmp: Path


def run_tests(
    cmd: TestCommand, root: Path, *, timeout: float, env: Mapping[str, str] | None = None,
    confinement: Confinement | None = None,
) -> TestReport:
    """Run ``cmd`` in ``root`` for at most ``timeout`` seconds and report per test.

    ``env`` defaults to rgr's own environment. A runner that cannot be started raises
    CommandError (a setup problem, not a phase result); a timeout is a report with
    ``timed_out`` set. With ``confinement`` the runner's report files go under its
    ``tmp`` (the sandbox can write there) and the command runs inside its launcher.
    """
    child_env = dict(os.environ if env is None else env)
    # No __pycache__ directories in the user's tree (pytest's assertion rewriting
    # honours this too).
    child_env["PYTHONDONTWRITEBYTECODE"] = "1"
    runner = runner_for(cmd.runner)
    tmp_root = confinement.tmp if confinement else None
    with tempfile.TemporaryDirectory(prefix="rgr-tests-", dir=tmp_root) as tmp:
        argv = runner.prepare(settle(cmd, root), Path(tmp), child_env)
        with test_slot(child_env):  # under `rgr daemon --test-slots N`: N runs at once
            started = time.time()
            done = _run_crashable(argv, root, timeout, child_env, confinement)
            # A killed runner writes no report, or half of one: that is no extra error.
            results = Results() if done.timed_out else runner.read(
                Finished(cmd, done, Path(tmp), root, started))
            done = _follow_up(runner, cmd, done, results, Path(tmp), root, timeout,
                              child_env, confinement)
    return TestReport(
        argv=done.argv,
        exit_code=done.returncode,
        duration_s=done.duration_s,
        timed_out=done.timed_out,
        outcomes=results.outcomes,
        collection_errors=tuple(results.collection_errors),
        no_tests_collected=results.no_tests and not done.timed_out,
        output_excerpt=_excerpt(done.stdout, done.stderr),
        output=_whole(done.stdout, done.stderr),
        report_error=results.report_error,
        runner=cmd.runner,
        load_kinds=dict(results.load_kinds),
    )


#: At most this many follow-up runs after one test command (one per crate left out).
MAX_FOLLOW_UPS = 20


def _follow_up(runner: Runner, cmd: TestCommand, done: Completed, results: Results,
               tmp: Path, root: Path, timeout: float, env: dict[str, str],
               confinement: Confinement | None) -> Completed:
    """Run what a runner's first run never reached (``FollowsUp``: cargo stops every
    crate of a workspace at the first crate that does not compile), adding what each
    run reads to ``results``, within what is left of ``timeout``. Returns the run as one:
    both commands' output, the worst exit code, the time of all."""
    if not isinstance(runner, FollowsUp):
        return done
    last = done
    for _ in range(MAX_FOLLOW_UPS):
        left = timeout - done.duration_s
        argv = None if done.timed_out or left <= 0 else runner.follow_up(
            Finished(cmd, last, tmp, root, time.time()), results)
        if argv is None:
            break
        started = time.time()
        last = _run_crashable(argv, root, left, env, confinement)
        if not last.timed_out:
            results.absorb(runner.read(Finished(cmd, last, tmp, root, started)))
        done = Completed(done.argv, done.returncode or last.returncode,
                         f"{done.stdout}\n{last.stdout}",
                         f"{done.stderr}\n$ {' '.join(argv)}\n{last.stderr}",
                         done.duration_s + last.duration_s, last.timed_out)
    return done


def _run_crashable(argv: tuple[str, ...], root: Path, timeout: float,
                   env: dict[str, str], confinement: Confinement | None) -> Completed:
    """The test command, with the fault-injection suite's two crash points around it."""
    done = run(argv, cwd=root, timeout=timeout, env=env,
               on_start=lambda: failpoints.hit("tests:spawned"),
               launcher=confinement.launcher if confinement else None)
    failpoints.hit("tests:finished")
    return done


def _whole(stdout: str, stderr: str) -> str:
    return stdout if not stderr.strip() else f"{stdout}\n--- stderr ---\n{stderr}"


def _excerpt(stdout: str, stderr: str) -> str:
    return bound(_whole(stdout, stderr), OUTPUT_EXCERPT_LIMIT)


# --------------------------------------------------------------------------- blind runs


def blind_run(report: TestReport) -> bool:
    """The runner ran but rgr could read no per-test result from it: no outcome, no file
    that failed to load, and the runner did not say there are no tests."""
    return (not report.timed_out and not report.outcomes and not report.collection_errors
            and not report.no_tests_collected)


def require_results(report: TestReport, cmd: TestCommand) -> None:
    """Refuse to referee blind: a ConfigError naming the runner and the fix when
    ``report`` (the baseline) has no per-test results although the runner ran."""
    if not blind_run(report):
        return
    runner = runner_for(cmd.runner)
    why = report.report_error or "it wrote no per-test results rgr could read"
    if report.exit_code != 0:
        last = [line.strip() for line in strip_ansi(report.output_excerpt).splitlines()
                if line.strip()][-2:]
        if last:
            why += f"; it ended with: {' / '.join(last)[:300]}"
    command = " ".join(cmd.argv)
    raise ConfigError(
        f"rgr cannot see individual test results from `{command}` ({runner.label}; "
        f"{cmd.source}; exit code {report.exit_code}): {why}. Without them it cannot tell "
        "a new failing test from a broken run, so it does not start",
        runner.fix() + _overridden_by(cmd))


def _overridden_by(cmd: TestCommand) -> str:
    """A runner's fix says "set test_command"; when a variable or a flag sets it, that
    is where to change it (tdd.toml's key would be overridden again)."""
    if cmd.setting.endswith("in tdd.toml"):
        return ""
    return f" (this test command comes from {cmd.setting}: change it there)"
