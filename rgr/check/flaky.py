"""Flaky tests: a test that passed before an attempt and fails in the attempt's run is run
once more before it counts against the attempt.

Why: a real suite has tests whose outcome depends on the machine of the moment (a test
that needs most of the JVM's heap, a timing, a port), not on the code. Judged on one run,
such a test rejects honest work; and since a tree's report is reused while the tree is
unchanged, a retry that writes the same tree was rejected again without a run, so every
paid retry failed the same way. Precision first: the attempt's tree is run again (once),
and a test that failed and then passed is **flaky**, named in the note, never hidden.
A test that fails in both runs fails the attempt as before.

Only tests that passed in the report the attempt is held against (the base's) earn the
second run: a new test failing is RED's point, and a test that was already failing
says nothing about the attempt.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from rgr.check.verify import TestReport


def newly_failing(before: TestReport, after: TestReport) -> tuple[str, ...]:
    """Tests that passed in ``before`` and failed or broke in ``after``, sorted."""
    return tuple(test for test in after.failing_ids
                 if (seen := before.outcomes.get(test)) is not None and seen.status == "passed")


def second_run(first: TestReport, second: TestReport) -> TestReport:
    """``second`` (the run that counts), with the tests that failed in ``first`` and
    passed in it named flaky (and those ``first`` already named, still passing)."""
    passing = {test for test, outcome in second.outcomes.items() if outcome.status == "passed"}
    flaky = (set(first.failing_ids) | set(first.flaky)) & passing
    return dataclasses.replace(second, flaky=tuple(sorted(flaky | set(second.flaky))))


def worth_a_second_run(first: TestReport) -> bool:
    """Whether a suite's start is run once more before it counts as red: only tests
    failed (a load error or a timeout is no flake, and is not paid for twice)."""
    return bool(first.failing_ids) and not first.collection_errors and not first.timed_out


def start_once_more(first: TestReport, run_again: Callable[[], TestReport],
                    say: Callable[[str], None], noted: bool) -> TestReport:
    """A suite's start, as ``rgr run``'s baseline and ``rgr verify``/``rgr doctor`` read
    it: ``first`` when it passed or cannot be a flake, else the second run
    (``run_again``), with the tests that failed then passed named flaky. ``noted``: the
    run writes them into its start note (verify writes no note)."""
    if not worth_a_second_run(first):
        return first
    say("running tests once more: " + ", ".join(first.failing_ids[:5])
        + " failed at the start (a flaky test passes when run again)")
    result = second_run(first, run_again())
    if result.flaky:
        say("flaky (failed, then passed when run again" + ("; noted" if noted else "")
            + "): " + ", ".join(result.flaky[:10]))
    return result
