"""The acceptance tests' outcomes, read from one run of the project's test command on a
checkout that holds the acceptance file, and what they say in words.

A failing acceptance test reaches the planner as the behaviour the examiner wrote for
it, never as the test's code or its values: the implementing agents must build the
feature, not the examiner's inputs."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from rgr.check.acceptance.placing import belongs
from rgr.check.verify import TestReport


@dataclass(frozen=True)
class Declared:
    """A test the examiner says it wrote: its function's name and the behaviour."""

    name: str
    behaviour: str


@dataclass(frozen=True)
class Outcome:
    name: str
    behaviour: str
    outcome: str  # passed, failed, error, skipped, missing (not reported by the run)
    ids: tuple[str, ...] = ()  # the runner's ids of the test (parametrised: several)


def outcomes(report: TestReport, path: str, declared: list[Declared]) -> list[Outcome]:
    """Each declared test's outcome in ``report``; a test of the file the examiner did
    not declare is reported too (its behaviour: its name), so none passes unseen."""
    names = {d.name for d in declared}
    mine = {test_id: o for test_id, o in report.outcomes.items()
            if belongs(test_id, path, names)}
    found: list[Outcome] = []
    used: set[str] = set()
    for test in declared:
        hits = [i for i in mine if _names(i, test.name)]
        statuses = {mine[i].status for i in hits}
        used.update(hits)
        status = ("missing" if not hits else "error" if "error" in statuses
                  else "failed" if "failed" in statuses
                  else "skipped" if statuses == {"skipped"} else "passed")
        found.append(Outcome(test.name, test.behaviour, status, tuple(hits)))
    for test_id, outcome in mine.items():
        if test_id not in used:
            found.append(Outcome(test_id.rsplit("::", 1)[-1], test_id.rsplit("::", 1)[-1],
                                 outcome.status, (test_id,)))
    return found


def _names(test_id: str, name: str) -> bool:
    """Does the runner's id name the test function ``name`` (parametrised ids too)?"""
    if test_id.split("::")[-1] == name:
        return True  # a JavaScript runner's title, spaces and all
    last = test_id.replace("#", "::").replace(" ", "::").split("::")[-1]
    return last == name or last.startswith(name + "[") or test_id.endswith("." + name) \
        or test_id.endswith("/" + name) or test_id.endswith(" " + name)


def did_not_run(report: TestReport, path: str, declared: Collection[Declared] = ()
                ) -> str | None:
    """Why the acceptance file produced no outcome at all (it did not load, the run timed
    out), or None when it ran."""
    if report.timed_out:
        return "the test run timed out"
    names = {d.name for d in declared}
    if any(belongs(i, path, names) for i in report.outcomes):
        return None
    broken = [e for e in report.collection_errors if belongs(e, path)]
    if broken:
        return f"{path} did not load: " + report.output_excerpt[-1500:]
    return f"the test run reported no test of {path}: " + report.output_excerpt[-1500:]


def missing_in_words(found: list[Outcome]) -> list[str]:
    """The behaviours not shown to work, as the examiner worded them."""
    return [o.behaviour for o in found if o.outcome != "passed"]
