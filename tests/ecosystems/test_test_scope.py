"""The tests a mutant faces (rgr.ecosystems.test_scope): in Go, the changed package and
the packages that import it; in Rust, the test target written for the changed file
first, then the whole `cargo test`; in JavaScript, the test files that load the changed module
(directly, through an index that re-exports it, by its package's own name), the others
left out of the run. A killer the reading of the code cannot see (a module loaded by a
computed path) still kills: a survivor of a narrowed run faces every test."""

from __future__ import annotations

import json
import os
from pathlib import Path

from harness import sweep_only
from toolchains import ensure_cargo, ensure_js_runners

from rgr.base.config import AdequacyConfig, TestCommand
from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.javascript import mixed as js_mixed
from rgr.ecosystems.javascript import reach as js_reach
from rgr.ecosystems.registry import detect_test_command, settle
from rgr.ecosystems.test_scope import left_out, scope_of
from tests.gate_helpers import committed, detected_command, measure_commits


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


# ------------------------------------------------------------------ Go

#: What every mutant's go test adds where the command does not say it (go.for_mutants).
QUIET = ("-vet=off", "-count=1")


def test_a_go_mutant_faces_its_package_and_the_packages_importing_it(tmp_path: Path) -> None:
    write(tmp_path, {
        "go.mod": "module example.com/m\n\ngo 1.19\n",
        "a/a.go": "package a\n\nfunc A() int { return 1 }\n",
        "a/a_test.go": "package a\n",
        "b/b.go": 'package b\n\nimport "example.com/m/a"\n\nfunc B() int { return a.A() }\n',
        "c/c.go": 'package c\n\nimport "strings"\n\nvar _ = strings.Repeat\n',
        "c/c_test.go": "package c\n",
        # imports b in its tests only: it sees a through b
        "d/d_test.go": 'package d\n\nimport (\n\t"testing"\n\t"example.com/m/b"\n)\n\n'
                       "func TestD(t *testing.T) { _ = b.B() }\n",
    })
    cmd = TestCommand(("go", "test", "./..."), "go", (), False, "test")
    scope = scope_of(cmd, tmp_path, "a/a.go")
    # its own package first; the importers only when its own tests all pass
    assert scope.first is not None
    assert scope.first.argv == ("go", "test", "-failfast", *QUIET, "./a")
    assert scope.cmd.argv == ("go", "test", "-failfast", *QUIET, "./b", "./d")
    assert scope.exact and not scope.left_out
    alone = scope_of(cmd, tmp_path, "c/c.go")
    assert alone.cmd.argv == ("go", "test", "-failfast", *QUIET, "./c") \
        and alone.first is None


def test_a_go_mutant_faces_the_tests_of_its_own_file_first(tmp_path: Path) -> None:
    write(tmp_path, {
        "go.mod": "module example.com/m\n\ngo 1.19\n",
        "a/a.go": "package a\n\nfunc A() int { return 1 }\n",
        "a/a_test.go": 'package a\n\nimport "testing"\n\n'
                       "func TestA(t *testing.T) {}\nfunc TestAgain(t *testing.T) {}\n"
                       "func TestMain(m *testing.M) {}\nfunc helper(t *testing.T) {}\n",
        "a/other_test.go": 'package a\n\nimport "testing"\n\nfunc TestOther(t *testing.T) {}\n',
        "b/b.go": 'package b\n\nimport "example.com/m/a"\n\nfunc B() int { return a.A() }\n',
    })
    cmd = TestCommand(("go", "test", "./..."), "go", (), False, "test")
    scope = scope_of(cmd, tmp_path, "a/a.go")
    assert scope.first is not None
    assert scope.first.argv == ("go", "test", "-failfast", *QUIET, "-run",
                                "^(TestA|TestAgain)$", "./a")
    # then every test that can see it, its own package's included
    assert scope.cmd.argv == ("go", "test", "-failfast", *QUIET, "./a", "./b")
    # a command that picks its tests itself keeps its pick
    picked = TestCommand(("go", "test", "-run", "TestA$", "./..."), "go", (), False, "test")
    scope = scope_of(picked, tmp_path, "a/a.go")
    assert scope.first is not None and scope.first.argv == (
        "go", "test", "-failfast", *QUIET, "-run", "TestA$", "./a")


