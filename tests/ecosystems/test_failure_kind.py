"""Why a test failed (rgr.ecosystems.failure_kind), read by each runner adapter from the real
runner's own report, and RED's check on it (rgr.check.guards.check_tests): a new test must fail
on an assertion or on missing code, never on an error of its own making.

Every runner here is the real one on real test files (no canned output); a toolchain
that cannot be installed is reported NOT VERIFIED by name (tests/e2e/toolchains.py).
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from toolchains import (
    ensure_cargo,
    ensure_go,
    ensure_js_runners,
    ensure_maven,
    ensure_phpunit,
    ensure_ruby_rspec,
    maven_home,
    maven_pom,
)

from rgr.base.config import TestCommand
from rgr.check.guards import check_tests
from rgr.check.verify import TestOutcome, TestReport, report_from_json, report_to_json, run_tests
from rgr.ecosystems.failure_kind import is_right_red, is_test_module, is_test_path
from rgr.ecosystems.registry import detect_test_command
from rgr.store.handoff import Phase

TIMEOUT = 300.0


def files(root: Path, contents: dict[str, str]) -> Path:
    for name, text in contents.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def run(root: Path, cmd: TestCommand | None = None, env: dict[str, str] | None = None
        ) -> TestReport:
    cmd = cmd or detect_test_command(root)
    assert cmd is not None
    return run_tests(cmd, root, timeout=TIMEOUT, env={**os.environ, **(env or {})})


#: The project's pytest: this interpreter's (detection would look for the project's own).
PYTEST = TestCommand((sys.executable, "-m", "pytest"), "pytest", (), False, "test")


def kinds(report: TestReport) -> dict[str, str | None]:
    """Each failing test's kind, by id (passing and skipped tests have none)."""
    return {test_id: o.kind for test_id, o in report.outcomes.items()
            if o.status in ("failed", "error")}


def empty_report() -> TestReport:
    return TestReport(argv=(), exit_code=5, duration_s=0.0, timed_out=False, outcomes={},
                      collection_errors=(), no_tests_collected=True, output_excerpt="")


def red_rules(after: TestReport) -> dict[str, str]:
    """RED's verdict on ``after`` from an empty start: the rule per rejected test."""
    found = {}
    for violation in check_tests(Phase.RED, empty_report(), after):
        test_id = violation.message.split("new test ", 1)[-1].split(" ", 1)[0]
        found[test_id] = violation.rule
    return found


# ------------------------------------------------------------------ the vocabulary


@pytest.mark.parametrize("path", [
    "tests/test_slug.py", "test_slug.py", "slug_test.py", "conftest.py", "pkg/tests/util.py",
    "slug_test.go", "src/slug.test.ts", "src/__tests__/slug.js", "spec/slug_spec.rb",
    "tests/slug.rs", "src/test/java/kata/SlugTest.java", "src/slug.spec.mjs"])
def test_test_paths(path: str) -> None:
    assert is_test_path(path)


@pytest.mark.parametrize("path", [
    "slug.py", "src/slug.ts", "pkg/latest.py", "contest.py", "src/main/java/kata/Slug.java",
    "lib/slug.rb", "slug.go", "src/lib.rs"])
def test_code_paths(path: str) -> None:
    assert not is_test_path(path)


@pytest.mark.parametrize(("module", "test_only"), [
    ("tests.helpers", True), ("test_utils", True), ("conftest", True),
    ("./helpers.test", True), ("../test/utils", True), ("pkg.testing.fakes", True),
    ("./test-utils", True), ("spec_helper", True), ("lib/specification", False),
    ("slug", False), ("pkg.slug", False), ("./slug.js", False), ("latest", False)])
def test_test_modules(module: str, test_only: bool) -> None:
    assert is_test_module(module) is test_only


def test_only_a_test_error_or_a_timeout_is_a_wrong_red() -> None:
    assert [k for k in ("assertion", "missing-code", "unknown", None, "newer-kind")
            if not is_right_red(k)] == []  # type: ignore[arg-type]
    assert not is_right_red("test-error") and not is_right_red("timeout")


# ------------------------------------------------------------------ pytest

