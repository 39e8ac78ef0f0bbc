"""Jest, Vitest, Mocha and node's built-in runner.

Jest (``--json --outputFile``) and Vitest (its ``json`` reporter) write the same
document: one entry per test file (a file that failed to load has a ``message`` and no
assertions) with its assertions' ``ancestorTitles``, ``title`` and ``status``. Mocha's
``json`` reporter writes into a file given by ``--reporter-options output=`` (Mocha
before 10 prints it on stdout instead, where rgr finds it); a spec file
that throws while loading stops Mocha before any report, so that file is found in the
stack trace. node's runner takes reporters from ``NODE_OPTIONS``; rgr's own reporter
(``node_reporter.mjs`` beside this file) writes one JSON line per test with its file.

Test ids: ``<file>::<describe>::...::<title>``, the file relative to the project root.
Tests titled alike in one file are as many tests as the runner counts: the second is
``<id> #2``, and so on, in the order the runner reported them.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from rgr.base.config import TestCommand
from rgr.base.errors import ConfigError
from rgr.ecosystems.base import (
    Finished,
    Guess,
    MutationSyntax,
    Occurrences,
    Plain,
    Results,
    Status,
    TestOutcome,
    ToolHome,
    detected,
    existing,
    json_lines,
    message,
    project_files_named,
    read_report,
    relative,
    report_lines,
    with_args,
)
from rgr.ecosystems.failure_kind import FailureKind, first_match
from rgr.ecosystems.javascript import direct as js_direct
from rgr.ecosystems.javascript import mixed as js_mixed
from rgr.ecosystems.javascript import syntax, tap, telling
from rgr.ecosystems.javascript.modules import importers, missing_module, module_kind
from rgr.ecosystems.javascript.ts_diagnostics import TYPECHECK_HEAD, diagnostic_kind
from rgr.ecosystems.junit import JUnitGlobs

REPORT = "report.json"

_JEST_STATUS: dict[str, Status] = {
    "passed": "passed", "failed": "failed", "pending": "skipped", "skipped": "skipped",
    "todo": "skipped", "disabled": "skipped", "focused": "passed",
}


def _load_json(path: Path, what: str, results: Results, code: int) -> Any:
    try:
        return json.loads(read_report(path))
    except FileNotFoundError:
        results.report_error = f"{what} wrote no report to {path} (exit code {code})"
    except (OSError, ValueError) as exc:
        results.report_error = f"{what}'s report {path} is unreadable: {exc}"
    return None


def _test_id(file: str, *names: str) -> str:
    return "::".join([file, *names])


#: The first line of a JavaScript test's error: Vitest's and Jest's timeouts, node's
#: and Mocha's; chai/node assertions and Jest's ``expect``; a function, constructor or
#: name that does not exist (ReferenceError is JavaScript's NameError; a CommonJS
#: destructuring of a name the module does not export calls undefined).
_KINDS: tuple[tuple[re.Pattern[str], FailureKind], ...] = (
    (re.compile(r"Test timed out in \d+|Exceeded timeout of \d+|Timeout of \d+ ?ms exceeded|"
                r"test timed out after \d+|timed out after \d+ ?ms", re.IGNORECASE), "timeout"),
    (re.compile(r"AssertionError|ERR_ASSERTION|expect\(|^Error: (expect|Expected)"),
     "assertion"),
    (re.compile(r"TypeError: .+ is not a (function|constructor)|ReferenceError: .+ is not "
                r"defined|Not implemented"), "missing-code"),
)

_ERROR_HEAD = re.compile(r"^\w*(Error|Exception)\b[^:]*: ")


def failure_kind(outcome: TestOutcome, root: Path | None = None) -> FailureKind:
    """Why a Jest, Vitest, Mocha or node test failed, from the first line of its error
    (and the line naming the error's class):
    a timeout, an assertion, or a function, export or name that does not exist; a module
    that cannot be found, or lacks the export imported, is missing code when it is the
    project's and not test code (rgr.ecosystems.javascript.modules), else the test's own
    error. TypeScript errors of a type-checking runner are judged by
    rgr.ecosystems.javascript.ts_diagnostics.
    ``root``: the project the run ran in, where the module is looked for."""
    typed = diagnostic_kind(outcome.message, outcome.file, root)
    if typed is not None:  # a type-checking runner's TypeScript errors
        return typed
    lines = outcome.message.strip().splitlines() or [""]
    # Mocha puts the message first and the stack (which names the error's class) after.
    named = [line for line in lines if _ERROR_HEAD.match(line)][:1]
    first = "\n".join([lines[0], *named])
    missing = missing_module(first, outcome.message)
    if missing is not None:
        module, importer = missing
        return module_kind(module, importer or outcome.file, root)
    return first_match(first, _KINDS)


class _JestLike:
    name: str
    label: str

    def read(self, run: Finished) -> Results:
        results = Results()
        data = _load_json(run.tmp / REPORT, self.label, results, run.done.returncode)
        if not isinstance(data, dict):
            _load_failures_from_output(run, results)
            return results
        occurrences, typechecked = Occurrences(), Occurrences()
        #: Vitest --typecheck passes a test whose file's import lines do not type-check
        #: (it blames no test for them): such a pass counts only if the file ran.
        typecheck_passes: list[TestOutcome] = []
        for suite in data.get("testResults") or []:
            file = relative(str(suite.get("name", "")), run.root)
            assertions = suite.get("assertionResults") or []
            if not assertions and suite.get("status") == "failed":
                # The file did not load, compile or run: why, in the suite's message
                # (an import of code that does not exist yet is a right RED).
                # (Jest heads it "● Test suite failed to run".)
                why = message("\n".join(
                    line for line in str(suite.get("message") or "").splitlines()
                    if line.strip() and not line.strip().startswith("●")))
                results.load_error(file, failure_kind(TestOutcome(file, file, "error", why),
                                                      run.root))
                continue
            for case in assertions:
                status = _JEST_STATUS.get(str(case.get("status")), "failed")
                names = [*case.get("ancestorTitles", []), str(case.get("title", ""))]
                text = "\n".join(case.get("failureMessages") or [])
                meta = case.get("meta")
                counted = occurrences
                if isinstance(meta, dict) and meta.get("typecheck"):
                    counted = typechecked
                    # Vitest --typecheck reports each test a second time, titled under
                    # its file: one id with the run's, the worse result of the two
                    # kept; its failure is a bare TypeScript error
                    if names[:1] and relative(names[0], run.root) == file:
                        names = names[1:]
                    text = TYPECHECK_HEAD + text if text else text
                if text.startswith(_LOST_MESSAGE):
                    text = _printed_error(run.output, file, names) + text
                outcome = TestOutcome(counted.key(_test_id(file, *names)),
                                      existing(run.root, file), status, message(text))
                if counted is typechecked and status == "passed":
                    typecheck_passes.append(outcome)
                else:
                    results.add(outcome)
        for outcome in typecheck_passes:
            if outcome.test_id.split("::", 1)[0] not in results.collection_errors:
                results.add(outcome)
        results.classify(partial(failure_kind, root=run.root))
        results.no_tests = (run.done.returncode == 0 and not results.outcomes
                            and not results.collection_errors
                            and not data.get("numTotalTests"))
        return results

    def fix(self) -> str:
        return (f"make the test script run {self.label} as its last command (rgr appends its "
                f"reporter options to it), or set test_command to e.g. `npx {self.name} ...`")


class Jest(_JestLike):
    name = "jest"
    label = "Jest"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        return with_args(cmd.argv, ("--json", f"--outputFile={tmp / REPORT}",
                                    "--passWithNoTests"))


class Vitest(_JestLike):
    name = "vitest"
    label = "Vitest"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        return with_args(cmd.argv, ("--reporter=default", "--reporter=json",
                                    f"--outputFile.json={tmp / REPORT}", "--passWithNoTests"))


#: Vitest 3's JSON report keeps only this for some errors (a timeout among them); its
#: default reporter, which rgr keeps, prints the real one under the test's name.
_LOST_MESSAGE = "Error: STACK_TRACE_ERROR"


def _printed_error(output: str, file: str, names: list[str]) -> str:
    """The error line Vitest's default reporter printed under ``FAIL  file > names``."""
    heading = f"FAIL  {' > '.join([file, *names])}\n"
    at = output.find(heading)
    if at < 0:
        return ""
    return output[at + len(heading):].split("\n", 1)[0].strip() + "\n"


def _load_failures_from_output(run: Finished, results: Results) -> None:
    """No report: a runner that died on a file names it in its stack trace (or, for an
    ESM import of a name a module does not export, only the module: the file is the test
    that imports it). Why it died is the error it printed."""
    if run.done.returncode == 0:
        return
    why = load_error_text(run.output)
    if not why:
        # No error printed: the runner never loaded anything (a `pretest` lint that
        # names the file it rejects stopped the run first). Left to the report's
        # absence, which says the run failed, rather than blamed on a file that loads.
        return
    files = project_files_named(run.output, run.root)
    missing = missing_module(why, why)
    if not files and missing is not None:
        files = importers(run.root, missing[0])
    if files:
        kind = failure_kind(TestOutcome(files[0], files[0], "error", why), run.root)
        results.load_error(files[0], kind)
        results.report_error = None


#: Mocha's words before the error that stopped it while loading the spec files.
_MOCHA_EXCEPTION = "Exception during run: "
#: How many lines of a load error are read (the error, then CommonJS's require stack).
_LOAD_ERROR_LINES = 12


def load_error_text(output: str) -> str:
    """The error a runner or node printed when a file did not load: from the line that
    names the error's class (``Error: Cannot find module ...``, ``SyntaxError: ...``)
    on, past the source excerpt node prints above it; empty if there is none."""
    lines = output.splitlines()
    for at, line in enumerate(lines):
        head = line.strip()
        if _MOCHA_EXCEPTION in head:
            head = head.split(_MOCHA_EXCEPTION, 1)[1]
        if _ERROR_HEAD.match(head):
            return message("\n".join([head, *lines[at + 1:at + _LOAD_ERROR_LINES]]))
    return ""


class Mocha:
    name = "mocha"
    label = "Mocha"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        # ``--reporter-options`` (plural): Mocha 10+ takes it as ``--reporter-option``,
        # Mocha 5 knows only it (and stops at the singular as an unknown option).
        return with_args(cmd.argv, ("--reporter=json",
                                    f"--reporter-options=output={tmp / REPORT}"))

    def read(self, run: Finished) -> Results:
        results = Results()
        data = _load_json(run.tmp / REPORT, self.label, results, run.done.returncode)
        if data is None and not (run.tmp / REPORT).exists():
            # Mocha before 10 ignores ``output=`` and prints the report on stdout.
            data = mocha_report_in(run.stdout)
            if data is not None:
                results.report_error = None
        if not isinstance(data, dict):
            if "No test files found" in run.output:
                results.report_error = None
                results.no_tests = True
                return results
            _load_failures_from_output(run, results)
            return results
        tests = [case for case in data.get("tests") or [] if isinstance(case, dict)]
        pending = Counter(_mocha_key(t) for t in data.get("pending") or [])
        titled = Counter(_mocha_key(t) for t in tests)
        occurrences = Occurrences()
        for case in tests:
            file = relative(str(case.get("file", "")), run.root)
            title = str(case.get("fullTitle", case.get("title", "")))
            err = case.get("err") or {}
            key = _mocha_key(case)
            # Among tests titled alike, the pending ones are those that never ran (no
            # duration); a title of its own is pending when the report lists it so.
            if pending[key] and not err and (titled[key] == 1 or "duration" not in case):
                pending[key] -= 1
                status: Status = "skipped"
            elif err:
                status = "failed"
            else:
                status = "passed"
            text = "\n".join(str(err.get(k, "")) for k in ("message", "stack") if err.get(k))
            # Mocha before 10 names no file: the title alone is the id.
            test_id = _test_id(file, title) if file else title
            results.add(TestOutcome(occurrences.key(test_id),
                                    existing(run.root, file) if file else None, status,
                                    message(text)))
        # A hook that failed ("before all" hook) is listed under failures only.
        for case in data.get("failures") or []:
            file = relative(str(case.get("file", "")), run.root)
            title = str(case.get("fullTitle", ""))
            test_id = _test_id(file, title) if file else title
            if test_id not in results.outcomes:
                err = case.get("err") or {}
                hook = TestOutcome(test_id, existing(run.root, file) if file else None, "error",
                                   message(str(err.get("message", ""))))
                # a failing hook is the test's own setup, unless it met missing code
                results.add(replace(hook, kind="missing-code" if failure_kind(hook, run.root)
                                    == "missing-code" else "test-error"))
        results.classify(partial(failure_kind, root=run.root))
        results.no_tests = run.done.returncode == 0 and not results.outcomes
        return results

    def fix(self) -> str:
        return ("make the test script run mocha as its last command (rgr appends --reporter "
                "options to it), or set test_command to e.g. `npx mocha`")


_MOCHA_REPORT_START = re.compile(r'\{\s*"stats"\s*:')


def mocha_report_in(stdout: str) -> dict[str, Any] | None:
    """Mocha's JSON report inside its standard output, whatever the tests printed
    around it: the first object that opens with ``"stats"`` and parses, or None."""
    decoder = json.JSONDecoder()
    for start in _MOCHA_REPORT_START.finditer(stdout):
        try:
            data, _ = decoder.raw_decode(stdout, start.start())
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("tests"), list):
            return data
    return None


