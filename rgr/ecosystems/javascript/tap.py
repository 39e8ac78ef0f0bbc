"""TAP (the Test Anything Protocol) read per test: tape, node-tap and ``ava --tap``.

tape prints TAP on stdout, no reporter to add: a ``# name`` comment opens each test
(``t.test`` subtests too, in the order they run), then one ``ok N`` / ``not ok N`` line
per assertion, then the plan ``1..N`` and tape's summary (``# tests N``, ``# pass N``,
``# fail N``), which counts assertions. rgr counts tests as tape runs them: one test per
``# name`` block, failed when one of its assertions is ``not ok`` (``# TODO`` ones
aside), skipped when tape says ``# SKIP name`` or every assertion is skipped, passed
otherwise (an honest test may assert nothing and end). Assertion lines outside any block
(``ava --tap``: one line per test, ``file › title``) are each a test.

tape names no file for a test that passes: a test's id is its name (``the name #2`` for
the second of two alike, as tape runs them); a failing assertion's ``at:`` names the file.

The output is the test code's stdout too, so a test could print ``ok`` lines of its own:
the assertions read, and the failed ones, must add up to the summary the runner prints
last (``# tests``, ``# fail``), or the run is not read at all (the report error says
why).

node-tap (the ``tap`` package, TAP 14) nests: each test file, and each ``t.test`` in it,
is a ``# Subtest: name`` whose body is indented 4 more and which its parent closes with
an ``ok N - name`` line of its own. rgr counts tests as node-tap's summary counts them
(``# { total: 8, pass: 6, todo: 1, skip: 1 }``: every test point that closes no
subtest): a subtest with no subtest of its own is one test, however many assertions it
makes; a point made directly in a subtest that has subtests (``t.equal`` at a file's top
level, ``t.test('x', {skip: true})``, which has no body) is one test too. An id is the
path of names (``test/add.test.js::group::inner``); a subtest that fails with no failing
test under it (an error thrown after its subtests) is an error of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import (
    Finished,
    Occurrences,
    Results,
    Status,
    TestOutcome,
    message,
    relative,
    with_args,
)

NAME = "tap"

_VERSION = re.compile(r"^TAP version \d+\s*$")
_ASSERTION = re.compile(r"^(not ok|ok)\b(?:\s+(\d+))?\s*(?:-\s*)?(.*?)\s*$")
_DIRECTIVE = re.compile(r"\s#\s*(SKIP|TODO)\b(.*)$", re.IGNORECASE)
_PLAN = re.compile(r"^1\.\.(\d+)")
_SUMMARY = re.compile(r"^#\s*(tests|pass|fail)\s+(\d+)\s*$")
_SKIPPED_TEST = re.compile(r"^#\s*SKIP\s+(.*)$")
_TODO_TEST = re.compile(r"^TODO\s+(.*)$")
_AT = re.compile(r"at:\s.*?\(?((?:/|file://)[^\s():]+):\d+")
_BAIL = re.compile(r"^Bail out!")


@dataclass
class _Block:
    name: str
    #: Each failing assertion's line and the YAML block under it.
    failures: list[list[str]] = field(default_factory=list)
    asserted: int = 0
    skipped: int = 0
    file: str | None = None
    skipped_test: bool = False

    @property
    def status(self) -> Status:
        if self.failures:
            return "failed"
        if self.skipped_test or (self.asserted and self.skipped == self.asserted):
            return "skipped"
        return "passed"


@dataclass
class _Counts:
    tests: int = 0
    passed: int = 0
    failed: int = 0


def read_tap(output: str, root: Path) -> tuple[list[TestOutcome], _Counts, _Counts | None,
                                               bool]:
    """The tests in TAP ``output``; the assertions read; the summary the runner printed
    last (None when it printed none); and whether the plan was seen."""
    blocks: list[_Block] = []
    loose: list[_Block] = []  # assertion lines outside any block: each a test
    read = _Counts()
    summary: _Counts | None = None
    current: _Block | None = None
    planned = False
    last_failure: list[str] | None = None
    for line in output.splitlines():
        if _VERSION.match(line):
            continue
        if line.startswith((" ", "\t")) and last_failure is not None:
            last_failure.append(line.strip())
            continue
        last_failure = None
        found = _SUMMARY.match(line)
        if found and planned:
            summary = summary or _Counts()
            setattr(summary, {"tests": "tests", "pass": "passed", "fail": "failed"}[
                found.group(1)], int(found.group(2)))
            continue
        if _PLAN.match(line):
            planned = True
            current = None
            continue
        skipped_test = _SKIPPED_TEST.match(line)
        if skipped_test:
            blocks.append(_Block(skipped_test.group(1).strip(), skipped_test=True))
            current = None
            continue
        if line.startswith("#"):
            if planned:
                continue  # tape's closing words (``# ok``)
            name = line[1:].strip()
            todo = _TODO_TEST.match(name)
            # ``test('x', {todo: true})``: tape heads it ``# TODO x`` and passes its
            # failing assertions; not done is no pass
            current = _Block(todo.group(1).strip() if todo else name, skipped_test=bool(todo))
            blocks.append(current)
            continue
        assertion = _ASSERTION.match(line)
        if assertion is None:
            continue
        failed = assertion.group(1) == "not ok"
        text = assertion.group(3)
        directive = _DIRECTIVE.search(" " + text)
        kind = directive.group(1).upper() if directive else ""
        read.tests += 1
        if failed and kind != "TODO":
            read.failed += 1
        else:
            read.passed += 1
        block = current
        if block is None:
            block = _Block(_DIRECTIVE.sub("", " " + text).strip() or f"assertion {read.tests}")
            loose.append(block)
        block.asserted += 1
        if kind == "SKIP":
            block.skipped += 1
        if failed and kind != "TODO":
            last_failure = [line.strip()]
            block.failures.append(last_failure)
    outcomes: list[TestOutcome] = []
    occurrences = Occurrences()
    for block in [*blocks, *loose]:
        text = "\n".join("\n".join(detail) for detail in block.failures)
        file = block.file
        located = _AT.search(text)
        if located and "/node_modules/" not in located.group(1):
            file = relative(located.group(1).removeprefix("file://"), root)
        key = occurrences.key(block.name)
        outcomes.append(TestOutcome(key, file, block.status,
                                    message(text) if block.failures else ""))
    return outcomes, read, summary, planned


_SUBTEST = re.compile(r"^(\s*)# Subtest: (.*?)\s*$")
_NODE_TAP_SUMMARY = re.compile(r"^# \{ ((?:\w+: \d+(?:, )?)+) \}\s*$")


@dataclass
class _Subtest:
    name: str
    #: The indentation of its body (its own points and the headers of its subtests).
    body: int
    path: tuple[str, ...]
    children: int = 0
    #: Its own points: (name, failed, directive, the detail lines under a failure).
    points: list[tuple[str, bool, str, list[str]]] = field(default_factory=list)


def is_nested(output: str) -> bool:
    """Whether ``output`` is node-tap's nested TAP (``# Subtest:`` headers)."""
    return any(_SUBTEST.match(line) for line in output.splitlines())


