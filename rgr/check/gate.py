"""``[gate]``: the deterministic gate a refactor batch must pass (seed 000 §9).

A gate run is the project's test command (through ``rgr.check.verify.run_tests``: its per-test
report is the contract every batch is held to), then the ``fast`` commands, then for a
full gate the ``full`` ones. Commands are argv lists, never a shell, unless the config
says ``shell = true``. The first failing command ends the run.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rgr.base.config import Config, GateCommand, TestCommand
from rgr.base.proc import Completed, run, tail
from rgr.check.guards import check_tests, step_fails
from rgr.check.verify import Confinement, TestReport, run_tests
from rgr.check.violation import Violation
from rgr.store.handoff import Phase

Level = Literal["fast", "full"]


@dataclass(frozen=True)
class CommandResult:
    command: str
    exit_code: int
    duration_s: float
    timed_out: bool
    output_tail: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


@dataclass
class GateResult:
    level: Level
    tests: TestReport
    commands: list[CommandResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.tests.all_passed and all(c.ok for c in self.commands)

    @property
    def failed_command(self) -> CommandResult | None:
        return next((c for c in self.commands if not c.ok), None)

    def command_labels(self) -> list[str]:
        return [shlex.join(self.tests.argv), *(c.command for c in self.commands)]


def gate_argvs(config: Config, level: Level) -> list[tuple[str, ...]]:
    commands: list[GateCommand] = list(config.gate.fast)
    if level == "full":
        commands += config.gate.full
    return [_argv(c, config.gate.shell) for c in commands]


def _argv(command: GateCommand, shell: bool) -> tuple[str, ...]:
    if shell:
        script = command if isinstance(command, str) else shlex.join(command)
        return ("/bin/sh", "-c", script)
    return tuple(shlex.split(command) if isinstance(command, str) else command)


def run_gate(config: Config, test_command: TestCommand, root: Path, level: Level,
             env: Mapping[str, str] | None = None,
             confinement: Confinement | None = None) -> GateResult:
    tests = run_tests(test_command, root, timeout=config.command_timeout, env=env,
                      confinement=confinement)
    result = GateResult(level, tests)
    if not tests.all_passed:
        return result
    child_env = dict(os.environ if env is None else env)
    child_env["PYTHONDONTWRITEBYTECODE"] = "1"
    for argv in gate_argvs(config, level):
        done: Completed = run(argv, cwd=root, timeout=config.gate.timeout, env=child_env,
                              launcher=confinement.launcher if confinement else None)
        result.commands.append(CommandResult(
            shlex.join(argv), done.returncode, round(done.duration_s, 3), done.timed_out,
            tail((done.stdout + "\n" + done.stderr).strip(), 3000)))
        if not result.commands[-1].ok:
            break
    return result


def check_gate(before: TestReport, gate: GateResult) -> list[Violation]:
    """What a gate run says against the suite before the change: the test rules
    (rgr.check.guards.check_tests, the suite before is the contract) and a failing
    ``fast``/``full`` command."""
    found = check_tests(Phase.REFACTOR, before, gate.tests) or step_fails(gate.tests)
    failed = gate.failed_command
    if not found and failed is not None:
        status = "timed out" if failed.timed_out else f"exit code {failed.exit_code}"
        found.append(Violation("gate-command-failed", f"`{failed.command}` ({status}): "
                               f"{failed.output_tail[-1500:]}"))
    return found
