"""Every runner adapter in rgr.ecosystems against the real runner (no mocks): per-test
outcomes, a test file that fails to load or compile named as an error, and an empty
project read as "no tests yet". The toolchains are installed by tests/e2e/toolchains.py
when missing; a toolchain that cannot be installed, or that is on PATH but cannot run,
fails its tests, naming it.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest
from toolchains import (
    ToolchainMissing,
    ensure_cargo,
    ensure_go,
    ensure_js_runners,
    ensure_maven,
    ensure_phpunit,
    ensure_ruby_minitest,
    ensure_ruby_rspec,
    maven_home,
    maven_pom,
)

from rgr.base.config import TestCommand
from rgr.base.errors import ConfigError
from rgr.check.verify import TestReport, require_results, run_tests
from rgr.ecosystems.registry import detect_test_command

TIMEOUT = 300.0


def files(root: Path, contents: dict[str, str]) -> Path:
    for name, text in contents.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def detected(root: Path) -> TestCommand:
    cmd = detect_test_command(root)
    assert cmd is not None
    return cmd


def run(root: Path, cmd: TestCommand | None = None, env: dict[str, str] | None = None
        ) -> TestReport:
    return run_tests(cmd or detected(root), root, timeout=TIMEOUT,
                     env={**os.environ, **(env or {})})


def statuses(report: TestReport) -> dict[str, str]:
    return {test_id: o.status for test_id, o in report.outcomes.items()}


def untouched(root: Path, before: set[Path]) -> None:
    """rgr's reports went to its own directory: nothing new in the project but the
    runner's own build or cache output."""
    new = {p for p in root.rglob("*") if p.is_file()} - before
    allowed = ("target/", "node_modules/")
    leftovers = [p for p in new if not str(p.relative_to(root)).startswith(allowed)]
    assert leftovers == []


# ---------------------------------------------------------------------- JavaScript


@pytest.fixture(scope="session")
def node_modules() -> Path:
    return ensure_js_runners()


def js_project(root: Path, node_modules: Path, package: dict[str, object],
               contents: dict[str, str]) -> Path:
    files(root, {"package.json": json.dumps(package), **contents})
    (root / "node_modules").symlink_to(node_modules)
    return root


VITEST_TESTS = {
    "src/slug.test.js": """
        import { describe, it, expect } from 'vitest';
        describe('slug', () => {
          it('passes', () => expect(1).toBe(1));
          it('fails', () => expect('a').toBe('b'));
        });
        it.skip('later', () => {});
    """,
    "src/broken.test.js": "import { nope } from './missing.js';\nit('x', () => {});\n",
}


def test_vitest_through_npm_test(tmp_path: Path, node_modules: Path) -> None:
    root = js_project(tmp_path, node_modules,
                      {"type": "module", "scripts": {"test": "vitest run"},
                       "devDependencies": {"vitest": "3.2.7"}}, VITEST_TESTS)
    cmd = detected(root)
    assert (cmd.argv, cmd.runner) == (("npm", "test"), "vitest")
    before = {p for p in root.rglob("*") if p.is_file()}
    report = run(root, cmd)
    assert statuses(report) == {
        "src/slug.test.js::slug::passes": "passed",
        "src/slug.test.js::slug::fails": "failed",
        "src/slug.test.js::later": "skipped",
    }
    assert "expected 'a' to be 'b'" in report.outcomes["src/slug.test.js::slug::fails"].message
    assert report.outcomes["src/slug.test.js::slug::passes"].file == "src/slug.test.js"
    assert report.collection_errors == ("src/broken.test.js",)
    assert report.errors == 1 and not report.all_passed
    assert "slug" in report.output_excerpt  # the default reporter still prints
    untouched(root, before)


def test_vitest_typescript_and_no_tests(tmp_path: Path, node_modules: Path) -> None:
    package = {"type": "module", "scripts": {"test": "vitest run"}}
    empty = run(js_project(tmp_path / "empty", node_modules, package, {"src/a.ts": ""}))
    assert empty.no_tests_collected and empty.all_passed
    root = js_project(tmp_path / "ts", node_modules, package, {
        "src/add.ts": "export const add = (a: number, b: number): number => a + b;\n",
        "src/add.test.ts": """
            import { it, expect } from 'vitest';
            import { add } from './add';
            it('adds', () => expect(add(1, 2)).toBe(3));
        """})
    report = run(root)
    assert statuses(report) == {"src/add.test.ts::adds": "passed"} and report.all_passed


