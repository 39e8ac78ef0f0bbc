"""rgr.check.verify against real pytest runs in temporary projects (no mocks)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rgr.base.config import TestCommand
from rgr.base.errors import CommandError
from rgr.check.verify import OUTPUT_EXCERPT_LIMIT, TestReport, report_to_json, run_tests
from rgr.check.violation import Violation, failure_brief

PYTEST = TestCommand((sys.executable, "-m", "pytest"), "pytest", (), False, "test")

MIXED = """
    import pytest

    def test_ok():
        pass

    def test_fails():
        assert 1 == 2, "one is not two"

    @pytest.fixture
    def broken():
        raise RuntimeError("fixture exploded")

    def test_errors(broken):
        pass

    @pytest.mark.skip(reason="not today")
    def test_skipped():
        pass

    @pytest.mark.parametrize("value", [1, "a.b", "x::y"])
    def test_param(value):
        assert value != "a.b"

    class TestGroup:
        def test_method(self):
            pass

        class TestNested:
            def test_inner(self):
                pass
"""


def make_project(root: Path, files: dict[str, str]) -> Path:
    # A pytest.ini pins pytest's rootdir to the project, whatever lies above tmp_path.
    (root / "pytest.ini").write_text("[pytest]\n")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def run(root: Path, cmd: TestCommand = PYTEST, timeout: float = 60) -> TestReport:
    return run_tests(cmd, root, timeout=timeout)


def test_mixed_outcomes_by_test_id(tmp_path: Path) -> None:
    make_project(tmp_path, {"tests/test_mixed.py": MIXED})
    report = run(tmp_path)

    f = "tests/test_mixed.py"
    statuses = {test_id: o.status for test_id, o in report.outcomes.items()}
    assert statuses == {
        f"{f}::test_ok": "passed",
        f"{f}::test_fails": "failed",
        f"{f}::test_errors": "error",
        f"{f}::test_skipped": "skipped",
        f"{f}::test_param[1]": "passed",
        f"{f}::test_param[a.b]": "failed",
        f"{f}::test_param[x::y]": "passed",
        f"{f}::TestGroup::test_method": "passed",
        f"{f}::TestGroup::TestNested::test_inner": "passed",
    }
    assert (report.passed, report.failed, report.errors, report.skipped) == (5, 2, 1, 1)
    assert report.failing_ids == (
        f"{f}::test_errors",
        f"{f}::test_fails",
        f"{f}::test_param[a.b]",
    )
    assert all(o.file == f for o in report.outcomes.values())
    assert "one is not two" in report.outcomes[f"{f}::test_fails"].message
    assert "fixture exploded" in report.outcomes[f"{f}::test_errors"].message
    assert "not today" in report.outcomes[f"{f}::test_skipped"].message
    assert report.exit_code == 1
    assert not report.all_passed
    assert not report.no_tests_collected and report.collection_errors == ()
    assert "2 failed" in report.output_excerpt
    assert report.argv[: len(PYTEST.argv)] == PYTEST.argv
    assert "-p" in report.argv and "no:cacheprovider" in report.argv


SUBTESTS = """
    import pytest

    def test_a_skipped_subtest(subtests):
        for word in ["a", "b", "c"]:
            with subtests.test(word=word):
                if word == "b":
                    pytest.skip("not b")
                assert word

    def test_skipped_subtests(subtests):
        for word in ["a", "b", "c"]:
            with subtests.test(word=word):
                pytest.skip("none of them")

    def test_a_failing_subtest(subtests):
        for word in ["a", "b"]:
            with subtests.test(word=word):
                assert word == "a", "b is not a"

    def test_skips_itself_after_a_skipped_subtest(subtests):
        with subtests.test(word="a"):
            pytest.skip("not a")
        pytest.skip("not at all")

    @pytest.mark.skip(reason="not today")
    def test_marked_skip(subtests):
        pass
"""

SUBTEST_CASES = """
    import unittest

    class TestWords(unittest.TestCase):
        def test_a_skipped_subtest(self):
            for word in ["a", "b", "c"]:
                with self.subTest(word=word):
                    if word == "b":
                        self.skipTest("not b")

        def test_a_failing_subtest(self):
            for word in ["a", "b"]:
                with self.subTest(word=word):
                    self.assertEqual(word, "a")

        @unittest.skip("not today")
        def test_skipped(self):
            pass

        def test_no_subtests(self):
            pass
