"""What the language-neutral checks (rgr.check) ask of a language beyond its runners: one
``Language`` per language sub-package (its ``language`` module), made of small parts,
listed once in rgr.ecosystems.registry. check/ names no language: it asks the registry
for the one a path is written in."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from rgr.ecosystems.fact import Fact
from rgr.ecosystems.mutant import Mutant
from rgr.ecosystems.special_case import SpecialCase
from rgr.ecosystems.tokens import Token, TokenScan
from rgr.ecosystems.traced import LineTracer

if TYPE_CHECKING:  # a Protocol, so only for the type checker (rgr.base.proc)
    from rgr.base.proc import Launcher

#: Reads a file of the examined tree (a path relative to the project), or None.
Reader = Callable[[str], str | None]
#: The paths of the files directly in a folder of the examined tree (Go's package).
Lister = Callable[[str], list[str]]
#: The names of the entries of a folder of the user's work tree (a path relative to it;
#: nothing when it is missing).
Names = Callable[[str], list[str]]


class ExaminerInterface(Protocol):
    """What the examiner is shown of the code a language's test file uses
    (rgr.check.acceptance.interface): the heads of the declarations it uses, never a
    body."""

    #: The suffixes of the test files it reads.
    @property
    def suffixes(self) -> tuple[str, ...]: ...

    #: Where it finds none of the project's code, the test file's import lines are
    #: shown instead.
    @property
    def shows_imports(self) -> bool: ...

    def interface(self, test_path: str, text: str, read: Reader,
                  listing: Lister | None) -> list[str]:
        """The interface lines for the test file ``test_path`` (its ``text``); empty
        when none of the project's code is found (then its import lines are shown)."""
        ...


@dataclass(frozen=True)
class AcceptanceName:
    """How a language's runners collect a test file (``pattern``, matched against the
    whole file name), and the name the examiner's acceptance file gets beside one:
    ``made``, with ``{stem}`` and the match's groups (``{0}``, ``{1}`` ...) filled in."""

    pattern: re.Pattern[str]
    made: str

    def name_beside(self, test_file_name: str, stem: str) -> str | None:
        """The acceptance file's name beside ``test_file_name``, or None when this
        naming does not collect that file."""
        match = self.pattern.fullmatch(test_file_name)
        return None if match is None else self.made.format(*match.groups(), stem=stem)


#: Where a reader of a file's tokens finds something: (first token, last token, what).
Spotted = tuple[int, int, str]


@dataclass(frozen=True)
class Sighting:
    """One cheat idiom a language's own reader found in a file: the rule's id
    (rgr.check.cheats.rules), its first and last line, and what it is."""

    rule: str
    line: int
    end_line: int
    detail: str


#: Reads a whole file for cheat idioms by the language's own syntax tree: (path, source,
#: is_test) -> what it found; in a test file only framework patches count.
SyntaxCheats = Callable[[str, str, bool], list[Sighting]]


@dataclass(frozen=True)
class CheatIdioms:
    """A language's words for the cheat idioms (rgr.check.cheats.tokens), read on its
    tokens: the rules are the checks', the words each language's."""

    #: The suffixes of the files they are read in.
    suffixes: tuple[str, ...]
    #: How the tokenizer reads them (a ``MutationSyntax.language``).
    tokens: str
    #: How a method's definition starts: ``fn`` (its name follows), ``func`` (its name
    #: or its receiver follows), or ``member`` (a name not read from an object).
    defines: str
    #: Methods whose answer must depend on the other operand -> the constants that show
    #: it does not.
    equality_methods: Mapping[str, tuple[str, ...]]
    #: Calls that end the process, each as its tokens up to its ``(``.
    exits: tuple[tuple[str, ...], ...]
    #: What at a token asks whether tests are running (``detects-test-run``), or None.
    test_run: Callable[[TokenScan, int], str | None] | None = None
    #: What in a file replaces part of the test framework (``patches-test-framework``).
    patches: Callable[[TokenScan], list[Spotted]] | None = None
    #: Whether a path is a test file by its name alone (Go's ``_test.go``).
    test_file: Callable[[str], bool] | None = None
    #: The lines of test code inside a source file (Rust's ``#[cfg(test)] mod``).
    test_lines: Callable[[list[Token], list[str]], set[int]] | None = None

    def reads(self, path: str) -> bool:
        return path.endswith(self.suffixes)