def test_jest(tmp_path: Path, node_modules: Path) -> None:
    root = js_project(tmp_path, node_modules,
                      {"scripts": {"test": "jest"}, "devDependencies": {"jest": "30.5.2"}}, {
        "test/slug.test.js": """
            describe('slug', () => {
              it('passes', () => expect(1).toBe(1));
              it('fails', () => expect('a').toBe('b'));
            });
            it.todo('someday');
        """,
        "test/broken.test.js": "it('x', () => { (;\n",
    })
    cmd = detected(root)
    assert cmd.runner == "jest"
    report = run(root, cmd)
    assert statuses(report) == {
        "test/slug.test.js::slug::passes": "passed",
        "test/slug.test.js::slug::fails": "failed",
        "test/slug.test.js::someday": "skipped",
    }
    assert 'Expected: "b"' in report.outcomes["test/slug.test.js::slug::fails"].message
    assert report.collection_errors == ("test/broken.test.js",)
    empty = run(js_project(tmp_path / "empty", node_modules, {"scripts": {"test": "jest"}}, {}))
    assert empty.no_tests_collected and empty.all_passed


def test_mocha(tmp_path: Path, node_modules: Path) -> None:
    package = {"scripts": {"test": "mocha 'test/*.spec.js'"}}
    root = js_project(tmp_path, node_modules, package, {
        "test/slug.spec.js": """
            const assert = require('assert');
            describe('slug', () => {
              it('passes', () => assert.equal(1, 1));
              it('fails', () => assert.equal('a', 'b'));
            });
            it.skip('later', () => {});
        """})
    cmd = detected(root)
    assert cmd.runner == "mocha"
    report = run(root, cmd)
    assert statuses(report) == {
        "test/slug.spec.js::slug passes": "passed",
        "test/slug.spec.js::slug fails": "failed",
        "test/slug.spec.js::later": "skipped",
    }
    files(root, {"test/broken.spec.js": "require('./missing.js');\n"})
    broken = run(root, cmd)
    assert broken.collection_errors == ("test/broken.spec.js",) and not broken.all_passed


def test_node_test_runner(tmp_path: Path, node_modules: Path) -> None:
    root = js_project(tmp_path, node_modules, {"scripts": {"test": "node --test"}}, {
        "test/slug.test.mjs": """
            import { describe, it } from 'node:test';
            import assert from 'node:assert';
            describe('slug', () => {
              it('passes', () => assert.equal(1, 1));
              it('fails', () => assert.equal('a', 'b'));
            });
            it('later', { skip: true }, () => {});
        """,
        "test/broken.test.mjs": "import { x } from './missing.mjs';\n",
    })
    cmd = detected(root)
    assert cmd.runner == "node"
    report = run(root, cmd)
    assert statuses(report) == {
        "test/slug.test.mjs::slug::passes": "passed",
        "test/slug.test.mjs::slug::fails": "failed",
        "test/slug.test.mjs::later": "skipped",
    }
    assert report.collection_errors == ("test/broken.test.mjs",)
    assert "passes" in report.output_excerpt  # the spec reporter still prints


def test_npm_script_rgr_cannot_see_into_is_refused(tmp_path: Path, node_modules: Path) -> None:
    root = js_project(tmp_path, node_modules, {"scripts": {"test": "node check.js"}},
                      {"check.js": "console.log('all good');\n"})
    cmd = detected(root)
    assert cmd.runner == "npm"
    report = run(root, cmd)
    assert report.exit_code == 0 and report.outcomes == {}
    with pytest.raises(ConfigError) as raised:
        require_results(report, cmd)
    assert "npm test" in raised.value.message and "junit_xml" in (raised.value.hint or "")


# ---------------------------------------------------------------------- Rust, Go


CARGO_TOML = '[package]\nname = "kata"\nversion = "0.1.0"\nedition = "2021"\n'