"""


def test_a_test_is_its_own_outcome_whatever_its_subtests_skipped(tmp_path: Path) -> None:
    """pytest's subtests (the ``subtests`` fixture, unittest's ``self.subTest``): JUnit
    XML puts a subtest's skip or failure in its test's testcase, beside the test's own
    outcome, with nothing to tell them apart. A failing subtest fails its test; a skipped
    subtest never makes a passing test skipped; a test that skips itself is skipped.
    (python-slugify's suite: pytest said 140 passed, 5 skipped, rgr 139 and 1.)"""
    make_project(tmp_path, {"tests/test_fixture.py": SUBTESTS,
                            "tests/test_cases.py": SUBTEST_CASES})
    report = run(tmp_path)
    f, c = "tests/test_fixture.py", "tests/test_cases.py::TestWords"
    assert {test_id: o.status for test_id, o in report.outcomes.items()} == {
        f"{f}::test_a_skipped_subtest": "passed",
        f"{f}::test_skipped_subtests": "passed",
        f"{f}::test_a_failing_subtest": "failed",
        f"{f}::test_skips_itself_after_a_skipped_subtest": "skipped",
        f"{f}::test_marked_skip": "skipped",
        f"{c}::test_a_skipped_subtest": "passed",
        f"{c}::test_a_failing_subtest": "failed",
        f"{c}::test_skipped": "skipped",
        f"{c}::test_no_subtests": "passed",
    }, report.output_excerpt
    assert "b is not a" in report.outcomes[f"{f}::test_a_failing_subtest"].message
    assert "not at all" in report.outcomes[
        f"{f}::test_skips_itself_after_a_skipped_subtest"].message
    assert report.outcomes[f"{f}::test_a_skipped_subtest"].message == ""
    # rgr's plugin (how the test's own outcome is known) leaves nothing in the project.
    assert sorted(p.name for p in tmp_path.rglob("*") if "rgr" in p.name) == []


def test_all_passing_is_green(tmp_path: Path) -> None:
    make_project(
        tmp_path,
        {
            "tests/__init__.py": "",
            "tests/test_ok.py": "def test_a():\n    pass\n\ndef test_b():\n    pass\n",
        },
    )
    report = run(tmp_path)
    assert report.all_passed
    assert report.exit_code == 0
    assert sorted(report.outcomes) == ["tests/test_ok.py::test_a", "tests/test_ok.py::test_b"]


def test_teardown_error_after_a_failure_keeps_the_worse_outcome(tmp_path: Path) -> None:
    test = """
        import pytest

        @pytest.fixture
        def leaky():
            yield
            raise RuntimeError("teardown broke")

        def test_t(leaky):
            assert False, "body failed"
    """
    make_project(tmp_path, {"tests/test_td.py": test})
    outcome = run(tmp_path).outcomes["tests/test_td.py::test_t"]
    assert outcome.status == "error"
    assert "teardown broke" in outcome.message and "body failed" in outcome.message


def test_syntax_error_is_a_collection_error_not_a_red(tmp_path: Path) -> None:
    make_project(
        tmp_path,
        {
            "tests/test_fine.py": "def test_a():\n    pass\n",
            "tests/test_broken.py": "def test_x(:\n    pass\n",
        },
    )
    report = run(tmp_path)
    assert report.collection_errors == ("tests/test_broken.py",)
    # the file that did not load counts as an error, and is named (not "exit code 2")
    assert report.failed == 0 and report.errors == 1
    assert report.problem() == "could not load tests/test_broken.py"
    assert not report.all_passed
    assert not report.no_tests_collected
    assert "SyntaxError" in report.output_excerpt


def test_import_error_is_a_collection_error(tmp_path: Path) -> None:
    make_project(tmp_path, {"tests/test_imp.py": "import no_such_module_here\n"})
    report = run(tmp_path)
    assert report.collection_errors == ("tests/test_imp.py",)
    assert not report.all_passed


@pytest.mark.parametrize("conftest", ["def broken(:\n", "import no_such_module_here\n"])
def test_broken_conftest_is_a_collection_error(tmp_path: Path, conftest: str) -> None:
    make_project(
        tmp_path,
        {"tests/conftest.py": conftest, "tests/test_a.py": "def test_a():\n    pass\n"},
    )
    report = run(tmp_path)
    assert report.collection_errors == ("tests/conftest.py",)
    assert report.report_error is None
    assert not report.all_passed


def test_module_level_skip_is_reported_under_the_file(tmp_path: Path) -> None:
    skip = "import pytest\npytest.skip('later', allow_module_level=True)\n"
    make_project(tmp_path, {"tests/test_later.py": skip})
    report = run(tmp_path)
    assert report.outcomes["tests/test_later.py"].status == "skipped"
    assert report.collection_errors == ()


def test_empty_project_is_a_green_baseline(tmp_path: Path) -> None:
    make_project(tmp_path, {"src/app.py": "X = 1\n"})
    report = run(tmp_path)
    assert report.exit_code == 5
    assert report.no_tests_collected
    assert report.all_passed
    assert report.outcomes == {}


def test_hanging_test_times_out(tmp_path: Path) -> None:
    hang = "import time\n\ndef test_hang():\n    time.sleep(120)\n"
    make_project(tmp_path, {"tests/test_hang.py": hang})
    started = time.monotonic()
    report = run(tmp_path, timeout=2)
    assert time.monotonic() - started < 15
    assert report.timed_out
    assert not report.all_passed
    assert not report.no_tests_collected
    assert report.report_error is None  # a killed run has no report; that is not a second error


def test_huge_output_is_bounded(tmp_path: Path) -> None:
    noisy = """
        def test_noisy():
            print("x" * (5 * 1024 * 1024))
            assert False, "noisy failure"
    """
    make_project(tmp_path, {"tests/test_noisy.py": noisy})
    report = run(tmp_path)
    assert report.failing_ids == ("tests/test_noisy.py::test_noisy",)
    assert len(report.output_excerpt) <= OUTPUT_EXCERPT_LIMIT + 200
    assert "characters cut" in report.output_excerpt
    assert "1 failed" in report.output_excerpt  # the tail, with the summary, is kept
    # what a retry's prompt and rgr's own files carry of it is bounded too
    brief = failure_brief([Violation("green-tests-fail", "tests fail")], report)
    assert len(brief) < 4 * 1024 and "1 failed" in brief
    assert len(report_to_json(report)) < 64 * 1024


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_a_run_leaves_no_files_in_the_repository(tmp_path: Path) -> None:
    make_project(
        tmp_path,
        {
            "conftest.py": "import helper\n",
            "helper.py": "VALUE = 1\n",
            "src/__init__.py": "",
            "src/slug.py": "def slug(s):\n    return s.lower()\n",
            "tests/__init__.py": "",
            "tests/test_mixed.py": MIXED,
            "tests/test_slug.py": "from src.slug import slug\n\ndef test_slug():\n"
            "    assert slug('A') == 'a'\n",
        },
    )
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "project")

    report = run(tmp_path)

    assert report.failed == 2
    assert report.outcomes["tests/test_slug.py::test_slug"].status == "passed"
    assert git(tmp_path, "status", "--porcelain", "--untracked-files=all", "--ignored") == ""


