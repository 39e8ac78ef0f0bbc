"""What every test runner adapter shares: the per-test outcome, the parsed results, the
two-step protocol (add a reporter to the command, then read what it wrote) and small
helpers for paths and argument lists.

An adapter never writes into the repository: whatever report file it asks the runner for
lives in ``tmp``, a directory rgr creates for this one run and deletes afterwards.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from rgr.base.config import TestCommand
from rgr.base.proc import Completed, bound
from rgr.ecosystems.failure_kind import FailureKind
from rgr.ecosystems.tokens import Token
from rgr.ecosystems.traced import LineTracer

#: How much of one test's failure text is kept.
MESSAGE_LIMIT = 4 * 1024

Status = Literal["passed", "failed", "error", "skipped"]

# When one test id shows up twice (pytest reports a failing test and its teardown error
# as two testcases), the worse outcome wins.
_SEVERITY: Mapping[str, int] = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False  # not a pytest test class

    test_id: str
    file: str | None
    status: Status
    message: str
    #: Why a failed or errored test failed (rgr.ecosystems.failure_kind), as its runner tells;
    #: None for a test that did not fail, and in reports written before the kinds existed.
    kind: FailureKind | None = None


@dataclass
class Results:
    """What an adapter read from one finished run."""

    outcomes: dict[str, TestOutcome] = field(default_factory=dict)
    #: Files (relative to the project root when inside it) that failed to load or compile.
    collection_errors: list[str] = field(default_factory=list)
    #: Why some of those files failed to load, where the runner says (only
    #: ``missing-code`` lets a RED through: rgr.check.guards).
    load_kinds: dict[str, FailureKind] = field(default_factory=dict)
    #: Why per-test results could not be read at all, or None.
    report_error: str | None = None
    #: The runner said, in its own words, that there are no tests (a valid green start).
    no_tests: bool = False

    def add(self, outcome: TestOutcome) -> None:
        merge(self.outcomes, outcome)

    def load_error(self, file: str, kind: FailureKind | None = None) -> None:
        if file not in self.collection_errors:
            self.collection_errors.append(file)
        # One error that is not missing code makes the whole file's load error not.
        if kind is not None and self.load_kinds.get(file, "missing-code") == "missing-code":
            self.load_kinds[file] = kind

    def absorb(self, other: Results) -> None:
        """Add what a follow-up run (``FollowsUp``) read: its outcomes, and its load
        errors beside this run's."""
        for outcome in other.outcomes.values():
            self.add(outcome)
        for file in other.collection_errors:
            self.load_error(file, other.load_kinds.get(file))
        self.report_error = self.report_error or other.report_error

    def classify(self, kind_of: Callable[[TestOutcome], FailureKind]) -> None:
        """Give every failed or errored outcome without a kind the one ``kind_of`` reads
        from it (the runner's own words)."""
        for test_id, outcome in self.outcomes.items():
            if outcome.status in ("failed", "error") and outcome.kind is None:
                self.outcomes[test_id] = replace(outcome, kind=kind_of(outcome))


@dataclass(frozen=True)
class Finished:
    """One finished (not timed out) run, as an adapter's ``read`` sees it."""

    cmd: TestCommand
    done: Completed
    tmp: Path
    root: Path
    #: Wall-clock time (time.time()) just before the runner started.
    started: float

    @property
    def stdout(self) -> str:
        return strip_ansi(self.done.stdout)

    @property
    def stderr(self) -> str:
        return strip_ansi(self.done.stderr)

    @property
    def output(self) -> str:
        return f"{self.stdout}\n{self.stderr}"


class Runner(Protocol):
    """One test runner: ``prepare`` adds what rgr needs to the command, ``read`` parses."""

    #: The registry key, also ``TestCommand.runner``.
    name: str
    #: How the manual and error messages call it.
    label: str

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        """The argv to run (``env`` may be changed in place for the run)."""
        ...

    def read(self, run: Finished) -> Results:
        ...

    def fix(self) -> str:
        """What a user can do when rgr reads no per-test results from this runner."""
        ...


@runtime_checkable
class FollowsUp(Protocol):
    """A runner whose build stops at the first unit that does not compile (cargo in a
    workspace stops every crate at the first crate's error): after reading a run, it may
    name a second command that runs the units the first one never reached."""

    def follow_up(self, run: Finished, results: Results) -> tuple[str, ...] | None:
        """The argv of the run that reaches what ``run`` did not, or None when nothing
        was left out."""
        ...


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    """Runners colour their output even into a pipe sometimes (Maven 3.8 does)."""
    return _ANSI.sub("", text)