PYTEST_RED = {
    "pytest.ini": "[pytest]\n",
    "stub.py": """
        def todo():
            raise NotImplementedError

        class Thing:
            pass
    """,
    # honest RED variants: every test here fails for a reason GREEN can fix
    "tests/test_honest.py": """
        import pytest
        import stub

        @pytest.fixture
        def word():
            return "Hello"

        def lower(text):
            return text.lower()

        def test_assertion_through_a_helper_and_a_local_fixture(word):
            assert lower(word) == "hello-world"

        @pytest.mark.parametrize("text", ["a b", "c d"])
        def test_parametrized(text):
            assert "-" in text

        def test_module_that_does_not_exist_yet():
            from slug import slugify
            assert slugify("a") == "a"

        def test_function_that_does_not_exist_yet():
            assert stub.slugify("a") == "a"

        def test_method_that_does_not_exist_yet():
            assert stub.Thing().slug() == "a"

        def test_name_that_does_not_exist_yet():
            assert slugify("a") == "a"

        def test_stub_that_raises():
            assert stub.todo() == 1

        def test_constructor_that_takes_no_argument_yet():
            assert stub.Thing("a") is not None

        @pytest.fixture
        def slugger():
            from slug import Slugger
            return Slugger()

        def test_fixture_that_needs_missing_code(slugger):
            assert slugger.slug("a") == "a"
    """,
    "tests/test_second_file.py": """
        def test_in_a_second_file():
            from slug import slugify
            assert slugify("A") == "a"
    """,
    # wrong REDs: no implementation could make these pass
    "tests/test_wrong.py": """
        import pytest

        @pytest.fixture
        def broken():
            raise RuntimeError("the fixture itself is broken")

        def test_missing_fixture(numbers):
            assert numbers == [1, 2]

        def test_missing_test_helper_module():
            from tests.helpers import make_words
            assert make_words()

        def test_setup_error(broken):
            assert broken
    """,
}


def test_pytest_kinds_and_reds(tmp_path: Path) -> None:
    report = run(files(tmp_path, PYTEST_RED), PYTEST)
    honest = "tests/test_honest.py::"
    assert kinds(report) == {
        honest + "test_assertion_through_a_helper_and_a_local_fixture": "assertion",
        honest + "test_parametrized[a b]": "assertion",
        honest + "test_parametrized[c d]": "assertion",
        honest + "test_module_that_does_not_exist_yet": "missing-code",
        honest + "test_function_that_does_not_exist_yet": "missing-code",
        honest + "test_method_that_does_not_exist_yet": "missing-code",
        honest + "test_name_that_does_not_exist_yet": "missing-code",
        honest + "test_stub_that_raises": "missing-code",
        honest + "test_constructor_that_takes_no_argument_yet": "missing-code",
        honest + "test_fixture_that_needs_missing_code": "missing-code",
        "tests/test_second_file.py::test_in_a_second_file": "missing-code",
        "tests/test_wrong.py::test_missing_fixture": "test-error",
        "tests/test_wrong.py::test_missing_test_helper_module": "test-error",
        "tests/test_wrong.py::test_setup_error": "test-error",
    }
    assert red_rules(report) == {
        "tests/test_wrong.py::test_missing_fixture": "red-wrong-failure",
        "tests/test_wrong.py::test_missing_test_helper_module": "red-wrong-failure",
        "tests/test_wrong.py::test_setup_error": "red-wrong-failure",
    }


@pytest.mark.parametrize("style", ["short", "line", "native", "no"])
def test_pytest_reds_whatever_traceback_style_the_project_sets(tmp_path: Path,
                                                               style: str) -> None:
    """The project's ``--tb`` changes what the report holds: the kinds may fall back to
    ``unknown`` (accepted), never an honest test to ``test-error``."""
    ini = f"[pytest]\naddopts = --tb={style}\n"
    report = run(files(tmp_path, {**PYTEST_RED, "pytest.ini": ini}), PYTEST)
    assert len(kinds(report)) == 14
    assert red_rules(report) == dict.fromkeys(
        ["tests/test_wrong.py::test_missing_fixture",
         "tests/test_wrong.py::test_missing_test_helper_module",
         "tests/test_wrong.py::test_setup_error"], "red-wrong-failure")


