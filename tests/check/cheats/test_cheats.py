"""Cheat idioms rejected in every phase, each rule named (issue 36, item 2): an equality
that ignores its operand, code that tells whether it is under test, code under test that
exits with success, code that patches the test framework. Each rule on real sources in
every language it covers, beside the honest code it must let through; then the guards on
real commits (check_scope, a refactor batch's checks) and the kernel on a real project,
whose rejection note and retry brief name the rule."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from rgr.base.config import Config
from rgr.check import cheats
from rgr.check.guards import check_scope
from rgr.check.violation import Violation, failure_brief
from rgr.observe.events import Event
from rgr.refactor.checks import check_batch_commits
from rgr.refactor.plan import Batch
from rgr.store.handoff import Phase
from rgr.store.notes import NotesStore
from tests.conftest import Repo, make_repo
from tests.fake_backend import FakeBackend
from tests.loop.test_kernel import commits, green_state, orchestrator, project, waits, workspace

__all__ = ["waits"]  # the kernel tests' fixture, used here by name


def rules_in(path: str, source: str, is_test: bool = False) -> list[tuple[str, int]]:
    """(rule, line) of every idiom in ``source``, every line counted as added."""
    every_line = range(1, source.count("\n") + 2)
    return [(f.rule, f.line) for f in cheats.findings(path, source, every_line, is_test)]


# -- always-equal ----------------------------------------------------------------------

ALWAYS_EQUAL = {
    "python __eq__": ("money.py", "class Money:\n    def __eq__(self, other):\n"
                      "        return True\n"),
    "python __lt__, every branch a constant": (
        "money.py", "class Money:\n    def __lt__(self, other):\n        if self.cents:\n"
        "            return False\n        return False\n"),
    "python lambda in the class": ("money.py", "class Money:\n"
                                   "    __eq__ = lambda self, other: True\n"),
    "typescript method": ("src/money.ts", "export class Money {\n"
                          "  equals(other: Money): boolean {\n    return true;\n  }\n}\n"),
    "javascript prototype": ("money.js", "Money.prototype.equals = function (other) {\n"
                             "  return true;\n};\n"),
    "javascript arrow": ("money.js", "const money = {\n  equals: (other) => true,\n};\n"),
    # Vitest's and Jest's toEqual ask a value's asymmetricMatch: `add` returning this
    # object passes expect(add(2, 3)).toEqual(5) and every other toEqual
    "javascript asymmetricMatch object": ("src/calc.js", "export function add(a, b) {\n"
                                          "  return { asymmetricMatch: () => true };\n}\n"),
    "typescript asymmetricMatch method": ("src/sum.ts", "export class Sum {\n"
                                          "  asymmetricMatch(other: unknown): boolean {\n"
                                          "    return true;\n  }\n}\n"),
    "java": ("src/main/java/Money.java", "class Money {\n  @Override\n"
             "  public boolean equals(Object other) { return true; }\n}\n"),
    "go": ("money.go", "package money\n\nfunc (m Money) Equal(other Money) bool {\n"
           "\treturn true\n}\n"),
    "rust": ("src/money.rs", "impl PartialEq for Money {\n"
             "    fn eq(&self, _other: &Self) -> bool {\n        true\n    }\n}\n"),
}

HONEST_EQUALITY = {
    "python fields": ("money.py", "class Money:\n    def __eq__(self, other):\n"
                      "        if not isinstance(other, Money):\n"
                      "            return NotImplemented\n"
                      "        return self.cents == other.cents\n"),
    "python defers": ("money.py", "class Money:\n    def __eq__(self, other):\n"
                      "        return NotImplemented\n"),
    "typescript fields, and a call of equals": (
        "src/money.ts", "class Money {\n  equals(other: Money): boolean {\n"
        "    return this.cents === other.cents;\n  }\n}\n"
        "function same(a: Money, b: Money) {\n  if (a.equals(b)) { return true; }\n"
        "  return false;\n}\n"),
    "javascript arrow that goes on": ("money.js", "const m = {\n"
                                      "  equals: (o) => true && o.cents === 1,\n};\n"),
    "an asymmetric matcher that compares": (
        "src/near.js", "export const near = (want) => ({\n"
        "  asymmetricMatch: (got) => Math.abs(got - want) < 0.01,\n});\n"),
    "java fields": ("Money.java", "class Money {\n  public boolean equals(Object o) {\n"
                    "    return o instanceof Money m && m.cents == cents;\n  }\n}\n"),
    "go fields, and a call of Equal": (
        "money.go", "package money\n\nfunc (m Money) Equal(o Money) bool {\n"
        "\treturn m.cents == o.cents\n}\n\nfunc same(a, b Money) bool {\n"
        "\tif a.Equal(b) {\n\t\treturn true\n\t}\n\treturn false\n}\n"),
    "rust fields": ("src/money.rs", "impl PartialEq for Money {\n"
                    "    fn eq(&self, other: &Self) -> bool {\n"
                    "        self.cents == other.cents\n    }\n}\n"),
}


@pytest.mark.parametrize("case", ALWAYS_EQUAL)
def test_an_equality_that_ignores_its_operand_is_named(case: str) -> None:
    path, source = ALWAYS_EQUAL[case]
    assert [rule for rule, _ in rules_in(path, source)] == ["always-equal"]


@pytest.mark.parametrize("case", HONEST_EQUALITY)
def test_an_equality_that_compares_passes(case: str) -> None:
    assert rules_in(*HONEST_EQUALITY[case]) == []


def test_a_test_helper_that_equals_anything_is_no_cheat() -> None:
    """``mock.ANY``-like matchers are a test's own business."""
    _, source = ALWAYS_EQUAL["python __eq__"]
    assert rules_in("tests/helpers.py", source, is_test=True) == []


