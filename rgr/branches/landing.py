"""Judging where work lands: before a base branch moves to an integrated commit (``rgr
run/resume/report --integrate merge|pr``, the daemon's landing), the suite and the
``[gate]`` commands run on exactly that commit, sealed, as every phase's run does, then
the run's hidden acceptance tests (rgr.tdd.examine) when it has them; what
they saw is noted on that commit (the ``landing`` field of its handoff note), pass or
fail, and only a pass lets the base move.

Why again, when every phase was green: the integrated tree is not any phase's tree. A
rebase or merge onto a base that gained commits combines two green sides into a tree
nobody has run, and a commit rgr adds while landing (test-list.md tidied, a merge) is
no phase's commit. Each side green does not make the union green.

The note goes on the integrated commit itself: its own note (a phase's, carried over
by the rebase) gains ``landing``; a commit of rgr's own without one (the tidied test
list, a merge) gets the newest handoff below it with ``landing`` added, so the commit a
base branch ends on always has a handoff to audit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from rgr.base.errors import RepositoryError
from rgr.check.gate import GateResult
from rgr.loop.summaries import tests_summary
from rgr.sandbox.sealer import Sealer
from rgr.store import acceptance_store, git
from rgr.store.acceptance_store import StoredTests
from rgr.store.handoff import (
    SCHEMA_VERSION,
    HandoffState,
    LandingNote,
    Phase,
    TestResult,
    now_utc,
)
from rgr.store.workspace import Workspace
from rgr.tdd.examine import still_missing

How = Literal["fast-forward", "rebase", "merge"]
By = Literal["run", "daemon"]


@dataclass(frozen=True)
class Integration:
    """What is being landed: the work at ``job_tip``, integrated onto ``base_tip`` of
    ``into`` (by ``how``), now checked out as HEAD."""

    into: str
    base_tip: str
    job_tip: str
    how: How
    by: By


@dataclass(frozen=True)
class Landing:
    """The verdict on the integrated tree, as noted."""

    note: LandingNote
    #: True when HEAD's note already held a passing landing of this very commit (the
    #: daemon verified it before ``rgr report --integrate pr`` opens the request).
    reused: bool = False

    @property
    def ok(self) -> bool:
        return self.note.verdict == "pass"

    def problem(self) -> str:
        """Why it does not land, in one line naming what failed."""
        note, tests = self.note, self.note.tests
        counts = (f"{tests.passed} passed, {tests.failed} failed, {tests.errors} errors, "
                  f"{tests.skipped} skipped")
        named = []
        if tests.failing:
            named.append(f"failing on the integrated tree: {_listed(tests.failing)}")
        if note.not_loaded:
            named.append(f"test files that do not load there: {_listed(note.not_loaded)}")
        if named:
            return f"{'; '.join(named)} ({counts})"
        if note.acceptance == "fail":
            return ("the run's acceptance tests fail on the integrated tree: missing "
                    + "; ".join(note.acceptance_missing) + f" (tests: {counts})")
        if note.acceptance == "not-run":
            return f"the run's acceptance tests did not run on the integrated tree " \
                   f"(tests: {counts})"
        if note.failed_command is not None:
            return f"the gate command `{note.failed_command}` fails on the integrated tree " \
                   f"(tests: {counts})"
        if tests.passed == 0 and tests.failed == 0 and tests.errors == 0:
            return f"no test ran on the integrated tree ({counts}; exit code " \
                   f"{tests.exit_code}): a landing is never judged on skipped tests"
        return f"the test run on the integrated tree is not green (exit code " \
               f"{tests.exit_code}; {counts})"

    def line(self) -> str:
        tests = self.note.tests
        verdict = "passes" if self.ok else "FAILS"
        again = " (verified before, noted on this commit)" if self.reused else ""
        return (f"the integrated tree {self.note.tip[:8]} ({self.note.how} of "
                f"{self.note.job_tip[:8]} onto {self.note.into} at "
                f"{self.note.base_tip[:8]}) {verdict}: {tests.passed} passed, "
                f"{tests.failed} failed, {tests.errors} errors, {tests.skipped} "
                f"skipped{again}")


def _listed(names: list[str]) -> str:
    more = f" (and {len(names) - 10} more)" if len(names) > 10 else ""
    return ", ".join(names[:10]) + more


def judge(ws: Workspace, sealer: Callable[[], Sealer], integration: Integration,
          say: Callable[[str], None]) -> Landing:
    """Run the full gate on HEAD (the integrated commit), note the verdict on HEAD and
    return it. ``sealer`` opens the sealed runner only when a run is needed."""
    head = git.head_commit(ws.repo)
    tip = str(head.id)
    found = ws.notes.latest_reachable(tip)
    prev = found[0].state if found is not None else None
    if found is not None and found[1] == 0 and prev is None:
        # Writing the verdict would replace a note rgr cannot read: never lose one.
        raise RepositoryError(f"the note on {tip[:8]} is not a valid handoff: "
                              f"{found[0].problem}; nothing was integrated",
                              "`rgr repair-notes` says what is wrong with it")
    own = found is not None and found[1] == 0 and prev is not None
    if own and prev is not None and prev.landing is not None and \
            prev.landing.tip == tip and prev.landing.verdict == "pass" and \
            prev.landing.into == integration.into:
        return Landing(prev.landing, reused=True)
    say(f"running the full suite and the gate commands on the integrated tree "
        f"{tip[:8]} ({integration.how} onto {integration.into} at "
        f"{integration.base_tip[:8]}), sealed")
    opened = sealer()
    if found is not None and prev is not None:
        # the writable copies the run applied itself (rgr.loop.fix_trials)
        started = ws.notes.run_start(found[0].commit, prev.run_id)
        if started is not None and started.sandbox is not None:
            opened.applied = tuple(started.sandbox.writable_copy)
    result = opened.run_gate(head, "full")
    note = _note(integration, tip, result, prev)
    kept = _acceptance_tests(ws, prev)
    if note.verdict == "pass" and kept is not None:
        say(f"running the run's acceptance tests on the integrated tree {tip[:8]}, sealed")
        missing = still_missing(opened, head, kept)
        note = note.updated(
            acceptance="not-run" if missing is None else "fail" if missing else "pass",
            acceptance_missing=missing or [],
            verdict="pass" if missing == [] else "fail")
    if found is not None and prev is not None and not own:
        note = note.updated(copied_from=found[0].commit)
    ws.notes.write(tip, _state(prev, own, note), f"rgr: landing on {integration.into}: "
                                                 f"{note.verdict} on {tip[:12]}")
    return Landing(note)


def _acceptance_tests(ws: Workspace, prev: HandoffState | None) -> StoredTests | None:
    """The run's acceptance tests, when it had them judge it (mode on) and they are
    kept on this machine (rgr.store.acceptance_store)."""
    if prev is None or prev.acceptance is None or prev.acceptance.mode != "on" \
            or not prev.run_id:
        return None
    return acceptance_store.load(ws.env, ws.git_dir, prev.run_id)


def _note(integration: Integration, tip: str, result: GateResult,
          prev: HandoffState | None) -> LandingNote:
    tests = tests_summary(result.tests)
    failed = result.failed_command
    # Nothing ran: a green exit with every test skipped or none collected, while the
    # work's own runs had tests. That is how merges "landed" with "Tests: Skipped".
    had_tests = prev is not None and prev.tests is not None and prev.tests.passed > 0
    nothing_ran = had_tests and tests.passed == 0
    verdict: Literal["pass", "fail"] = "pass" if result.ok and not nothing_ran else "fail"
    return LandingNote(
        into=integration.into, base_tip=integration.base_tip, job_tip=integration.job_tip,
        tip=tip, how=integration.how, by=integration.by, verdict=verdict, tests=tests,
        not_loaded=list(result.tests.collection_errors[:50]),
        gate_commands=[c.command for c in result.commands],
        failed_command=failed.command if failed is not None else None,
        verified_at=now_utc())


def _state(prev: HandoffState | None, own: bool, note: LandingNote) -> HandoffState:
    """HEAD's note with ``landing``: its own note kept whole, or (a commit rgr made while
    landing) the newest handoff below it, as the merge fixer's note keeps the job's."""
    if prev is None:
        return HandoffState(phase=Phase.COMPLETE, next_phase=None,
                            schema_version=SCHEMA_VERSION, landing=note, tests=note.tests,
                            test_result=_result(note), finished_at=note.verified_at,
                            summary=f"rgr: landing on {note.into}")
    if own:
        return prev.updated(landing=note)
    # No agent session made this commit, and the phase's run was of another tree.
    return prev.updated(
        landing=note, tests=note.tests, test_result=_result(note), agent=None,
        adequacy=None, merge_fix=None, batch=None, error=None,
        error_details=None, started_at=note.verified_at,
        finished_at=note.verified_at, summary=f"rgr: landing on {note.into}")


def _result(note: LandingNote) -> TestResult:
    return TestResult.PASS if note.verdict == "pass" else TestResult.FAIL
