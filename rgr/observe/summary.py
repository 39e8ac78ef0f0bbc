"""``summary.json``: a run's figures, computed from its events (rgr.observe.events).

A pure function of the event list, so the summary can always be rebuilt from
``events.jsonl`` and never disagrees with it. It reads the recorded lines, not the
typed events: they carry what the run folder adds (``toolCalls``, ``durationApiMs``,
the CLI's own API retries) and may come from an older rgr; each line is matched on the
``kind`` of the event class that wrote it. Costs and tokens are the agent's own
accounting (claude's ``total_cost_usd`` and ``modelUsage``), summed over every session,
failed and rejected ones included: money spent on a rejected attempt is still spent.

Time. ``agentDurationS`` is the agents' own figure (claude's ``duration_ms``). A
session costs more than that: rgr measures each one from ``attempt_started`` to
``agent_call`` (``agentWallS``) and splits it into the model's time as the agent reports
it (``agentModelS``: claude's ``duration_api_ms``) and the rest (``agentOtherS``: the
agent process starting, its tools, its own work). ``timeSplit`` puts the run's wall
time together: model + agent other + test runs + rgr (everything else: rgr itself, git,
the checks, waits), which add up to ``wallS``.

Refused and rejected. ``refusedEdits`` counts the edits rgr's PreToolUse hook refused
before they were written (the agent read the reason and could correct itself in the
same session; each ``agent_call`` carries its session's count, from the agent's
stream); ``guardRejections`` counts the attempts rgr's checks rejected after the
fact (their commits kept aside, the phase retried). Nothing an agent changed is dropped
without one of the two.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rgr.base.backend_names import DEFAULT
from rgr.observe.events import (
    AgentCalled,
    AttemptStarted,
    GuardVerdict,
    InvocationFinished,
    InvocationStarted,
    LimitStopped,
    MutationGate,
    NeedsAttention,
    PhaseDone,
    PhaseStarted,
    Record,
    Retry,
    TestRun,
)

SUMMARY_VERSION = 1

#: How rgr's PreToolUse hook (rgr.sandbox.pretool) starts every refusal it gives.
REFUSAL_MARK = "rgr refuses this edit"

_TOKEN_FIELDS = ("inputTokens", "outputTokens", "cacheReadInputTokens",
                 "cacheCreationInputTokens")


def _zero() -> dict[str, Any]:
    return {
        "agentCalls": 0, "failedAgentCalls": 0, "turns": 0, "toolCalls": 0,
        **dict.fromkeys(_TOKEN_FIELDS, 0),
        "costUsd": 0.0, "agentDurationS": 0.0, "agentWallS": 0.0, "agentModelS": 0.0,
        "agentOtherS": 0.0, "testRuns": 0, "testDurationS": 0.0,
        "retries": 0, "apiRetries": 0, "guardRejections": 0, "refusedEdits": 0,
        "needsAttention": 0,
        "permissionDenials": 0,
    }


def summarize(events: list[Record]) -> dict[str, Any]:
    totals = _zero()
    phases: dict[tuple[int, str], dict[str, Any]] = {}
    invocations: list[dict[str, Any]] = []
    run: dict[str, Any] = {}
    stop: dict[str, Any] | None = None
    current: tuple[int, str] | None = None
    backends: dict[str, dict[str, Any]] = {}
    session_started: dict[tuple[object, ...], str | None] = {}

    def phase_of(event: Record) -> dict[str, Any] | None:
        if "phase" not in event or "cycle" not in event:
            return None
        key = (int(event["cycle"]), str(event["phase"]))
        if key not in phases:
            phases[key] = {"cycle": key[0], "phase": key[1], "agent": None,
                           "outcome": "running", "attempts": 0, "commit": None,
                           "durationS": 0.0, **_zero()}
        return phases[key]

    for event in events:
        kind = event.get("type")
        target = phase_of(event)
        buckets = [totals] + ([target] if target is not None else [])
        match kind:
            case InvocationStarted.kind:
                run.update({k: event.get(k) for k in ("runId", "feature", "branch", "rgrVersion")
                            if event.get(k) is not None})
                invocations.append({"command": event.get("command"), "startedAt": event.get("ts"),
                                    "finishedAt": None, "outcome": "running",
                                    "limits": event.get("limits")})
                stop = None
            case InvocationFinished.kind:
                if invocations:
                    invocations[-1].update(finishedAt=event.get("ts"),
                                           outcome=event.get("outcome"),
                                           message=event.get("message"))
            case PhaseStarted.kind if target is not None:
                target["agent"] = event.get("agent")
                target["outcome"] = "running"
                current = (target["cycle"], target["phase"])
            case AttemptStarted.kind if target is not None:
                target["attempts"] = max(target["attempts"], int(event.get("attempt") or 0))
                session_started[_session_key(event)] = event.get("ts")
            case AgentCalled.kind:
                if target is not None:
                    # Which CLI and model ran the phase's sessions (the last one wins).
                    target["backend"] = event.get("backend") or DEFAULT
                    target["model"] = event.get("model")
                backend = backends.setdefault(str(event.get("backend") or DEFAULT), {
                    "sessions": 0, "costReported": True, "inputTokens": 0, "outputTokens": 0})
                backend["sessions"] += 1
                backend["inputTokens"] += int(event.get("inputTokens") or 0)
                backend["outputTokens"] += int(event.get("outputTokens") or 0)
                if "costUsd" in event and event["costUsd"] is None:
                    backend["costReported"] = False  # codex reports tokens, not cost
                for bucket in buckets:
                    bucket["agentCalls"] += 1
                    bucket["failedAgentCalls"] += 0 if event.get("ok") else 1
                    bucket["turns"] += int(event.get("numTurns") or 0)
                    bucket["costUsd"] += float(event.get("costUsd") or 0.0)
                    bucket["agentDurationS"] += (event.get("durationMs") or 0) / 1000
                wall, model = _session_times(event, session_started.pop(_session_key(event), None))
                for bucket in buckets:
                    bucket["agentWallS"] += wall
                    bucket["agentModelS"] += model
                    bucket["agentOtherS"] += wall - model
                for bucket in buckets:
                    bucket["permissionDenials"] += int(event.get("permissionDenials") or 0)
                    for name in _TOKEN_FIELDS:
                        bucket[name] += int(event.get(name) or 0)
                    bucket["toolCalls"] += int(event.get("toolCalls") or 0)
                    bucket["refusedEdits"] += int(event.get("refusedEdits") or 0)
            case TestRun.kind:
                # Test runs belong to the phase that is running, if any (the baseline does not).
                if current is not None and current in phases:
                    buckets = [totals, phases[current]]
                for bucket in buckets:
                    bucket["testRuns"] += 1
                    bucket["testDurationS"] += float(event.get("durationS") or 0.0)
            case MutationGate.kind:
                # The mutation gate's time is test runs (sealed pytest sessions), not rgr's.
                if current is not None and current in phases:
                    buckets = [totals, phases[current]]
                for bucket in buckets:
                    bucket["testDurationS"] += float(event.get("durationS") or 0.0)
            case GuardVerdict.kind if not event.get("ok"):
                for bucket in buckets:
                    bucket["guardRejections"] += 1
            case Retry.kind:
                field = "apiRetries" if event.get("source") == "api" else "retries"
                for bucket in buckets:
                    bucket[field] += 1
            case PhaseDone.kind if target is not None:
                target.update(outcome="complete" if event.get("complete") else "verified",
                              commit=event.get("commit"), durationS=event.get("durationS"),
                              attempts=event.get("attempts"))
                current = None
            case NeedsAttention.kind:
                # The honest way out: counted apart from rejections (nothing was judged).
                for bucket in buckets:
                    bucket["needsAttention"] += 1
                if target is not None:
                    target["outcome"] = "needs-attention"
                    current = None
                stop = {"needsAttention": True, "message": event.get("reason"),
                        "at": event.get("ts")}
            case LimitStopped.kind:
                stop = {"limit": event.get("limit"), "message": event.get("message"),
                        "at": event.get("ts")}
        if kind == InvocationFinished.kind and current is not None and current in phases:
            if phases[current]["outcome"] == "running":
                phases[current]["outcome"] = str(event.get("outcome") or "stopped")
            current = None

    for bucket in [totals, *phases.values()]:
        bucket["costUsd"] = round(bucket["costUsd"], 6)
        for name in ("agentDurationS", "agentWallS", "agentModelS", "agentOtherS",
                     "testDurationS"):
            bucket[name] = round(bucket[name], 3)
    totals["phasesVerified"] = sum(1 for p in phases.values()
                                   if p["outcome"] in ("verified", "complete"))
    totals["wallS"] = round(sum(_seconds(i["startedAt"], i["finishedAt"])
                                for i in invocations if i["finishedAt"]), 3)
    last = invocations[-1] if invocations else None
    return {
        "summaryVersion": SUMMARY_VERSION,
        **run,
        "status": last["outcome"] if last else "running",
        "stopReason": stop,
        "startedAt": invocations[0]["startedAt"] if invocations else None,
        "updatedAt": events[-1].get("ts") if events else None,
        "totals": totals,
        "backends": backends,
        "timeSplit": _time_split(totals, invocations, events),
        "phases": list(phases.values()),
        "invocations": invocations,
    }


def refused_edits(raw: object) -> int:
    """How many tool results in one line of the agent's stream are refusals by rgr's
    edit hook: an errored tool result that claude words as a PreToolUse hook's error
    and that carries the hook's mark (a command's output cannot start that way)."""
    if not isinstance(raw, dict) or raw.get("type") != "user":
        return 0
    message = raw.get("message")
    blocks = message.get("content") if isinstance(message, dict) else None
    if not isinstance(blocks, list):
        return 0
    return sum(1 for block in blocks if isinstance(block, dict)
               and block.get("type") == "tool_result" and block.get("is_error")
               and str(block.get("content")).startswith("PreToolUse:")
               and REFUSAL_MARK in str(block.get("content")))


def _session_key(event: Record) -> tuple[object, ...]:
    return (event.get("cycle"), event.get("phase"), event.get("attempt"))


def _session_times(call: Record, started: str | None) -> tuple[float, float]:
    """(wall, model) seconds of the session that ``call`` ends. Wall from its
    attempt_started (or, when that is missing, the agent's own duration); model time
    as the agent reports it (its API time, else its whole duration), never above wall."""
    reported = (call.get("durationMs") or 0) / 1000
    wall = _seconds(started, call.get("ts")) if started else reported
    api = call.get("durationApiMs")
    model = api / 1000 if isinstance(api, int | float) and api > 0 else reported
    return wall, min(model, wall)


def _time_split(totals: dict[str, Any], invocations: list[dict[str, Any]],
                events: list[Record]) -> dict[str, float]:
    """The run's wall time (a running invocation counted up to the last event) as
    model + agent other + tests + rgr."""
    last = events[-1].get("ts") if events else None
    wall = sum(_seconds(i["startedAt"], i["finishedAt"] or last) for i in invocations)
    parts = {"agentModelS": totals["agentModelS"], "agentOtherS": totals["agentOtherS"],
             "testsS": totals["testDurationS"]}
    return {"wallS": round(wall, 3), **parts,
            "rgrS": round(wall - sum(parts.values()), 3)}


def _seconds(start: str | None, end: str | None) -> float:
    if not start or not end:
        return 0.0
    try:
        return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    except ValueError:
        return 0.0