def test_the_rejection_names_test_kind_and_the_runners_words(tmp_path: Path) -> None:
    report = run(files(tmp_path, {"pytest.ini": "[pytest]\n", "tests/test_x.py": """
        def test_sums(numbers):
            assert sum(numbers) == 3
    """}), PYTEST)
    [violation] = check_tests(Phase.RED, empty_report(), report)
    text = str(violation)
    assert violation.rule == "red-wrong-failure" and violation.path == "tests/test_x.py"
    assert "new test tests/test_x.py::test_sums fails with test-error" in text
    assert "fixture 'numbers' not found" in text  # the runner's own words
    assert "A right RED fails on an assertion" in text
    assert len(text) < 2000  # bounded, whatever pytest printed (its fixture listing)


def test_a_pytest_timeout_is_a_wrong_red(tmp_path: Path) -> None:
    """pytest-timeout's per-test timeout (when the project uses it) is a timeout."""
    pytest.importorskip("pytest_timeout", reason="NOT VERIFIED here: pytest-timeout is "
                        "not installed")
    report = run(files(tmp_path, {"pytest.ini": "[pytest]\n", "tests/test_x.py": """
        import time
        import pytest

        @pytest.mark.timeout(0.5)
        def test_slow():
            time.sleep(5)
    """}), PYTEST)
    assert kinds(report) == {"tests/test_x.py::test_slow": "timeout"}


def test_kinds_survive_the_report_file_and_old_reports_still_load(tmp_path: Path) -> None:
    report = run(files(tmp_path, {"pytest.ini": "[pytest]\n", "tests/test_x.py": """
        def test_a(numbers):
            pass

        def test_b():
            assert 1 == 2
    """}), PYTEST)
    again = report_from_json(report_to_json(report))
    assert kinds(again) == kinds(report) == {"tests/test_x.py::test_a": "test-error",
                                             "tests/test_x.py::test_b": "assertion"}
    old = json.loads(report_to_json(report))
    for outcome in old["outcomes"].values():
        del outcome["kind"]  # a report written before the kinds existed
    loaded = report_from_json(json.dumps(old))
    assert set(kinds(loaded).values()) == {None}
    assert red_rules(loaded) == {}  # accepted, as before


def report_of(*outcomes: TestOutcome) -> TestReport:
    return TestReport(argv=(), exit_code=1, duration_s=0.0, timed_out=False,
                      outcomes={o.test_id: o for o in outcomes}, collection_errors=(),
                      no_tests_collected=False, output_excerpt="")


def test_only_new_tests_are_judged_by_their_kind_and_the_other_rules_stay() -> None:
    old = TestOutcome("t.py::old", "t.py", "error", "fixture 'x' not found", "test-error")
    before = report_of(old)
    after = report_of(
        old,  # failed the same way before this RED: not RED's to answer for
        TestOutcome("t.py::slow", "t.py", "failed", "Timeout (>1s)", "timeout"),
        TestOutcome("t.py::fine", "t.py", "failed", "assert 1 == 2", "assertion"),
        TestOutcome("t.py::odd", "t.py", "failed", "ValueError", "unknown"),
        TestOutcome("t.py::passes", "t.py", "passed", ""))
    rules = [(v.rule, v.message.split(" ")[2]) for v in check_tests(Phase.RED, before, after)]
    assert sorted(rules) == [("red-passes", "t.py::passes"), ("red-wrong-failure", "t.py::slow")]
    assert check_tests(Phase.GREEN, after, after)[0].rule == "tests-fail"  # GREEN: as before


# ------------------------------------------------------------------ JavaScript


@pytest.fixture(scope="module")
def node_modules() -> Path:
    return ensure_js_runners()


def js_project(root: Path, node_modules: Path, package: dict[str, object],
               contents: dict[str, str]) -> Path:
    files(root, {"package.json": json.dumps(package), **contents})
    (root / "node_modules").symlink_to(node_modules)
    return root


def test_vitest_kinds(tmp_path: Path, node_modules: Path) -> None:
    root = js_project(tmp_path, node_modules, {"type": "module",
                                               "scripts": {"test": "vitest run"}}, {
        "src/slug.js": "export const other = () => '';\n",
        "src/slug.test.js": """
            import { it, expect } from 'vitest';
            import * as slug from './slug.js';
            it('asserts', () => expect(slug.other('A')).toBe('a'));
            it('calls a missing function', () => expect(slug.slugify('A')).toBe('a'));
            it('names a missing symbol', () => expect(slugify('A')).toBe('a'));
            it('runs out of time', () => new Promise((done) => setTimeout(done, 3000)), 50);
            it('imports a missing helper', async () => {
              const { words } = await import('./helpers.test.js');
              expect(words()).toBe(1);
            });
        """,
    })
    report = run(root)
    test = "src/slug.test.js::"
    assert kinds(report) == {
        test + "asserts": "assertion",
        test + "calls a missing function": "missing-code",
        test + "names a missing symbol": "missing-code",
        test + "runs out of time": "timeout",
        test + "imports a missing helper": "test-error",
    }, report.outcomes