def _mocha_key(case: Any) -> tuple[str, str]:
    return (str(case.get("file", "")), str(case.get("fullTitle", case.get("title", ""))))


#: rgr's reporter for node's runner, shipped inside the package.
NODE_REPORTER = Path(__file__).with_name("node_reporter.mjs")
NODE_REPORT = "node-tests.jsonl"


class NodeTest:
    name = "node"
    label = "node --test"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        # NODE_OPTIONS reaches `node --test` through npm scripts and shells alike; the
        # spec reporter keeps the human output on stdout.
        # A copy in rgr's own folder: a sandboxed run sees that folder, not necessarily
        # where rgr is installed.
        reporter = tmp / NODE_REPORTER.name
        shutil.copyfile(NODE_REPORTER, reporter)
        options = ("--test-reporter=spec", "--test-reporter-destination=stdout",
                   f"--test-reporter={reporter}",
                   f"--test-reporter-destination={tmp / NODE_REPORT}")
        env["NODE_OPTIONS"] = " ".join(filter(None, (env.get("NODE_OPTIONS", ""), *options)))
        return cmd.argv

    def read(self, run: Finished) -> Results:
        results, lines = report_lines(run, NODE_REPORT, "node's test runner")
        if lines is None:
            return results
        occurrences = Occurrences()
        for event in json_lines(lines):
            raw_file = str(event.get("file") or "")
            file = relative(raw_file, run.root)
            names = [str(n) for n in event.get("path", [])]
            if raw_file and names == [raw_file] and event.get("status") == "failed":
                # node names a file that failed to load after it; why is on its stderr
                why = load_error_text(str(event.get("stderr") or ""))
                results.load_error(file, failure_kind(TestOutcome(file, file, "error", why),
                                                      run.root) if why else None)
                continue
            # A file with no node:test test in it (a tape file, a plain script) is one
            # test named by its absolute path, which differs in every checkout: named by
            # its path in the project, its id is the same from one run to the next.
            names = [file if raw_file and n == raw_file else n for n in names]
            status: Status = "skipped" if event.get("skip") or event.get("todo") else (
                "failed" if event.get("status") == "failed" else "passed")
            results.add(TestOutcome(occurrences.key(_test_id(file, *names)),
                                    existing(run.root, file), status,
                                    message(str(event.get("error") or ""))))
        if not lines and run.done.returncode != 0:
            results.report_error = (f"node's test runner reported no test (exit code "
                                    f"{run.done.returncode})")
        results.classify(partial(failure_kind, root=run.root))
        results.no_tests = run.done.returncode == 0 and not results.outcomes
        return results

    def fix(self) -> str:
        return ("run `node --test` (Node.js 20 or later) so that rgr can add its reporter "
                "through NODE_OPTIONS")