@dataclass(frozen=True)
class FakeItTree:
    """Fake-it's reading of a language by its syntax tree (rgr.check.fakeit), where rgr's
    own parser reads it (the standard library's ``ast``, the language rgr is written
    in): the rules are the checks', the reading the language's. A language without one
    is read on its tokens (``MutationSyntax``) where it has any."""

    #: The facts the test file ``path`` states, given its source: ``(path, source)``
    #: (rgr.check.fakeit.facts).
    facts: Callable[[str, str], list[Fact]]
    #: The special cases of the functions of the source file ``path`` that touch the
    #: lines given (None: every function), judged against the facts:
    #: ``(path, source, lines, facts)`` (rgr.check.fakeit.ledger).
    special_cases: Callable[[str, str, Collection[int] | None, Sequence[Fact]],
                            list[SpecialCase]]
    #: Each function of a source by name, with its first and last line: ``(source)``
    #: (rgr.check.fakeit.blame).
    functions: Callable[[str], list[tuple[str, tuple[int, int]]]]


class Confined(Protocol):
    """Where a language's own tool runs when rgr seals it: inside ``launcher`` (the
    sandbox), its files under ``tmp`` (rgr.check.verify.Confinement, a layer above,
    passed in)."""

    @property
    def launcher(self) -> Launcher: ...

    @property
    def tmp(self) -> Path: ...


@dataclass(frozen=True)
class Decision:
    """A prover's answer for one surviving mutant: ``equivalent`` (every path explored,
    no difference), ``differs`` (``detail``: the input that tells them apart, and both
    results) or ``undecided`` (``detail``: why)."""

    kind: Literal["equivalent", "differs", "undecided"]
    detail: str = ""


class Prover(Protocol):
    """A language's equivalence prover (the mutation gate asks it of a survivor no
    test's own calls told apart: rgr.check.mutation.gate): what it runs and how its
    answer reads are the language's; the sandbox it runs in is the gate's."""

    #: How messages name it.
    @property
    def name(self) -> str: ...

    #: The seconds it may spend on one mutant.
    @property
    def seconds(self) -> float: ...

    def available(self) -> bool:
        """Whether it can run here (an optional extra may be missing)."""
        ...

    def function_at(self, source: str, line: int) -> str | None:
        """The name of the function of ``source`` it would compare for a mutant of
        ``line``, or None where it compares none (the tests' traced argument types are
        looked up by it)."""
        ...

    def decide(self, path: str, original: str, mutated: str, line: int, checkout: Path,
               confinement: Confined | None, env: Mapping[str, str],
               traced: Mapping[str, list[str]] | None, seconds: float) -> Decision:
        """Its answer for the mutant of ``path`` (``original`` and ``mutated`` text) at
        ``line``, run inside ``confinement`` in ``checkout`` (a pristine checkout it may
        write to). ``traced``: each parameter's type names as the tests passed them."""
        ...


#: The mutants of a file's changed lines: (path, source, lines, operators, noise) ->
#: each mutant that still parses; none when the file does not. ``noise``: what the gate
#: never mutates (rgr.check.mutation.arid.ARID) mutated too, only to count it.
TreeMutants = Callable[[str, str, Collection[int], Collection[str], bool], list[Mutant]]
#: The telling input of a survivor: (path, the file, the mutated file, the survivor's
#: line, the text of the test files that run it, a pristine checkout, where it runs
#: sealed, its environment, seconds) -> an input that tells the two apart, in words, or
#: None.
TreeTelling = Callable[[str, str, str, int, Iterable[str], Path, Confined | None,
                        Mapping[str, str], float], str | None]


