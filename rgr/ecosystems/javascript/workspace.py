"""A JavaScript workspace whose root test script runs every package's own test script
(``pnpm -r test``, ``pnpm --recursive test``, ``npm test --workspaces``, ``npm run test
-ws``, ``yarn workspaces run test``): each package's tests are run as the root's command
runs them, in the package's folder, by the package's own runner as rgr reads it for a
single package (rgr.ecosystems.javascript.runner), and the per-test results are merged,
each id prefixed by the package's folder (``packages/a/test/x.test.js::adds``).

The packages are the folders the workspace names that hold a ``package.json`` with a
test script: ``pnpm-workspace.yaml``'s ``packages:`` globs (``!`` globs leave folders
out), else ``package.json``'s ``workspaces`` (a list, or Yarn's ``{"packages": [...]}``).
The root package itself is not one of them (``pnpm -r`` leaves it out by default, and
its test script is the recursive command). A package without a test script is skipped,
as ``pnpm -r test`` skips it.

The root script may be that command among others joined by ``&&`` (``pnpm -r test &&
pnpm lint``, ``npm run build && npm test --workspaces``): the tests are read per test
as above, and the other steps run at the root as the script runs them, in order, each
only when everything before it passed (so a lint step that fails after green tests makes
the run red, as ``pnpm test`` would be), with the package's ``node_modules/.bin`` on
PATH as npm gives its scripts. A script joined otherwise (``||``, ``;``, a pipe) is not
read as a workspace's.

The packages are found again at every run (``settle``), in the checkout under test: a
package a phase adds is run too. The settled command carries the plan (each package's
folder, command and runner); ``prepare`` lets each package's runner add its options and
variables, and writes one shell script running the packages one after the other, each
package's output kept apart in rgr's report folder so that its runner reads its own.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rgr.base.config import TestCommand
from rgr.base.proc import Completed
from rgr.ecosystems.base import (
    Ecosystem,
    Finished,
    Guess,
    Plain,
    Results,
    Runner,
    TestOutcome,
)
from rgr.ecosystems.javascript import runner as javascript

NAME = "workspace"
#: The first word of a settled command: what follows is the plan, as JSON.
_PLAN_MARK = "rgr-workspace-plan"
_PLAN_FILE = "workspace.json"
#: Folders never taken for a package.
_SKIPPED = frozenset({"node_modules", ".git"})

#: How rgr reads one package, as it would read the package on its own.
Detect = Callable[[Path, Guess], TestCommand | None]


def runs_every_package(words: Sequence[str]) -> bool:
    """Whether one command runs the test script of every package of the workspace."""
    names = [Path(w).name for w in words]
    if not names:
        return False
    tool, rest = names[0], names[1:]
    if tool == "pnpm":
        flags = {w for w in rest if w.startswith("-")}
        plain = [w for w in rest if not w.startswith("-")]
        return bool(flags & {"-r", "--recursive"}) and plain in (["test"], ["run", "test"])
    if tool == "npm":
        flags = {w for w in rest if w.startswith("-")}
        plain = [w for w in rest if not w.startswith("-")]
        return (bool(flags & {"--workspaces", "-ws"})
                and plain in (["test"], ["t"], ["run", "test"], ["run-script", "test"]))
    if tool == "yarn":
        return list(rest) == ["workspaces", "run", "test"]
    return False


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _test_script(package: Mapping[str, Any]) -> str | None:
    scripts = package.get("scripts")
    test = scripts.get("test") if isinstance(scripts, dict) else None
    return test if isinstance(test, str) and test.strip() else None


@dataclass(frozen=True)
class Steps:
    """A root test script around the command that runs every package's tests: what it
    runs before that command and after it (``&&``: each only when all before passed)."""

    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()


def script_steps(script: str) -> Steps | None:
    """The steps of ``script`` around its one command running every package's tests;
    None when it has no such command, more than one, or joins its commands otherwise
    than by ``&&``."""
    pieces = [piece.strip() for piece in script.split("&&")]
    if any(not piece or re.search(r"\|\||;|\|", piece) for piece in pieces):
        return None
    at = [i for i, piece in enumerate(pieces) if runs_every_package(_words(piece))]
    if len(at) != 1:
        return None
    return Steps(tuple(pieces[:at[0]]), tuple(pieces[at[0] + 1:]))


def root_steps(root: Path) -> Steps | None:
    """``root``'s test script's steps around its recursive test command, or None when
    it is not a workspace's."""
    package = _read_json(root / "package.json")
    script = _test_script(package) if package is not None else None
    return None if script is None else script_steps(script)