def merge(outcomes: dict[str, TestOutcome], outcome: TestOutcome) -> None:
    previous = outcomes.get(outcome.test_id)
    if previous is None:
        outcomes[outcome.test_id] = outcome
        return
    worse, other = sorted((previous, outcome), key=lambda o: -_SEVERITY[o.status])
    message = "\n".join(m for m in (worse.message, other.message) if m)
    outcomes[outcome.test_id] = TestOutcome(worse.test_id, worse.file, worse.status, message,
                                            worse.kind or other.kind)


class Occurrences:
    """Keys for tests that share one id (two tests titled alike in one file, the same
    test added twice to a suite): each counts, as its runner counts it. The first keeps
    the id, the next ones get `` #2``, `` #3`` ... in the order the runner reported."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def key(self, test_id: str) -> str:
        count = self._seen[test_id] = self._seen.get(test_id, 0) + 1
        return test_id if count == 1 else f"{test_id} #{count}"


def read_report(path: Path) -> str:
    """A report file's text. Code under test can write where the runner writes, so a
    symbolic link (which may point at any file rgr can read) is refused."""
    if path.is_symlink():
        raise OSError(f"{path} is a symbolic link")
    return path.read_text(encoding="utf-8")


def report_lines(run: Finished, report: str, who: str) -> tuple[Results, list[str] | None]:
    """Empty results and the lines of the report file ``report`` in the run's folder; when
    it cannot be read, results whose report error says that ``who`` (the runner, as
    messages call it) wrote none, and None."""
    path = run.tmp / report
    try:
        return Results(), read_report(path).splitlines()
    except OSError:
        return Results(report_error=f"{who} wrote no report to {path} "
                                    f"(exit code {run.done.returncode})"), None


def json_lines(lines: Iterable[str]) -> Iterator[Any]:
    """Each line's JSON value; a line that is not JSON is skipped."""
    for line in lines:
        try:
            yield json.loads(line)
        except ValueError:
            continue


def message(text: str) -> str:
    return bound(text.strip(), MESSAGE_LIMIT)


def relative(path: str, root: Path) -> str:
    """``path`` relative to ``root`` (forward slashes) when it lies inside it, else as is.

    Runners print absolute paths, ``./x`` paths and ``file://`` URLs; test ids and error
    listings use one form.
    """
    raw = path.removeprefix("file://")
    candidate = Path(raw)
    if candidate.is_absolute():
        for base in (root, root.resolve()):
            try:
                return candidate.relative_to(base).as_posix()
            except ValueError:
                continue
        try:
            return candidate.resolve().relative_to(root.resolve()).as_posix()
        except (ValueError, OSError):
            return raw
    while raw.startswith("./"):
        raw = raw[2:]
    return raw


def existing(root: Path, relative_path: str) -> str | None:
    """``relative_path`` when it names a file in ``root``, else None."""
    return relative_path if (root / relative_path).is_file() else None


