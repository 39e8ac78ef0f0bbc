"""``cargo test`` on a stable toolchain: libtest's human output, which is stable.

libtest's JSON (``-Z unstable-options --format json``) needs a nightly toolchain, so rgr
reads the lines every toolchain prints, ``test <path> ... ok|FAILED|ignored``, and the
``---- <path> stdout ----`` sections of the failures. cargo prints which test target runs
(``Running tests/slug.rs (...)``) on stderr and each target's ``running N tests`` block on
stdout, one target after the other, so the n-th block belongs to the n-th target: that
gives ids like ``tests/slug.rs::lowercases`` and ``src/lib.rs::tests::works``.

rgr adds ``--no-fail-fast`` (otherwise cargo stops after the first failing target and the
tests of the others look removed). A compile error names its file on a ``--> path:l:c``
line under an ``error`` heading. ``cargo nextest run`` gets a JUnit report instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import (
    PROBE_EXIT_CODE,
    Diagnosis,
    Finished,
    Guess,
    MutationSyntax,
    Plain,
    Results,
    Status,
    TestOutcome,
    ToolHome,
    detected,
    existing,
    message,
    relative,
)
from rgr.ecosystems.failure_kind import FailureKind, first_match, is_test_module, is_test_path
from rgr.ecosystems.junit import ReportUnreadable, parse_xml, status_of, testcases
from rgr.ecosystems.junit import failure_kind as junit_kind
from rgr.ecosystems.rust import cargo_config, syntax, telling, values
from rgr.ecosystems.rust.cargo_workspace import crate_folder, rerun_without, workspace
from rgr.ecosystems.rust.test_modules import test_lines

_TARGET = re.compile(
    r"^\s+(?:Running (?:unittests )?(\S+)(?: \((.*)\))?|Doc-tests (\S+))\s*$", re.MULTILINE)
_BLOCK = re.compile(r"^running \d+ tests?$", re.MULTILINE)
_RESULT = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored(?:, .*)?)$")
_FAILURE_HEAD = re.compile(r"^---- (.+?) stdout ----$")
_ERROR_HEAD = re.compile(r"^error(?:\[E\d+\])?: ")
_LOCATION = re.compile(r"^\s*--> (.+?):\d+:\d+\s*$")
_NOT_COMPILED = re.compile(r"^error: could not compile `([^`]+)` \((.+?)\)", re.MULTILINE)

_STATUS: dict[str, Status] = {"ok": "passed", "FAILED": "failed"}


class Cargo:
    name = "cargo"
    label = "cargo test"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        env.setdefault("CARGO_TERM_COLOR", "never")
        if cmd.shell or "--no-fail-fast" in cmd.argv:
            return cmd.argv
        if "--" in cmd.argv:  # options after "--" belong to the test binaries
            cut = cmd.argv.index("--")
            return (*cmd.argv[:cut], "--no-fail-fast", *cmd.argv[cut:])
        return (*cmd.argv, "--no-fail-fast")

    def read(self, run: Finished) -> Results:
        results = Results()
        targets = _targets(run.stderr, run.root)
        blocks = _BLOCK.split(run.stdout)[1:]
        for index, block in enumerate(blocks):
            target = targets[index] if len(targets) == len(blocks) else ""
            _read_block(block, target, run.root, results)
        _compile_errors(run.stderr, run.root, results)
        results.classify(failure_kind)
        results.no_tests = (run.done.returncode == 0 and bool(blocks)
                            and not results.outcomes)
        if not blocks and not results.collection_errors and run.done.returncode != 0:
            results.report_error = (f"cargo printed no test results (exit code "
                                    f"{run.done.returncode})")
        return results

    def fix(self) -> str:
        return "set test_command to `cargo test` (rgr reads libtest's own output lines)"

    def follow_up(self, run: Finished, results: Results) -> tuple[str, ...] | None:
        """In a workspace, the members a crate's compile error left out: cargo stops
        every crate at the first one that does not compile. Only when that error is the
        code under test missing (a RED), the one case where the others must still count."""
        space = workspace(run.root)
        if space is None or run.cmd.shell or not results.collection_errors or any(
                results.load_kinds.get(f) != "missing-code" for f in results.collection_errors):
            return None
        return rerun_without(space, run.done.argv, run.stderr)


#: libtest's panic messages: ``assert!``/``assert_eq!`` and ``todo!``/``unimplemented!``.
_KINDS: tuple[tuple[re.Pattern[str], FailureKind], ...] = (
    (re.compile(r"assertion (`[^`]*` )?failed|assertion failed:"), "assertion"),
    (re.compile(r"not yet implemented|not implemented"), "missing-code"),
)


#: rustc's codes for a name, path, method or type that does not exist.
_MISSING_CODES = re.compile(r"^error\[E0(?:425|432|433|599|412|422|423)\]: ")
_NAMED = re.compile(r"`([\w:]+)`")


def compile_kind(file: str, head: str) -> FailureKind:
    """Why ``file`` did not compile, from the error's first line: in a test file, a name
    of the code under test that does not exist yet (``cannot find function `add` in
    crate `calc```, ``unresolved import``) is ``missing-code``; one named like test code
    (``common::words``), or any other error, the test's own."""
    if not is_test_path(file):
        return "unknown"
    if _MISSING_CODES.match(head) and not any(
            is_test_module(name.replace("::", ".")) for name in _NAMED.findall(head)):
        return "missing-code"
    return "test-error"


