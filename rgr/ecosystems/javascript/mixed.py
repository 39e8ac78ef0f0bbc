"""Packages whose tests mix node's built-in runner and Jest: each test file is run by the
runner that owns it, and the two runs' per-test results are merged.

Neither runner can run the other's files: Jest fails a file that imports ``node:test``
("Test suite failed to run"), and ``node --test`` fails a Jest file (``describe`` is not
defined). So the files are split by what they say: a file that imports ``node:test``
is node's; a file that imports ``@jest/globals`` or calls Jest's globals (``describe``,
``it``, ``test``, ``expect``) without importing ``node:test`` is Jest's; any other file
in a test folder is a helper neither runs. Only a package that depends on Jest is split.

A TypeScript file importing ``node:test`` is run only by a node that strips types
(``process.features.typescript``, Node 22.18 and later by default), as ``node --test``
finds such files by itself only there: an older node cannot load it. A
tape or tap file is a script that runs its own tests: ``node --test`` (and borp) runs it
as one test, passing when it exits 0, so it is node's too, not Jest's (its ``test(``
calls are tape's). Type tests (tstyche, tsd) are run by their own tools, never by
either runner.

The split is made again at every run, in the checkout under test (``settle``): the test
file a RED phase adds is run by its own runner.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, replace
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.base.proc import Completed
from rgr.ecosystems.base import Finished, Results, Runner
from rgr.ecosystems.failure_kind import is_test_path
from rgr.ecosystems.javascript.modules import SOURCES

NAME = "node+jest"
_NODE_TEST = re.compile(r"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(?\s*)['"]node:test['"]""")
_JEST = re.compile(r"""['"]@jest/globals['"]|\bjest\.\w+\s*\("""
                   r"""|(?<![.\w])(?:describe|it|test|expect)(?:\.\w+)?\s*\(""")
#: A file that imports another runner's functions (Vitest, Mocha's or chai's) is not Jest's.
_OTHER_RUNNER = re.compile(r"""(?:\bfrom\s*|\brequire\s*\(\s*)['"](?:vitest|mocha|chai)['"]""")
#: Runners whose test file is a script running its own tests (``node file`` prints TAP):
#: ``node --test`` runs such a file as one test.
_SELF_RUNNING = re.compile(r"""(?:\bfrom\s*|\brequire\s*\(\s*)['"](?:tape|tap)['"]""")
#: Type tests: checked by their own tool (``tstyche``, ``tsd``), run by neither runner.
_TYPE_TESTS = re.compile(r"""(?:\bfrom\s*|\brequire\s*\(\s*)['"](?:tstyche|tsd)['"]""")
#: What node's share can be (node --test's own discovery without type stripping).
_NODE_SOURCES = (".js", ".mjs", ".cjs")
#: Folders never looked into for test files.
_SKIPPED = frozenset({"node_modules", "coverage", "dist", "build"})
#: What the unsettled command shows (messages, the agent's prompt): what rgr runs.
SHOWN_ARGV = ("node", "--test", "<files importing node:test>", ";",
              "npx", "jest", "--runTestsByPath", "<Jest files>")
#: The variables the settled script reads: rgr's report folder, node's reporters.
_REPORTS_VAR = "RGR_MIXED_REPORTS"
_NODE_OPTIONS_VAR = "RGR_NODE_OPTIONS"
_PARTS = ("node", "jest")


@dataclass(frozen=True)
class Owners:
    """The project's test files (relative, sorted) by the runner that owns them."""

    node: tuple[str, ...]
    jest: tuple[str, ...]
    #: node's TypeScript files, run where node strips types.
    node_typescript: tuple[str, ...] = ()

    @property
    def mixed(self) -> bool:
        return bool((self.node or self.node_typescript) and self.jest)


def owners(root: Path) -> Owners:
    """Which of ``root``'s test files node's runner owns and which Jest owns."""
    node: list[str] = []
    jest: list[str] = []
    node_typescript: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith("."))
        for name in sorted(names):
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if (not name.endswith(SOURCES) or name.endswith(".d.ts")
                    or not (is_test_path(rel) or _runner_named(name))):
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if _TYPE_TESTS.search(text):
                continue
            if _NODE_TEST.search(text) or _SELF_RUNNING.search(text):
                (node if name.endswith(_NODE_SOURCES) else node_typescript).append(rel)
            elif _JEST.search(text) and not _OTHER_RUNNER.search(text):
                jest.append(rel)
    return Owners(tuple(node), tuple(jest), tuple(node_typescript))


