"""``go test -json``: one JSON event per line (``run``, ``pass``, ``fail``, ``skip``,
``output``) with the package and test name. Ids are ``<import path>::<TestName>``
(subtests ``TestName/case``).

A package that does not build has no test events: go 1.24 and later report it as
``build-output`` events, older releases print the compiler's ``file.go:line:col:`` lines
on stderr; either way the files are named as load errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import (
    PROBE_EXIT_CODE,
    Finished,
    Guess,
    MutationSyntax,
    Plain,
    Results,
    Status,
    TestOutcome,
    ToolHome,
    detected,
    message,
    relative,
)
from rgr.ecosystems.failure_kind import FailureKind, first_match, is_test_path
from rgr.ecosystems.go import caches, syntax, telling

_STATUS: dict[str, Status] = {"pass": "passed", "fail": "failed", "skip": "skipped"}
_GO_ERROR = re.compile(r"^(?:#.*\n)?\s*((?:\./)?[^\s:#]+\.go):\d+(?::\d+)?: (.*)$", re.MULTILINE)
#: A compile error in a test file that only says the code under test does not exist yet.
_GO_MISSING = re.compile(r"^undefined: \w+$|has no field or method \w+")


#: What a failing Go test printed: the test binary's timeout panic, a stub's panic, or
#: ``t.Error``/``t.Fatal`` lines (``x_test.go:12: ...``), testify's ``Error Trace:``.
_KINDS: tuple[tuple[re.Pattern[str], FailureKind], ...] = (
    (re.compile(r"panic: test timed out after"), "timeout"),
    (re.compile(r"panic: .*(not (yet )?implemented|TODO|unimplemented)", re.IGNORECASE),
     "missing-code"),
    (re.compile(r"^panic: ", re.MULTILINE), "unknown"),
    (re.compile(r"^\s+\S+_test\.go:\d+: |Error Trace:", re.MULTILINE), "assertion"),
)


def compile_kind(file: str, said: str) -> FailureKind:
    """Why ``file`` did not compile: in a test file, a name or method of the code under
    test that does not exist yet is ``missing-code``, any other error the test's own."""
    if not is_test_path(file):
        return "unknown"
    return "missing-code" if _GO_MISSING.search(said.strip()) else "test-error"


def failure_kind(outcome: TestOutcome) -> FailureKind:
    """Why a Go test failed: a missing function or method does not compile (a load
    error), so a failing test reported through ``t.Error``/``t.Fatal`` (``assertion``),
    panicked in a stub (``missing-code``), panicked otherwise (``unknown``) or ran out
    of time (the binary's ``panic: test timed out``)."""
    return first_match(outcome.message, _KINDS)


class Go:
    name = "go"
    label = "go test"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        if cmd.shell or "-json" in cmd.argv:
            return cmd.argv
        names = [Path(word).name for word in cmd.argv]
        if "test" in names:
            at = names.index("test") + 1
            return (*cmd.argv[:at], "-json", *cmd.argv[at:])
        return cmd.argv

    def read(self, run: Finished) -> Results:
        results = Results()
        output: dict[tuple[str, str], list[str]] = {}
        build_output: list[str] = []
        packages = 0
        for line in run.stdout.splitlines():
            if not line.startswith("{"):
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            action = event.get("Action")
            if action == "build-output":
                build_output.append(str(event.get("Output", "")))
                continue
            package, test = str(event.get("Package", "")), str(event.get("Test") or "")
            if not test:
                packages += action in _STATUS
                continue
            if action in ("run", "output"):
                output.setdefault((package, test), []).append(str(event.get("Output", "")))
            elif action in _STATUS:
                # A skip keeps its reason too ("skipping ... without CAP_DAC_READ_SEARCH":
                # rgr verify explains skips for a capability the sandbox drops).
                text = ("".join(output.get((package, test), []))
                        if action in ("fail", "skip") else "")
                results.add(TestOutcome(f"{package}::{test}", None, _STATUS[action],
                                        message(text)))
        # A test binary that dies (its -timeout, say) ends its running test with no
        # event of its own (go before 1.20): the test failed with what it printed.
        for (package, test), lines in output.items():
            if f"{package}::{test}" not in results.outcomes:
                results.add(TestOutcome(f"{package}::{test}", None, "failed",
                                        message("".join(lines))))
        for raw, said in _GO_ERROR.findall("".join(build_output) + "\n" + run.stderr):
            file = relative(raw, run.root)
            results.load_error(file, compile_kind(file, said))
        results.classify(failure_kind)
        if packages == 0 and not results.outcomes and not results.collection_errors \
                and run.done.returncode != 0:
            results.report_error = (f"go test printed no JSON test events (exit code "
                                    f"{run.done.returncode})")
        results.no_tests = (run.done.returncode == 0 and packages > 0
                            and not results.outcomes)
        return results

    def fix(self) -> str:
        return "set test_command to `go test ./...` (rgr adds -json)"


