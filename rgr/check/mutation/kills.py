"""Whether a mutant's run noticed it: read per test, never from the exit code.

A mutant is killed only when a test that passed in the same run *without* the mutation
(its baseline: the same command, the same test files left out, the same checkout state
but for the mutant) fails, errors or no longer runs with it, or when the run outlives its
time limit (a mutant looping forever). The exit code says nothing: the steps of a test
command that are not tests (a coverage threshold such as ``c8 --100`` over a narrowed
suite, a lint, a type check) fail the run with no test failing, mutated or not.

A baseline where no test passed, or where a test fails unmutated, cannot judge a mutant
(``judges``): the gate then runs the whole command instead (rgr.check.mutation.gate).
"""

from __future__ import annotations

from rgr.check.verify import TestReport

_FAILING = ("failed", "error")


def passing(baseline: TestReport) -> frozenset[str]:
    """The ids of the tests that passed in ``baseline``."""
    return frozenset(key for key, o in baseline.outcomes.items() if o.status == "passed")


def judges(baseline: TestReport) -> bool:
    """Whether ``baseline`` (an unmutated run) can judge a mutant: it finished, every
    file loaded, no test failed and at least one passed. Its exit code does not count."""
    return (not baseline.timed_out and not baseline.collection_errors
            and not any(o.status in _FAILING for o in baseline.outcomes.values())
            and bool(passing(baseline)))


def empty(baseline: TestReport) -> bool:
    """Whether ``baseline`` ran no test at all and said so without failing (a Go package
    of importers with no test files): no test there can notice a mutant, and nothing
    is wrong with the run."""
    return (not baseline.outcomes and not baseline.collection_errors
            and not baseline.timed_out
            and (baseline.no_tests_collected or baseline.exit_code == 0))


def why_not(baseline: TestReport) -> str:
    """Why ``baseline`` cannot judge a mutant, in a few words (for the note)."""
    if baseline.timed_out:
        return "it timed out"
    failing = baseline.failing_ids
    if failing:
        return "failing: " + ", ".join(failing[:3])
    if baseline.collection_errors:
        return "could not load " + ", ".join(baseline.collection_errors[:3])
    return "no test passed" + (f" (exit code {baseline.exit_code})"
                               if baseline.exit_code else "")


def noticed(baseline: TestReport, report: TestReport, *, selected: bool = False,
            failing_test_only: bool = False) -> bool:
    """Whether the mutant run ``report`` noticed the mutant, judged against ``baseline``.

    ``selected``: the run named the tests it runs (pytest's node ids), so the baseline's
    other tests are missing by design; one of its tests failing, or a run where no test
    loaded, notices. ``failing_test_only``: only a test failing or erroring (or a
    timeout) notices, never a test gone missing (cargo's narrowed first run, which gives
    way to the whole command when it builds nothing)."""
    if report.timed_out:
        return True
    for key in passing(baseline):
        outcome = report.outcomes.get(key)
        if outcome is not None:
            if outcome.status in _FAILING:
                return True
        elif not selected and not failing_test_only:
            return True  # it passed unmutated and no longer ran: the process ended early
    if selected and not failing_test_only:
        return bool(report.collection_errors) or not report.outcomes
    return False