def test_jest_kinds(tmp_path: Path, node_modules: Path) -> None:
    root = js_project(tmp_path, node_modules, {"scripts": {"test": "jest"}}, {
        "src/slug.js": "module.exports = { other: () => '' };\n",
        "test/slug.test.js": """
            const slug = require('../src/slug');
            it('asserts', () => expect(slug.other('A')).toBe('a'));
            it('calls a missing function', () => expect(slug.slugify('A')).toBe('a'));
            it('requires a missing module', () => {
              const { slugify } = require('../src/slugify');
              expect(slugify('A')).toBe('a');
            });
            it('requires a missing helper', () => {
              const { words } = require('./helpers.test');
              expect(words()).toBe(1);
            });
            it('runs out of time', () => new Promise((done) => setTimeout(done, 3000)), 50);
        """,
    })
    report = run(root)
    test = "test/slug.test.js::"
    assert kinds(report) == {
        test + "asserts": "assertion",
        test + "calls a missing function": "missing-code",
        test + "requires a missing module": "missing-code",
        test + "requires a missing helper": "test-error",
        test + "runs out of time": "timeout",
    }, report.outcomes


def test_node_test_runner_kinds(tmp_path: Path, node_modules: Path) -> None:
    root = js_project(tmp_path, node_modules, {"scripts": {"test": "node --test"}}, {
        "slug.js": "module.exports = { other: () => '' };\n",
        "test/slug.test.js": """
            const test = require('node:test');
            const assert = require('node:assert');
            const slug = require('../slug');
            test('asserts', () => assert.strictEqual(slug.other('A'), 'a'));
            test('calls a missing function', () => assert.strictEqual(slug.slugify('A'), 'a'));
            test('runs out of time', { timeout: 50 },
                 () => new Promise((done) => setTimeout(done, 3000)));
        """,
    })
    report = run(root)
    test = "test/slug.test.js::"
    assert kinds(report) == {
        test + "asserts": "assertion",
        test + "calls a missing function": "missing-code",
        test + "runs out of time": "timeout",
    }, report.outcomes


def test_mocha_kinds(tmp_path: Path, node_modules: Path) -> None:
    root = js_project(tmp_path, node_modules, {"scripts": {"test": "mocha 'test/*.spec.js'"}}, {
        "slug.js": "module.exports = { other: () => '' };\n",
        "test/slug.spec.js": """
            const assert = require('assert');
            const slug = require('../slug');
            describe('slug', () => {
              it('asserts', () => assert.equal(slug.other('A'), 'a'));
              it('calls a missing function', () => assert.equal(slug.slugify('A'), 'a'));
              it('runs out of time', function () {
                this.timeout(50);
                return new Promise((done) => setTimeout(done, 3000));
              });
            });
            describe('words', () => {
              beforeEach(() => { throw new Error('the setup itself is broken'); });
              it('splits', () => assert.ok(true));
            });
        """,
    })
    report = run(root)
    test = "test/slug.spec.js::"
    assert kinds(report) == {
        test + "slug asserts": "assertion",
        test + "slug calls a missing function": "missing-code",
        test + "slug runs out of time": "timeout",
        test + 'words "before each" hook for "splits"': "test-error",
    }, report.outcomes


# ------------------------------------------------------------------ Go, Rust, Ruby, PHP