class NpmScript(JUnitGlobs):
    """``npm test`` whose script runs nothing rgr recognises: JUnit globs or nothing."""

    name = "npm"
    label = "an npm test script rgr does not recognise"

    def fix(self) -> str:
        return ("make the test script end with the runner (vitest, jest, mocha or "
                "node --test), set test_command to the runner itself, or set junit_xml in "
                "tdd.toml to the JUnit XML files the script writes")



# --------------------------------------------------------------------------- the ecosystem

#: What ``npm init`` writes as the test script: no test command.
NPM_PLACEHOLDER_TEST = 'echo "Error: no test specified" && exit 1'
#: JavaScript runners rgr can read, found as a word of a test script or a devDependency.
JS_RUNNERS = ("vitest", "jest", "mocha")


def _read_package(root: Path) -> dict[str, Any] | None:
    path = root / "package.json"
    if not path.is_file():
        return None
    try:
        package = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        # Loud, not skipped: silently falling through to pytest would run the wrong thing.
        raise ConfigError(
            f"{path}: not valid JSON: {exc}", "fix package.json, or set test_command in tdd.toml"
        ) from exc
    return package if isinstance(package, dict) else {}


def _test_script(package: Mapping[str, Any]) -> str | None:
    scripts = package.get("scripts")
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(test, str) or not test.strip() or test.strip() == NPM_PLACEHOLDER_TEST:
        return None
    return test