def is_workspace_root(root: Path) -> bool:
    """Whether ``root``'s test script runs every package's tests (alone, or among other
    steps joined by ``&&``)."""
    return root_steps(root) is not None


def _pnpm_globs(text: str) -> list[str]:
    """The ``packages:`` list of a pnpm-workspace.yaml (its block form, which pnpm
    writes, and the ``[a, b]`` flow form), without a YAML parser."""
    globs: list[str] = []
    inside = False
    for line in text.splitlines():
        bare = line.split("#", 1)[0].rstrip()
        if not bare.strip():
            continue
        if not line[:1].isspace():
            key, _, value = bare.partition(":")
            inside = key.strip() == "packages"
            if inside and value.strip().startswith("["):
                globs += [item.strip().strip("'\"")
                          for item in value.strip().strip("[]").split(",") if item.strip()]
                inside = False
            continue
        item = bare.strip()
        if inside and item.startswith("-"):
            globs.append(item[1:].strip().strip("'\""))
    return globs


def package_globs(root: Path) -> list[str]:
    """The globs naming the workspace's packages: pnpm's file first, then npm's and
    Yarn's ``workspaces``."""
    pnpm = root / "pnpm-workspace.yaml"
    if pnpm.is_file():
        try:
            return _pnpm_globs(pnpm.read_text(encoding="utf-8"))
        except OSError:
            return []
    package = _read_json(root / "package.json") or {}
    found = package.get("workspaces")
    if isinstance(found, dict):
        found = found.get("packages")
    return [g for g in found if isinstance(g, str)] if isinstance(found, list) else []


def package_folders(root: Path) -> list[str]:
    """The workspace's package folders (relative, sorted) that have a test script."""
    chosen: set[str] = set()
    left_out: set[str] = set()
    for glob in package_globs(root):
        target = left_out if glob.startswith("!") else chosen
        pattern = glob.lstrip("!").strip("/") or "."
        for folder in root.glob(pattern):
            rel = folder.relative_to(root).as_posix()
            if (folder.is_dir() and rel != "." and not _SKIPPED & set(rel.split("/"))
                    and (folder / "package.json").is_file()):
                target.add(rel)
    return [rel for rel in sorted(chosen - left_out)
            if _test_script(_read_json(root / rel / "package.json") or {}) is not None]


def workspace_command(root: Path) -> TestCommand:
    """The command of a workspace whose root test script runs every package's."""
    package = _read_json(root / "package.json") or {}
    script = _test_script(package) or ""
    steps = script_steps(script) or Steps()
    others = [*steps.before, *steps.after]
    kept = (f"; its other steps ({', '.join(others)}) run as the script runs them"
            if others else "")
    return TestCommand(
        argv=("npm", "test"), runner=NAME, junit_globs=(), shell=False,
        source=f"detected from package.json: its test script ({script}) runs every "
               f"package's tests; each package is run by its own runner, in its folder"
               + kept)


@dataclass(frozen=True)
class Part:
    """One package of the plan: its folder, its command as rgr reads it on its own."""

    folder: str
    argv: tuple[str, ...]
    runner: str

    def command(self) -> TestCommand:
        return TestCommand(self.argv, self.runner, (), False, f"{self.folder}/package.json")


def settle(cmd: TestCommand, root: Path, detect: Detect, guess: Guess,
           settle_package: Callable[[TestCommand, Path], TestCommand]) -> TestCommand:
    """The plan for ``root``'s packages as they are now, carried by the command."""
    parts: list[dict[str, Any]] = []
    for folder in package_folders(root):
        own = detect(root / folder, guess)
        if own is None:  # kept: its tests run, unread, and the run says so
            parts.append({"folder": folder, "argv": ["npm", "test"], "runner": ""})
            continue
        own = settle_package(own, root / folder)
        parts.append({"folder": folder, "argv": list(own.argv), "runner": own.runner})
    steps = root_steps(root) or Steps()
    return replace(cmd, argv=(_PLAN_MARK, json.dumps(
        {"parts": parts, "before": list(steps.before), "after": list(steps.after)})))