def test_cargo_test(tmp_path: Path) -> None:
    rustup = ensure_cargo()
    root = files(tmp_path, {
        "Cargo.toml": CARGO_TOML,
        "src/lib.rs": """
            pub fn add(a: i32, b: i32) -> i32 { a + b }
            #[cfg(test)]
            mod tests {
                #[test]
                fn unit_passes() { assert_eq!(super::add(1, 1), 2); }
            }
        """,
        "tests/add.rs": """
            #[test]
            fn passes() { assert_eq!(kata::add(1, 2), 3); }
            #[test]
            fn fails() { assert_eq!(kata::add(1, 2), 4, "one and two"); }
            #[test]
            #[ignore]
            fn later() {}
        """,
        "tests/more.rs": "#[test]\nfn passes() {}\n",
    })
    cmd = detected(root)
    assert (cmd.argv, cmd.runner) == (("cargo", "test"), "cargo")
    report = run(root, cmd, rustup)
    assert statuses(report) == {
        "src/lib.rs::tests::unit_passes": "passed",
        "tests/add.rs::passes": "passed",
        "tests/add.rs::fails": "failed",
        "tests/add.rs::later": "skipped",
        "tests/more.rs::passes": "passed",  # ran although tests/add.rs failed first
    }
    assert "one and two" in report.outcomes["tests/add.rs::fails"].message
    assert report.outcomes["tests/add.rs::fails"].file == "tests/add.rs"
    files(root, {"tests/more.rs": "#[test]\nfn passes() { kata::nope(); }\n"})
    broken = run(root, cmd, rustup)
    assert broken.collection_errors == ("tests/more.rs",) and broken.errors == 1