def test_a_go_mutant_runs_without_vet_and_the_test_cache_unless_the_command_says(
        tmp_path: Path) -> None:
    write(tmp_path, {"go.mod": "module example.com/m\n\ngo 1.19\n",
                     "a/a.go": "package a\n\nfunc A() int { return 1 }\n"})
    # the user's own -vet and -count stay theirs, whatever their spelling
    own = TestCommand(("go", "test", "-vet=all", "--count", "3", "./..."), "go", (),
                      False, "test")
    assert scope_of(own, tmp_path, "a/a.go").cmd.argv == (
        "go", "test", "-failfast", "-vet=all", "--count", "3", "./a")
    # a command without ./... runs as it is, but quiet too
    one = TestCommand(("go", "test", "-v", "./a"), "go", (), False, "test")
    assert scope_of(one, tmp_path, "a/a.go").cmd.argv == ("go", "test", *QUIET, "-v", "./a")
    # a command that is not go test (a script the runner was named for) is left alone
    script = TestCommand(("./test.sh",), "go", (), False, "test")
    assert scope_of(script, tmp_path, "a/a.go").cmd.argv == ("./test.sh",)


# ------------------------------------------------------------------ Rust

#: ``double`` is tested by tests/ranges.rs (the first run of a mutant of src/ranges.rs),
#: ``half`` only by tests/other.rs (which reaches it through a re-export: no reading of
#: its text ties it to the module) and ``triple`` only by its doc test, which the first
#: run leaves out.
RANGES = ("pub fn double(x: i64) -> i64 {\n    x * 2\n}\n\n"
          "pub fn half(x: i64) -> i64 {\n    x / 2\n}\n\n"
          "/// ```\n/// assert_eq!(demo::ranges::triple(2), 6);\n/// ```\n"
          "pub fn triple(x: i64) -> i64 {\n    x * 3\n}\n")
CRATE = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod ranges;\npub use ranges::half;\n",
    "tests/ranges.rs": "#[test]\nfn doubles() { assert_eq!(demo::ranges::double(3), 6); }\n",
    "tests/other.rs": "#[test]\nfn halves() { assert_eq!(demo::half(8), 4); }\n",
}


@sweep_only("tests/ecosystems/test_test_scope.py",
            "cargo builds twice for most of 6 mutants, 3-10 s")
def test_a_rust_mutant_runs_its_own_test_target_first_and_every_test_after(
        tmp_path: Path) -> None:
    stub = {**CRATE, "src/ranges.rs": RANGES.replace("x * 2", "0").replace("x / 2", "0")
            .replace("x * 3", "0")}
    repo, base, head = committed(tmp_path, stub, {"src/ranges.rs": RANGES})
    command = detected_command(repo)
    first = scope_of(command, repo.path, "src/ranges.rs").first
    assert first is not None and first.argv == ("cargo", "test", "--test", "ranges")
    note = measure_commits(repo, base, head, command, env=ensure_cargo(),
                           settings=AdequacyConfig(jobs=2))
    # half's and triple's mutants pass the first run: the whole command kills them
    assert note.decision == "pass" and note.killed == note.tried == 6, note


@sweep_only("tests/ecosystems/test_test_scope.py", "cargo builds for 4 mutants and 2 probes, 4-6 s")
def test_a_rust_branch_no_test_asks_for_is_over_implemented(tmp_path: Path) -> None:
    """The `1337` branch's survivor passes the first run and the whole command; the
    probe of its `return 0` (run with the whole command: a probe is no failing test)
    finds no test reaching it."""
    over = ("pub fn double(x: i64) -> i64 {\n    if x == 1337 {\n        return 0;\n    }\n"
            "    x * 2\n}\n")
    stub = {**CRATE, "src/lib.rs": "pub mod ranges;\n", "tests/other.rs": "",
            "src/ranges.rs": "pub fn double(x: i64) -> i64 {\n    0\n}\n"}
    repo, base, head = committed(tmp_path, stub, {"src/ranges.rs": over})
    note = measure_commits(repo, base, head, detected_command(repo), env=ensure_cargo(),
                           settings=AdequacyConfig(jobs=2))
    assert note.decision == "over-implemented", note
    found = {(m.original, m.replacement, m.status) for m in note.mutants}
    assert ("1337", "1338", "survived") in found and ("0", "1", "uncovered") in found, note