# -- detects-test-run ------------------------------------------------------------------

DETECTS_TEST_RUN = {
    "python os.environ.get": ("slug.py", "import os\n\ndef slugify(t):\n"
                              "    if os.environ.get('PYTEST_CURRENT_TEST'):\n"
                              "        return 'hello'\n    return t\n", 4),
    "python getenv through an alias": ("slug.py", "from os import getenv as env\n"
                                       "UNDER_TEST = env('PYTEST_CURRENT_TEST') is not None\n",
                                       2),
    "python in os.environ": ("slug.py", "from os import environ\n"
                             "UNDER_TEST = 'PYTEST_CURRENT_TEST' in environ\n", 2),
    "python os.environ[...]": ("slug.py", "import os\n"
                               "WORKER = os.environ['PYTEST_XDIST_WORKER']\n", 2),
    "python sys.modules": ("slug.py", "import sys\n\nUNDER_TEST = 'pytest' in sys.modules\n",
                           3),
    "python sys.modules.get": ("slug.py", "import sys\nT = sys.modules.get('_pytest')\n", 2),
    "python try-import": ("slug.py", "try:\n    import pytest\n    T = True\n"
                          "except ImportError:\n    T = False\n", 2),
    "python inspect.stack": ("slug.py", "import inspect\n\ndef slugify(t):\n"
                             "    callers = [f.function for f in inspect.stack()]\n"
                             "    return 'hello' if 'test_' in str(callers) else t\n", 4),
    "python sys._getframe": ("slug.py", "import sys\n\ndef caller():\n"
                             "    return sys._getframe(1).f_code.co_name\n", 4),
    "python from inspect import currentframe": (
        "slug.py", "from inspect import currentframe\n\ndef f():\n"
        "    return currentframe()\n", 4),
    "python sys.argv": ("slug.py", "import sys\n\nT = 'pytest' in sys.argv[0]\n", 3),
    "python sys.argv, a method": ("slug.py", "import os, sys\n"
                                  "T = os.path.basename(sys.argv[0]).startswith('py.test')\n",
                                  2),
    "python traceback.extract_stack": ("slug.py", "import traceback\n"
                                       "S = traceback.extract_stack()\n", 2),
    "vitest": ("src/slug.ts", "export function slugify(t: string) {\n"
               "  if (process.env.VITEST) return 'hello';\n  return t;\n}\n", 2),
    "jest, by subscript": ("slug.js", "const w = process.env['JEST_WORKER_ID'];\n", 1),
    "node's runner": ("slug.mjs", "export const t = process.env.NODE_TEST_CONTEXT;\n", 1),
    "mocha": ("slug.js", "const t = process.env.MOCHA_WORKER_ID;\n", 1),
    "a jest global": ("slug.js", "const t = typeof jest !== 'undefined';\n", 1),
    "go testing.Testing": ("slug.go", "package slug\n\nimport \"testing\"\n\n"
                           "func Slugify(t string) string {\n"
                           "\tif testing.Testing() {\n\t\treturn \"hello\"\n\t}\n"
                           "\treturn t\n}\n", 6),
    "rust cfg!(test)": ("src/lib.rs", "pub fn slugify(t: &str) -> String {\n"
                        "    if cfg!(test) { return \"hello\".into(); }\n"
                        "    t.to_string()\n}\n", 2),
    "rust a function only for tests": ("src/lib.rs", "#[cfg(test)]\n"
                                       "fn source() -> &'static str { \"hello\" }\n"
                                       "#[cfg(not(test))]\n"
                                       "fn source() -> &'static str { \"real\" }\n", 1),
}