def failure_kind(outcome: TestOutcome) -> FailureKind:
    """Why a Rust test failed, from its panic message. A missing function does not
    compile (a load error), so a failing test panicked: on an assertion, in a ``todo!()``
    stub, or elsewhere (``unknown``: an ``unwrap`` in the test or in the code alike)."""
    return first_match(outcome.message, _KINDS)


def _targets(stderr: str, root: Path) -> list[str]:
    """The test targets cargo ran, in order: ``tests/add.rs``, ``doc-tests calc``; in a
    workspace, prefixed with the member's folder (``calc/tests/add.rs``)."""
    space = workspace(root)
    targets: list[str] = []
    previous: str | None = None
    for found in _TARGET.finditer(stderr):
        path, binary, doc = found.groups()
        if doc is not None:
            targets.append(f"doc-tests {doc}")
            continue
        folder = None if space is None else crate_folder(
            space, root, path, Path(binary or "").name, previous)
        previous = folder if folder is not None else previous
        targets.append(f"{folder}/{path}" if folder else path)
    return targets


def _read_block(block: str, target: str, root: Path, results: Results) -> None:
    messages: dict[str, list[str]] = {}
    current: str | None = None
    found: list[tuple[str, Status]] = []
    for line in block.splitlines():
        result = _RESULT.match(line)
        if result is not None:
            name, word = result.groups()
            found.append((name, _STATUS.get(word, "skipped")))
            continue
        head = _FAILURE_HEAD.match(line)
        if head is not None:
            current = head.group(1)
            messages[current] = []
        elif line in ("failures:", "successes:") or line.startswith("test result:"):
            current = None
        elif current is not None:
            messages[current].append(line)
    file = existing(root, target) if target and not target.startswith("doc-tests") else None
    for name, status in found:
        test_id = f"{target}::{name}" if target else name
        results.add(TestOutcome(test_id, file, status,
                                message("\n".join(messages.get(name, [])))))


def _compile_errors(stderr: str, root: Path, results: Results) -> None:
    head: str | None = None
    for line in stderr.splitlines():
        if _ERROR_HEAD.match(line):
            head = line
        elif line.startswith("warning"):
            head = None
        elif head is not None:
            location = _LOCATION.match(line)
            if location is not None:
                file = relative(location.group(1), root)
                results.load_error(file, compile_kind(file, head))
                head = None
    if not results.collection_errors:
        # an error without a location (a missing crate, say): name what did not compile
        for crate, what in _NOT_COMPILED.findall(stderr):
            results.load_error(f"{crate} ({what})")


class Nextest:
    """``cargo nextest run`` with a JUnit report from a profile rgr supplies."""

    name = "nextest"
    label = "cargo-nextest"
    PROFILE = "rgr"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        config = tmp / "nextest.toml"
        config.write_text(f'[profile.{self.PROFILE}.junit]\npath = "junit.xml"\n')
        env.setdefault("CARGO_TERM_COLOR", "never")
        return (*cmd.argv, "--no-fail-fast", "--profile", self.PROFILE,
                "--tool-config-file", f"rgr:{config}")

    def read(self, run: Finished) -> Results:
        results = Results()
        # nextest writes under the target directory, cargo's own output (like Surefire)
        target = _target_dir(run)
        path = target / "nextest" / self.PROFILE / "junit.xml"
        try:
            for case in testcases(parse_xml(path)):
                status, text = status_of(case)
                binary, name = case.get("classname", ""), case.get("name", "")
                results.add(TestOutcome(f"{binary}::{name}", None, status, text))
        except ReportUnreadable as exc:
            results.report_error = str(exc)
        _compile_errors(run.stderr, run.root, results)
        results.classify(junit_kind)
        if results.collection_errors:
            results.report_error = None
        results.no_tests = run.done.returncode == 0 and not results.outcomes
        return results

    def fix(self) -> str:
        return "use `cargo nextest run` 0.9.60 or later, or set test_command to `cargo test`"


