"""The gate on a pristine, sealed checkout of HEAD, as a run sees it: `rgr verify`,
`rgr doctor`, the daemon's landing check and a run's integration all ask it here, so
what passes one passes the others. Its verdict on the tests is a run's own baseline
check (rgr.loop.starting.baseline_refusal)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path

from rgr.backends.base import AgentRequest, AgentResult, OpenGateway
from rgr.base.errors import RgrError
from rgr.branches.landing import Integration, Landing, judge
from rgr.check import flaky
from rgr.check.gate import GateResult, Level
from rgr.ecosystems.registry import resolve_test_command
from rgr.loop.starting import settle_baseline
from rgr.observe.view import PlainView
from rgr.sandbox.sealer import Sealer, open_sealer
from rgr.store import git
from rgr.store.workspace import Workspace


def sealed_gate(ws: Workspace, level: Level, quiet: bool = False
                ) -> tuple[Sealer, GateResult, RgrError | None]:
    """The gate on a pristine, sealed checkout of HEAD, and why `rgr run` would refuse
    its tests as a baseline (None when it would start)."""
    test_command = resolve_test_command(ws.config, ws.root)
    log = PlainView() if not quiet else _quiet
    sealer = open_sealer(ws, NoBackend(), test_command, log)
    head = git.head_commit(ws.repo)
    result = sealer.run_gate(head, level)
    # as a run's baseline does (rgr.tdd.engine.Orchestrator.baseline): a suite that only
    # failed tests is run once more before it counts as red
    tests = flaky.start_once_more(result.tests, lambda: sealer.run_tests(head), log,
                                  noted=False)
    baseline, refused = settle_baseline(sealer, tests)
    # a writable copy rgr applied itself (Sealer.applied_note): the tests as the run
    # sees them
    result = dataclasses.replace(result, tests=baseline)
    return sealer, result, refused


def judge_landing(ws: Workspace, integration: Integration,
                  say: Callable[[str], None]) -> Landing:
    """The integrated tree at HEAD judged as `rgr verify --full` judges it (the same
    sealed gate), and the verdict noted on HEAD (rgr.branches.landing)."""
    pinned = ws.pinned()

    def sealer() -> Sealer:
        return open_sealer(pinned, NoBackend(), resolve_test_command(pinned.config,
                                                                     pinned.root), say)

    return judge(pinned, sealer, integration, say)


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