@dataclass(frozen=True)
class TreeMutation:
    """How the mutation gate (rgr.check.mutation.gate) mutates a language rgr reads by
    its own syntax tree, and what it asks of that tree: its traced path (which test runs
    which line, from rgr's line tracer of the language, ``tracer``). Every answer is
    the language's; what the answers mean for a phase is the gate's."""

    #: rgr's line tracer of the language: which test runs which changed line. The gate
    #: loads it into the run whatever the command's runner (a script that starts the
    #: language's runner loads it too); only the traced runners
    #: (``Ecosystem.traced_runners``) are sure to.
    tracer: LineTracer

    #: The mutants of the changed lines of a file.
    mutants: TreeMutants
    #: The probe that says whether the tests run the statement at a line: (path,
    #: source, the statement's line) -> a mutant that ends the test process there, or
    #: None where none can stand.
    probe: Callable[[str, str, int], Mutant | None]
    #: The search for a survivor's telling input from the tests' own calls, and the
    #: seconds it may take.
    telling: TreeTelling
    telling_seconds: float
    #: Whether a rule proves a mutant of a source no equivalent one (the boundary twin
    #: of a comparison that guards a raise, rgr.check.mutation.rule).
    proved_not_equivalent: Callable[[Mutant, str], bool]
    #: The body lines of each function of a source that reads a name the module-level
    #: statement at a line binds: (source, line) -> one tuple of lines per function.
    readers: Callable[[str, int], list[tuple[int, ...]]]


@dataclass(frozen=True)
class Language:
    """What rgr knows of one language apart from its runners."""

    name: str
    #: The suffixes of its source files.
    suffixes: tuple[str, ...]
    #: How its test files are named, first match first (rgr.check.acceptance.placing).
    acceptance_names: tuple[AcceptanceName, ...] = ()
    #: Its runners' test ids name a package and a test but no file (Go's
    #: ``example.com/calc::TestSums``): a test is told by its name alone.
    ids_name_no_file: bool = False
    #: What the examiner is shown of the code its test files use; None: their import
    #: lines.
    interface: ExaminerInterface | None = None
    #: Its cheat idioms, where rgr reads them on its tokens; None: none there.
    cheats: CheatIdioms | None = None
    #: Its cheat idioms, where rgr reads them by its own syntax tree instead (Python's
    #: AST); None: none there.
    syntax_cheats: SyntaxCheats | None = None
    #: Fake-it's reading of its tests' facts and its code's special cases, where rgr reads
    #: them by its syntax tree; None: on its tokens, where it has any.
    fakeit_tree: FakeItTree | None = None
    #: Regular expressions of code that reaches into its test framework or runner's
    #: report from outside the tests (rgr.check.guards.FRAMEWORK_HOOKS: matched on the
    #: added lines of every file that is not a test file).
    framework_hooks: tuple[str, ...] = ()
    #: Regular expressions of markers that silence a test instead of making it pass
    #: (rgr.check.guards.SKIP_MARKERS: matched on the added lines of every file).
    skip_markers: tuple[str, ...] = ()
    #: The suffixes of the files its build leaves in place in a folder of its tracked
    #: sources, which git ignores (Python's extension modules): rgr.store.generated
    #: copies them into each checkout.
    built_in_place: tuple[str, ...] = ()
    #: The files of the work tree that a load error in a failure's text says are
    #: missing (a module it could not find), as paths relative to the work tree, given
    #: the names in its folders; None: its load errors name no module.
    missing_files: Callable[[str, Names], list[str]] | None = None
    #: How the mutation gate mutates it by its own syntax tree, on its traced path;
    #: None: on its tokens (``MutationSyntax``) where it has any.
    tree_mutation: TreeMutation | None = None
    #: The prover the mutation gate asks whether a survivor is equivalent; None: none.
    prover: Prover | None = None

    def writes(self, path: str) -> bool:
        """Whether ``path`` is a file of this language."""
        return path.endswith(self.suffixes)