def _dev_runners(package: Mapping[str, Any]) -> list[str]:
    deps: dict[str, Any] = {}
    for key in ("devDependencies", "dependencies"):
        value = package.get(key)
        if isinstance(value, dict):
            deps.update(value)
    return [name for name in JS_RUNNERS if name in deps]


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


#: How deep `npm run X` is followed into the package's scripts (a script calling
#: itself, directly or not, stops there).
_SCRIPT_DEPTH = 4


def _script_commands(script: str, package: Mapping[str, Any],
                     depth: int = 0) -> list[list[str]]:
    """The commands a test script runs, in order, each ``npm run X`` (``pnpm``/``yarn
    run``) replaced by the commands of the package's script X."""
    scripts = package.get("scripts")
    commands: list[list[str]] = []
    for command in re.split(r"&&|\|\||;", script):
        words = _words(command)
        called = (words[2] if len(words) >= 3 and Path(words[0]).name in
                  ("npm", "pnpm", "yarn") and words[1] in ("run", "run-script") else None)
        body = scripts.get(called) if isinstance(scripts, dict) and called else None
        if isinstance(body, str) and depth < _SCRIPT_DEPTH:
            commands += _script_commands(body, package, depth + 1)
        else:
            commands.append(words)
    return commands


def _script_runner(script: str, package: Mapping[str, Any], guess: Guess) -> str:
    """The runner a test script runs: the last command of the script that names one
    (rgr's options are appended to the script, so they reach its last command), or
    node's runner anywhere in the script, wrapped or not (`npm run test:unit && tsd`
    with `c8 node --test` as test:unit): its reporter comes through NODE_OPTIONS,
    which reaches every command; tape's TAP anywhere in it, on the script's stdout."""
    commands = _script_commands(script, package)
    runner = guess(commands[-1]) if commands else "custom"
    if runner in ("npm", "custom"):
        if any(guess(words) == "node" for words in commands):
            return "node"
        # tape's TAP is on the script's stdout wherever it runs (`standard && nyc tape
        # test/*.js && npm audit`): read there, the script's other steps kept
        if any(guess(words) == tap.NAME for words in commands):
            return tap.NAME
        found = _dev_runners(package)
        # `npm test` -> `npm run test:unit`: the one runner the package depends on
        return found[0] if len(found) == 1 else "npm"
    return runner


