"""``rgr verify``: the test command (and the ``[gate]`` commands) exactly as a run
runs them: on a pristine checkout of HEAD, inside the sandbox, with the same
environment. Its verdict on the tests is ``rgr run``'s own baseline check
(rgr.loop.starting.baseline_refusal): what passes here passes a run's baseline, and what
a run would refuse fails here with the same cause and fix."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import click

from rgr.backends.base import AgentRequest, AgentResult, OpenGateway
from rgr.base.errors import RgrError
from rgr.base.ui import esc, make_console, short
from rgr.check.gate import GateResult, Level
from rgr.ecosystems.registry import resolve_test_command
from rgr.loop.attempt import Sealer, open_sealer, tests_summary
from rgr.loop.landing import Integration, Landing, judge
from rgr.loop.starting import baseline_refusal
from rgr.observe.view import PlainView
from rgr.store import git
from rgr.store.workspace import Workspace


def verify(ws: Workspace, level: Level, as_json: bool) -> int:
    """Exit 0 when the gate passes at HEAD as a run would see it, 1 otherwise."""
    ws = ws.pinned()  # a run reads its configuration from the committed tree too
    sealer, result, refused = sealed_gate(ws, level, quiet=as_json)
    ok = result.ok and refused is None
    head = git.head_commit(ws.repo)
    uncommitted = git.uncommitted_paths(ws.repo)
    if as_json:
        click.echo(json.dumps({
            "level": level, "ok": ok, "commit": str(head.id),
            "sandbox": sealer.note().model_dump(mode="json", by_alias=True),
            "uncommittedPaths": len(uncommitted),
            "tests": tests_summary(result.tests).model_dump(mode="json", by_alias=True),
            "commands": [{"command": c.command, "exitCode": c.exit_code,
                          "durationS": c.duration_s, "timedOut": c.timed_out}
                         for c in result.commands],
            # Why `rgr run` would not start here: the same words as its refusal.
            "diagnosis": None if refused is None else {"problem": refused.message,
                                                       "fix": refused.hint},
        }, indent=2))
        return 0 if ok else 1
    console = make_console()
    if uncommitted:
        console.print(f"note: {len(uncommitted)} uncommitted path(s) are not checked: a run "
                      f"starts from HEAD ({short(str(head.id))}) as committed")
    print_result(result, refused)
    return 0 if ok else 1


def sealed_gate(ws: Workspace, level: Level, quiet: bool = False
                ) -> tuple[Sealer, GateResult, RgrError | None]:
    """The gate on a pristine, sealed checkout of HEAD, and why `rgr run` would refuse
    its tests as a baseline (None when it would start)."""
    test_command = resolve_test_command(ws.config, ws.root)
    log = PlainView() if not quiet else _quiet
    sealer = open_sealer(ws, NoBackend(), test_command, log)
    result = sealer.run_gate(git.head_commit(ws.repo), level)
    return sealer, result, baseline_refusal(sealer, result.tests)


def judge_landing(ws: Workspace, integration: Integration,
                  say: Callable[[str], None]) -> Landing:
    """The integrated tree at HEAD judged as `rgr verify --full` judges it (the same
    sealed gate), and the verdict noted on HEAD (rgr.loop.landing)."""
    pinned = ws.pinned()

    def sealer() -> Sealer:
        return open_sealer(pinned, NoBackend(), resolve_test_command(pinned.config,
                                                                     pinned.root), say)

    return judge(pinned, sealer, integration, say)


def print_result(result: GateResult, refused: RgrError | None) -> None:
    console = make_console()
    tests = result.tests
    line = (f"tests: {tests.passed} passed, {tests.failed} failed, {tests.errors} errors, "
            f"{tests.skipped} skipped in {tests.duration_s:.1f}s")
    console.print(esc(line))
    for command in result.commands:
        console.print(esc(f"{'ok' if command.ok else 'FAILED'}: {command.command} "
                          f"({command.duration_s:.1f}s)"))
    if refused is None and tests.no_tests_collected:
        console.print("no tests yet: `rgr run` starts from here (an empty suite is a "
                      "valid green start)")
    if refused is not None or not result.ok:
        failed = result.failed_command
        tail = (result.tests.output_excerpt if refused is not None or failed is None
                else failed.output_tail)
        if tail.strip():
            console.print(esc(tail[-2000:]))
    if refused is not None:
        # Exactly what `rgr run` says when it refuses this baseline.
        console.print(esc(f"error: {refused}"))


def _quiet(message: str) -> None:
    return None


class NoBackend:
    """``rgr verify`` and ``rgr doctor`` run no agent."""

    name = "none"
    binary = "none"
    env_keep: tuple[str, ...] = ()

    def version(self) -> str:
        return "none"

    def api_urls(self, env: Mapping[str, str]) -> list[str]:
        return []

    def seal_api(self, env: dict[str, str], open_gateway: OpenGateway) -> list[str]:
        return []

    def prepare_home(self, home: Path, env: Mapping[str, str]) -> None:
        return None

    def check_login(self, cwd: Path) -> None:
        return None

    def run(self, request: AgentRequest) -> AgentResult:
        raise AssertionError("rgr verify runs no agent")