def _runner_named(name: str) -> bool:
    """A file both runners find by its name alone wherever it is: ``test.js`` at the
    package's root (node --test's ``**/test.?(c|m)js``, Jest's ``?(*.)+(spec|test).js``),
    ``spec.ts``, which no test folder holds and no prefix or suffix names."""
    stem = name
    for suffix in sorted(SOURCES, key=len, reverse=True):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    return stem in ("test", "spec")


def mixed_command(source: str) -> TestCommand:
    """The command for a package whose tests mix the two runners (``source``: the
    file that said so), settled at each run."""
    return TestCommand(argv=SHOWN_ARGV, runner=NAME, junit_globs=(), shell=False,
                       source=f"detected from {source}: its test files mix node:test and "
                              "Jest, each is run by its own runner")


def settle(cmd: TestCommand, root: Path) -> TestCommand:
    """The command that runs ``root``'s test files as they are now, each by its owner."""
    found = owners(root)
    steps = []
    if found.node or found.node_typescript:
        steps.append(_node_step(found))
    if found.jest:
        steps.append(_step("jest", "npx jest --ci --runTestsByPath", found.jest,
                           f'--json --outputFile="${_REPORTS_VAR}/jest/report.json" '
                           "--passWithNoTests"))
    checks = " && ".join(f'[ "${part}" -eq 0 ]' for part in _PARTS
                         if (found.node or found.node_typescript if part == "node"
                             else found.jest))
    script = "\n".join([*steps, checks or "true"])
    return replace(cmd, argv=("/bin/sh", "-c", script))


def _node_step(found: Owners) -> str:
    """node's runner on its JavaScript files, and on its TypeScript ones where this node
    strips types (they are the positional parameters, so names keep their quoting)."""
    lines = ["node=0", "set --"]
    if found.node_typescript:
        listed = " ".join(shlex.quote(f"./{f}") for f in found.node_typescript)
        lines.append("if node -e 'process.exit(process.features.typescript ? 0 : 1)' "
                     f">/dev/null 2>&1; then set -- {listed}; fi")
    step = _step("node", f'NODE_OPTIONS="${_NODE_OPTIONS_VAR}" node --test', found.node,
                 '"$@"')
    # With no JavaScript file and no TypeScript node can load, `node --test` with no
    # file would look for tests by itself: it is not run.
    lines.append(step if found.node else f'if [ "$#" -gt 0 ]; then\n{step}\nfi')
    return "\n".join(lines)


def _step(part: str, command: str, files: tuple[str, ...], options: str = "") -> str:
    """One runner on its own files; its exit code kept in ``$part`` and in a file."""
    listed = " ".join(shlex.quote(f"./{f}") for f in files)
    return (f"{part}=0; {command} {listed} {options} || {part}=$?\n"
            f'echo "${part}" > "${_REPORTS_VAR}/{part}.exit"')


class NodeAndJest:
    """node's runner and Jest, each on the files it owns (``settle`` made the script)."""

    name = NAME
    label = "node --test and Jest, each on its own files"

    def __init__(self, node: Runner, jest: Runner) -> None:
        self._runners = {"node": node, "jest": jest}

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        env[_REPORTS_VAR] = str(tmp)
        node_env = {k: v for k, v in env.items() if k != "NODE_OPTIONS"}
        for part in _PARTS:
            (tmp / part).mkdir()
        # node's reporter options reach only `node --test`, through the script.
        self._runners["node"].prepare(cmd, tmp / "node", node_env)
        options = node_env.get("NODE_OPTIONS", "")
        env[_NODE_OPTIONS_VAR] = " ".join(filter(None, (env.get("NODE_OPTIONS", ""), options)))
        return cmd.argv

    def read(self, run: Finished) -> Results:
        results = Results()
        ran = False
        for part in _PARTS:
            exit_file = run.tmp / f"{part}.exit"
            try:
                code = int(exit_file.read_text(encoding="utf-8").strip())
            except (OSError, ValueError):
                continue  # no files of this runner, or the script died before it
            ran = True
            done = Completed(run.done.argv, code, run.done.stdout, run.done.stderr,
                             run.done.duration_s)
            own = self._runners[part].read(replace(run, done=done, tmp=run.tmp / part))
            for outcome in own.outcomes.values():
                results.add(outcome)
            for file in own.collection_errors:
                results.load_error(file, own.load_kinds.get(file))
            if own.report_error is not None and results.report_error is None:
                results.report_error = own.report_error
        if not ran and run.done.returncode != 0:
            results.report_error = (f"neither runner ran (exit code {run.done.returncode})")
        results.no_tests = run.done.returncode == 0 and not results.outcomes
        return results

    def fix(self) -> str:
        return ("make each test file import node:test or use Jest, or set test_command to "
                "one runner and junit_xml to the JUnit XML files it writes")