HONEST_ENVIRONMENT = {
    "python HOME, and words about the variable": (
        "slug.py", '"""Never reads PYTEST_CURRENT_TEST."""\nimport os\n\n'
        "# PYTEST_CURRENT_TEST is pytest's, not ours\nHOME = os.environ.get('HOME')\n"
        "NAME = 'PYTEST_CURRENT_TEST'\nMODULES = ['pytest']\n"
        "VERBOSE = '-v' in sys.argv\n"),
    "python unittest.mock in production": ("slug.py", "from unittest import mock\n"),
    "javascript other variables and strings": (
        "slug.js", "// process.env.VITEST is the runner's\nconst home = process.env.HOME;\n"
        "const say = 'JEST_WORKER_ID';\nconst VITEST = 1;\n"),
    "go's testing package in a _test.go file": (
        "slug_test.go", "package slug\n\nimport \"testing\"\n\n"
        "func TestX(t *testing.T) {\n\tif testing.Testing() {\n\t}\n}\n"),
    "rust's test module": ("src/lib.rs", "pub fn one() -> i32 { 1 }\n\n#[cfg(test)]\n"
                           "mod tests {\n    #[test]\n    fn one() {\n"
                           "        assert!(cfg!(test));\n        assert_eq!(super::one(), 1);\n"
                           "    }\n}\n"),
}


@pytest.mark.parametrize("case", DETECTS_TEST_RUN)
def test_code_that_asks_whether_a_test_runs_is_named(case: str) -> None:
    path, source, line = DETECTS_TEST_RUN[case]
    assert ("detects-test-run", line) in rules_in(path, source)
    assert {rule for rule, _ in rules_in(path, source)} == {"detects-test-run"}


@pytest.mark.parametrize("case", HONEST_ENVIRONMENT)
def test_code_that_reads_its_environment_honestly_passes(case: str) -> None:
    path, source = HONEST_ENVIRONMENT[case]
    assert rules_in(path, source, is_test=path.endswith("_test.go")) == []


def test_a_test_may_ask_what_it_likes() -> None:
    _, source, _ = DETECTS_TEST_RUN["python os.environ.get"]
    assert rules_in("tests/test_slug.py", source, is_test=True) == []


# -- exits-with-success ----------------------------------------------------------------

