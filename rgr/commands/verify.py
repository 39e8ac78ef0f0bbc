"""``rgr verify``: the test command (and the ``[gate]`` commands) exactly as a run
runs them: on a pristine checkout of HEAD, inside the sandbox, with the same
environment. Its verdict on the tests is ``rgr run``'s own baseline check
(rgr.loop.starting.baseline_refusal): what passes here passes a run's baseline, and what
a run would refuse fails here with the same cause and fix."""

from __future__ import annotations

from rgr.base.errors import RgrError
from rgr.base.outcome import Outcome
from rgr.base.ui import esc, make_console, short
from rgr.check.gate import GateResult, Level
from rgr.commands.common import emit
from rgr.loop.attempt import tests_summary
from rgr.loop.sealed_gate import sealed_gate
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
        emit(Outcome(data={
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
        }), as_json=True)
        return 0 if ok else 1
    console = make_console()
    if uncommitted:
        console.print(f"note: {len(uncommitted)} uncommitted path(s) are not checked: a run "
                      f"starts from HEAD ({short(str(head.id))}) as committed")
    print_result(result, refused)
    return 0 if ok else 1


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
