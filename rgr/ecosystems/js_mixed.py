"""Packages whose tests mix node's built-in runner and Jest: each test file is run by the
runner that owns it, and the two runs' per-test results are merged.

Neither runner can run the other's files: Jest fails a file that imports ``node:test``
("Test suite failed to run"), and ``node --test`` fails a Jest file (``describe`` is not
defined). So the files are split by what they say: a file that imports ``node:test``
is node's; a file that imports ``@jest/globals`` or calls Jest's globals (``describe``,
``it``, ``test``, ``expect``) without importing ``node:test`` is Jest's; any other file
in a test folder is a helper neither runs. Only a package that depends on Jest is split.

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

NAME = "node+jest"
#: JavaScript and TypeScript sources a test file can be.
_SOURCES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
_NODE_TEST = re.compile(r"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(?\s*)['"]node:test['"]""")
_JEST = re.compile(r"""['"]@jest/globals['"]|\bjest\.\w+\s*\("""
                   r"""|(?<![.\w])(?:describe|it|test|expect)(?:\.\w+)?\s*\(""")
#: A file that imports another runner's functions (Vitest, Mocha's or chai's) is not Jest's.
_OTHER_RUNNER = re.compile(r"""(?:\bfrom\s*|\brequire\s*\(\s*)['"](?:vitest|mocha|chai)['"]""")
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

    @property
    def mixed(self) -> bool:
        return bool(self.node and self.jest)


def owners(root: Path) -> Owners:
    """Which of ``root``'s test files node's runner owns and which Jest owns."""
    node: list[str] = []
    jest: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith("."))
        for name in sorted(names):
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if not name.endswith(_SOURCES) or name.endswith(".d.ts") or not is_test_path(rel):
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if _NODE_TEST.search(text):
                node.append(rel)
            elif _JEST.search(text) and not _OTHER_RUNNER.search(text):
                jest.append(rel)
    return Owners(tuple(node), tuple(jest))


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
    if found.node:
        steps.append(_step("node", f'NODE_OPTIONS="${_NODE_OPTIONS_VAR}" node --test',
                           found.node))
    if found.jest:
        steps.append(_step("jest", "npx jest --ci --runTestsByPath", found.jest,
                           f'--json --outputFile="${_REPORTS_VAR}/jest/report.json" '
                           "--passWithNoTests"))
    checks = " && ".join(f'[ "${part}" -eq 0 ]' for part in _PARTS
                         if (found.node if part == "node" else found.jest))
    script = "\n".join([*steps, checks or "true"])
    return replace(cmd, argv=("/bin/sh", "-c", script))


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