class GoEcosystem(Plain):
    name = "Go (go test)"
    runners = (Go(),)
    test_config_globs = ("**/go.mod",)
    tool_caches = (caches.MODULES,)
    lockfiles = ("go.sum",)
    tool_homes = (
        ToolHome("goenv", "GOENV_ROOT", ".goenv", ("GOENV_VERSION",)),
        ToolHome("go", "GOROOT", None, ("GOTOOLCHAIN", "GOFLAGS", "GOPROXY", "GONOSUMDB",
                                        "GOPRIVATE", "GOSUMDB")),
    )
    # os.Exit under its own name: the file may import "os" already, or not at all;
    # a recover() in a test cannot stop it, as it would a panic.
    mutation_syntax = (MutationSyntax("go", (".go",), f"rgrprobeos.Exit({PROBE_EXIT_CODE})",
                                      '; import rgrprobeos "os"', for_conditions=True,
                                      early_returns=True, telling=telling.find,
                                      may_not_build=True,
                                      missing_key_guard=(
                                          "if _, ok := {map}[{key}]; !ok { "
                                          'panic("rgr: a missing key") }; '),
                                      import_blocks=True, call_kind=syntax.call_kind,
                                      bitwise=frozenset({"&", "|", "^", "<<", ">>"})),)

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        return detected(("go", "test", "./..."), "go", "go.mod") \
            if (root / "go.mod").is_file() else None

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        return "go" if "go" in names and "test" in names else None


ECOSYSTEM = GoEcosystem()


#: The flags a mutant's ``go test`` gets where the command does not set them itself:
#: ``-vet=off`` (vet is no test: the phase's own run vetted the code, and
#: a mutant vet rejects runs no test, so it could only ever be "unviable"; with a build
#: cache of its own, as every sealed checkout has, go test's vet first computes facts
#: for every standard-library package the tests import, most of a small suite's time)
#: and ``-count=1`` (every mutant's answer a run, never a result replayed from the cache).
_MUTANT_FLAGS = (("-vet", "-vet=off"), ("-count", "-count=1"))


def for_mutants(argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` (a ``go test`` command) as a mutant's run: the flags of ``_MUTANT_FLAGS``
    the command does not set itself, after ``test``; any other command unchanged."""
    if "test" not in argv:
        return argv
    given = {word.lstrip("-").split("=", 1)[0] for word in argv if word.startswith("-")}
    wanted = tuple(flag for name, flag in _MUTANT_FLAGS if name.lstrip("-") not in given)
    at = argv.index("test") + 1
    return (*argv[:at], *wanted, *argv[at:])


# ------------------------------------------------------------------ packages a change reaches

_MODULE = re.compile(r"^module\s+(\S+)", re.MULTILINE)
_IMPORT_BLOCK = re.compile(r"^import\s*\(([^)]*)\)", re.MULTILINE)
_IMPORT_LINE = re.compile(r'^import\s+(?:[\w.]+\s+)?"([^"]+)"', re.MULTILINE)
_QUOTED = re.compile(r'"([^"]+)"')


def package_pattern(path: str) -> str:
    """The package pattern (``./dir``, ``.`` at the root) of the .go file ``path``."""
    folder = Path(path).parent.as_posix()
    return "." if folder == "." else f"./{folder}"


_TEST_FUNC = re.compile(r"^func (Test\w*)\(\w+ \*testing\.T\)", re.MULTILINE)


def tests_beside(root: Path, path: str) -> tuple[str, ...]:
    """The test functions of ``path``'s own test file (``x.go``: ``x_test.go``): the
    tests most likely to notice a change of it; empty when it has none."""
    test_file = root / (path.removesuffix(".go") + "_test.go")
    try:
        text = test_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    return tuple(sorted(set(_TEST_FUNC.findall(text))))


def packages_reaching(root: Path, path: str) -> tuple[str, ...] | None:
    """The package patterns (``./dir``) whose tests can see a change of ``path`` (a .go
    file of the module at ``root``): its own package and every package that imports it,
    directly or not, tests included. None when the module cannot be read (then the
    whole ``./...`` runs). Read from the files' import lines: no go command to run, and
    a package's tests build only what they import, so nothing else can notice."""
    try:
        module = _MODULE.search((root / "go.mod").read_text(encoding="utf-8"))
    except OSError:
        return None
    if module is None:
        return None
    prefix = module.group(1)
    imports: dict[str, set[str]] = {}
    for file in root.rglob("*.go"):
        relative_dir = file.parent.relative_to(root).as_posix()
        if any(part.startswith((".", "_")) or part in ("vendor", "testdata")
               for part in Path(relative_dir).parts):
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        found = imports.setdefault("" if relative_dir == "." else relative_dir, set())
        for block in _IMPORT_BLOCK.findall(text):
            found.update(_QUOTED.findall(block))
        found.update(_IMPORT_LINE.findall(text))
    pattern = package_pattern(path)
    changed = "" if pattern == "." else pattern.removeprefix("./")

    def import_path(directory: str) -> str:
        return f"{prefix}/{directory}" if directory else prefix

    reached, frontier = {changed}, [changed]
    while frontier:
        target = import_path(frontier.pop())
        for directory, names in imports.items():
            if directory not in reached and target in names:
                reached.add(directory)
                frontier.append(directory)
    return tuple(sorted(f"./{d}" if d else "." for d in reached))