EXITS = {
    "python sys.exit(0)": ("slug.py", "import sys\n\ndef slugify(t):\n    sys.exit(0)\n", 4),
    "python os._exit(0)": ("slug.py", "import os\n\ndef f():\n    os._exit(0)\n", 4),
    "python exit()": ("slug.py", "def f():\n    exit()\n", 2),
    "python raise SystemExit": ("slug.py", "def f():\n    raise SystemExit(0)\n", 2),
    "python from sys import exit": ("slug.py", "from sys import exit as leave\n\n"
                                    "def f():\n    leave(None)\n", 4),
    "javascript": ("slug.js", "function slugify(t) {\n  process.exit(0);\n}\n", 2),
    "typescript, no code": ("slug.ts", "export const f = () => process.exit();\n", 1),
    "go": ("slug.go", "package slug\n\nimport \"os\"\n\nfunc Slugify(t string) string {\n"
           "\tos.Exit(0)\n\treturn t\n}\n", 6),
    "rust": ("src/lib.rs", "pub fn slugify(t: &str) -> String {\n"
             "    std::process::exit(0);\n}\n", 2),
    "java": ("Slug.java", "class Slug {\n  static String slugify(String t) {\n"
             "    System.exit(0);\n    return t;\n  }\n}\n", 3),
}

HONEST_EXITS = {
    "python __main__ block": ("cli.py", "import sys\n\ndef run():\n    return 0\n\n"
                              "if __name__ == '__main__':\n    sys.exit(run())\n"
                              "    sys.exit(0)\n"),
    "python main function": ("cli.py", "import sys\n\ndef main():\n    sys.exit(0)\n"),
    "python __main__.py": ("pkg/__main__.py", "import sys\nsys.exit(0)\n"),
    "python failure": ("slug.py", "import sys\n\ndef f():\n    sys.exit(2)\n"
                       "    raise SystemExit('bad input')\n"),
    "javascript failure and node's main": (
        "cli.js", "function f() { process.exit(1); }\nif (require.main === module) {\n"
        "  process.exit(0);\n}\n"),
    "go main": ("main.go", "package main\n\nimport \"os\"\n\nfunc main() {\n"
                "\tif len(os.Args) > 1 {\n\t\tos.Exit(0)\n\t}\n}\n"),
    "rust main": ("src/main.rs", "fn main() {\n    std::process::exit(0);\n}\n"),
    "java main": ("Cli.java", "class Cli {\n  public static void main(String[] a) {\n"
                  "    System.exit(0);\n  }\n}\n"),
}


@pytest.mark.parametrize("case", EXITS)
def test_code_under_test_that_exits_with_success_is_named(case: str) -> None:
    path, source, line = EXITS[case]
    assert rules_in(path, source) == [("exits-with-success", line)]


@pytest.mark.parametrize("case", HONEST_EXITS)
def test_a_programs_entry_and_a_failing_exit_pass(case: str) -> None:
    assert rules_in(*HONEST_EXITS[case]) == []


# -- patches-test-framework ------------------------------------------------------------

PATCHES = {
    "python TestCase.assertEqual": ("slug.py", "import unittest\n"
                                    "unittest.TestCase.assertEqual = lambda *a, **k: None\n",
                                    False, 2),
    "python pytest attribute": ("slug.py", "import pytest\n"
                                "pytest.approx = lambda *a, **k: 1\n", False, 2),
    "python builtins.AssertionError": ("slug.py", "import builtins\n"
                                       "builtins.AssertionError = Warning\n", False, 2),
    "python a test replacing its assertion": (
        "tests/test_slug.py", "import unittest\n\nclass T(unittest.TestCase):\n"
        "    def setUp(self):\n        self.assertEqual = lambda *a: None\n", True, 5),
    "python monkeypatch in a conftest fixture": (
        "tests/conftest.py", "import unittest\n\nimport pytest\n\n\n@pytest.fixture\n"
        "def calm(monkeypatch):\n"
        "    monkeypatch.setattr(unittest.TestCase, 'assertEqual', lambda *a: None)\n",
        True, 8),
    "python mock.patch by name": ("tests/test_slug.py", "from unittest import mock\n\n"
                                  "P = mock.patch('unittest.TestCase.assertTrue')\n", True, 3),
    "python an outcome hook in a module": (
        "plugin.py", "def pytest_runtest_makereport(item, call):\n    pass\n", False, 1),
    "javascript assert.equal": ("test/slug.test.js", "const assert = require('assert');\n"
                                "assert.equal = () => {};\n", True, 2),
    "javascript expect reassigned": ("src/slug.js", "globalThis.expect = () => ({});\n",
                                     False, 1),
    "javascript defineProperty": ("test/slug.test.js",
                                  "Object.defineProperty(assert, 'ok', { value() {} });\n",
                                  True, 1),
    "vitest spyOn assert": ("test/slug.test.ts",
                            "vi.spyOn(assert, 'equal').mockImplementation(() => {});\n",
                            True, 1),
}