def test_a_toolchain_on_path_that_cannot_run_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rustup's cargo proxy with no toolchain for this HOME (the tests' HOME is often a
    fresh one) is on PATH but fails every command: the toolchain is missing, said by
    name (ToolchainMissing fails the test), never a test failing on an empty report."""
    proxy = tmp_path / "bin" / "cargo"
    proxy.parent.mkdir()
    proxy.write_text("#!/bin/sh\necho \"error: rustup could not choose a version of cargo "
                     "to run\" >&2\nexit 1\n")
    proxy.chmod(0o755)
    monkeypatch.setenv("PATH", f"{proxy.parent}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ToolchainMissing) as raised:
        ensure_cargo()
    assert f"cargo is on PATH ({proxy}) but cannot run" in str(raised.value)
    assert "rustup could not choose" in str(raised.value)


def test_cargo_without_tests(tmp_path: Path) -> None:
    rustup = ensure_cargo()
    root = files(tmp_path, {"Cargo.toml": CARGO_TOML, "src/lib.rs": "pub fn f() {}\n"})
    report = run(root, env=rustup)
    assert report.no_tests_collected and report.all_passed


def test_go_test(tmp_path: Path) -> None:
    ensure_go()
    root = files(tmp_path, {
        "go.mod": "module example.com/kata\n\ngo 1.19\n",
        "add.go": "package kata\n\nfunc Add(a, b int) int { return a + b }\n",
        "add_test.go": """
            package kata

            import "testing"

            func TestPasses(t *testing.T) { if Add(1, 2) != 3 { t.Fatal("no") } }
            func TestFails(t *testing.T) { t.Fatalf("one and two make %d", Add(1, 2)) }
            func TestLater(t *testing.T) { t.Skip("later") }
            func TestTable(t *testing.T) {
                t.Run("zero", func(t *testing.T) {})
            }
        """,
    })
    cmd = detected(root)
    assert (cmd.argv, cmd.runner) == (("go", "test", "./..."), "go")
    env = {"GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"}
    report = run(root, cmd, env)
    assert statuses(report) == {
        "example.com/kata::TestPasses": "passed",
        "example.com/kata::TestFails": "failed",
        "example.com/kata::TestLater": "skipped",
        "example.com/kata::TestTable": "passed",
        "example.com/kata::TestTable/zero": "passed",
    }
    assert "one and two make 3" in report.outcomes["example.com/kata::TestFails"].message
    files(root, {"add_test.go": "package kata\n\nimport \"testing\"\n\n"
                                "func TestX(t *testing.T) { Nope() }\n"})
    broken = run(root, cmd, env)
    assert broken.collection_errors == ("add_test.go",) and not broken.all_passed
    (root / "add_test.go").unlink()
    empty = run(root, cmd, env)
    assert empty.no_tests_collected and empty.all_passed


# ---------------------------------------------------------------------- JVM


def test_maven_surefire(tmp_path: Path) -> None:
    ensure_maven()
    root = files(tmp_path / "kata", {
        "pom.xml": maven_pom(),
        "src/main/java/kata/Add.java":
            "package kata;\npublic class Add { public static int add(int a, int b) "
            "{ return a + b; } }\n",
        "src/test/java/kata/AddTest.java": """
            package kata;
            import static org.junit.Assert.assertEquals;
            import org.junit.Ignore;
            import org.junit.Test;
            public class AddTest {
              @Test public void passes() { assertEquals(3, Add.add(1, 2)); }
              @Test public void fails() { assertEquals("one and two", 4, Add.add(1, 2)); }
              @Ignore @Test public void later() {}
            }
        """,
    })
    cmd = detected(root)
    assert (cmd.argv, cmd.runner) == (("mvn", "test"), "maven")
    env, _ = maven_home()
    report = run(root, cmd, env)
    assert statuses(report) == {
        "kata.AddTest::passes": "passed",
        "kata.AddTest::fails": "failed",
        "kata.AddTest::later": "skipped",
    }
    assert "one and two" in report.outcomes["kata.AddTest::fails"].message
    assert report.outcomes["kata.AddTest::fails"].file == "src/test/java/kata/AddTest.java"
    files(root, {"src/test/java/kata/AddTest.java":
                 "package kata;\npublic class AddTest { void x() { Add.nope(); } }\n"})
    broken = run(root, cmd, env)
    assert broken.collection_errors == ("src/test/java/kata/AddTest.java",)
    assert broken.outcomes == {} and not broken.all_passed  # the stale reports are not read
    (root / "src/test/java/kata/AddTest.java").unlink()
    empty = run(root, cmd, env)
    assert empty.no_tests_collected and empty.all_passed, empty.output_excerpt


# ---------------------------------------------------------------------- Ruby, PHP


def test_rspec(tmp_path: Path) -> None:
    ensure_ruby_rspec()
    root = files(tmp_path, {
        ".rspec": "--require spec_helper\n",
        "spec/spec_helper.rb": "",
        "spec/add_spec.rb": """
            RSpec.describe "add" do
              it("passes") { expect(1 + 2).to eq(3) }
              it("fails") { expect(1 + 2).to eq(4) }
              it("later") { skip "not today" }
            end
        """,
        "spec/broken_spec.rb": "require_relative 'missing'\n",
    })
    cmd = detected(root)
    assert (cmd.argv, cmd.runner) == (("rspec",), "rspec")
    report = run(root, cmd)
    # RSpec runs no example at all when a spec file does not load
    assert report.collection_errors == ("spec/broken_spec.rb",) and not report.all_passed
    (root / "spec/broken_spec.rb").unlink()
    report = run(root, cmd)
    assert statuses(report) == {
        "spec/add_spec.rb::add passes": "passed",
        "spec/add_spec.rb::add fails": "failed",
        "spec/add_spec.rb::add later": "skipped",
    }
    assert "expected: 4" in report.outcomes["spec/add_spec.rb::add fails"].message


def test_minitest(tmp_path: Path) -> None:
    """Per-test results from rgr's plugin through `rake test` (a Ruby process rake
    starts), a spec-style `it` among them; a file that fails to load is named."""
    ensure_ruby_minitest()
    root = files(tmp_path, {
        "Rakefile": """
            require "rake/testtask"
            Rake::TestTask.new(:test) { |t| t.libs << "lib" << "test"
                                            t.pattern = "test/**/*_test.rb" }
        """,
        "lib/calc.rb": "def add(a, b) = a + b\n",
        "test/calc_test.rb": """
            require "minitest/autorun"
            require "calc"
            class CalcTest < Minitest::Test
              def test_passes = assert_equal(3, add(1, 2))
              def test_fails = assert_equal(4, add(1, 2))
              def test_unwritten = assert_equal(6, mul(2, 3))
              def test_later = skip("not today")
            end
            describe "calc" do
              it("adds") { _(add(2, 2)).must_equal 4 }
            end
        """,
        "test/broken_test.rb": "require_relative 'missing'\n",
    })
    cmd = detected(root)
    assert (cmd.argv, cmd.runner) == (("rake", "test"), "minitest")
    report = run(root, cmd)
    # Ruby stops at the file that does not load: no test runs
    assert report.collection_errors == ("test/broken_test.rb",) and not report.all_passed
    # a library not written yet, required from the load path: Ruby's own require is the
    # innermost frame (``<internal:.../kernel_require.rb>``), the test file still named
    (root / "test/broken_test.rb").write_text("require 'minitest/autorun'\nrequire 'todo'\n")
    assert run(root, cmd).collection_errors == ("test/broken_test.rb",)
    (root / "test/broken_test.rb").unlink()
    report = run(root, cmd)
    assert statuses(report) == {
        "test/calc_test.rb::CalcTest#test_passes": "passed",
        "test/calc_test.rb::CalcTest#test_fails": "failed",
        "test/calc_test.rb::CalcTest#test_unwritten": "error",
        "test/calc_test.rb::CalcTest#test_later": "skipped",
        "test/calc_test.rb::calc#test_0001_adds": "passed",
    }
    failed = report.outcomes["test/calc_test.rb::CalcTest#test_fails"]
    assert "Expected: 4" in failed.message and failed.kind == "assertion"
    assert report.outcomes["test/calc_test.rb::CalcTest#test_unwritten"].kind == "missing-code"
    (root / "test/calc_test.rb").write_text("require 'minitest/autorun'\n")
    assert run(root, cmd).no_tests_collected
    # no test file yet: rake starts no Ruby that loads Minitest, and says nothing
    (root / "test/calc_test.rb").unlink()
    assert run(root, cmd).no_tests_collected
    # a test file rgr's plugin never heard from: blind, not "no tests"
    (root / "test/calc_test.rb").write_text("puts 'no minitest here'\n")
    assert run(root, cmd).report_error


def test_phpunit(tmp_path: Path) -> None:
    phpunit = ensure_phpunit()
    root = files(tmp_path, {
        "tests/AddTest.php": """
            <?php
            use PHPUnit\\Framework\\TestCase;
            final class AddTest extends TestCase {
                public function testPasses(): void { $this->assertSame(3, 1 + 2); }
                public function testFails(): void { $this->assertSame(4, 1 + 2, 'one and two'); }
            }
        """,
    })
    cmd = TestCommand((phpunit, "tests"), "phpunit", (), False, "test")
    report = run(root, cmd)
    assert statuses(report) == {
        "tests/AddTest.php::testPasses": "passed",
        "tests/AddTest.php::testFails": "failed",
    }
    assert "one and two" in report.outcomes["tests/AddTest.php::testFails"].message
    files(root, {"tests/BrokenTest.php": "<?php\nclass BrokenTest {\n"})
    broken = run(root, cmd)
    assert broken.collection_errors == ("tests/BrokenTest.php",), broken.output_excerpt


def test_git_status_clean_after_runs(tmp_path: Path, node_modules: Path) -> None:
    """A run with rgr's reporter leaves a committed JS project's tree clean."""
    root = js_project(tmp_path, node_modules, {"type": "module", "scripts": {"test": "vitest"}},
                      {".gitignore": "node_modules\n", **VITEST_TESTS})
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
                    "-qm", "x"], cwd=root, check=True)
    run(root)
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    assert status.splitlines() == ["!! node_modules"]


@pytest.mark.parametrize("line", [
    "    #[ignore]", "  it.skipIf(process.env.CI)('x', () => {});", "  this.skip();",
    "it('x', { skip: true }, () => {});", "        $this->markTestSkipped('later');",
    "  test.fails('x', () => {});", "  it.skip('x', () => {});", "  @Ignore",
])
def test_skip_markers_of_every_runner_are_caught(line: str) -> None:
    from rgr.check.guards import SKIP_MARKERS

    assert SKIP_MARKERS.search(line)


@pytest.mark.parametrize("line", ["  // we skip nothing here", "let skip = true;",
                                  "  assert!(ignored.is_empty());"])
def test_ordinary_lines_are_not_skip_markers(line: str) -> None:
    from rgr.check.guards import SKIP_MARKERS

    assert not SKIP_MARKERS.search(line)


def test_node_and_vitest_inside_the_sandbox(tmp_path: Path, node_modules: Path) -> None:
    """In a sealed run (bubblewrap, /tmp and the repository's parent hidden), the
    reporters rgr adds still write where rgr reads: its folder under the jail's tmp, with
    node's reporter copied there (rgr's own install may be hidden)."""
    import shutil

    from rgr.check.verify import Confinement
    from rgr.sandbox.policy import SandboxPolicy

    repo = tmp_path / "work" / "repo"
    checkout, home, tmp = tmp_path / "checkout", tmp_path / "home", tmp_path / "tmp"
    for folder in (repo, home, tmp):
        folder.mkdir(parents=True)
    modules = checkout / "node_modules"
    files(checkout, {
        "test/a.test.mjs": "import { it } from 'node:test';\nit('runs', () => {});\n",
        "src/b.test.js": "import { it, expect } from 'vitest';\n"
                         "it('runs', () => expect(1).toBe(1));\n",
    })
    modules.mkdir()
    for entry in node_modules.iterdir():
        (modules / entry.name).symlink_to(entry)
    node = Path(shutil.which("node") or "node")
    import rgr.ecosystems

    # rgr's own install hidden, as it is when it lives beside the user's projects
    # (the links in node_modules lead to the pinned runners, which may be under a hidden
    # folder such as /tmp: shown read-only, as [sandbox] read_paths would)
    policy = SandboxPolicy(hide_paths=(Path(rgr.ecosystems.__file__).parent,),
                           read_paths=(node_modules,))
    jail = policy.test_jail(repo_root=repo, checkout=checkout, home=home, tmp=tmp,
                            executables=[node])
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp)}
    for package, runner, test_id in (
        ({"scripts": {"test": "node --test test/"}}, "node", "test/a.test.mjs::runs"),
        ({"type": "module", "scripts": {"test": "vitest run src"}}, "vitest",
         "src/b.test.js::runs"),
    ):
        (checkout / "package.json").write_text(json.dumps(package))
        cmd = detected(checkout)
        assert cmd.runner == runner
        report = run_tests(cmd, checkout, timeout=TIMEOUT, env=env,
                           confinement=Confinement(jail, tmp))
        assert statuses(report) == {test_id: "passed"}, report.output_excerpt


def test_pytest_subtests_inside_the_sandbox(tmp_path: Path) -> None:
    """In a sealed run, with rgr's own install hidden, the plugin that tells a test's own
    outcome from its subtests' (copied to rgr's folder of the run) still loads: a test
    whose subtest was skipped passes."""
    import sys

    import rgr.ecosystems
    from rgr.check.verify import Confinement
    from rgr.sandbox.policy import SandboxPolicy

    repo = tmp_path / "work" / "repo"
    checkout, home, tmp = tmp_path / "checkout", tmp_path / "home", tmp_path / "tmp"
    for folder in (repo, home, tmp):
        folder.mkdir(parents=True)
    files(checkout, {
        "pytest.ini": "[pytest]\n",
        "tests/test_words.py": """
            import pytest

            def test_words(subtests):
                for word in ["a", "b"]:
                    with subtests.test(word=word):
                        if word == "b":
                            pytest.skip("not b")
        """,
    })
    policy = SandboxPolicy(hide_paths=(Path(rgr.ecosystems.__file__).parent,))
    jail = policy.test_jail(repo_root=repo, checkout=checkout, home=home, tmp=tmp,
                            executables=[Path(sys.executable)])
    cmd = TestCommand((sys.executable, "-m", "pytest"), "pytest", (), False, "test")
    report = run_tests(cmd, checkout, timeout=TIMEOUT,
                       env={**os.environ, "HOME": str(home), "TMPDIR": str(tmp)},
                       confinement=Confinement(jail, tmp))
    assert statuses(report) == {"tests/test_words.py::test_words": "passed"}, \
        report.output_excerpt
