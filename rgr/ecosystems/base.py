"""What every test runner adapter shares: the per-test outcome, the parsed results, the
two-step protocol (add a reporter to the command, then read what it wrote) and small
helpers for paths and argument lists.

An adapter never writes into the repository: whatever report file it asks the runner for
lives in ``tmp``, a directory rgr creates for this one run and deletes afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from rgr.base.proc import Completed, bound
from rgr.ecosystems.failure_kind import FailureKind

if TYPE_CHECKING:
    from rgr.base.config import TestCommand

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
    #: How the README and error messages call it.
    label: str

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        """The argv to run (``env`` may be changed in place for the run)."""
        ...

    def read(self, run: Finished) -> Results:
        ...

    def fix(self) -> str:
        """What a user can do when rgr reads no per-test results from this runner."""
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


def read_report(path: Path) -> str:
    """A report file's text. Code under test can write where the runner writes, so a
    symbolic link (which may point at any file rgr can read) is refused."""
    if path.is_symlink():
        raise OSError(f"{path} is a symbolic link")
    return path.read_text(encoding="utf-8")


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