def read_nested_tap(output: str, root: Path) -> tuple[list[TestOutcome], _Counts,
                                                       _Counts | None, bool]:
    """node-tap's TAP 14, as ``read_tap`` reads tape's."""
    outcomes: list[TestOutcome] = []
    occurrences = Occurrences()
    read = _Counts()
    summary: _Counts | None = None
    planned = False
    stack = [_Subtest("", 0, ())]
    detail: list[str] | None = None
    detail_indent = 0

    def emit(path: tuple[str, ...], status: Status, text: str, file: str | None) -> None:
        located = _AT.search(text)
        if located and "/node_modules/" not in located.group(1):
            file = relative(located.group(1).removeprefix("file://"), root)
        outcomes.append(TestOutcome(occurrences.key("::".join(path)), file, status,
                                    message(text) if text else ""))

    def close(sub: _Subtest, failed: bool, text: str) -> None:
        file = sub.path[0] if sub.path else None
        if sub.children == 0:
            failures = [d for _, bad, _, d in sub.points if bad]
            if failures or failed:
                body = "\n".join("\n".join(d) for d in failures) or text
                emit(sub.path, "failed", body, file)
            elif sub.points and all(k == "SKIP" for _, _, k, _ in sub.points):
                emit(sub.path, "skipped", "", file)
            else:
                emit(sub.path, "passed", "", file)
            return
        for name, bad, kind, lines in sub.points:
            status: Status = ("failed" if bad else
                              "skipped" if kind in ("SKIP", "TODO") else "passed")
            emit((*sub.path, name), status, "\n".join(lines), file)
        # its subtests' failures say why it failed; none did: its own error
        if failed and not any(bad for _, bad, _, _ in sub.points) \
                and not _failed_under(outcomes, sub.path):
            emit(sub.path, "error", text, file)

    for line in output.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if detail is not None and (indent > detail_indent or not stripped):
            detail.append(stripped)
            continue
        detail = None
        found = _SUBTEST.match(line)
        if found:
            parent = stack[-1]
            parent.children += 1
            stack.append(_Subtest(found.group(2), indent + 4,
                                  (*parent.path, found.group(2))))
            continue
        counts = _NODE_TAP_SUMMARY.match(line)
        if counts and indent == 0:
            pairs = dict(p.split(": ") for p in counts.group(1).split(", "))
            summary = _Counts(int(pairs.get("total", 0)), int(pairs.get("pass", 0)),
                              int(pairs.get("fail", 0)))
            continue
        if _PLAN.match(stripped):
            planned = planned or indent == 0
            continue
        if _BAIL.match(stripped):
            continue
        point = _ASSERTION.match(stripped)
        if point is None:
            continue
        failed = point.group(1) == "not ok"
        text = point.group(3)
        directive = _DIRECTIVE.search(" " + text)
        kind = directive.group(1).upper() if directive else ""
        name = re.sub(r"\s#\s*time=\S+$", "", _DIRECTIVE.sub("", " " + text)).strip()
        lines = [stripped]
        detail, detail_indent = lines, indent
        bad = failed and kind != "TODO"
        top = stack[-1]
        if len(stack) > 1 and indent < top.body:
            stack.pop()
            close(top, bad, "\n".join(lines))
            continue
        read.tests += 1
        read.failed += bad
        read.passed += not bad
        top.points.append((name or f"assertion {read.tests}", bad, kind, lines))
    return outcomes, read, summary, planned