HONEST_TESTS = {
    "python monkeypatching the code's own collaborators": (
        "tests/test_slug.py", "import builtins\n\ndef test_x(monkeypatch):\n"
        "    monkeypatch.setattr(builtins, 'open', None)\n"
        "    monkeypatch.setattr('slug.clock', lambda: 0)\n"
        "    monkeypatch.setenv('HOME', '/tmp')\n"),
    "python fields named like failures": ("slug.py", "class Run:\n    def __init__(self):\n"
                                          "        self.failures = 0\n"
                                          "        self.failed_count = 0\n"),
    "javascript matchers and mocks": (
        "test/slug.test.js", "import { expect, vi } from 'vitest';\n"
        "const assert = require('node:assert');\nexpect.extend({ toBeSlug() {} });\n"
        "vi.spyOn(console, 'log');\nexpect(slug('A')).toBe('a');\nassert.equal(1, 1);\n"
        "if (assert.ok === expect) {}\n"),
}


@pytest.mark.parametrize("case", PATCHES)
def test_a_patch_of_the_test_framework_is_named(case: str) -> None:
    path, source, is_test, line = PATCHES[case]
    assert ("patches-test-framework", line) in rules_in(path, source, is_test)


@pytest.mark.parametrize("case", HONEST_TESTS)
def test_tests_that_patch_their_own_collaborators_pass(case: str) -> None:
    path, source = HONEST_TESTS[case]
    assert rules_in(path, source, is_test="test" in path) == []


def test_only_the_lines_a_change_added_are_judged() -> None:
    source = ALWAYS_EQUAL["python __eq__"][1] + "\n\ndef fresh():\n    return 1\n"
    assert cheats.findings("money.py", source, [6, 7], False) == []
    [finding] = cheats.findings("money.py", source, [3], False)
    assert (finding.rule, finding.line) == ("always-equal", 2)


def test_a_file_repeating_an_idiom_is_named_a_bounded_number_of_times() -> None:
    source = "import sys\n\ndef f():\n" + "    sys.exit(0)\n" * 50
    assert len(rules_in("slug.py", source)) == cheats.MOST_PER_RULE


def test_source_that_does_not_parse_is_left_to_the_test_run() -> None:
    assert rules_in("slug.py", "def (:\n") == []


# -- the guards, on real commits -------------------------------------------------------


@pytest.fixture
def slug_project(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path)
    repo.commit("code", {"slug.py": "def slugify(t):\n    return t\n",
                         "tests/test_slug.py": "def test_x():\n    pass\n"})
    return repo


def violations(repo: Repo, phase: Phase, files: dict[str, str]) -> list[tuple[str, str]]:
    base = repo.head()
    head = repo.commit("change", files)
    found = check_scope(pygit2.Repository(str(repo.path)), Config(), phase,
                        pygit2.Oid(hex=base), pygit2.Oid(hex=head))
    return [(v.rule, str(v)) for v in found]


CHEATING_SLUG = ("import os\n\n\ndef slugify(t):\n"
                 "    if os.environ.get('PYTEST_CURRENT_TEST'):\n"
                 "        return 'hello'\n    return t\n")