def _target_dir(run: Finished) -> Path:
    argv = run.done.argv
    if "--target-dir" in argv[:-1]:
        return run.root / argv[argv.index("--target-dir") + 1]
    return run.root / "target"


#: What cargo prints when a source folder its configuration names is not there.
_SOURCE_FOLDER = re.compile(r"failed to read root of directory source: (?P<path>\S+)")
#: What cargo prints when it goes to the network for a dependency (a sealed test run
#: has none).
_NETWORK = re.compile(r"^error: failed to get `[^`]+` as a dependency of package `"
                      r"|^error: failed to (?:load source for dependency|update registry|"
                      r"query replaced source registry) `", re.MULTILINE)


def _cargo_offline(output: str, shown_env: Mapping[str, str]) -> Diagnosis | None:
    """cargo went for a dependency where a sealed run cannot reach: a source folder its
    configuration names that the sandbox does not show, or the network."""
    folder = _SOURCE_FOLDER.search(output)
    if folder is not None:
        path = folder.group("path")
        return Diagnosis(
            f"cargo's configuration replaces a source with the folder {path}, which the "
            "sandbox does not show",
            f'show it with [sandbox] read_paths = ["{path}"] in tdd.toml')
    if _NETWORK.search(output) is None:
        return None
    home = shown_env.get("CARGO_HOME", "~/.cargo")
    return Diagnosis(
        "cargo tried the network for the project's dependencies, and sealed test runs "
        f"have none: they are not in the cargo home the sandbox shows ({home}: its "
        "registry and git folders, its config.toml)",
        "run `cargo fetch` once in the project (the dependencies land in that cargo "
        "home), or keep an offline source in its config.toml (Debian's: [source.crates-io] "
        'replace-with = "debian", [source.debian] directory = "/usr/share/cargo/registry")')


#: What rustup prints when the sandbox shows it no toolchain to choose.
_RUSTUP = re.compile(r"rustup could not choose a version of (?P<name>\S+) to run")


class Rust(Plain):
    name = "Rust (cargo test, cargo-nextest)"
    runners = (Cargo(), Nextest())
    test_config_globs = ("**/Cargo.toml", "**/.cargo/**", "**/build.rs")
    lockfiles = ("Cargo.lock",)
    tool_homes = (
        ToolHome("rustup", "RUSTUP_HOME", ".rustup", ("RUSTUP_TOOLCHAIN",),
                 needs=("toolchains", "settings.toml", "update-hashes")),
        ToolHome("cargo", "CARGO_HOME", ".cargo",
                 needs=("bin", "registry", "git", "config.toml", "config"),
                 names_folders=cargo_config.source_folders),
    )
    # An exit, not a panic: a #[should_panic] test or catch_unwind would absorb a panic.
    # Its own `extern crate std`: a #![no_std] library (itoa) has no `std` in scope, and
    # a probe that does not build would leave its line counted as run. Under `if true`:
    # an exit right before the line's statement makes that statement unreachable, a
    # warning that #![deny(warnings)] turns into an error.
    mutation_syntax = (MutationSyntax(
        "rust", (".rs",),
        f"if true {{ extern crate std; std::process::exit({PROBE_EXIT_CODE}); }}",
        test_lines=test_lines, call_kind=syntax.call_kind, fakeit_tokens=values.plain_values,
        early_returns=True, telling=telling.find,
        tail_returns=True, may_not_build=True,
        # not & and |: closures (|x|), or-patterns and references write them too
        bitwise=frozenset({"^", "<<", ">>"})),)

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        if not (root / "Cargo.toml").is_file():
            return None
        if (root / ".config" / "nextest.toml").is_file():
            return detected(("cargo", "nextest", "run"), "nextest", ".config/nextest.toml")
        return detected(("cargo", "test"), "cargo", "Cargo.toml")

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        if "cargo" in names:
            return "nextest" if "nextest" in names else "cargo"
        return None

    def diagnose(self, output: str, shown_env: Mapping[str, str]) -> Diagnosis | None:
        found = _RUSTUP.search(output)
        if found is None:
            return _cargo_offline(output, shown_env)
        name = found.group("name")
        home = shown_env.get("RUSTUP_HOME")
        if home is None:
            return Diagnosis(
                f"rustup could not choose a version of {name} to run: the sandbox shows no "
                "rustup home (RUSTUP_HOME unset and no ~/.rustup)",
                'show it with [sandbox] read_paths = ["<your rustup home>"] and pass_env = '
                '["RUSTUP_HOME"], or set RUSTUP_HOME before running rgr')
        return Diagnosis(
            f"rustup could not choose a version of {name} to run: the rustup home the "
            f"sandbox shows ({home}) has no default toolchain for this user",
            "run `rustup default stable` (or set RUSTUP_TOOLCHAIN) and try again")


ECOSYSTEM = Rust()