def test_go_kinds(tmp_path: Path) -> None:
    ensure_go()
    root = files(tmp_path, {
        "go.mod": "module example.com/kata\n\ngo 1.19\n",
        "slug.go": 'package kata\n\nfunc Slug(s string) string { panic("not implemented") }\n'
                   'func Other(s string) string { return "" }\n',
        "slug_test.go": """
            package kata

            import "testing"

            func TestAsserts(t *testing.T) {
                if got := Other("A"); got != "a" { t.Fatalf("got %q, want %q", got, "a") }
            }
            func TestStub(t *testing.T) { Slug("A") }
        """,
    })
    env = {"GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"}
    report = run(root, env=env)
    assert kinds(report) == {"example.com/kata::TestAsserts": "assertion",
                             "example.com/kata::TestStub": "missing-code"}, report.outcomes
    files(root, {"slug_test.go": """
        package kata

        import (
            "testing"
            "time"
        )

        func TestSlow(t *testing.T) { time.Sleep(5 * time.Second) }
    """})
    cmd = TestCommand(("go", "test", "-timeout", "1s", "./..."), "go", (), False, "test")
    slow = run(root, cmd, env)
    assert kinds(slow) == {"example.com/kata::TestSlow": "timeout"}, slow.outcomes


def test_cargo_kinds(tmp_path: Path) -> None:
    rustup = ensure_cargo()
    root = files(tmp_path, {
        "Cargo.toml": '[package]\nname = "kata"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": "pub fn slug(_s: &str) -> String { todo!() }\n"
                      "pub fn other(_s: &str) -> String { String::new() }\n",
        "tests/slug.rs": """
            #[test]
            fn asserts() { assert_eq!(kata::other("A"), "a"); }
            #[test]
            fn stub() { assert_eq!(kata::slug("A"), "a"); }
        """,
    })
    report = run(root, env=rustup)
    assert kinds(report) == {"tests/slug.rs::asserts": "assertion",
                             "tests/slug.rs::stub": "missing-code"}, report.outcomes


def test_rspec_kinds(tmp_path: Path) -> None:
    ensure_ruby_rspec()
    root = files(tmp_path, {
        ".rspec": "--require spec_helper\n",
        "spec/spec_helper.rb": "",
        "lib/slug.rb": "class Slug\nend\n",
        "spec/slug_spec.rb": """
            require_relative '../lib/slug'
            RSpec.describe Slug do
              it("asserts") { expect(1 + 2).to eq(4) }
              it("calls a missing method") { expect(Slug.new.slug("A")).to eq("a") }
              it("names a missing class") { expect(Slugger.new).to be_nil }
              it("uses a missing let") { expect(numbers).to eq([1]) }
            end
        """,
    })
    report = run(root)
    test = "spec/slug_spec.rb::Slug "
    assert kinds(report) == {
        test + "asserts": "assertion",
        test + "calls a missing method": "missing-code",
        test + "names a missing class": "missing-code",
        test + "uses a missing let": "test-error",
    }, report.outcomes


def test_phpunit_kinds(tmp_path: Path) -> None:
    """PHPUnit's JUnit XML, read like every JUnit XML report (Gradle, junit_xml globs)."""
    phpunit = ensure_phpunit()
    root = files(tmp_path, {"tests/SlugTest.php": """
        <?php
        use PHPUnit\\Framework\\TestCase;
        final class SlugTest extends TestCase {
            public function testAsserts(): void { $this->assertSame('a', strtolower('B')); }
            public function testMissingFunction(): void { $this->assertSame('a', slug('A')); }
        }
    """})
    report = run(root, TestCommand((phpunit, "tests"), "phpunit", (), False, "test"))
    assert kinds(report) == {"tests/SlugTest.php::testAsserts": "assertion",
                             "tests/SlugTest.php::testMissingFunction": "missing-code"}, \
        report.outcomes


def test_maven_kinds(tmp_path: Path) -> None:
    ensure_maven()
    root = files(tmp_path / "kata", {
        "pom.xml": maven_pom(),
        "src/main/java/kata/Slug.java": """
            package kata;
            public class Slug {
              public static String other(String s) { return ""; }
              public static String slug(String s) { throw new UnsupportedOperationException(); }
            }
        """,
        "src/test/java/kata/SlugTest.java": """
            package kata;
            import static org.junit.Assert.assertEquals;
            import org.junit.Test;
            public class SlugTest {
              @Test public void asserts() { assertEquals("a", Slug.other("A")); }
              @Test public void stub() { assertEquals("a", Slug.slug("A")); }
              @Test(timeout = 50) public void slow() throws Exception { Thread.sleep(3000); }
            }
        """,
    })
    env, _ = maven_home()
    report = run(root, env=env)
    assert kinds(report) == {"kata.SlugTest::asserts": "assertion",
                             "kata.SlugTest::stub": "missing-code",
                             "kata.SlugTest::slow": "timeout"}, report.outcomes