def _plan(argv: Sequence[str]) -> tuple[list[Part], Steps]:
    if len(argv) != 2 or argv[0] != _PLAN_MARK:
        return [], Steps()
    plan = json.loads(argv[1])
    # a plan of an earlier rgr: the packages alone
    found = plan if isinstance(plan, list) else plan.get("parts", [])
    steps = (Steps() if isinstance(plan, list) else
             Steps(tuple(str(s) for s in plan.get("before", [])),
                   tuple(str(s) for s in plan.get("after", []))))
    return [Part(str(p["folder"]), tuple(str(w) for w in p["argv"]), str(p["runner"]))
            for p in found], steps


#: The file naming the root step that failed before the packages' tests ran.
_STOPPED_FILE = "stopped-before"


def _root_step(step: str) -> str:
    """One of the root script's other steps, run at the root as npm runs a script's
    command: by the shell, the root's ``node_modules/.bin`` first on PATH."""
    return (f"echo {shlex.quote(f'> {step}')}\n"
            f'(PATH="$PWD/node_modules/.bin:$PATH"; export PATH; {step}\n)')


def _step(index: int, part: Part, argv: tuple[str, ...], changed: Mapping[str, str],
          tmp: Path) -> str:
    """One package's command in its folder, its output and exit code kept apart, then
    shown as the run's own output."""
    out = tmp / str(index)
    assigned = [f"{k}={v}" for k, v in sorted(changed.items())]
    command = shlex.join(["env", *assigned, *argv] if assigned else list(argv))
    q = shlex.quote
    return "\n".join([
        f"echo {q(f'> {part.folder}: {shlex.join(part.argv)}')}",
        f"code=0; (cd {q(part.folder)} && {command}) >{q(str(out / 'stdout'))} "
        f"2>{q(str(out / 'stderr'))} || code=$?",
        f"echo \"$code\" >{q(str(out / 'exit'))}",
        f"cat {q(str(out / 'stdout'))}; cat {q(str(out / 'stderr'))} >&2",
        '[ "$code" -eq 0 ] || failed=1',
    ])


def workspace_id(folder: str, outcome: TestOutcome) -> str:
    """A package's test id in the workspace: its file's path from the workspace root
    (``packages/a/test/x.test.js::adds``), or the folder before an id that names no file
    (a TAP test's name: ``packages/a::adds``)."""
    file = outcome.file
    if file is not None and (outcome.test_id == file
                             or outcome.test_id.startswith(f"{file}::")):
        return f"{folder}/{outcome.test_id}"
    return f"{folder}::{outcome.test_id}"


