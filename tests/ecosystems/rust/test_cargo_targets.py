"""The cargo test targets a mutant of one source file runs first
(rgr.ecosystems.rust.cargo_targets, through rgr.ecosystems.test_scope): the integration test
named after the file or naming its module, the library's unit tests when the file holds
some; nothing where the user's command or the manifest chose otherwise. And what such a
first run decides (rgr.check.mutation.gate.first_settles): only a test that passed
unmutated failing, or a timeout; anything else gives way to the whole command. The gate
on a real crate: tests/ecosystems/test_test_scope.py (full sweep)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rgr.base.config import TestCommand
from rgr.check.mutation.gate import first_settles
from rgr.check.verify import TestReport
from rgr.ecosystems.base import Status, TestOutcome
from rgr.ecosystems.rust.cargo_targets import narrowable, targets_for
from rgr.ecosystems.test_scope import Scope, scope_of

MANIFEST = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n'
CARGO_TEST = TestCommand(("cargo", "test"), "cargo", (), False, "detected from Cargo.toml")


def crate(root: Path, files: dict[str, str], manifest: str = MANIFEST) -> Path:
    for path, text in {"Cargo.toml": manifest, "src/lib.rs": "pub mod ranges;\n",
                       "src/ranges.rs": "pub fn one() -> i64 { 1 }\n", **files}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def test_the_test_named_after_the_file_runs_first(tmp_path: Path) -> None:
    root = crate(tmp_path, {"tests/ranges.rs": "#[test]\nfn t() {}\n",
                            "tests/other.rs": "use demo::ranges::one;\n",
                            "tests/plain.rs": "#[test]\nfn t() {}\n"})
    # the file named after it is enough: the one naming it waits for the whole command
    assert targets_for(root, "src/ranges.rs") == ("--test", "ranges")
    scope = scope_of(CARGO_TEST, root, "src/ranges.rs")
    assert scope.first is not None and scope.first.argv == ("cargo", "test", "--test",
                                                           "ranges")
    assert scope.cmd == CARGO_TEST and scope.exact and scope.first_needs_a_failing_test
    # options after `--` are the test binaries': the targets go before it
    threads = TestCommand(("cargo", "test", "--", "--test-threads=1"), "cargo", (), False,
                          "tdd.toml")
    first = scope_of(threads, root, "src/ranges.rs").first
    assert first is not None and first.argv == ("cargo", "test", "--test", "ranges", "--",
                                                "--test-threads=1")


def test_tests_naming_the_module_and_unit_tests_in_the_file(tmp_path: Path) -> None:
    root = crate(tmp_path, {
        "src/ranges/mod.rs": "pub fn one() -> i64 { 1 }\n#[cfg(test)]\nmod tests {}\n",
        "tests/uses.rs": "use demo::ranges::one;\n",
        "tests/calls/main.rs": "fn f() { demo::ranges::one(); }\n",
        "tests/unrelated.rs": "use demo::other;\nfn arranges() {}\n"})
    assert targets_for(root, "src/ranges/mod.rs") == ("--lib", "--test", "calls",
                                                     "--test", "uses")
    # unit tests under a condition, and none at all (a `testing` feature is no test)
    (root / "src/ranges/mod.rs").write_text('#[cfg(all(test, feature = "x"))]\nmod t {}\n')
    assert targets_for(root, "src/ranges/mod.rs")[:1] == ("--lib",)
    (root / "src/ranges/mod.rs").write_text('#[cfg(feature = "testing")]\nmod t {}\n')
    assert targets_for(root, "src/ranges/mod.rs")[:1] == ("--test",)


@pytest.mark.parametrize("path", ["src/lib.rs", "src/main.rs", "src/bin/tool.rs",
                                  "build.rs", "benches/b.rs"])
def test_a_crate_root_or_a_binary_runs_the_whole_command(tmp_path: Path, path: str) -> None:
    root = crate(tmp_path, {"tests/lib.rs": "", "tests/main.rs": "", "tests/tool.rs": ""})
    assert targets_for(root, path) == ()
    assert scope_of(CARGO_TEST, root, path).first is None


@pytest.mark.parametrize("manifest", [
    MANIFEST.replace("edition", "autotests = false\nedition"),
    MANIFEST + '\n[[test]]\nname = "ranges"\nrequired-features = ["slow"]\n',
    MANIFEST + '\n[[test]]\nname = "ranges"\nharness = false\n',
    MANIFEST + '\n[workspace]\ndefault-members = ["sub"]\n',
    # edition 2015 (no edition: the default) finds no test once one is declared
    '[package]\nname = "demo"\nversion = "0.1.0"\n\n[[test]]\nname = "slow"\n',
    '[workspace]\nmembers = ["sub"]\n',  # virtual: no package at the root
    "[package\n",  # unreadable
])
def test_a_target_the_manifest_sets_apart_is_not_chosen(tmp_path: Path, manifest: str) -> None:
    root = crate(tmp_path, {"tests/ranges.rs": "#[test]\nfn t() {}\n"}, manifest)
    assert targets_for(root, "src/ranges.rs") == ()


def test_a_plainly_declared_test_is_chosen(tmp_path: Path) -> None:
    manifest = MANIFEST + '\n[[test]]\nname = "ranges"\npath = "tests/ranges.rs"\n'
    root = crate(tmp_path, {"tests/ranges.rs": "#[test]\nfn t() {}\n"}, manifest)
    assert targets_for(root, "src/ranges.rs") == ("--test", "ranges")


@pytest.mark.parametrize(("argv", "narrows"), [
    (("cargo", "test"), True),
    (("cargo", "test", "--release", "--", "--include-ignored", "--test"), True),
    (("cargo", "test", "--lib"), False),
    (("cargo", "test", "--test=ranges"), False),
    (("cargo", "test", "-p", "demo"), False),
    (("cargo", "test", "-pdemo"), False),
    (("cargo", "test", "--workspace"), False),
    (("cargo", "test", "--doc"), False),
    (("cargo", "nextest", "run"), False),
    (("make", "test"), False),
])
def test_a_command_choosing_its_targets_keeps_its_choice(argv: tuple[str, ...],
                                                         narrows: bool) -> None:
    assert narrowable(argv) is narrows


def report(statuses: tuple[Status, ...] = (), *, errors: tuple[str, ...] = (),
           timed_out: bool = False, exit_code: int = 101) -> TestReport:
    outcomes = {f"tests/ranges.rs::t{n}": TestOutcome(f"tests/ranges.rs::t{n}",
                                                       "tests/ranges.rs", status, "")
                for n, status in enumerate(statuses)}
    return TestReport(("cargo", "test", "--test", "ranges"), exit_code, 0.1, timed_out,
                      outcomes, errors, False, "")


#: The first run unmutated: both tests pass.
UNMUTATED = report(("passed", "passed"), exit_code=0)


@pytest.mark.parametrize(("run", "settles", "elsewhere"), [
    (report(("passed", "failed")), True, True),  # a test noticed the mutant: killed
    (report(timed_out=True), True, True),  # a mutant looping forever: killed
    (report(("passed", "passed"), exit_code=0), False, False),  # every test passed
    # every test passed, a step that is no test failed (a coverage threshold): no kill
    (report(("passed", "passed"), exit_code=1), False, False),
    (report(errors=("src/ranges.rs",)), False, True),  # no build: the whole command says
    (report(), False, True),  # cargo refused the target, or no test ran
])
def test_only_a_failing_test_in_cargos_first_run_decides(run: TestReport, settles: bool,
                                                         elsewhere: bool) -> None:
    cmd = CARGO_TEST
    cargo = Scope(cmd, first=cmd, first_needs_a_failing_test=True)
    assert first_settles(cargo, run, UNMUTATED) is settles
    # a first run that cannot fail for reasons of its own (Go's package, Maven's
    # classes) decides whenever a test that passed unmutated fails or no longer runs
    assert first_settles(Scope(cmd, first=cmd), run, UNMUTATED) is elsewhere
