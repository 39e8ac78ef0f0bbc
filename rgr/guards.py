"""Phase rules, checked deterministically on what the agent committed (base..HEAD) and
on what the real test runner reported. A violation is a failed phase, and its text is
the failure brief the next attempt gets: which rule, which file, which line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pygit2

from rgr import git
from rgr.config import Config
from rgr.handoff import Phase
from rgr.testlist import FILENAME as TEST_LIST
from rgr.verify import TestReport

#: Files no agent may touch, whatever its phase: rgr's config and its overrides.
PROTECTED = ("tdd.toml", ".rgr/")

#: Markers that silence a test instead of making it pass, across the ecosystems that
#: test-command detection knows. Matched on added lines only.
SKIP_MARKERS = re.compile(
    r"@pytest\.mark\.(skip|skipif|xfail)\b|\bpytest\.(skip|xfail)\s*\("
    r"|@unittest\.(skip|skipIf|skipUnless|expectedFailure)\b|\bself\.skipTest\s*\("
    r"|\b(it|test|describe)\.(skip|todo)\s*\(|\bx(it|describe|test)\s*\("
    r"|@Disabled\b|@Ignore\b|\bt\.Skip(Now|f)?\s*\("
    # the other runners rgr reads (rgr/runners): Vitest/Jest conditional skips and
    # expected failures, Mocha's this.skip(), node's { skip: true }, Rust's #[ignore],
    # PHPUnit's markTestSkipped/markTestIncomplete
    r"|\b(it|test|describe)\.(skipIf|runIf|fails|failing)\s*\(|\bthis\.skip\s*\("
    r"|\{\s*(skip|todo)\s*:\s*true\b|#\[ignore\b|\bmarkTest(Skipped|Incomplete)\s*\("
)


@dataclass(frozen=True)
class Violation:
    rule: str
    message: str
    path: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = f" [{self.path}{f':{self.line}' if self.line else ''}]"
        return f"{self.rule}: {self.message}{where}"


def check_commits(
    repo: pygit2.Repository, base: pygit2.Oid, head: pygit2.Oid, prefixes: list[str]
) -> list[Violation]:
    """The agent committed on top of ``base``, every message with its phase's prefix."""
    if head == base:
        return [Violation("no-commit", "the agent made no commit; every phase must commit "
                          f"its work with a message starting {' or '.join(prefixes)}")]
    if not git.is_ancestor(repo, base, head):
        return [Violation("history-rewritten",
                          "HEAD no longer contains the phase's base commit: the agent reset "
                          "or rebased; commit on top of it instead")]
    violations = []
    for commit in git.commits_between(repo, base, head):
        subject = (commit.message or "").splitlines()[0] if commit.message else ""
        if not any(subject.startswith(p) for p in prefixes):
            violations.append(Violation(
                "commit-prefix",
                f"commit {str(commit.id)[:8]} {subject!r} does not start with "
                f"{' or '.join(prefixes)}"))
    return violations


def check_scope(
    repo: pygit2.Repository, config: Config, phase: Phase, base: pygit2.Oid, head: pygit2.Oid
) -> list[Violation]:
    """Which files the phase may touch, and no skip markers added anywhere."""
    violations = []
    for change in git.changed_files(repo, base, head):
        paths = [change.path] + ([change.old_path] if change.old_path else [])
        for path in paths:
            violations.extend(_scope_rule(config, phase, path, change.status))
    violations.extend(_added_skip_markers(repo, base, head))
    return violations


def _scope_rule(config: Config, phase: Phase, path: str, status: str) -> list[Violation]:
    if path == "tdd.toml" or path.startswith(".rgr/"):
        return [Violation("protected-file", f"{status} {path}: rgr's configuration is off "
                          "limits to agents", path)]
    is_test = config.is_test_file(path)
    if phase == Phase.PLAN and path != TEST_LIST:
        return [Violation("plan-scope", f"{status} {path}: the planner may only change "
                          f"{TEST_LIST}", path)]
    if phase == Phase.RED and not is_test and path != TEST_LIST:
        return [Violation("red-scope", f"{status} {path}: RED may only change test files "
                          "(see test_file_globs in tdd.toml)", path)]
    if phase == Phase.GREEN and (is_test or path == TEST_LIST):
        return [Violation("green-touches-tests", f"{status} {path}: GREEN must make the test "
                          "pass without changing any test file", path)]
    return []