def test_shell_command_gets_the_report_options_through_the_environment(tmp_path: Path) -> None:
    make_project(tmp_path, {"tests/test_s.py": "def test_a():\n    pass\n"})
    script = f"echo starting && {sys.executable} -m pytest"
    cmd = TestCommand(("/bin/sh", "-c", script), "pytest", (), True, "test")
    report = run(tmp_path, cmd)
    assert report.argv == cmd.argv
    assert list(report.outcomes) == ["tests/test_s.py::test_a"]
    assert report.all_passed
    assert not (tmp_path / ".pytest_cache").exists()


def test_pytest_usage_error_is_reported_not_read_as_empty(tmp_path: Path) -> None:
    make_project(tmp_path, {"tests/test_a.py": "def test_a():\n    pass\n"})
    cmd = TestCommand((*PYTEST.argv, "--no-such-option"), "pytest", (), False, "test")
    report = run(tmp_path, cmd)
    assert report.report_error is not None
    assert "no JUnit XML report" in report.report_error and "exit code 4" in report.report_error
    assert not report.all_passed and not report.no_tests_collected


def test_missing_runner_raises_command_error(tmp_path: Path) -> None:
    cmd = TestCommand(("no-such-test-runner-xyz",), "custom", (), False, "test")
    with pytest.raises(CommandError, match="no-such-test-runner-xyz"):
        run(tmp_path, cmd)


# --------------------------------------------------------------------------- other runners

JUNIT = """<?xml version="1.0"?>
<testsuite name="SlugTest" tests="3">
  <testcase classname="com.acme.SlugTest" name="lowercases"/>
  <testcase classname="com.acme.SlugTest" name="trims">
    <failure message="expected x">trace</failure>
  </testcase>
  <testcase classname="com.acme.SlugTest" name="later"><skipped/></testcase>
</testsuite>
"""