class Workspace:
    """Every package of a workspace, each by its own runner (``settle`` made the plan)."""

    name = NAME
    label = "a workspace's packages, each by its own runner"

    def __init__(self, runners: Sequence[Runner]) -> None:
        self._runners = {runner.name: runner for runner in runners}

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        parts, around = _plan(cmd.argv)
        steps = ["failed=0"]
        stopped = shlex.quote(str(tmp / _STOPPED_FILE))
        for step in around.before:
            # `build && pnpm -r test`: a failed step stops the script before the tests
            steps.append(f"{_root_step(step)} || {{ code=$?; printf '%s\\n%s\\n' "
                         f"\"$code\" {shlex.quote(step)} >{stopped}; exit \"$code\"; }}")
        for index, part in enumerate(parts):
            (tmp / str(index)).mkdir()
            runner = self._runners.get(part.runner)
            own_env = dict(env)
            argv = part.argv if runner is None else runner.prepare(
                part.command(), tmp / str(index), own_env)
            changed = {k: v for k, v in own_env.items() if env.get(k) != v}
            steps.append(_step(index, part, argv, changed, tmp))
        (tmp / _PLAN_FILE).write_text(json.dumps([p.__dict__ for p in parts]),
                                      encoding="utf-8")
        for step in around.after:
            # `pnpm -r test && pnpm lint`: run when everything before passed, and its
            # failure fails the run as it fails the script
            steps.append(f'[ "$failed" -ne 0 ] || {{ {_root_step(step)} || failed=1; }}')
        steps.append('exit "$failed"')
        return ("/bin/sh", "-c", "\n".join(steps))

    def read(self, run: Finished) -> Results:
        results = Results()
        try:
            parts = [Part(p["folder"], tuple(p["argv"]), p["runner"]) for p in
                     json.loads((run.tmp / _PLAN_FILE).read_text(encoding="utf-8"))]
        except (OSError, ValueError, KeyError) as exc:
            results.report_error = f"the workspace's plan is unreadable: {exc}"
            return results
        stopped = _stopped_before(run.tmp)
        if stopped is not None:
            results.report_error = stopped
            return results
        if not parts:
            results.report_error = "no package of the workspace has a test script"
            return results
        blind = [f"{part.folder}: {why}" for index, part in enumerate(parts)
                 if (why := self._read_part(run, index, part, results)) is not None]
        if blind:
            # a package rgr cannot see into is a run it cannot referee: the whole run is
            # read as blind, so that rgr refuses it naming the package and the fix
            return Results(report_error="; ".join(blind))
        results.no_tests = run.done.returncode == 0 and not results.outcomes \
            and results.report_error is None
        return results

    def _read_part(self, run: Finished, index: int, part: Part,
                   results: Results) -> str | None:
        """Adds one package's results to ``results``; why none could be read, or None."""
        out = run.tmp / str(index)
        try:
            code = int((out / "exit").read_text(encoding="utf-8").strip())
            stdout = (out / "stdout").read_text(encoding="utf-8", errors="replace")
            stderr = (out / "stderr").read_text(encoding="utf-8", errors="replace")
        except (OSError, ValueError):
            return "its tests did not run"
        runner = self._runners.get(part.runner)
        if runner is None:
            return f"rgr cannot read its runner ({part.runner or 'none found'})"
        done = Completed(part.argv, code, stdout, stderr, run.done.duration_s)
        own = runner.read(Finished(part.command(), done, out, run.root / part.folder,
                                   run.started))
        if not (own.outcomes or own.collection_errors or own.no_tests):
            # (a runner read by JUnit globs, an npm script rgr does not recognise, reads
            # nothing without them and says nothing)
            return own.report_error or (f"its test script gave no per-test results rgr "
                                        f"can read ({runner.label}, exit code {code})")
        prefix = f"{part.folder}/"
        for outcome in own.outcomes.values():
            results.add(replace(outcome, test_id=workspace_id(part.folder, outcome),
                                file=None if outcome.file is None else prefix + outcome.file))
        for file in own.collection_errors:
            results.load_error(prefix + file, own.load_kinds.get(file))
        if own.report_error is not None and results.report_error is None:
            results.report_error = f"{part.folder}: {own.report_error}"
        return None

    def fix(self) -> str:
        return ("give each package a test script that runs a runner rgr reads (vitest, "
                "jest, mocha, node --test, tape, ava), or set test_command to one package's "
                "runner")


def _stopped_before(tmp: Path) -> str | None:
    """Why no package's tests ran: a step of the root script before them failed."""
    try:
        code, _, step = (tmp / _STOPPED_FILE).read_text(encoding="utf-8").partition("\n")
    except OSError:
        return None
    return (f"the test script's step before the tests, `{step.strip()}`, failed (exit "
            f"{code.strip()}), so no package's tests ran")


class WorkspaceEcosystem(Plain):
    """Claims a workspace root whose test script runs every package's; each package is
    read by ``package_ecosystem`` (JavaScript's) as it reads a package on its own."""

    name = "JavaScript workspaces (pnpm -r, npm --workspaces, yarn workspaces run)"

    def __init__(self, package_ecosystem: Ecosystem) -> None:
        self._packages = package_ecosystem
        self.runners = (Workspace(package_ecosystem.runners),)
        # each package's runner loads its files one by one (Vitest, Jest, node)
        self.loads_file_by_file = frozenset({NAME})

    def _guess(self, argv: Sequence[str]) -> str:
        """Which of the package ecosystem's runners a command names."""
        words = list(argv)
        names = [Path(word).name for word in words]
        return (self._packages.runner_named(names, words)
                or self._packages.launcher_named(names) or "custom")

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        return workspace_command(root) if is_workspace_root(root) else None

    def configured_runner(self, runner: str, words: Sequence[str], root: Path,
                          guess: Guess) -> str:
        if runs_every_package(words):
            return NAME
        if runner == "npm" and list(words)[1:] in (["test"], ["run", "test"]) \
                and is_workspace_root(root):
            return NAME
        return runner

    def settle(self, cmd: TestCommand, root: Path) -> TestCommand:
        if cmd.runner != NAME:
            return cmd
        return settle(cmd, root, self._packages.detect, self._guess,
                      self._packages.settle)


ECOSYSTEM = WorkspaceEcosystem(javascript.ECOSYSTEM)