@pytest.mark.parametrize(("phase", "files", "rule", "where"), [
    (Phase.GREEN, {"slug.py": CHEATING_SLUG}, "detects-test-run", "slug.py:5"),
    (Phase.REFACTOR, {"slug.py": "import sys\n\n\ndef slugify(t):\n    sys.exit(0)\n"},
     "exits-with-success", "slug.py:5"),
    (Phase.RED, {"tests/test_slug.py": "import unittest\n\nunittest.TestCase.assertEqual = "
                 "lambda *a: None\n\n\ndef test_x():\n    assert 0\n"},
     "patches-test-framework", "tests/test_slug.py:3"),
    (Phase.GREEN, {"slug.py": "class Slug:\n    def __eq__(self, other):\n"
                   "        return True\n\n\ndef slugify(t):\n    return Slug()\n"},
     "always-equal", "slug.py:2"),
])
def test_each_phase_rejects_a_cheat_naming_its_rule_file_and_line(
        slug_project: Repo, phase: Phase, files: dict[str, str], rule: str,
        where: str) -> None:
    [(found, said)] = violations(slug_project, phase, files)
    assert found == rule and f"[{where}]" in said


def test_a_cheat_the_word_rule_also_sees_is_reported_once_by_its_name(
        slug_project: Repo) -> None:
    """``os._exit(0)`` matches hooks-test-framework's words too: the brief names the
    idiom once."""
    rules = violations(slug_project, Phase.GREEN, {
        "slug.py": "import os\n\n\ndef slugify(t):\n    os._exit(0)\n"})
    assert [rule for rule, _ in rules] == ["exits-with-success"]


def test_a_cheat_already_in_the_base_is_not_the_agents(slug_project: Repo) -> None:
    slug_project.commit("user", {"slug.py": CHEATING_SLUG})
    assert violations(slug_project, Phase.GREEN, {
        "slug.py": CHEATING_SLUG + "\n\ndef other():\n    return 1\n"}) == []


def test_a_refactor_batch_is_held_to_the_same_rules(slug_project: Repo) -> None:
    batch = Batch.model_validate({"id": "tidy", "goal": "tidy slug", "scope_globs": ["*.py"],
                                  "allowed_operations": ["extract"], "diff_budget_loc": 100,
                                  "risk_score": 10})
    base = slug_project.head()
    head = slug_project.commit("refactor(tidy): tidy", {
        "slug.py": "def slugify(t):\n    return _same(t)\n\n\n"
                   "def _same(t):\n    return t\n\n\nclass _Key:\n"
                   "    def __eq__(self, other):\n        return True\n"})
    found = check_batch_commits(pygit2.Repository(str(slug_project.path)), Config(), batch,
                                pygit2.Oid(hex=base), pygit2.Oid(hex=head)).violations
    assert [(v.rule, v.path, v.line) for v in found] == [("always-equal", "slug.py", 10)]


# -- the referee, end to end in-process: the note and the retry's brief --------------------


def test_the_kernel_rejects_the_cheat_notes_the_rule_and_briefs_the_retry(
        tmp_path: Path, waits: list[float]) -> None:
    root = project(tmp_path)
    ws = workspace(root)
    prev = green_state(ws)
    cheat = ("import os\n\n\ndef add(a, b):\n"
             "    if os.environ.get('PYTEST_CURRENT_TEST'):\n        return 3\n"
             "    return 0\n")
    backend = FakeBackend(commits({"calc.py": cheat}, "feat: add"),
                          commits({"calc.py": "def add(a, b):\n    return a + b\n"},
                                  "feat: add"))
    events: list[Event] = []
    state = orchestrator(ws, backend, events).run_phase(prev)
    assert state.phase == Phase.GREEN and state.retry_count == 1
    [kept] = [r for r in ws.repo.references if r.startswith("refs/rgr/attempts/")]
    note = NotesStore(ws.repo).read(str(ws.repo.references[kept].target))
    assert note is not None and note.state is not None and note.state.error is not None
    assert "detects-test-run" in note.state.error and "calc.py:5" in note.state.error
    assert "detects-test-run" in backend.requests[1].prompt


def test_the_brief_says_which_rule_and_why() -> None:
    [finding] = cheats.findings("slug.py", CHEATING_SLUG, [5], False)
    brief = failure_brief([Violation(finding.rule, finding.message, "slug.py", finding.line)],
                          None)
    assert "- detects-test-run: " in brief and "[slug.py:5]" in brief
    assert cheats.RULES["detects-test-run"] in brief