def _added_skip_markers(
    repo: pygit2.Repository, base: pygit2.Oid, head: pygit2.Oid
) -> list[Violation]:
    old = repo[base].peel(pygit2.Tree)
    new = repo[head].peel(pygit2.Tree)
    found = []
    for patch in old.diff_to_tree(new):
        if patch is None or patch.delta.is_binary:
            continue
        for hunk in patch.hunks:
            for line in hunk.lines:
                if line.origin == "+" and SKIP_MARKERS.search(line.content):
                    found.append(Violation(
                        "skip-marker", f"added {line.content.strip()!r}: tests must not be "
                        "skipped or marked as expected failures", patch.delta.new_file.path,
                        line.new_lineno))
    return found


def check_tests(phase: Phase, before: TestReport, after: TestReport) -> list[Violation]:
    """What the test runner must say after ``phase``, given what it said before."""
    if after.timed_out:
        return [Violation("test-timeout", "the test command did not finish within "
                          "command_timeout; a hanging test is not a result")]
    if after.report_error:
        return [Violation("no-test-report", after.report_error)]
    if after.collection_errors:
        listing = ", ".join(after.collection_errors)
        return [Violation("tests-do-not-load", f"the runner could not load {listing}: a test "
                          "that does not even import or parse is not an honest result")]
    old_ids, new_ids = set(before.outcomes), set(after.outcomes)
    violations = [Violation("test-removed", f"test {test_id} no longer exists")
                  for test_id in sorted(old_ids - new_ids)]
    previously_passing = {i for i, o in before.outcomes.items() if o.status == "passed"}
    if phase == Phase.RED:
        added = sorted(new_ids - old_ids)
        if not added:
            violations.append(Violation("red-no-new-test", "no new test was collected"))
        for test_id in added:
            if after.outcomes[test_id].status == "passed":
                violations.append(Violation(
                    "red-passes", f"new test {test_id} passes already: it does not test "
                    "missing behaviour (check its assertion)"))
            elif after.outcomes[test_id].status == "skipped":
                violations.append(Violation("red-skipped", f"new test {test_id} is skipped"))
        for test_id in sorted(previously_passing & new_ids):
            if after.outcomes[test_id].status != "passed":
                violations.append(Violation(
                    "red-breaks-tests", f"{test_id} passed before and now "
                    f"{after.outcomes[test_id].status}: {after.outcomes[test_id].message[:300]}"))
        return violations
    if phase == Phase.GREEN and new_ids - old_ids:
        violations.append(Violation(
            "green-changes-tests", "the runner now collects tests that did not exist before: "
            + ", ".join(sorted(new_ids - old_ids))))
    if not after.all_passed:
        for test_id in after.failing_ids[:20]:
            outcome = after.outcomes[test_id]
            violations.append(Violation(
                "tests-fail", f"{test_id} {outcome.status}: {outcome.message[:300]}"))
        if not after.failing_ids:
            violations.append(Violation(
                "tests-fail", f"the test command failed (exit code {after.exit_code})"))
    return violations


def failure_brief(violations: list[Violation], after: TestReport | None) -> str:
    """The text a retry's prompt carries: every violation, then the runner's output tail."""
    lines = ["Your previous attempt at this phase was rejected by rgr and rolled back:"]
    lines += [f"- {v}" for v in violations]
    if after is not None and after.output_excerpt.strip():
        lines += ["", "Test runner output (excerpt):", "```", after.output_excerpt[-3000:], "```"]
    return "\n".join(lines)