#: How many other commands rgr tries, at most, before it suggests one.
MAX_TRIED = 4
#: Words of a test script that set a variable (``NODE_ENV=test``).
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _runner_part(command: str, guess: Guess) -> tuple[str, ...] | None:
    """The runner and its arguments in one command of a test script (``c8 --x node
    --test test/`` -> ``node --test test/``; ``mocha`` -> ``npx mocha``), or None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for at, word in enumerate(words):
        if _ASSIGNMENT.match(word):
            continue
        rest = tuple(words[at:])
        runner = guess(rest)
        if Path(word).name in JS_RUNNERS and runner == Path(word).name:
            return ("npx", *rest)
        if Path(word).name == "node" and runner == "node":
            return rest
    return None


class JavaScript(Plain):
    name = "JavaScript, TypeScript (Vitest, Jest, Mocha, node --test)"
    runners = (Jest(), Vitest(), Mocha(), NodeTest(), NpmScript(),
               js_mixed.NodeAndJest(node=NodeTest(), jest=Jest()), tap.Tap(), tap.Ava())
    loads_file_by_file = frozenset({"vitest", "jest", "node", js_mixed.NAME})
    test_config_globs = (
        "**/package.json", "**/jest.config.*", "**/vitest.config.*", "**/vite.config.*",
        "**/vitest.workspace.*", "**/.mocharc*", "**/babel.config.*", "**/.babelrc*",
        "**/tsconfig*.json")
    tool_homes = (
        ToolHome("nvm", "NVM_DIR", ".nvm", ("NVM_BIN", "NVM_INC")),
        ToolHome("volta", "VOLTA_HOME", ".volta"),
        ToolHome("fnm", "FNM_DIR", ".local/share/fnm", ("FNM_MULTISHELL_PATH",)),
    )
    home_config = (".npmrc",)
    lockfiles = ("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock",
                 "package.json")
    mutation_syntax = (MutationSyntax(
        "js", (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"),
        # A kill, not a throw (assert.throws catches one), nor process.exit: Vitest
        # turns process.exit into a throw, tests of command-line code stub it, and a
        # Vitest thread's process.reallyExit ends only the thread, unseen. SIGKILL ends
        # the worker (Jest, Vitest forks, node --test: the runner reports it died) or
        # the runner itself (Mocha, Vitest threads): measured on each.
        'process.kill(process.pid, "SIGKILL");',
        parenthesised_conditions=True, undefined_returns=True, directives=True,
        call_kind=syntax.call_kind, telling=telling.find,
        # not & and |: TypeScript writes its types with them (number | string), and a
        # runner that strips types (Vitest, tsx) would let their mutants survive
        bitwise=frozenset({"^", "<<", ">>", ">>>"})),)

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        package = _read_package(root)
        if package is None:
            return None
        script = _test_script(package)
        found = _dev_runners(package)
        runner = _script_runner(script, package, guess) if script is not None else None
        # Jest fails node:test files and node --test fails Jest's: each its own.
        if runner in ("jest", "node", None) and "jest" in found \
                and js_mixed.owners(root).mixed:
            return js_mixed.mixed_command("package.json and the test files")
        if script is not None and runner is not None:
            return detected(("npm", "test"), runner, "package.json")
        # No test script (or npm's placeholder) but one runner among the dependencies.
        if len(found) == 1:
            argv = ("npx", "vitest", "run") if found[0] == "vitest" else ("npx", found[0])
            return detected(argv, found[0], "package.json (devDependencies)")
        return None

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        for name in names:
            if name in JS_RUNNERS:
                return name
            if name in ("tape", "tap") or (name == "ava" and "--tap" in words):
                return tap.NAME
            if name == "ava":
                return tap.AVA
        return "node" if "node" in names and "--test" in words else None

    def launcher_named(self, names: Sequence[str]) -> str | None:
        return "npm" if any(n in ("npm", "npx", "yarn", "pnpm") for n in names) else None

    alternatives_searched = ("no runner in the test script or among the dependencies, no "
                             "file importing node:test")

    def alternatives(self, cmd: TestCommand, root: Path, guess: Guess
                     ) -> tuple[TestCommand, ...]:
        package = _read_package(root) or {}
        script = _test_script(package)
        argvs: list[tuple[str, ...]] = []
        # The runner inside the test script, without what wraps or follows it (a
        # coverage tool, `&& tsd`): each command of the script that names one.
        for command in re.split(r"&&|\|\||;", script or ""):
            argv = _runner_part(command, guess)
            if argv is not None:
                argvs.append(argv)
        for name in _dev_runners(package):
            argvs.append(("npx", "vitest", "run") if name == "vitest" else ("npx", name))
        if js_mixed.owners(root).node:
            argvs.append(("node", "--test"))
        unique = [a for a in dict.fromkeys(argvs) if a != cmd.argv]
        return tuple(detected(argv, guess(argv), "a command rgr tried")
                     for argv in unique[:MAX_TRIED])

    def settle(self, cmd: TestCommand, root: Path) -> TestCommand:
        return js_mixed.settle(cmd, root) if cmd.runner == js_mixed.NAME else cmd

    def without_hooks(self, cmd: TestCommand, root: Path) -> TestCommand | None:
        # npm's --ignore-scripts (rgr.ecosystems.javascript.direct.without_hooks)
        return js_direct.without_hooks(cmd, root)

    def configured_runner(self, runner: str, words: Sequence[str], root: Path,
                          guess: Guess) -> str:
        if runner != "npm":
            return runner
        package = _read_package(root)
        if package is None:
            return runner
        # `npm run test:vi` configured by hand: that script says which runner it is (not
        # the package's `test` script, which may run another one); `npm test`: the test
        # script
        named = _run_script_command(words)
        script = shlex.join(words) if named else _test_script(package)
        if script is None:
            return runner
        return _script_runner(script, package, guess)


def _run_script_command(words: Sequence[str]) -> bool:
    """Whether ``words`` run one named package script (``npm run X``, ``pnpm run X``,
    ``yarn run X``), which _script_commands follows into the package's scripts."""
    return (len(words) >= 3 and Path(words[0]).name in ("npm", "pnpm", "yarn")
            and words[1] in ("run", "run-script"))


ECOSYSTEM = JavaScript()