# ------------------------------------------------------------------ JavaScript, read

LIB = {
    "lib/ranges.js": "exports.double = function (x) { return x * 2; };\n"
                     "exports.half = function (x) { return x / 2; };\n",
    "lib/index.js": "module.exports = require('./ranges');\n",
    "lib/other.js": "exports.one = () => 1;\n",
    # loads ranges through the index that re-exports it
    "test/via-index.test.js": "const assert = require('assert');\n"
                              "const { double } = require('../lib');\n"
                              "describe('double', () => {\n"
                              "  it('doubles', () => assert.strictEqual(double(3), 6));\n"
                              "});\n",
    # loads ranges by a path computed at run time: no reading of the text sees it
    "test/dynamic.test.js": "const assert = require('assert');\n"
                            "const path = require('path');\n"
                            "const lib = require(path.join(__dirname, '..', 'lib',\n"
                            "  ['ran', 'ges'].join('')));\n"
                            "describe('half', () => {\n"
                            "  it('halves', () => assert.strictEqual(lib.half(8), 4));\n"
                            "});\n",
    "test/other.test.js": "const assert = require('assert');\n"
                          "const { one } = require('../lib/other.js');\n"
                          "describe('one', () => { it('is one', () => "
                          "assert.strictEqual(one(), 1)); });\n",
}


def test_a_test_loading_the_module_through_an_index_is_kept(tmp_path: Path) -> None:
    write(tmp_path, {**LIB, "test/helpers.js": "module.exports = require('./other.test.js');\n",
                     "test/esm.test.mjs": "import { half } from '../lib/ranges.js';\n"
                                          "test('half', () => half(2));\n"})
    found = js_reach.reach(tmp_path, "lib/ranges.js")
    assert found is not None
    assert found.selected == ("test/esm.test.mjs", "test/via-index.test.js")
    # a helper that defines no test is never left out
    assert found.left_out == ("test/dynamic.test.js", "test/other.test.js")


def test_a_test_file_a_kept_test_loads_is_kept_too(tmp_path: Path) -> None:
    write(tmp_path, {**LIB, "test/via-index.test.js": LIB["test/via-index.test.js"]
                     + "require('./other.test.js');\n"})
    found = js_reach.reach(tmp_path, "lib/ranges.js")
    assert found is not None and found.left_out == ("test/dynamic.test.js",)


def test_the_package_loading_itself_by_name_is_kept(tmp_path: Path) -> None:
    write(tmp_path, {"package.json": '{"name": "ranges", "main": "lib/index.js"}',
                     "lib/index.js": LIB["lib/index.js"], "lib/ranges.js": LIB["lib/ranges.js"],
                     "test/name.test.js": "const r = require('ranges');\n"
                                          "it('doubles', () => r.double(1));\n",
                     "test/deep.test.js": "const r = require('ranges/lib/ranges');\n"
                                          "it('halves', () => r.half(1));\n",
                     "test/other.test.js": "it('is alone', () => 1);\n"})
    found = js_reach.reach(tmp_path, "lib/ranges.js")
    assert found is not None
    assert found.selected == ("test/deep.test.js", "test/name.test.js")
    assert found.left_out == ("test/other.test.js",)


def test_a_module_no_test_loads_leaves_every_test_in(tmp_path: Path) -> None:
    write(tmp_path, {**LIB, "lib/unused.js": "exports.x = 1;\n"})
    assert js_reach.reach(tmp_path, "lib/unused.js") is None
    cmd = TestCommand(("npm", "test"), "mocha", (), False, "test")
    assert not scope_of(cmd, tmp_path, "lib/unused.js").narrowed


# ------------------------------------------------------------------ JavaScript, run

MOCHA_PACKAGE = {"package.json": '{"name": "ranges-demo", "private": true,\n'
                                 ' "scripts": {"test": "mocha --recursive test"}}\n'}
#: Mocha itself (npm test costs a third more per run), naming the whole test folder:
#: files named beside it would add to it, not narrow it.
MOCHA = TestCommand(("node_modules/.bin/mocha", "--recursive", "test"), "mocha", (), False,
                    "test")