# ------------------------------------------------------------------ a test file that does not load


LOADS = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "tests/test_missing_module.py": "from calc import add\n\n\ndef test_add():\n"
                                    "    assert add(2, 3) == 5\n",
}


def test_a_test_file_that_misses_only_the_code_under_test_is_a_right_red(tmp_path: Path) -> None:
    root = files(tmp_path, LOADS)
    red = run(root, PYTEST)
    assert red.collection_errors == ("tests/test_missing_module.py",)
    assert red.load_kinds == {"tests/test_missing_module.py": "missing-code"}
    assert check_tests(Phase.RED, empty_report(), red) == []
    # GREEN writes calc.py: the file's tests appear, the only new ids GREEN may bring
    files(root, {"calc.py": "def add(a, b):\n    return a + b\n"})
    green = run(root, PYTEST)
    assert green.all_passed and check_tests(Phase.GREEN, red, green) == []
    files(root, {"tests/test_other.py": "def test_other():\n    pass\n"})
    sneaked = run(root, PYTEST)
    assert [v.rule for v in check_tests(Phase.GREEN, red, sneaked)] == ["green-changes-tests"]


@pytest.mark.parametrize(("source", "kind"), [
    ("from tests.helpers import words\n\n\ndef test_x():\n    assert words\n", "test-error"),
    ("def test_x(:\n    pass\n", "test-error"),
    ("import json\n\njson.loads('{')\n\n\ndef test_x():\n    pass\n", "unknown"),
])
def test_any_other_load_error_is_no_red(tmp_path: Path, source: str, kind: str) -> None:
    red = run(files(tmp_path, {**LOADS, "tests/test_missing_module.py": source}), PYTEST)
    assert red.load_kinds.get("tests/test_missing_module.py", "unknown") == kind
    [violation] = check_tests(Phase.RED, empty_report(), red)
    assert violation.rule == "tests-do-not-load", violation
    assert "tests/test_missing_module.py" in violation.message
    if kind != "unknown":
        assert f"({kind})" in violation.message


def test_a_missing_code_load_error_is_no_result_outside_red(tmp_path: Path) -> None:
    red = run(files(tmp_path, LOADS), PYTEST)
    for phase in (Phase.GREEN, Phase.REFACTOR):
        assert [v.rule for v in check_tests(phase, empty_report(), red)] == [
            "tests-do-not-load"]


def test_an_existing_test_hidden_by_the_load_error_is_removed(tmp_path: Path) -> None:
    root = files(tmp_path, {**LOADS, "tests/test_missing_module.py": "def test_old():\n"
                                                                      "    pass\n"})
    before = run(root, PYTEST)
    files(root, {"tests/test_missing_module.py": "from calc import add\n\n\n"
                                                 "def test_old():\n    pass\n"})
    after = run(root, PYTEST)
    assert [v.rule for v in check_tests(Phase.RED, before, after)] == ["test-removed"]


@pytest.mark.parametrize("runner", ["vitest", "jest"])
def test_a_js_test_file_importing_code_not_written_yet_is_a_right_red(
        tmp_path: Path, node_modules: Path, runner: str) -> None:
    """Vitest and Jest say a suite did not load, and why: a module under test that does
    not exist yet is a right RED; a missing test helper is not."""
    esm = runner == "vitest"
    head = ("import { it, expect } from 'vitest';\nimport { add } from './calc.js';\n"
            if esm else "const { add } = require('./calc');\n")
    helper = ("import { words } from './helpers.test.js';\n" if esm
              else "const { words } = require('./helpers.test');\n")
    body = "it('adds', () => { expect(add(2, 3)).toBe(5); });\n"
    package = {"type": "module", "scripts": {"test": "vitest run"}} if esm \
        else {"scripts": {"test": "jest"}}
    root = js_project(tmp_path, node_modules, package, {"src/calc.test.js": head + body})
    red = run(root)
    assert red.load_kinds == {"src/calc.test.js": "missing-code"}, red.output_excerpt
    assert check_tests(Phase.RED, empty_report(), red) == []
    files(root, {"src/calc.js": "export const add = (a, b) => a + b;\n" if esm
                 else "module.exports = { add: (a, b) => a + b };\n"})
    green = run(root)
    assert green.all_passed and check_tests(Phase.GREEN, red, green) == []
    files(root, {"src/calc.test.js": helper + head + body})
    wrong = run(root)
    assert wrong.load_kinds == {"src/calc.test.js": "test-error"}, wrong.output_excerpt
    assert [v.rule for v in check_tests(Phase.RED, empty_report(), wrong)] == [
        "tests-do-not-load"]