def _failed_under(outcomes: list[TestOutcome], path: tuple[str, ...]) -> bool:
    prefix = "::".join(path) + "::"
    return any(o.test_id.startswith(prefix) and o.status in ("failed", "error")
               for o in outcomes)


class Tap:
    """tape, node-tap (and ``ava --tap``): TAP on stdout, read per test."""

    name = NAME
    label = "TAP (tape, node-tap, ava --tap)"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        # TAP is tape's own output: nothing to add (a coverage wrapper, nyc or c8,
        # passes it through)
        return cmd.argv

    def read(self, run: Finished) -> Results:
        results = Results()
        reader = read_nested_tap if is_nested(run.stdout) else read_tap
        outcomes, read, summary, planned = reader(run.stdout, run.root)
        if not outcomes:
            if planned and read.tests == 0:
                results.no_tests = True
            else:
                results.report_error = (f"no TAP test read from the output (exit code "
                                        f"{run.done.returncode})")
            return results
        # Assertions and failures: what a passing one is differs (tape's `# pass`
        # counts skipped ones, ava's has a `# skip` of its own)
        if summary is not None and (summary.tests, summary.failed) != (read.tests,
                                                                       read.failed):
            results.report_error = (
                f"the TAP read ({read.tests} assertions, {read.failed} failed) disagrees "
                f"with the runner's own summary ({summary.tests}, {summary.failed}): a "
                f"test printed TAP of its own")
            return results
        for outcome in outcomes:
            results.add(outcome)
        if not planned and run.done.returncode != 0:
            # the run died inside a test (an uncaught error): the last test started is
            # the one it died in
            last = outcomes[-1]
            why = message(run.done.stderr or run.stdout[-2000:])
            results.add(TestOutcome(last.test_id, last.file, "error", why))
        return results

    def fix(self) -> str:
        return ("let tape print its TAP on the test command's stdout (no formatter piped "
                "after it: `tape test/*.js`, `nyc tape test/*.js`), or run ava with --tap")


#: ava run as its user has it (``"test": "ava"``): rgr adds ``--tap``.
AVA = "ava"


class Ava(Tap):
    """ava with its own reporter in the test script: run with ``--tap`` added (after
    ``--`` for ``npm test``, so it reaches the script's ava), read as ``ava --tap``."""

    name = AVA
    label = "ava (run with --tap)"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        return with_args(cmd.argv, ("--tap",))

    def fix(self) -> str:
        return "let ava's test script end with ava itself, so --tap reaches it"
