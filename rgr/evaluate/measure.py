"""What a result is worth, measured on a pristine checkout of it, sealed like every
verification rgr makes (rgr.sandbox.sealer.Sealer.checkout): the hidden tests placed into
it and run, the regression suite at the base and at the result, and what the diff did to
the tests that were there.
"""

from __future__ import annotations

from rgr.base.config import TestCommand
from rgr.base.errors import RgrError
from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.registry import guess_runner
from rgr.evaluate.results import Measures
from rgr.evaluate.tasks import Task
from rgr.sandbox.sealer import Sealer
from rgr.store import git
from rgr.store.objects import Commit


def hidden_command(task: Task) -> TestCommand:
    argv = tuple(task.hidden_tests.command)
    return TestCommand(argv=argv, runner=guess_runner(argv), junit_globs=(), shell=False,
                       source=f"task {task.id}'s hidden tests")


def run_hidden(sealer: Sealer, task: Task, tip: Commit) -> TestReport:
    """The hidden tests on a pristine checkout of ``tip``. A file of the result at a
    hidden test's path is replaced: the task's test is the one that judges."""
    with sealer.checkout(tip, "eval-hidden") as (tree, confinement, env):
        for hidden in task.hidden_tests.files:
            target = tree / hidden.path
            if target.is_symlink() or target.is_dir():
                raise RgrError(f"the result has a folder or link at {hidden.path}, where a "
                               "hidden test goes", "a task's hidden test paths must be free "
                               "for a file")
            target.parent.mkdir(parents=True, exist_ok=True)
            assert hidden.text is not None
            target.write_text(hidden.text, encoding="utf-8")
        return run_tests(hidden_command(task), tree,
                         timeout=sealer.ws.config.command_timeout, env=env,
                         confinement=confinement)


def hidden_counts(task: Task, report: TestReport) -> tuple[int, int, str]:
    """(passed, total, why they did not run): ``total`` is the task's declared count
    when it gives one, else what ran (at least 1: a file that did not load is a miss)."""
    ran = len(report.outcomes)
    total = task.hidden_tests.count or max(ran, 1)
    problem = ""
    if report.collection_errors:
        problem = "did not load: " + ", ".join(report.collection_errors[:3])
    elif report.timed_out:
        problem = "timed out"
    elif not ran:
        problem = "no test ran: " + report.output_excerpt[-300:]
    return min(report.passed, total), total, problem


def passing(report: TestReport) -> set[str]:
    return {i for i, o in report.outcomes.items() if o.status == "passed"}


def measure(sealer: Sealer, task: Task, base: Commit, tip: Commit,
            regression: TestCommand | None, before: TestReport | None,
            found: Measures) -> Measures:
    """``found`` (the run's own figures) with every measure of ``tip`` against ``base``
    added (``before``: the regression suite's report at ``base``, run once per task)."""
    found.base, found.tip = str(base.id), str(tip.id)
    hidden = run_hidden(sealer, task, tip)
    found.hidden_passed, found.hidden_total, found.hidden_problem = hidden_counts(task, hidden)
    config = sealer.ws.config
    for change in git.changed_files(sealer.ws.repo, base.id, tip.id):
        path = change.old_path or change.path
        if not config.is_test_file(path) or change.status == "added":
            continue
        (found.tests_removed if change.status == "deleted" else found.tests_edited
         ).append(path)
    if regression is not None and before is not None:
        after = sealer.try_command(regression, tip)
        found.regression_checked = True
        still = passing(after)
        found.regressions = sorted(t for t in passing(before) - still if t in after.outcomes)
        found.tests_removed += sorted(t for t in passing(before) if t not in after.outcomes
                                      and t not in found.tests_removed)
        found.tests_written = len(set(after.outcomes) - set(before.outcomes))
    return found