def writer(target: str, text: str, exit_code: int = 0) -> TestCommand:
    """A custom 'runner': a Python one-liner that writes a JUnit report and exits."""
    code = (
        "import pathlib, sys; p = pathlib.Path(sys.argv[1]); p.parent.mkdir(exist_ok=True); "
        f"p.write_text(sys.argv[2]); sys.exit({exit_code})"
    )
    argv = (sys.executable, "-c", code, target, text)
    return TestCommand(argv, "custom", ("reports/*.xml",), False, "test")


def test_custom_runner_reads_fresh_junit_reports(tmp_path: Path) -> None:
    stale = tmp_path / "reports" / "TEST-old.xml"
    stale.parent.mkdir()
    stale.write_text(JUNIT.replace("SlugTest", "OldTest"))
    an_hour_ago = time.time() - 3600
    os.utime(stale, (an_hour_ago, an_hour_ago))

    report = run(tmp_path, writer("reports/TEST-slug.xml", JUNIT, exit_code=1))

    assert {i: o.status for i, o in report.outcomes.items()} == {
        "com.acme.SlugTest::lowercases": "passed",
        "com.acme.SlugTest::trims": "failed",
        "com.acme.SlugTest::later": "skipped",
    }
    assert report.outcomes["com.acme.SlugTest::trims"].message == "expected x\ntrace"
    assert not report.all_passed


def test_custom_runner_with_garbled_report(tmp_path: Path) -> None:
    report = run(tmp_path, writer("reports/TEST-bad.xml", "<testsuite><testcase"))
    assert report.report_error is not None and "TEST-bad.xml" in report.report_error
    assert not report.all_passed


def test_custom_runner_without_reports_is_judged_by_exit_code(tmp_path: Path) -> None:
    ok = TestCommand((sys.executable, "-c", "pass"), "custom", (), False, "test")
    bad = TestCommand((sys.executable, "-c", "raise SystemExit(1)"), "custom", (), False, "test")
    green, red = run(tmp_path, ok), run(tmp_path, bad)
    assert green.all_passed and green.outcomes == {} and not green.no_tests_collected
    assert not red.all_passed and red.exit_code == 1


def test_custom_runner_with_globs_but_no_report_collected_nothing(tmp_path: Path) -> None:
    cmd = TestCommand((sys.executable, "-c", "pass"), "custom", ("reports/*.xml",), False, "t")
    report = run(tmp_path, cmd)
    assert report.no_tests_collected and report.all_passed


def test_a_blind_maven_run_is_refused_with_maven_s_fix(tmp_path: Path) -> None:
    """A Maven run that wrote no Surefire report (here Maven's own "no POM" failure) is
    refused with the fix naming `mvn test`; rgr crashed building that fix once (the
    Maven adapter named no tool)."""
    from rgr.base.errors import ConfigError
    from rgr.check.verify import require_results
    from rgr.ecosystems.jvm.runner import Maven

    no_pom = ("print('[ERROR] The goal you specified requires a project to execute but "
              "there is no POM in this directory'); raise SystemExit(1)")
    mvn = TestCommand((sys.executable, "-c", no_pom), "maven", Maven.globs, False,
                      "detected from pom.xml")
    report = run(tmp_path, mvn)
    assert report.exit_code == 1 and not report.outcomes
    with pytest.raises(ConfigError) as raised:
        require_results(report, mvn)
    assert "Maven Surefire" in raised.value.message and "no POM" in raised.value.message
    assert "`mvn test`" in (raised.value.hint or "")


def test_a_blind_run_is_refused_naming_the_runner_and_the_fix(tmp_path: Path) -> None:
    from rgr.base.errors import ConfigError
    from rgr.check.verify import blind_run, require_results

    ok = TestCommand((sys.executable, "-c", "print('3 passed')"), "custom", (), False,
                     "tdd.toml")
    report = run(tmp_path, ok)
    assert report.exit_code == 0 and blind_run(report)
    with pytest.raises(ConfigError) as raised:
        require_results(report, ok)
    assert "cannot see individual test results" in raised.value.message
    assert "a command rgr does not recognise" in raised.value.message
    assert "tdd.toml" in raised.value.message
    assert "junit_xml" in (raised.value.hint or "")
    # results, a file that did not load, or "no tests yet" are not blind
    for name in ("py", "empty", "broken"):
        (tmp_path / name).mkdir()
    make_project(tmp_path / "py", {"tests/test_a.py": "def test_a():\n    pass\n"})
    require_results(run(tmp_path / "py"), PYTEST)
    make_project(tmp_path / "empty", {})
    require_results(run(tmp_path / "empty"), PYTEST)
    make_project(tmp_path / "broken", {"tests/test_b.py": "def test_b(:\n"})
    require_results(run(tmp_path / "broken"), PYTEST)
