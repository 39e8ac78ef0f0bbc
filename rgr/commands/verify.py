"""``rgr verify``: the test command (and the ``[gate]`` commands) exactly as a run
runs them: on a pristine checkout of HEAD, inside the sandbox, with the same
environment. Its verdict on the tests is ``rgr run``'s own baseline check
(rgr.loop.starting.baseline_refusal): what passes here passes a run's baseline, and what
a run would refuse fails here with the same cause and fix. What stops a run before its
baseline (a detached HEAD, uncommitted changes, an untracked virtualenv git does not
ignore: rgr.loop.starting.start_refusals) fails it too, in `rgr run`'s words."""

from __future__ import annotations

import shlex

from rgr.base.errors import RgrError
from rgr.base.outcome import Outcome
from rgr.base.ui import short
from rgr.branches.sealed_gate import sealed_gate
from rgr.check.gate import GateResult, Level, gate_argvs
from rgr.commands.common import Progress
from rgr.ecosystems.registry import resolve_test_command
from rgr.loop.starting import start_refusals
from rgr.loop.summaries import tests_summary
from rgr.sandbox import capabilities
from rgr.store import git
from rgr.store.workspace import Workspace

#: Seconds between two "still running" lines on stderr while the suite runs.
PROGRESS_EVERY_S = 15.0


def verify(ws: Workspace, level: Level, quiet: bool = False) -> Outcome[dict[str, object]]:
    """Exit 0 when the gate passes at HEAD as a run would see it, 1 otherwise.
    ``quiet``: nothing said on stdout while the suite runs (under --json)."""
    ws = ws.pinned()  # a run reads its configuration from the committed tree too
    command = shlex.join(resolve_test_command(ws.config, ws.root).argv)
    gates = len(gate_argvs(ws.config, level))
    what = (f"rgr verify: `{command}`" + (f" and {gates} gate command(s)" if gates else "")
            + " on a sealed checkout of HEAD")
    with Progress(what, every=PROGRESS_EVERY_S):
        sealer, result, refused = sealed_gate(ws, level, quiet=quiet)
    stops = start_refusals(ws)
    ok = result.ok and refused is None and not stops
    head = git.head_commit(ws.repo)
    uncommitted = git.uncommitted_paths(ws.repo)
    data: dict[str, object] = {
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
        # What else would stop `rgr run` before its baseline: in its own words.
        "startRefusals": refusal_data(stops),
        # A writable copy rgr applies itself (the suite's only failure was a write into
        # a dependency folder): what it applies, why and at what cost.
        "appliedNote": sealer.applied_note,
    }
    # As root, the user's own run keeps capabilities the sandbox drops: say which
    # tests that explains, or the counts differ with no reason given.
    dropped = (capabilities.find((o.test_id, o.status, o.message)
                                 for o in result.tests.outcomes.values())
               if sealer.policy is not None and capabilities.running_as_root() else None)
    data["capabilityNote"] = None if dropped is None else dropped.note()
    text = [] if sealer.applied_note is None else [sealer.applied_note]
    text += [] if not uncommitted else [
        f"note: {len(uncommitted)} uncommitted path(s) are not checked: a run starts from "
        f"HEAD ({short(str(head.id))}) as committed"]
    if dropped is not None:
        text.append(dropped.note())
    return Outcome([*text, *result_lines(result, refused), *refusal_lines(stops)], data,
                   exit_code=0 if ok else 1)


def refusal_data(stops: list[RgrError]) -> list[dict[str, str | None]]:
    return [{"problem": stop.message, "fix": stop.hint} for stop in stops]


def refusal_lines(stops: list[RgrError]) -> list[str]:
    """`rgr run`'s refusals before its baseline, as `rgr run` prints them (``rgr doctor``
    ends with them too)."""
    if not stops:
        return []
    return ["`rgr run` would stop here before its baseline:",
            *(f"error: {stop}" for stop in stops)]


def result_lines(result: GateResult, refused: RgrError | None) -> list[str]:
    """The gate's result as a person reads it (``rgr doctor`` ends with it too)."""
    tests = result.tests
    out = [f"tests: {tests.passed} passed, {tests.failed} failed, {tests.errors} errors, "
           f"{tests.skipped} skipped in {tests.duration_s:.1f}s"]
    out += [f"{'ok' if command.ok else 'FAILED'}: {command.command} "
            f"({command.duration_s:.1f}s)" for command in result.commands]
    if refused is None and tests.no_tests_collected:
        out.append("no tests yet: `rgr run` starts from here (an empty suite is a valid "
                   "green start)")
    if refused is not None or not result.ok:
        failed = result.failed_command
        tail = (result.tests.output_excerpt if refused is not None or failed is None
                else failed.output_tail)
        if tail.strip():
            out.append(tail[-2000:])
    if refused is not None:
        # Exactly what `rgr run` says when it refuses this baseline.
        out.append(f"error: {refused}")
    return out
