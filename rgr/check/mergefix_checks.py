"""The rules a merge fix is judged by, deterministically, on what the fixer committed
and on what the real test runner says (rgr.mergefix.engine runs them).

A fix is a commit that descends from the base tip and from the job's tip (a merge of
the two: the job's change, carried onto the base), made of commits with the fixer's
prefix. What the fixer wrote is what differs from git's own merge of the two: there
the rules of every phase apply (rgr's configuration and the test infrastructure are off
limits, no skip marker, no link out of the repository, no hook into the test framework
from code), and a test file may only be merged: every line either side added or kept
stays. The full gate (the suite and the [gate] commands) passes on a pristine checkout,
and every test that passed on the base tip or on the job's branch is still collected and
passes.
"""

from __future__ import annotations

import dataclasses

from rgr.base.config import Config
from rgr.check.gate import GateResult, check_gate
from rgr.check.guards import (
    SKIP_MARKERS,
    escaping_links,
    forbidden_path,
    hidden_configuration,
    hooks_framework,
)
from rgr.check.verify import TestReport
from rgr.check.violation import Violation
from rgr.store import git, merging
from rgr.store.objects import Oid, Repository

#: Lines of a test file shown in one violation (the brief stays short).
SHOWN_LINES = 5


def check_merge_commits(repo: Repository, base_tip: Oid, job_tip: Oid,
                        head: Oid, prefixes: list[str]) -> list[Violation]:
    """A commit on top of the base tip that merges the job's tip, every new commit with
    the fixer's prefix."""
    if head == base_tip:
        return [Violation("no-commit", "the fixer made no commit: resolve the conflicts, "
                          "`git add` the files and `git commit --no-edit`")]
    if not git.is_ancestor(repo, base_tip, head):
        return [Violation("history-rewritten", "the commit does not descend from the base "
                          "tip: the fixer reset or rebased; commit the merge on top of it")]
    if not git.is_ancestor(repo, job_tip, head):
        return [Violation("job-not-merged", "the commit does not merge the job's branch: "
                          "commit while the merge is in progress (MERGE_HEAD), so the job's "
                          "commits and their handoff notes come along")]
    violations = []
    for commit in merging.new_commits(repo, head, (base_tip, job_tip)):
        subject = (commit.message or "").splitlines()[0] if commit.message else ""
        if not any(subject.startswith(p) for p in prefixes):
            violations.append(Violation(
                "commit-prefix", f"commit {str(commit.id)[:8]} {subject!r} does not start "
                f"with {' or '.join(prefixes)}"))
    return violations


def check_merge_scope(repo: Repository, config: Config, base_tip: Oid,
                      job_tip: Oid, head: Oid,
                      merged: merging.AutoMerge) -> list[Violation]:
    """The rules of every phase on what the fixer changed relative to git's merge."""
    changed = merging.changed_from_merge(repo, merged, head)
    present = set(merging.tree_blobs(repo, head))
    violations: list[Violation] = []
    for path in changed:
        forbidden = forbidden_path(path, "changed")
        if forbidden is not None:
            violations.append(forbidden)
    violations += escaping_links(repo, head, [p for p in changed if p in present])
    # ignore rules that hide rgr's configuration, compared with the base tip's
    violations += hidden_configuration(repo, base_tip, head,
                                       [git.FileChange(p, "changed") for p in changed])
    ancestor = merging.merge_base(repo, base_tip, job_tip)
    for path in changed:
        if path not in present:
            if config.is_test_file(path):
                violations.append(Violation("test-file-removed", f"the fix removes {path}: "
                                            "a test file may only be merged", path))
            continue
        sides = [_lines(repo, base_tip, path), _lines(repo, job_tip, path)]
        text = git.file_text(repo, head, path) or ""
        violations += _added_markers(config, path, text, {line for side in sides
                                                         for line in side})
        if config.is_test_file(path):
            violations += _dropped_test_lines(path, text, sides,
                                              _lines(repo, ancestor, path))
    return violations


def _lines(repo: Repository, commit: Oid | None, path: str) -> list[str]:
    text = git.file_text(repo, commit, path) if commit is not None else None
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _added_markers(config: Config, path: str, text: str,
                   either_side: set[str]) -> list[Violation]:
    """Skip markers anywhere, and hooks into the test framework in code, on lines that
    neither side had (the sides' own lines were judged when they were made)."""
    found = []
    is_test = config.is_test_file(path)
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() in either_side:
            continue
        if SKIP_MARKERS.search(line):
            found.append(Violation("skip-marker", f"added {line.strip()!r}: tests must not "
                                   "be skipped or marked as expected failures", path, number))
        elif not is_test and (hooked := hooks_framework(line, path, number)):
            found.append(hooked)
    return found


def _dropped_test_lines(path: str, text: str, sides: list[list[str]],
                        ancestor: list[str]) -> list[Violation]:
    """A test file may only be merged: every line of either side stays, unless one side
    itself removed it from the common ancestor."""
    result = {line.strip() for line in text.splitlines()}
    removed_by_a_side = {line for line in ancestor if any(line not in s for s in sides)}
    dropped: list[str] = []
    for side in sides:
        for line in side:
            if line not in result and line not in removed_by_a_side and line not in dropped:
                dropped.append(line)
    if not dropped:
        return []
    shown = "; ".join(repr(line[:100]) for line in dropped[:SHOWN_LINES])
    more = f" (+{len(dropped) - SHOWN_LINES} more)" if len(dropped) > SHOWN_LINES else ""
    return [Violation("test-weakened", f"the fix drops {len(dropped)} line(s) that a side "
                      f"of the merge has in {path}: {shown}{more}; a test file may only be "
                      "merged, never cut", path)]


def check_merge_tests(base: TestReport, job: TestReport, gate: GateResult
                      ) -> list[Violation]:
    """The full gate passes (the suite, then the [gate] commands), and every test that
    passed on the base tip or on the job's branch is still collected and passes (not
    skipped)."""
    passing = {**{i: o for i, o in job.outcomes.items() if o.status == "passed"},
               **{i: o for i, o in base.outcomes.items() if o.status == "passed"}}
    # A test skipped after the merge is named once, as the merge's own test-weakened
    # below (it covers the job's side too), not again as the refactor gate's test-silenced.
    violations = [v for v in check_gate(dataclasses.replace(base, outcomes=passing), gate)
                  if v.rule != "test-silenced"]
    for test_id in sorted(passing):
        outcome = gate.tests.outcomes.get(test_id)
        if outcome is not None and outcome.status == "skipped":
            violations.append(Violation("test-weakened", f"{test_id} passed before the "
                                        "merge and is skipped after it"))
    return violations