def test_a_narrowed_mocha_run_runs_only_the_tests_loading_the_module(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    write(tree, {**MOCHA_PACKAGE, **LIB})
    (tree / "node_modules").symlink_to(ensure_js_runners())
    scope = scope_of(MOCHA, tree, "lib/ranges.js")
    assert scope.left_out == ("test/dynamic.test.js", "test/other.test.js")
    assert not scope.exact
    with left_out(tree, scope.left_out):
        report = run_tests(scope.cmd, tree, timeout=120)
    assert report.all_passed, report
    assert {o.file for o in report.outcomes.values()} == {"test/via-index.test.js"}, report
    assert (tree / "test/other.test.js").read_text() == LIB["test/other.test.js"]


def test_a_killer_the_reading_misses_still_kills(tmp_path: Path) -> None:
    """half's mutants are killed only by the test that loads ranges by a computed path,
    which the narrowed runs leave out: they survive those runs, so they are run again
    with every test, which kills them."""
    stub = {**MOCHA_PACKAGE, **LIB,
            "lib/ranges.js": "exports.double = function (x) { return x * 2; };\n"
                             "exports.half = function (x) { return 0; };\n"}
    repo, base, tip = committed(tmp_path, stub, {"lib/ranges.js": LIB["lib/ranges.js"]})
    note = measure_commits(repo, base, tip, MOCHA, settings=AdequacyConfig(jobs=2),
                           node_modules=ensure_js_runners())
    assert note.decision == "pass" and note.killed == note.tried == 2, note


def test_a_left_out_test_file_the_kept_ones_need_undoes_the_narrowing(tmp_path: Path) -> None:
    """Mocha runs every file in one process: setup.test.js (left out, it loads nothing of
    lib) sets a global the weak test of double needs. The narrowed suite fails
    unmutated, so its "kills" mean nothing: every mutant runs again with every test, and
    double's mutants survive the weak test, as they should."""
    weak = ("const assert = require('assert');\n"
            "const { double } = require('../lib');\n"
            "describe('double', () => {\n"
            "  it('gives a number', () => {\n"
            "    assert.strictEqual(global.TWO, 2);\n"
            "    assert.strictEqual(typeof double(3), 'number');\n"
            "  });\n"
            "});\n")
    setup = "global.TWO = 2;\ndescribe('setup', () => { it('is set', () => {}); });\n"
    tests = {**MOCHA_PACKAGE, **LIB, "test/via-index.test.js": weak,
             "test/setup.test.js": setup}
    del tests["test/dynamic.test.js"]
    stub = {**tests, "lib/ranges.js": "exports.double = function (x) { return 0; };\n"
                                      "exports.half = function (x) { return x / 2; };\n"}
    repo, base, tip = committed(tmp_path, stub, {"lib/ranges.js": LIB["lib/ranges.js"]})
    note = measure_commits(repo, base, tip, MOCHA, settings=AdequacyConfig(jobs=2),
                           node_modules=ensure_js_runners())
    assert note.decision == "test-too-weak", note
    assert note.tried == 2 and note.survived == 2, note


# ------------------------------------------------------------------ JavaScript, started directly

#: The user's command: npm runs the package's script (`mocha --recursive test`), which the
#: gate's mutant runs start as node_modules/.bin/mocha (rgr.ecosystems.javascript.direct).
NPM_TEST = TestCommand(("npm", "test"), "mocha", (), False, "detected from package.json")


def phase_run(tmp_path: Path, files: dict[str, str]) -> TestReport:
    """The phase's own run of ``files`` with the user's command, as rgr hands it to the
    gate."""
    tree, home = tmp_path / "phase", tmp_path / "phase-home"
    write(tree, files)
    home.mkdir()
    (tree / "node_modules").symlink_to(ensure_js_runners())
    return run_tests(NPM_TEST, tree, timeout=120, env={**os.environ, "HOME": str(home)})


@sweep_only("tests/ecosystems/test_test_scope.py", "npm and Mocha started for each run, about 8 s")
def test_npm_test_mutants_run_mocha_directly_with_the_same_verdict(tmp_path: Path) -> None:
    stub = {**MOCHA_PACKAGE, **LIB,
            "lib/ranges.js": "exports.double = function (x) { return 0; };\n"
                             "exports.half = function (x) { return x / 2; };\n"}
    del stub["test/dynamic.test.js"]
    tip = {**stub, "lib/ranges.js": LIB["lib/ranges.js"]}
    repo, base, head = committed(tmp_path, stub, {"lib/ranges.js": LIB["lib/ranges.js"]})
    baseline = phase_run(tmp_path, tip)
    assert baseline.all_passed, baseline
    note = measure_commits(repo, base, head, NPM_TEST, settings=AdequacyConfig(jobs=2),
                           node_modules=ensure_js_runners(), baseline=baseline)
    assert note.decision == "pass" and note.killed == note.tried == 2, note


@sweep_only("tests/ecosystems/test_test_scope.py", "npm and Mocha started for each run, about 10 s")
def test_a_direct_run_unlike_the_phases_gives_way_to_the_users_command(
        tmp_path: Path) -> None:
    """A test that runs only outside npm (it reads npm's variables) kills double's
    mutants when Mocha is started directly, and never runs in the user's `npm test`:
    the direct run's unmutated results differ from the phase's (one test more), so every
    mutant runs again with `npm test`, where only the weak test runs and they survive."""
    weak = ("const assert = require('assert');\n"
            "const { double } = require('../lib/ranges.js');\n"
            "describe('double', () => {\n"
            "  it('gives a number', () => assert.strictEqual(typeof double(3), 'number'));\n"
            "  if (!process.env.npm_lifecycle_event) {\n"
            "    it('doubles', () => assert.strictEqual(double(3), 6));\n"
            "  }\n"
            "});\n")
    stub = {**MOCHA_PACKAGE, "test/double.test.js": weak,
            "lib/ranges.js": "exports.double = function (x) { return 0; };\n"}
    code = {"lib/ranges.js": "exports.double = function (x) { return x * 2; };\n"}
    repo, base, head = committed(tmp_path, stub, code)
    baseline = phase_run(tmp_path, {**stub, **code})
    assert list(baseline.outcomes) == ["test/double.test.js::double gives a number"]
    note = measure_commits(repo, base, head, NPM_TEST, settings=AdequacyConfig(jobs=2),
                           node_modules=ensure_js_runners(), baseline=baseline)
    assert note.decision == "test-too-weak" and note.survived == note.tried == 2, note
    assert note.remark is not None and "started directly (without npm)" in note.remark, note


@sweep_only("tests/ecosystems/test_test_scope.py", "npm and Mocha started for each run, about 8 s")
def test_a_hooked_globbed_npm_test_runs_mocha_directly_without_its_hook(
        tmp_path: Path) -> None:
    """deep-diff's shape: a `pretest` hook and `mocha test/**/*.js`. Each mutant runs
    Mocha directly: the hook (it logs each run) runs only for the user's command (the
    gate's two unmutated warm-up runs), and the glob gives what the shell gives: one
    folder down. Given the pattern itself, Mocha would find the failing test two
    folders down, and the direct run would not agree with the phase's."""
    package = {"name": "hooked", "private": True,
               "scripts": {"pretest": "node lint.js", "test": "mocha test/**/*.js"}}
    stub = {"package.json": json.dumps(package),
            "lint.js": "require('fs').appendFileSync(process.env.LINT_LOG, 'ran\\n');\n",
            "lib/ranges.js": "exports.double = function (x) { return 0; };\n",
            "test/unit/double.test.js":
                "const assert = require('assert');\n"
                "const { double } = require('../../lib/ranges.js');\n"
                "it('doubles', () => assert.strictEqual(double(3), 6));\n"
                "it('keeps zero', () => assert.strictEqual(double(0), 0));\n",
            "test/unit/deeper/never.test.js":
                "require('../../../lib/ranges.js');\n"
                "it('runs only under a globstar', () => { throw new Error('globstar'); });\n"}
    code = {"lib/ranges.js": "exports.double = function (x) { return x * 2; };\n"}
    repo, base, head = committed(tmp_path, stub, code)
    tree, home = tmp_path / "phase", tmp_path / "phase-home"
    write(tree, {**stub, **code})
    home.mkdir()
    (tree / "node_modules").symlink_to(ensure_js_runners())
    baseline = run_tests(NPM_TEST, tree, timeout=120, env={
        **os.environ, "HOME": str(home), "LINT_LOG": str(tmp_path / "phase.log")})
    assert list(baseline.outcomes) == ["test/unit/double.test.js::doubles",
                                       "test/unit/double.test.js::keeps zero"], baseline
    log = tmp_path / "gate.log"
    note = measure_commits(repo, base, head, NPM_TEST, settings=AdequacyConfig(jobs=2),
                           node_modules=ensure_js_runners(), baseline=baseline,
                           env={"LINT_LOG": str(log)})
    assert note.decision == "pass" and note.killed == note.tried > 0, note
    assert note.remark is None, note  # the direct run agreed with the phase's
    assert log.read_text().splitlines() == ["ran", "ran"]  # the warm-up runs only


@sweep_only("tests/ecosystems/test_test_scope.py", "npm and Mocha started for each run, about 12 s")
def test_a_lint_hook_never_kills_a_survivor(tmp_path: Path) -> None:
    """The `pretest` lint fails on any change to the code it was written for, and the
    tests cannot tell `x * 2` from its mutants (they ask for a number): every mutant
    survives Mocha started directly, then its run with `npm test` stops at the lint
    before any test reports. A mutant is killed by a test, so the gate looks again
    without the hook: they survive, and the weak test is `test-too-weak`."""
    code = {"lib/ranges.js": "exports.double = function (x) { return x * 2; };\n"}
    lint = ("const fs = require('fs');\n"
            f"if (fs.readFileSync('lib/ranges.js', 'utf8') !== {json.dumps(code['lib/ranges.js'])})"
            " {\n  console.error('lint: lib/ranges.js changed'); process.exit(1);\n}\n")
    package = {"name": "linted", "private": True,
               "scripts": {"pretest": "node lint.js", "test": "mocha test/*.js"}}
    stub = {"package.json": json.dumps(package), "lint.js": lint,
            "lib/ranges.js": "exports.double = function (x) { return 0; };\n",
            "test/double.test.js":
                "const assert = require('assert');\n"
                "const { double } = require('../lib/ranges.js');\n"
                "it('gives a number', () => assert.strictEqual(typeof double(3), 'number'));\n"}
    repo, base, head = committed(tmp_path, stub, code)
    baseline = phase_run(tmp_path, {**stub, **code})
    assert baseline.all_passed and len(baseline.outcomes) == 1, baseline
    note = measure_commits(repo, base, head, NPM_TEST, settings=AdequacyConfig(jobs=2),
                           node_modules=ensure_js_runners(), baseline=baseline)
    assert note.decision == "test-too-weak", note
    assert note.survived == note.tried > 0 and note.killed == 0, note


# ------------------------------------------------------------------ JavaScript, mixed runners

#: pino's shape (rgr.ecosystems.javascript.mixed): node:test files, a tape file node's runner
#: runs as a script, a Jest file, a type test neither runner runs.
MIXED = {
    "package.json": json.dumps({"name": "mix", "scripts": {"test": "jest"},
                                "devDependencies": {"jest": "30.5.2"}}),
    "lib/ranges.js": LIB["lib/ranges.js"],
    "lib/other.js": LIB["lib/other.js"],
    "test/ranges.test.js": "const { test } = require('node:test');\n"
                           "const assert = require('node:assert');\n"
                           "const { double } = require('../lib/ranges');\n"
                           "test('doubles', () => assert.strictEqual(double(3), 6));\n",
    "test/other.test.js": "const { test } = require('node:test');\n"
                          "const { one } = require('../lib/other');\n"
                          "test('one', () => one());\n",
    "test/tape.test.js": "const test = require('tape');\n"
                         "require('../lib/other');\ntest('t', (t) => t.end());\n",
    # loads ranges by a path computed at run time: no reading of the text sees it
    "test/jest/half.test.js": "const lib = require(['..', '..', 'lib', 'ran' + 'ges']"
                              ".join('/'));\n"
                              "test('halves', () => expect(lib.half(8)).toBe(4));\n",
    "test/types/ranges.tst.ts": "import { expect, test } from 'tstyche';\n"
                                "import { one } from '../../lib/other';\n"
                                "test('one', () => { expect(one()).type.toBe<number>(); });\n",
}


def test_a_mixed_package_leaves_out_the_files_not_loading_the_module(tmp_path: Path) -> None:
    write(tmp_path, MIXED)
    command = detect_test_command(tmp_path)
    assert command is not None and command.runner == js_mixed.NAME, command
    scope = scope_of(command, tmp_path, "lib/ranges.js")
    assert not scope.exact and not scope.direct
    assert scope.left_out == ("test/jest/half.test.js", "test/other.test.js",
                              "test/tape.test.js", "test/types/ranges.tst.ts")
    with left_out(tmp_path, scope.left_out):
        script = settle(command, tmp_path).argv[-1]
    # node's runner on the kept file alone; Jest, left with no file, is not started
    assert "node --test ./test/ranges.test.js " in script and "jest" not in script
    assert (tmp_path / "test/jest/half.test.js").read_text() == \
        MIXED["test/jest/half.test.js"]


def test_a_mixed_package_is_not_narrowed_to_files_no_runner_runs(tmp_path: Path) -> None:
    """lib/other.js is loaded by node files and by a type test; lib/typed.js by the
    type test alone, which neither runner runs: narrowed to it, a run would run no test
    at all, which reads as a kill. It keeps every test."""
    write(tmp_path, {**MIXED, "lib/typed.js": "exports.t = 1;\n",
                     "test/types/ranges.tst.ts": MIXED["test/types/ranges.tst.ts"]
                     + "import { t } from '../../lib/typed';\n"})
    command = detect_test_command(tmp_path)
    assert command is not None
    assert scope_of(command, tmp_path, "lib/other.js").left_out == (
        "test/jest/half.test.js", "test/ranges.test.js")
    assert not scope_of(command, tmp_path, "lib/typed.js").narrowed


@sweep_only("tests/ecosystems/test_test_scope.py",
            "node's runner and Jest for each run, about 15 s")
def test_a_mixed_packages_killer_the_reading_misses_still_kills(tmp_path: Path) -> None:
    """half's mutants are killed only by the Jest file that loads ranges by a computed
    path: the narrowed runs (node's runner on test/ranges.test.js alone) leave it out,
    so half's mutants survive them and run again with every test, which kills them."""
    stub = {**MIXED, "lib/ranges.js": "exports.double = function (x) { return 0; };\n"
                                      "exports.half = function (x) { return 0; };\n"}
    del stub["test/types/ranges.tst.ts"], stub["test/tape.test.js"]  # tape not installed
    repo, base, head = committed(tmp_path, stub, {"lib/ranges.js": LIB["lib/ranges.js"]})
    command = detected_command(repo)
    assert command.runner == js_mixed.NAME, command
    assert "test/jest/half.test.js" in scope_of(command, repo.path, "lib/ranges.js").left_out
    note = measure_commits(repo, base, head, command, settings=AdequacyConfig(jobs=2),
                           node_modules=ensure_js_runners())
    # double's two mutants and half's two, each killed by a test that fails on it
    assert note.decision == "pass" and note.killed == note.tried == 4, note


@sweep_only("tests/ecosystems/test_test_scope.py",
            "node's runner and Jest for each run, about 15 s")
def test_a_mixed_packages_kept_test_needing_a_left_out_file_undoes_the_narrowing(
        tmp_path: Path) -> None:
    """The weak test of double fails whenever test/other.test.js is not there: narrowed,
    it would fail on every mutant, "killing" them all. The narrowed suite fails
    unmutated, so every mutant runs again with every test, where the weak test passes
    on them: they survive, and the weak test is `test-too-weak`."""
    weak = ("const { test } = require('node:test');\n"
            "const assert = require('node:assert');\nconst fs = require('node:fs');\n"
            "const { double } = require('../lib/ranges');\n"
            "test('gives a number', () => {\n"
            "  assert.ok(fs.existsSync(__dirname + '/other.test.js'));\n"
            "  assert.strictEqual(typeof double(3), 'number');\n});\n")
    half = "exports.half = function (x) { return x / 2; };\n"
    stub = {**MIXED, "test/ranges.test.js": weak,
            "lib/ranges.js": "exports.double = function (x) { return 0; };\n" + half}
    del stub["test/types/ranges.tst.ts"], stub["test/tape.test.js"]
    code = {"lib/ranges.js": "exports.double = function (x) { return x * 2; };\n" + half}
    repo, base, head = committed(tmp_path, stub, code)
    command = detected_command(repo)
    assert "test/other.test.js" in scope_of(command, repo.path, "lib/ranges.js").left_out
    note = measure_commits(repo, base, head, command, settings=AdequacyConfig(jobs=2),
                           node_modules=ensure_js_runners())
    assert note.decision == "test-too-weak", note
    assert note.survived == note.tried > 0 and note.killed == 0, note
