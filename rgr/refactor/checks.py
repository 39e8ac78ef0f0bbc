"""The rules a refactor batch's commits are held to, on base..HEAD, before any gate run:

    commit-prefix / no-commit / history-rewritten   (rgr.check.guards.check_commits)
    protected-file     tdd.toml or .rgr/ changed
    test-infra-changed a file that decides how tests are collected or reported changed
    link-escapes       a symbolic link that leads out of the repository
    hooks-test-framework  non-test code that reaches into the test framework
    always-equal, detects-test-run, exits-with-success, patches-test-framework
                       cheat idioms on added lines (rgr.check.cheats)
    out-of-scope       a file outside the batch's scope_globs changed
    test-file-changed  a test file changed in a batch that does not allow 'tests'
    binary-file        a binary file added or changed
    diff-budget        more changed lines (added + deleted) than diff_budget_loc
    skip-marker        a skip/xfail marker added (rgr.check.guards.SKIP_MARKERS)
    api-changed        the public API snapshot differs, in a batch that does not allow 'api'

Then the gate: ``test-removed`` and ``tests-fail`` (rgr.check.guards.check_tests: the suite
before the batch is the contract) and ``gate-command-failed``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rgr.base.config import Config, GlobSet
from rgr.check.guards import (
    SKIP_MARKERS,
    cheat_idioms,
    check_commits,
    escaping_links,
    forbidden_change,
    hidden_configuration,
    hooks_framework,
    with_cheat_idioms,
)
from rgr.check.violation import Violation
from rgr.refactor.api import compare, renamed, snapshot_paths
from rgr.refactor.plan import Batch
from rgr.refactor.rename import is_pure_rename
from rgr.store import git
from rgr.store.handoff import Phase
from rgr.store.objects import Oid, Repository, Tree


def commit_prefix(batch: Batch) -> str:
    return f"refactor({batch.id}):"


@dataclass(frozen=True)
class DiffFacts:
    lines: int
    violations: list[Violation]


def check_batch_commits(repo: Repository, config: Config, batch: Batch,
                        base: Oid, head: Oid) -> DiffFacts:
    found = check_commits(repo, base, head, [commit_prefix(batch)])
    if found:
        return DiffFacts(0, found)
    scope = GlobSet(batch.scope_globs)
    changes = git.changed_files(repo, base, head)
    for change in changes:
        for path in [change.path] + ([change.old_path] if change.old_path else []):
            forbidden = forbidden_change(repo, Phase.REFACTOR, base, head, change, path)
            if forbidden is not None:
                found.append(forbidden)
            elif _renamed_in_test(repo, config, batch, base, head, change):
                continue  # a test that calls the renamed symbol by its new name
            elif not scope.matches(path):
                found.append(Violation("out-of-scope", f"{change.status} {path}: outside "
                                       f"this batch's scope {batch.scope_globs}", path))
            elif config.is_test_file(path) and not batch.allows_tests:
                found.append(Violation("test-file-changed", f"{change.status} {path}: the "
                                       "tests are the contract; this batch may not change "
                                       "them (operation 'tests' not allowed)", path))
    found += hidden_configuration(repo, base, head, changes)
    found += escaping_links(repo, head, [c.path for c in changes if c.status != "deleted"])
    lines = 0
    old = repo[base].peel(Tree)
    new = repo[head].peel(Tree)
    for patch in old.diff_to_tree(new):
        if patch is None:
            continue
        path = patch.delta.new_file.path
        if patch.delta.is_binary:
            found.append(Violation("binary-file", f"{path} is binary: a refactor changes "
                                   "source text only", path))
            continue
        _, added, deleted = patch.line_stats
        lines += added + deleted
        for hunk in patch.hunks:
            for line in hunk.lines:
                if line.origin != "+":
                    continue
                if SKIP_MARKERS.search(line.content):
                    found.append(Violation("skip-marker", f"added {line.content.strip()!r}: "
                                           "tests must not be skipped", path, line.new_lineno))
                elif not config.is_test_file(path) and (
                        hooked := hooks_framework(line.content, path, line.new_lineno)):
                    found.append(hooked)
    found = with_cheat_idioms(found, cheat_idioms(repo, config, base, head))
    if lines > batch.diff_budget_loc:
        found.append(Violation("diff-budget", f"{lines} changed lines, the batch's budget is "
                               f"{batch.diff_budget_loc}: do less, or only what the goal says"))
    if not batch.allows_api:
        # Only changed files can change the API: snapshot just those, at both ends.
        touched = {p for c in changes for p in (c.path, c.old_path) if p}
        before = snapshot_paths(repo, base, touched, config.is_test_file)
        after = snapshot_paths(repo, head, touched, config.is_test_file)
        if batch.is_rename:
            assert batch.rename is not None
            before = renamed(before, batch.rename)
        differences = compare(before, after)
        if differences:
            found.append(Violation("api-changed", "the public API changed: "
                                   + "; ".join(differences[:8]) + ". Keep public names and "
                                   "signatures; name new helpers with a leading '_'"))
    return DiffFacts(lines, found)


def _renamed_in_test(repo: Repository, config: Config, batch: Batch,
                     base: Oid, head: Oid, change: git.FileChange) -> bool:
    """A rename batch may touch a test file (in its scope or not) when the only change
    is the renamed identifier: the tests' assertions are the same, byte for byte, so
    the contract is unchanged; the plan validator accepts the same (plan.py)."""
    if batch.rename is None or change.status != "modified" \
            or not config.is_test_file(change.path):
        return False
    old, new = _text(repo, base, change.path), _text(repo, head, change.path)
    return old is not None and new is not None and is_pure_rename(
        old, new, batch.rename.symbol, batch.rename.new_name)


def _text(repo: Repository, commit: Oid, path: str) -> str | None:
    try:
        blob = repo[commit].peel(Tree)[path]
        return bytes(blob.data).decode("utf-8")  # type: ignore[union-attr]
    except (KeyError, UnicodeDecodeError, AttributeError):
        return None