def with_args(argv: tuple[str, ...], extra: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` plus ``extra`` for the runner behind it.

    ``npm test`` forwards arguments to the script only after a ``--``; yarn and pnpm pass
    them on as they are.
    """
    names = [Path(word).name for word in argv]
    if names and names[0] in ("npm", "npm.cmd") and "--" not in argv:
        return (*argv, "--", *extra)
    return (*argv, *extra)


_PROJECT_PATH = re.compile(r"(?:file://)?(/[^\s:'\"()<>]+?\.[A-Za-z0-9]+)(?=[:\s'\")]|$)",
                           re.MULTILINE)


def project_files_named(text: str, root: Path) -> list[str]:
    """Files of the project (not its dependencies) that ``text`` names by absolute path,
    in order of first mention: how a stack trace says which file failed to load."""
    found: list[str] = []
    for raw in _PROJECT_PATH.findall(text):
        rel = relative(raw, root)
        if rel.startswith("/") or "node_modules/" in rel or rel in found:
            continue
        if (root / rel).is_file():
            found.append(rel)
    return found


# --------------------------------------------------------------------------- ecosystems


@dataclass(frozen=True)
class ToolHome:
    """A tool's home the sandbox shows read-only: where its variable points, or its
    default under HOME (rgr.sandbox.toolchain)."""

    tool: str
    variable: str
    default: str | None  # relative to HOME; None: only the variable says where
    #: Variables passed along as they are when set (they select versions or options).
    passes: tuple[str, ...] = ()
    #: Only these entries of the home are shown (its tools, never what else it keeps:
    #: cargo's ``credentials.toml``); empty: the whole home, less its secrets
    #: (rgr.sandbox.secrets).
    needs: tuple[str, ...] = ()
    #: The folders its configuration names for it to read (cargo's ``[source.*]
    #: directory``), given the home: shown read-only with it.
    names_folders: Callable[[Path], tuple[Path, ...]] | None = None


@dataclass(frozen=True)
class CacheSpot:
    """Where one cache of a tool is on this machine (Go's module cache, a ``~/.m2``):
    rgr.sandbox.toolchain shows it read-only to a project that uses its ecosystem, and
    names it among what is not shown to one that does not."""

    #: The cache's folder: nothing is shown when it is not one, and a project that does
    #: not use the ecosystem is told of it by this path.
    root: Path
    #: Why it is shown, in words for `rgr doctor`.
    why: str
    #: What of it is shown, in order, each with why (None: ``why``, with the project's
    #: use of the ecosystem said after it).
    shows: tuple[tuple[Path, str | None], ...]
    #: The variables that tell the tool where the cache is inside the sandbox, given the
    #: last of ``shows`` shown (None: none was) and the variables set so far.
    locate: Callable[[Path | None, Mapping[str, str]], dict[str, str]]


@dataclass(frozen=True)
class ToolCache:
    """A cache a test run of an ecosystem's tools reads, found without running them."""

    name: str
    #: Its places, given the user's environment and homes (``$HOME`` first, then the
    #: password database's: Java reads ``user.home`` from the latter).
    find: Callable[[Mapping[str, str], Sequence[Path]], tuple[CacheSpot, ...]]


@dataclass(frozen=True)
class ContentJudge:
    """A file of an ecosystem's test configuration (among its ``test_config_globs``) that
    rgr judges by what a change to it does rather than by its name (rgr.check.guards):
    pytest's ``conftest.py`` shares fixtures and helpers like any test file, or hooks
    collection and reporting, which no agent may change. Refusing every change would
    refuse the first; allowing every one, the second."""

    #: The file's name, at any level (``conftest.py``).
    name: str
    #: The verdict on writing ``new`` over ``old`` (None: no file) at a path: None when
    #: the change is allowed, else why it is refused and the way out.
    refusal: Callable[[str, str | None, str | None], str | None]
    #: The judging module's file, standard library only: the PreToolUse hook
    #: (rgr.sandbox.pretool) loads it by path inside the sandbox and asks its
    #: ``refusal`` before the agent writes.
    module_file: str
    #: The file is test code, whatever ``test_file_globs`` say (RED and REFACTOR may
    #: write the fixtures of a conftest.py, GREEN may not).
    test_code: bool

    @property
    def glob(self) -> str:
        return f"**/{self.name}"

    def judges(self, path: str) -> bool:
        """Whether ``path`` (relative to the project) is a file this judges."""
        return path.rsplit("/", 1)[-1] == self.name


@dataclass(frozen=True)
class Diagnosis:
    """A failure inside the sandbox, explained: what is missing, and the fix."""

    problem: str
    fix: str


#: The exit status a probe ends its test process with (rgr.check.mutation.textual).
PROBE_EXIT_CODE = 86


@dataclass(frozen=True)
class MutationSyntax:
    """What the textual mutator (rgr.check.mutation.textual) needs of a language: the
    file suffixes that are written in it, and a statement that ends the test process at
    once where it is inserted (the probe). Ending the process, never raising: a test
    asserting that the line raises (``assert.throws``, ``recover()``) would catch a
    raising probe and hide that it ran the line."""

    language: str
    suffixes: tuple[str, ...]
    probe: str
    #: A declaration the probe needs (Go's import of ``os``), appended to the file's
    #: package clause line so that no line moves; empty when none is needed.
    probe_header: str = ""
    #: A statement that records, once per run, that a test reached the line it stands
    #: before: appends ``{line}`` and a newline to the file ``{file}`` (a string
    #: literal), and never raises nor ends anything. One run with a marker before every
    #: changed line says which lines any test reaches, before any mutant runs (a
    #: mutant of a line no test reaches is ``uncovered`` without a run). Empty: the
    #: language's survivors are probed one place at a time.
    reach_marker: str = ""
    #: Lines that only say where code comes from, in the language's own words beside
    #: the brace languages' (``import``, ``use`` ...): nothing there to mutate (Ruby's
    #: ``require_relative '../lib/calc'``, whose emptied path no longer loads).
    declarations: str = ""
    # What its code is like beyond its tokens, for the mutator:
    #: An ``if``/``while`` condition stands in parentheses (``if (x) {``), not before a
    #: block's brace (``if x {``).
    parenthesised_conditions: bool = False
    #: ``return x;`` is mutated to ``return undefined;`` (JavaScript).
    undefined_returns: bool = False
    #: A plain ``for cond {`` is a condition to negate (Go).
    for_conditions: bool = False
    #: An ``if`` block whose one statement is a ``return`` is emptied (go-mutesting's
    #: ``branch/if``; rgr.check.mutation.blocks): Go, where a return of the zero value
    #: has no other mutant.
    early_returns: bool = False
    #: The telling input of a survivor (rgr.check.mutation.gate): (path, the file, the
    #: mutated file, the survivor's line, the tests' calls as (callee, literal
    #: arguments), the checkout, its launcher, its environment, seconds) -> an input
    #: that tells the two apart, in words, or None (Go: rgr.ecosystems.go.telling;
    #: JavaScript's and Java's beside it).
    telling: Callable[..., str | None] | None = None
    #: A statement put before a read ``m[k]`` that panics when the key is missing
    #: (``{map}``, ``{key}``: their text), on one line: where a map answers the zero
    #: value for a key never stored with no code of its own (Go). Empty: none.
    missing_key_guard: str = ""
    #: A mutant may not build (a compiled language: a type error, a value a constant
    #: cannot hold): a run of it where no test reported, its files not loaded, is
    #: ``unviable``, never killed (rgr.check.mutation.gate).
    may_not_build: bool = False
    #: A statement that is only a string (``'use strict'``) is a directive, and a
    #: ``require(...)`` line a declaration: neither is mutated (JavaScript).
    directives: bool = False
    #: ``import ( ... )`` blocks declare (Go).
    import_blocks: bool = False
    #: The bitwise operators between two values the mutator swaps (``&``↔``|``,
    #: ``^``→``&``, ``<<``↔``>>``): none where they also write types or closures
    #: (TypeScript's ``number | string``, Rust's ``|x|`` and or-patterns).
    bitwise: frozenset[str] = frozenset()
    #: Functions are declared type first, with no keyword (Java's ``int add(int a) {``):
    #: what fake-it reads as a function (rgr.check.fakeit.tokens).
    typed_declarations: bool = False
    #: The lines of test code inside a source file, never mutated (Rust's
    #: ``#[cfg(test)]`` items).
    test_lines: Callable[[list[Token], list[str]], set[int]] | None = None
    #: Where, by token start, the tokens right inside a type's body stand: a survivor
    #: there runs when the class loads, never under a test (Java).
    type_level: Callable[[list[Token]], set[int]] | None = None
    #: The lines where a statement can stand, where the language says so (Java: inside
    #: a method's body); None: wherever a statement starts.
    code_lines: Callable[[list[Token]], set[int]] | None = None
    #: Tokens of its own the mutator leaves alone, index -> ``all`` or ``strings``
    #: (Java's annotations and assert messages).
    arid: Callable[[list[Token]], dict[int, str]] | None = None
    #: What a call is to the mutator, from its tokens, the index of its ``(``, its name
    #: and its receiver (``""`` when none): ``all`` (its arguments are noise: an
    #: error's message, a print call), ``strings`` (only its strings), ``after-first``
    #: (all after its first argument), or None (behaviour). Log calls (a receiver
    #: named like a logger) are noise in every language, asked first.
    call_kind: Callable[[list[Token], int, str, str], str | None] | None = None
    #: The tokens as fake-it reads functions (rgr.check.fakeit.tokens): the language's
    #: own ways of writing a block or a literal value put as the brace languages write
    #: them, every token on its line (Ruby's ``def f ... end``, Rust's
    #: ``"a".to_string()``); None: read as they are.
    fakeit_tokens: Callable[[list[Token]], list[Token]] | None = None
    #: A body's last expression is its value (Rust, Ruby): fake-it reads a computed one
    #: as a general path beside its literal returns, never as nothing returned.
    tail_returns: bool = False
    #: Mutants of its own that need a statement's shape (Ruby's early return guarded by
    #: a trailing ``if``, its defaulted hash's read: rgr.ecosystems.ruby.statements):
    #: (tokens, source, changed lines) -> (operator, start, end, replacement, (start,
    #: end) of the value whose own mutants make this one needless) by source offset.
    statement_mutants: Callable[[list[Token], str, Collection[int]],
                                Iterable[tuple[str, int, int, str, tuple[int, int]]]] \
        | None = None
    #: Where a statement guarded by a trailing condition stands (Ruby's ``return 0 if
    #: x``): (tokens, line, offset) -> its (start, end, the condition's start) when
    #: ``offset`` lies in it. A probe there runs inside it, in parentheses, only when
    #: the condition holds; None: probed before the line.
    guarded_statement: Callable[[list[Token], int, int], tuple[int, int, int] | None] \
        | None = None


#: How the registry names the runner of a command's words (rgr.ecosystems.registry):
#: handed to an ecosystem whose launcher may run any other's runner (``npm test``).
Guess = Callable[[Sequence[str]], str]


class Ecosystem(Protocol):
    """Everything rgr knows of one ecosystem, in one module: how its tests are found and
    run, how their results and failures are read, which of its files decide how tests
    run, what the sandbox must show for its tools, and how its failures are explained.
    rgr.ecosystems.registry lists every one once; nothing else names a runner."""

    #: How the manual names it.
    @property
    def name(self) -> str: ...

    #: Its runner adapters (``TestCommand.runner`` names them).
    @property
    def runners(self) -> tuple[Runner, ...]: ...

    #: Runner names that keep their own reader when ``junit_xml`` is set (they write
    #: the XML themselves, or rgr reads it from their build directory anyway).
    @property
    def reads_junit_xml_itself(self) -> frozenset[str]: ...

    #: Runner names that load each test file on its own: a file that does not load hides
    #: only its own tests (rgr.check.guards).
    @property
    def loads_file_by_file(self) -> frozenset[str]: ...

    #: Files that decide how its tests are collected, configured or reported: no agent
    #: may change them (rgr.check.guards).
    @property
    def test_config_globs(self) -> tuple[str, ...]: ...

    #: Those of its ``test_config_globs`` that rgr judges by content instead of refusing
    #: every change (rgr.check.guards), whatever runner the project uses.
    @property
    def judged_by_content(self) -> tuple[ContentJudge, ...]: ...

    #: Its version managers and toolchain homes (rgr.sandbox.toolchain).
    @property
    def tool_homes(self) -> tuple[ToolHome, ...]: ...

    #: Variables of the user's that configure its runners (options, plugins): a sealed
    #: test run of one of its runners keeps them, so that it runs as the user's own run
    #: of the same command does. Never secrets: names the runner documents.
    @property
    def runner_variables(self) -> tuple[str, ...]: ...

    #: The caches of its tools the sandbox shows when the project uses it
    #: (rgr.sandbox.toolchain: Go's module cache, Maven's and Gradle's).
    @property
    def tool_caches(self) -> tuple[ToolCache, ...]: ...

    #: Its lockfiles and manifests, in the project's root: what decides what its install
    #: puts in place (rgr.sandbox.setup runs the setup command again when one changes).
    @property
    def lockfiles(self) -> tuple[str, ...]: ...

    #: Files under HOME its runners' tools read (``.npmrc``, pip's ``pip.conf``): the
    #: sandbox's HOME gets a copy of each, its credentials left out
    #: (rgr.sandbox.user_config).
    @property
    def home_config(self) -> tuple[str, ...]: ...

    #: Its languages, as the textual mutator reads them.
    @property
    def mutation_syntax(self) -> tuple[MutationSyntax, ...]: ...

    #: Runner names that rgr's line tracer runs under (``line_tracer``, loaded into the
    #: run by rgr's own plugin or reporter): the mutation gate asks it which tests run
    #: each changed line.
    @property
    def traced_runners(self) -> frozenset[str]: ...

    #: rgr's line tracer that its ``traced_runners`` run under (its language's, the
    #: same as ``TreeMutation.tracer``), asked by the runner's name where no changed
    #: file says the language (rgr.tdd.examine); None: no runner of it is traced.
    @property
    def line_tracer(self) -> LineTracer | None: ...

    def select_tests(self, cmd: TestCommand, tests: Sequence[str]) -> TestCommand | None:
        """``cmd`` (one of its runners) limited to the tests ``tests`` (ids as its reader
        gives them), or None where it cannot name tests on the command line."""
        ...

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        """The test command its files in ``root`` say, or None."""
        ...

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        """Its runner that a command's words run (``names``: each word's file name), or
        None."""
        ...

    def launcher_named(self, names: Sequence[str]) -> str | None:
        """Its runner for a command that only launches a script it cannot see into
        (asked after every ecosystem's ``runner_named``), or None."""
        ...

    def configured_runner(self, runner: str, words: Sequence[str], root: Path,
                          guess: Guess) -> str:
        """``runner`` as guessed from a configured command (its ``words``), made precise
        by the project's files (``npm test`` by hand: the script says which runner)."""
        ...

    def diagnose(self, output: str, shown_env: Mapping[str, str]) -> Diagnosis | None:
        """Why a sandboxed command of this ecosystem could not start, from its output and
        the variables the sandbox sets; None when this ecosystem sees no cause."""
        ...

    def alternatives(self, cmd: TestCommand, root: Path, guess: Guess
                     ) -> tuple[TestCommand, ...] | None:
        """Commands that might read ``root``'s suite where ``cmd`` (one of this
        ecosystem's runners) read no per-test result, best first: what rgr tries, sealed,
        before it suggests one (rgr.loop.fix_trials); empty when it found none to try;
        None when this ecosystem proposes none (its runner's own fix stands)."""
        ...

    #: Where :meth:`alternatives` looks, said when it found no command to try.
    @property
    def alternatives_searched(self) -> str: ...

    def settle(self, cmd: TestCommand, root: Path) -> TestCommand:
        """``cmd`` as it runs in the checkout ``root`` now (a command that depends on the
        files there, made concrete at each run); ``cmd`` itself when nothing changes."""
        ...

    def without_hooks(self, cmd: TestCommand, root: Path) -> TestCommand | None:
        """``cmd`` without what its launcher runs around the tests in the checkout
        ``root`` (npm's ``pre``/``post`` script hooks: a lint, a build), for the mutation
        gate's second look at a run that stopped before any test reported: a mutant is
        killed by a failing test, never by a hook. None where nothing is left out."""
        ...


class Plain:
    """Defaults an ecosystem module overrides: it claims nothing."""

    runners: tuple[Runner, ...] = ()
    reads_junit_xml_itself: frozenset[str] = frozenset()
    loads_file_by_file: frozenset[str] = frozenset()
    test_config_globs: tuple[str, ...] = ()
    judged_by_content: tuple[ContentJudge, ...] = ()
    tool_homes: tuple[ToolHome, ...] = ()
    tool_caches: tuple[ToolCache, ...] = ()
    home_config: tuple[str, ...] = ()
    lockfiles: tuple[str, ...] = ()
    mutation_syntax: tuple[MutationSyntax, ...] = ()
    runner_variables: tuple[str, ...] = ()
    traced_runners: frozenset[str] = frozenset()
    line_tracer: LineTracer | None = None
    alternatives_searched: str = ""

    def select_tests(self, cmd: TestCommand, tests: Sequence[str]) -> TestCommand | None:
        return None

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        return None

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        return None

    def launcher_named(self, names: Sequence[str]) -> str | None:
        return None

    def configured_runner(self, runner: str, words: Sequence[str], root: Path,
                          guess: Guess) -> str:
        return runner

    def diagnose(self, output: str, shown_env: Mapping[str, str]) -> Diagnosis | None:
        return None

    def alternatives(self, cmd: TestCommand, root: Path, guess: Guess
                     ) -> tuple[TestCommand, ...] | None:
        return None

    def settle(self, cmd: TestCommand, root: Path) -> TestCommand:
        return cmd

    def without_hooks(self, cmd: TestCommand, root: Path) -> TestCommand | None:
        return None


def detected(argv: tuple[str, ...], runner: str, source: str,
             globs: tuple[str, ...] = ()) -> TestCommand:
    """A test command found in the project's files (``source`` names the file)."""
    return TestCommand(argv=argv, runner=runner, junit_globs=globs, shell=False,
                       source=f"detected from {source}")


def near_values(value: object, float_zero: float = 0.0) -> list[object]:
    """Values near a literal a test passes, tried one at a time to find an input that
    tells a surviving mutant from the original (the telling input: Python's in
    rgr.ecosystems.python.telling, JavaScript's in rgr.ecosystems.javascript.telling).
    ``float_zero``: the zero tried for a float, written as the language prints it (a
    JavaScript number prints ``0``)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [0, 1, -1, value - 1, value + 1]
    if isinstance(value, float):
        return [float_zero, -value, value + 1]
    if isinstance(value, str):
        return ["", value + value] if value else ["a"]
    return []