# ------------------------------------------------------------------ compiled: code not written yet


def compiled(kind: str, tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    """A project whose code has ``one`` and a test of it; the test file that adds a test
    of ``two`` (not written yet); the code with ``two``."""
    if kind == "go":
        ensure_go()
        env = {"GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"}
        test = ("package calc\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n"
                "\tif One() != 1 {\n\t\tt.Fatal(\"one\")\n\t}\n}\n")
        root = files(tmp_path / "p", {"go.mod": "module example.com/calc\n\ngo 1.19\n",
                                      "calc.go": "package calc\n\nfunc One() int { return 1 }\n",
                                      "calc_test.go": test})
        more = {"calc_test.go": test + "\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n"
                                       "\t\tt.Fatal(\"two\")\n\t}\n}\n"}
        code = {"calc.go": "package calc\n\nfunc One() int { return 1 }\n\n"
                           "func Two() int { return 2 }\n"}
        return root, env, {**more, **{"__code__": json.dumps(code)}}
    env = ensure_cargo()
    test = "#[test]\nfn one() {\n    assert_eq!(calc::one(), 1);\n}\n"
    root = files(tmp_path / "p", {
        "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": "pub fn one() -> i32 {\n    1\n}\n", "tests/calc.rs": test})
    more = {"tests/calc.rs": test + "\n#[test]\nfn two() {\n    assert_eq!(calc::two(), 2);\n}\n"}
    code = {"src/lib.rs": "pub fn one() -> i32 {\n    1\n}\n\npub fn two() -> i32 {\n    2\n}\n"}
    return root, env, {**more, "__code__": json.dumps(code)}


@pytest.mark.parametrize("kind", ["go", "rust"])
def test_a_compile_error_for_code_not_written_yet_is_a_right_red(tmp_path: Path,
                                                                 kind: str) -> None:
    """Go and Rust build every test of a package or crate together: RED's test of a
    function not written yet hides them all. RED is accepted; GREEN's run is held against
    the report before RED, so a test that vanished with RED is still caught."""
    root, env, change = compiled(kind, tmp_path)
    code = json.loads(change.pop("__code__"))
    start = run(root, env=env)
    assert start.all_passed and len(start.outcomes) == 1
    files(root, change)
    red = run(root, env=env)
    assert not red.outcomes and set(red.load_kinds.values()) == {"missing-code"}, \
        red.output_excerpt
    assert check_tests(Phase.RED, start, red) == []
    files(root, code)
    green = run(root, env=env)
    assert green.all_passed and len(green.outcomes) == 2
    assert check_tests(Phase.GREEN, start, green, red_report=red) == []
    # a RED that dropped the old test under the compile error (here: renamed it), seen
    # by GREEN's check
    [test_file] = change
    files(root, {test_file: (root / test_file).read_text().replace("TestOne", "TestGone")
                 .replace("fn one()", "fn gone()")})
    dropped = run(root, env=env)
    assert [v.rule for v in check_tests(Phase.GREEN, start, dropped,
                                        red_report=red)] == ["test-removed"]


@pytest.mark.parametrize("kind", ["go", "rust"])
def test_a_compile_error_of_the_tests_own_making_is_no_red(tmp_path: Path, kind: str) -> None:
    root, env, change = compiled(kind, tmp_path)
    change.pop("__code__")
    [(test_file, text)] = change.items()
    own = ('func TestTwo(t *testing.T) {\n\tvar x int = "two"\n\t_ = x\n}\n' if kind == "go"
           else '#[test]\nfn two() {\n    let _x: i32 = "two";\n}\n')
    files(root, {test_file: text[:text.index("\nfunc TestTwo" if kind == "go"
                                             else "\n#[test]\nfn two")] + "\n" + own})
    red = run(root, env=env)
    assert set(red.load_kinds.values()) == {"test-error"}, red.output_excerpt
    assert [v.rule for v in check_tests(Phase.RED, empty_report(), red)] == [
        "tests-do-not-load"]
