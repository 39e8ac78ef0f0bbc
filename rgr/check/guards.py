"""Phase rules, checked deterministically on what the agent committed (base..HEAD) and
on what the real test runner reported. A violation is a failed phase, and its text is
the failure brief the next attempt gets: which rule, which file, which line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from rgr.base.config import Config, GlobSet, glob_to_regex
from rgr.base.proc import bound
from rgr.check import cheats, ignore_rules
from rgr.check.testlist import FILENAME as TEST_LIST
from rgr.check.verify import TestReport
from rgr.check.violation import Violation
from rgr.ecosystems import manifest_keys, registry
from rgr.ecosystems.base import TestOutcome
from rgr.ecosystems.failure_kind import MEANING, is_right_red
from rgr.store import git
from rgr.store.handoff import Phase
from rgr.store.objects import Oid, Repository, Tree

#: Files no agent may touch, whatever its phase: rgr's config and its overrides.
PROTECTED = ("tdd.toml", ".rgr/")

#: Files that decide how tests are collected, configured or reported (runner config,
#: plugins, interpreter start-up hooks, manifests). rgr's verdict rests on them, so no
#: agent may change them in any phase: the user changes them, outside a run.
TEST_INFRA_GLOBS: tuple[str, ...] = registry.test_config_globs()

#: Phases that may declare a dependency in a manifest (key by key: rgr.ecosystems.manifest_keys).
DEPENDENCY_PHASES = (Phase.GREEN, Phase.REFACTOR)

#: Code that reaches into a test framework or the runner's report from outside the
#: tests: a GREEN or REFACTOR change to non-test code must not contain it (it could
#: rewrite results from inside the test run). Matched on added lines of non-test files,
#: every language's patterns on every file (a Python module may hide a JavaScript
#: snippet it writes out): each language's own (Language.framework_hooks).
FRAMEWORK_HOOKS = re.compile("|".join(
    pattern for language in registry.LANGUAGES for pattern in language.framework_hooks))

#: Markers that silence a test instead of making it pass, every language's
#: (Language.skip_markers), on every file. Matched on added lines only.
SKIP_MARKERS = re.compile("|".join(
    pattern for language in registry.LANGUAGES for pattern in language.skip_markers))


def check_commits(
    repo: Repository, base: Oid, head: Oid, prefixes: list[str]
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
    repo: Repository, config: Config, phase: Phase, base: Oid, head: Oid
) -> list[Violation]:
    """Which files the phase may touch, no skip markers added anywhere, no link that
    leads out of the repository, no hook into the test framework from non-test code,
    and some code changed in GREEN."""
    violations = []
    changes = git.changed_files(repo, base, head)
    for change in changes:
        paths = [change.path] + ([change.old_path] if change.old_path else [])
        for path in paths:
            texts = _texts(repo, base, head, change) if _judged_name(path) else (None, None)
            violations.extend(_scope_rule(config, phase, path, change.status, texts))
    violations.extend(hidden_configuration(repo, base, head, changes))
    violations.extend(escaping_links(repo, head, [c.path for c in changes
                                                  if c.status != "deleted"]))
    violations.extend(_added_lines(repo, base, head, config, phase))
    violations = with_cheat_idioms(violations, cheat_idioms(repo, config, base, head))
    if phase == Phase.GREEN and not violations and not any(
            not config.is_test_file(c.path) and c.path != TEST_LIST for c in changes):
        violations.append(Violation("green-no-code", "GREEN changed no code: a test that "
                                    "passes without an implementation change did not test "
                                    "missing behaviour"))
    return violations


def edit_rules(config: Config, phase: Phase,
               scope: list[str] | None = None, tests_allowed: bool = True) -> dict[str, object]:
    """The Write/Edit rules of ``phase`` for the PreToolUse hook (rgr.sandbox.pretool):
    what :func:`check_scope` will reject, said before the agent writes it. ``scope``
    (refactor mode) replaces the phase's allow-list with a batch's globs. ``judges``
    name the files judged by their content (a conftest.py, a manifest where dependencies
    may be declared, an ignore file) and the judging module the hook asks."""
    judged = _judged_globs(phase)
    deny: list[tuple[str, str]] = [
        (r"\.git(/.*)?", "git's own files are not yours to edit; commit instead"),
        (r"tdd\.toml|\.rgr(/.*)?", "rgr's configuration is off limits to agents"),
        *((glob_to_regex(g), "this file decides how tests are collected or reported; "
           "no agent may change it") for g in TEST_INFRA_GLOBS if g not in judged),
    ]
    judges = [(glob_to_regex(g), str(module)) for g, module in judged.items()]
    tests = [glob_to_regex(g) for g in [*config.test_file_globs, *_TEST_CODE_JUDGED]]
    test_list = re.escape(TEST_LIST)
    allow: list[str] | None = None
    reason = ""
    if scope is not None:
        allow = [glob_to_regex(g) for g in scope]
        reason = "outside the batch's scope (" + ", ".join(scope) + ")"
        if not tests_allowed:
            deny += [(t, "test files must not change in this batch") for t in tests]
    elif phase == Phase.PLAN:
        allow, reason = [test_list], f"the planner may only change {TEST_LIST}"
    elif phase == Phase.RED:
        allow, reason = [*tests, test_list], "RED may only change test files"
    elif phase == Phase.GREEN:
        deny += [(t, "GREEN must make the test pass without changing any test file")
                 for t in [*tests, test_list]]
    return {"deny": deny, "allow": allow, "scope": reason, "judges": judges}


#: The globs of the files judged by content that are test code (a conftest.py of
#: fixtures: ``Ecosystem.judged_by_content``).
_TEST_CODE_JUDGED = tuple(j.glob for j in registry.content_judges() if j.test_code)


def _judged_globs(phase: Phase) -> dict[str, str]:
    """Glob → the file of the module (standard library only) that judges a write to it
    in ``phase``."""
    judged = {"**/.gitignore": ignore_rules.__file__}
    if phase != Phase.COMPLETE:
        # a merge fix's checks (rgr.check.mergefix_checks) still refuse every one (a
        # conftest.py of fixtures too)
        judged.update({j.glob: j.module_file for j in registry.content_judges()})
    if phase in DEPENDENCY_PHASES:
        judged.update({f"**/{name}": manifest_keys.__file__
                       for name in manifest_keys.MANIFESTS})
    return judged


@functools.cache
def _infra_globs() -> GlobSet:
    return GlobSet(TEST_INFRA_GLOBS)


def is_test_infra(path: str) -> bool:
    """Whether ``path`` decides how tests are collected or reported (TEST_INFRA_GLOBS)."""
    return _infra_globs().matches(path)


def forbidden_path(path: str, status: str) -> Violation | None:
    """A file no agent may change in any phase or batch: rgr's configuration, or what
    decides how tests are collected and reported."""
    if path == "tdd.toml" or path.startswith(".rgr/"):
        return Violation("protected-file", f"{status} {path}: rgr's configuration is off "
                         "limits to agents", path)
    if is_test_infra(path):
        hint = (" (a dependency may be declared in it in GREEN or REFACTOR, key by key)"
                if manifest_keys.is_manifest(path) else "")
        return Violation("test-infra-changed", f"{status} {path}: this file decides how tests "
                         "are collected, configured or reported; no agent may change it "
                         f"(change it yourself, outside a run){hint}", path)
    return None


def hooks_framework(line: str, path: str, lineno: int) -> Violation | None:
    """An added line of non-test code that reaches into the test framework."""
    if not FRAMEWORK_HOOKS.search(line):
        return None
    return Violation("hooks-test-framework", f"added {line.strip()[:120]!r} to code under "
                     "test: it reaches into the test framework or the runner's report; "
                     "implementation code must not", path, lineno)


def judged_by_content(phase: Phase, path: str, old: str | None,
                      new: str | None) -> tuple[bool, str | None]:
    """Whether ``path`` is a file whose change rgr judges by what it does rather than by
    its name in ``phase`` (a conftest.py in any phase; a manifest where dependencies may
    be declared), and if so why the change from ``old`` to ``new`` is refused (None:
    it is allowed)."""
    judge = registry.content_judge(path)
    if judge is not None:
        return True, judge.refusal(path, old, new)
    if manifest_keys.is_manifest(path) and phase in DEPENDENCY_PHASES:
        return True, manifest_keys.refusal(path, old, new)
    return False, None


def hidden_configuration(repo: Repository, base: Oid, head: Oid,
                         changes: list[git.FileChange]) -> list[Violation]:
    """Ignore rules added in ``base..head`` that hide rgr's configuration from git (any
    phase, any level): git itself says which configuration paths became ignored."""
    touched = [c.path for c in changes if ignore_rules.is_ignore_file(c.path)]
    if not touched:
        return []
    probes = ignore_rules.PROBES
    hidden = sorted(git.ignored_paths(repo, head, probes) - git.ignored_paths(repo, base, probes))
    if not hidden:
        return []
    return [Violation("hides-configuration", f"{', '.join(touched)}: the ignore rules added "
                      f"hide rgr's configuration ({', '.join(hidden)}) from git; that is "
                      "configuration tampering, refused in every phase (remove those rules)",
                      touched[0])]


def forbidden_change(repo: Repository, phase: Phase, base: Oid,
                     head: Oid, change: git.FileChange, path: str) -> Violation | None:
    """:func:`forbidden_path`, except for the files judged by what the change does
    (:func:`judged_by_content`): for those, the content decides."""
    judged, refused = judged_by_content(phase, path, *_texts(repo, base, head, change))
    if refused is not None:
        return Violation("test-infra-changed", f"{change.status} {path}: {refused}", path)
    return None if judged else forbidden_path(path, change.status)


def _judged_name(path: str) -> bool:
    return registry.content_judge(path) is not None or manifest_keys.is_manifest(path)


def _test_code_by_name(path: str) -> bool:
    """Whether ``path`` is test code by its name, whatever ``test_file_globs`` say: a
    file judged by content whose judge calls it test code (a conftest.py: what it may
    not do is its judge's to refuse)."""
    judge = registry.content_judge(path)
    return judge is not None and judge.test_code


def _texts(repo: Repository, base: Oid, head: Oid,
           change: git.FileChange) -> tuple[str | None, str | None]:
    """The changed file before (at its old path) and after."""
    return (git.file_text(repo, base, change.old_path or change.path),
            git.file_text(repo, head, change.path))


def _scope_rule(config: Config, phase: Phase, path: str, status: str,
                texts: tuple[str | None, str | None] = (None, None)) -> list[Violation]:
    judged, refused = judged_by_content(phase, path, *texts)
    if refused is not None:
        return [Violation("test-infra-changed", f"{status} {path}: {refused}", path)]
    if not judged:
        forbidden = forbidden_path(path, status)
        if forbidden is not None:
            return [forbidden]
    elif manifest_keys.is_manifest(path):
        return []  # only dependency declarations changed, in a phase that may make them
    # a conftest.py of fixtures and helpers is test code, whatever test_file_globs say
    is_test = config.is_test_file(path) or _test_code_by_name(path)
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


def escaping_links(repo: Repository, head: Oid,
                    paths: list[str]) -> list[Violation]:
    """Symbolic links added or changed whose target is absolute or climbs out of the
    repository: checked out, they would lead a later reader or writer elsewhere."""
    tree = repo[head].peel(Tree)
    found = []
    for path in paths:
        target = git.link_target(repo, tree, path)
        if target is None:
            continue
        depth = len(path.split("/")) - 1
        climbed = 0
        escapes = target.startswith("/")
        for part in target.split("/"):
            climbed += -1 if part == ".." else (1 if part not in ("", ".") else 0)
            if climbed < -depth:
                escapes = True
        if escapes:
            found.append(Violation("link-escapes", f"symbolic link {path} -> {target} leads "
                                   "out of the repository", path))
    return found


def _added_lines(repo: Repository, base: Oid, head: Oid,
                 config: Config, phase: Phase) -> list[Violation]:
    """Skip markers anywhere; in GREEN and REFACTOR, hooks into the test framework in
    non-test code."""
    old = repo[base].peel(Tree)
    new = repo[head].peel(Tree)
    watch_hooks = phase in (Phase.GREEN, Phase.REFACTOR)
    found = []
    for patch in old.diff_to_tree(new):
        if patch is None or patch.delta.is_binary:
            continue
        path = patch.delta.new_file.path
        hooks = watch_hooks and not config.is_test_file(path)
        for hunk in patch.hunks:
            for line in hunk.lines:
                if line.origin != "+":
                    continue
                if SKIP_MARKERS.search(line.content):
                    found.append(Violation(
                        "skip-marker", f"added {line.content.strip()!r}: tests must not be "
                        "skipped or marked as expected failures", path, line.new_lineno))
                elif hooks and (hooked := hooks_framework(line.content, path,
                                                          line.new_lineno)):
                    found.append(hooked)
    return found


def cheat_idioms(repo: Repository, config: Config, base: Oid,
                 head: Oid) -> list[Violation]:
    """The cheat idioms (rgr.check.cheats) on the lines ``base..head`` added, in any phase
    or batch: each a violation named by its rule, at its file and line."""
    old = repo[base].peel(Tree)
    new = repo[head].peel(Tree)
    found = []
    for patch in old.diff_to_tree(new):
        if patch is None or patch.delta.is_binary or not cheats.judged(
                path := patch.delta.new_file.path):
            continue
        added = {line.new_lineno for hunk in patch.hunks for line in hunk.lines
                 if line.origin == "+"}
        source = git.file_text(repo, head, path) if added else None
        if source is None:
            continue
        # a conftest.py is test code here: only its patches of the framework count
        is_test = config.is_test_file(path) or _test_code_by_name(path)
        found += [Violation(f.rule, f.message, path, f.line)
                  for f in cheats.findings(path, source, added, is_test)]
    return found


def with_cheat_idioms(violations: list[Violation],
                      idioms: list[Violation]) -> list[Violation]:
    """``violations`` and the cheat idioms found, once each: a line that the word-level
    rule ``hooks-test-framework`` caught and a cheat idiom names keeps only the name."""
    named = {(v.path, v.line) for v in idioms}
    return [v for v in violations if not (
        v.rule == "hooks-test-framework" and (v.path, v.line) in named)] + idioms


def hides_tests(report: TestReport) -> bool:
    """Whether test files in ``report`` did not compile only for want of the code under
    test, in a runner that builds its tests together (Go's package, Rust's crate): one
    test of code not written yet hides every test built with it."""
    return not registry.loads_file_by_file(report.runner) and bool(report.collection_errors) \
        and all(report.load_kinds.get(f) == "missing-code" for f in report.collection_errors)


def _unit(test_id: str) -> str:
    """What a test is built with: its id's first part (Go's import path, Rust's target)."""
    return test_id.split("::", 1)[0]


def hidden_tests(before: TestReport, after: TestReport) -> set[str]:
    """The tests of ``before`` that ``after`` does not run because their whole unit (a Go
    package, a Rust target) vanished with a missing-code compile error (``hides_tests``).
    A single test gone from a unit that still runs is not hidden: it was removed."""
    if not hides_tests(after):
        return set()
    ran = {_unit(i) for i in after.outcomes}
    return {i for i in set(before.outcomes) - set(after.outcomes) if _unit(i) not in ran}


def check_tests(phase: Phase, before: TestReport, after: TestReport, *,
                red_report: TestReport | None = None,
                read: Callable[[str], str | None] | None = None) -> list[Violation]:
    """What the test runner must say after ``phase``, given what it said before.
    ``red_report``: RED's own report, whose compile error hid tests (``hides_tests``);
    then GREEN's ``before`` is the report before RED (rgr.tdd.engine), and the tests RED
    hid, its new ones among them, appear in GREEN's run. ``read``: a test file's text at
    the phase's commit, to name the line of a test silenced (``line_naming``)."""
    if after.timed_out:
        return [Violation("test-timeout", "the test command did not finish within "
                          "command_timeout; a hanging test is not a result")]
    if after.report_error:
        return [Violation("no-test-report", after.report_error)]
    # RED may leave a test file that does not load because the code under test does not
    # exist yet (``from calc import add`` before calc.py): that is the test failing for
    # the right reason. Any other load error, and any in another phase, is not.
    missing_code = {f for f in after.collection_errors
                    if after.load_kinds.get(f) == "missing-code"}
    if after.collection_errors and (phase != Phase.RED
                                    or missing_code != set(after.collection_errors)):
        listing = ", ".join(f"{f} ({after.load_kinds[f]})" if f in after.load_kinds else f
                            for f in after.collection_errors)
        return [Violation("tests-do-not-load", f"the runner could not load {listing}: a test "
                          "that does not even import or parse is not an honest result"
                          + (" (a test file may fail to import only because the code "
                             "under test does not exist yet, and only in RED)"
                             if phase == Phase.RED else ""))]
    old_ids, new_ids = set(before.outcomes), set(after.outcomes)
    # A RED whose missing-code compile error hid a package's tests removed none of them
    # as far as anyone can see yet: GREEN's run is held against the report before RED.
    # The packages it did not break still run and count.
    hidden = hidden_tests(before, after) if phase == Phase.RED else set()
    violations = [Violation("test-removed", f"test {test_id} no longer exists")
                  for test_id in sorted(old_ids - new_ids - hidden)]
    previously_passing = {i for i, o in before.outcomes.items() if o.status == "passed"}
    if phase == Phase.RED:
        added = sorted(new_ids - old_ids)
        if not added and not missing_code:
            violations.append(Violation("red-no-new-test", "no new test was collected"))
        for test_id in added:
            if after.outcomes[test_id].status == "passed":
                violations.append(Violation(
                    "red-passes", f"new test {test_id} passes already: it does not test "
                    "missing behaviour (check its assertion)"))
            elif after.outcomes[test_id].status == "skipped":
                violations.append(Violation("red-skipped", f"new test {test_id} is skipped"))
            elif not is_right_red(after.outcomes[test_id].kind):
                violations.append(wrong_red_failure(after.outcomes[test_id]))
        for test_id in sorted(previously_passing & new_ids):
            if after.outcomes[test_id].status != "passed":
                violations.append(Violation(
                    "red-breaks-tests", f"{test_id} passed before and now "
                    f"{after.outcomes[test_id].status}: {after.outcomes[test_id].message[:300]}"))
        return violations
    # Tests of a file RED left unloadable for want of the code appear once GREEN writes it.
    unloaded = {f for f in before.collection_errors
                if before.load_kinds.get(f) == "missing-code"}
    # Tests RED's compile error hid (their unit ran no test in RED's report) appear too.
    red_ids = set(red_report.outcomes) if red_report is not None else set()
    red_ran = {_unit(i) for i in red_ids} if red_report is not None else None
    appeared = sorted(
        i for i in new_ids - old_ids - red_ids
        if (after.outcomes[i].file or i.split("::", 1)[0]) not in unloaded
        and (red_ran is None or _unit(i) in red_ran))
    if phase == Phase.GREEN and appeared:
        violations.append(Violation(
            "green-changes-tests", "the runner now collects tests that did not exist before: "
            + ", ".join(appeared)))
    violations.extend(silenced_tests(before, after, read))
    if phase == Phase.GREEN:
        # RED's new tests that first ran here (their file did not load in RED, or RED's
        # compile error hid them) and that the runner reports skipped: RED wrote them
        # skipped, whatever syntax did it (GREEN may not touch tests: check_scope).
        violations.extend(
            Violation("red-skipped", f"new test {i} of RED's first ran in GREEN's run, "
                      "where the runner reports it skipped: RED's test is silenced, not "
                      "passing", after.outcomes[i].file,
                      line_naming(read, after.outcomes[i].file, i))
            for i in first_run_skipped(before, after))
    if not after.all_passed and not only_a_step_failed(after):
        for test_id in after.failing_ids[:20]:
            outcome = after.outcomes[test_id]
            violations.append(Violation(
                "tests-fail", f"{test_id} {outcome.status}: {outcome.message[:300]}"))
        if not after.failing_ids:
            violations.append(Violation(
                "tests-fail", f"the test command failed (exit code {after.exit_code})"))
    return violations


def first_run_skipped(before: TestReport, after: TestReport) -> list[str]:
    """GREEN: the tests ``after`` runs that ``before`` (RED's report) did not, which the
    runner reports skipped: RED's new tests, silenced (``red-skipped``). The cycle goes
    back to RED with them (rgr.tdd.engine): GREEN may not edit a test."""
    return sorted(i for i in set(after.outcomes) - set(before.outcomes)
                  if after.outcomes[i].status == "skipped")


#: A test named as its class's method (Minitest's ``TestPercent#test_formats``): the
#: class is no name the test file spells before ``def``.
_CLASS_METHOD = re.compile(r"[A-Z][\w:]*#(\w+[?!]?)")


def line_naming(read: Callable[[str], str | None] | None, path: str | None,
              test_id: str) -> int | None:
    """The line of ``path`` (read by ``read``) that names test ``test_id``: its last name
    (``file::suite::name``; a method's, ``Class#name``, as Minitest names it) quoted, or
    after ``def``/``func``; None when not found."""
    text = read(path) if read is not None and path else None
    if not text:
        return None
    last = test_id.split("::")[-1].split("/")[-1].split("[")[0]
    method = _CLASS_METHOD.fullmatch(last)
    name = re.escape(method.group(1) if method else last)
    found = re.search(rf"""(['"`]|\b(?:def|func|fn)\s+){name}\b""", text)
    return text.count("\n", 0, found.start()) + 1 if found else None


def only_a_step_failed(report: TestReport) -> bool:
    """Whether ``report``'s command failed with every test passing, as the runner reports
    each: a step of the command that is not a test failed (a coverage threshold such as
    ``c8 --100``, a lint, a type check). That decides no test verdict; the mutation
    gate's per-test evidence names what the tests leave out first (``step_fails``)."""
    return (report.exit_code != 0 and not report.timed_out and not report.no_tests_collected
            and not report.collection_errors and report.report_error is None
            and not report.failing_ids
            and any(o.status == "passed" for o in report.outcomes.values()))


def step_fails(report: TestReport) -> list[Violation]:
    """A phase's test command that failed though every test passed (``only_a_step_failed``),
    said once the mutation gate found nothing: the project's command must pass, and the
    runner's words say which step did not."""
    if not only_a_step_failed(report):
        return []
    last = [line.strip() for line in report.output_excerpt.splitlines() if line.strip()][-3:]
    return [Violation(
        "command-step-fails", f"every test passed, yet the test command failed (exit code "
        f"{report.exit_code}): a step of it that is not a test (a coverage threshold, a "
        f"lint, a type check) did not pass. It ended with: {' / '.join(last)[:400]}")]


def silenced_tests(before: TestReport, after: TestReport,
                   read: Callable[[str], str | None] | None = None) -> list[Violation]:
    """The tests that ran before (passing, or failing as RED's new test does in GREEN)
    and that the runner now reports skipped: whatever silenced them (a marker of any
    syntax, metadata, a module-level mark, a skip raised at run time, an xfail), the
    runner's own outcomes say so. RED's new tests are judged by ``red-skipped``."""
    return [Violation("test-silenced", f"{test_id} {before.outcomes[test_id].status} before "
                      "and the runner now reports it skipped (skipped, pending, xfailed or "
                      "disabled): a test is never silenced, it passes or the phase is "
                      "rejected; undo what skips it", after.outcomes[test_id].file,
                      line_naming(read, after.outcomes[test_id].file, test_id))
            for test_id in sorted(set(before.outcomes) & set(after.outcomes))
            if before.outcomes[test_id].status != "skipped"
            and after.outcomes[test_id].status == "skipped"]


#: How much of the runner's words about one wrongly failing RED test the brief quotes.
WRONG_FAILURE_QUOTE = 600


def wrong_red_failure(outcome: TestOutcome) -> Violation:
    """A new RED test that fails for a reason GREEN cannot fix: which test, which kind,
    the runner's own words (bounded), and what a right RED looks like."""
    kind = outcome.kind or "unknown"
    meaning = MEANING.get(kind, "a failure GREEN cannot fix")
    words = bound(outcome.message.strip(), WRONG_FAILURE_QUOTE)
    return Violation(
        "red-wrong-failure",
        f"new test {outcome.test_id} fails with {kind}: {meaning}. GREEN may not "
        "change tests, so it could never make this one pass. A right RED fails on an "
        "assertion about the missing behaviour, or because the code under test does not "
        "exist yet (its module, function or method); use only fixtures and helpers that "
        f"exist or that the test file defines. The runner said:\n{words}",
        outcome.file)
