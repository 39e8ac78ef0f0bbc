"""``summary.json``: a run's figures, computed from its events (rgr.observe.events).

A pure function of the event list, so the summary can always be rebuilt from
``events.jsonl`` and never disagrees with it. It reads the recorded lines decoded
(``rgr.observe.events.from_json``): they carry what the run folder adds (``toolCalls``,
``durationApiMs``, the CLI's own API retries) and may come from an older rgr. Costs and
tokens are the agent's own accounting (claude's ``total_cost_usd`` and ``modelUsage``),
summed over every session, failed and rejected ones included: money spent on a rejected
attempt is still spent.

Time. ``agentDurationS`` is the agents' own figure (claude's ``duration_ms``). A
session costs more than that: rgr measures each one from ``attempt_started`` to
``agent_call`` (``agentWallS``) and splits it into the model's time as the agent reports
it (``agentModelS``: claude's ``duration_api_ms``) and the rest (``agentOtherS``: the
agent process starting, its tools, its own work); a session whose backend reports no
model time (``backends.<name>.modelTimeReported`` false) is not split at all
(``agentUnsplitS``). ``timeSplit`` puts the run's wall time together: model + agent
other + agent unsplit + test runs + rgr (everything else: rgr itself, git, the checks,
waits), which add up to ``wallS``.

Refused and rejected. ``refusedEdits`` counts the edits rgr's PreToolUse hook refused
before they were written (the agent read the reason and could correct itself in the
same session; each ``agent_call`` carries its session's count, from the agent's
stream); ``guardRejections`` counts the attempts rgr's checks rejected after the
fact (their commits kept aside, the phase retried). Nothing an agent changed is dropped
without one of the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from rgr.base.backend_names import DEFAULT
from rgr.observe.events import (
    AgentCalled,
    AgentStreamed,
    AttemptStarted,
    Event,
    GuardVerdict,
    InvocationFinished,
    InvocationStarted,
    LimitStopped,
    MutationGate,
    NeedsAttention,
    PhaseDone,
    PhaseStarted,
    Retry,
    TestRun,
    Where,
)

SUMMARY_VERSION = 1


_TOKEN_FIELDS = ("inputTokens", "outputTokens", "cacheReadInputTokens",
                 "cacheCreationInputTokens")


def _zero() -> dict[str, Any]:
    return {
        "agentCalls": 0, "failedAgentCalls": 0, "turns": 0, "toolCalls": 0,
        **dict.fromkeys(_TOKEN_FIELDS, 0),
        "costUsd": 0.0, "agentDurationS": 0.0, "agentWallS": 0.0, "agentModelS": 0.0,
        "agentOtherS": 0.0, "agentUnsplitS": 0.0, "testRuns": 0, "testDurationS": 0.0,
        "retries": 0, "apiRetries": 0, "guardRejections": 0, "refusedEdits": 0,
        "needsAttention": 0,
        "permissionDenials": 0,
    }


def summarize(events: Sequence[Event]) -> dict[str, Any]:
    """The summary of a run's events (``from_json`` of each line of its events.jsonl)."""
    totals = _zero()
    phases: dict[tuple[int, str], dict[str, Any]] = {}
    invocations: list[dict[str, Any]] = []
    run: dict[str, Any] = {}
    stop: dict[str, Any] | None = None
    current: tuple[int, str] | None = None
    backends: dict[str, dict[str, Any]] = {}
    session_started: dict[tuple[int, str, int], str | None] = {}

    def phase_of(event: Event) -> dict[str, Any] | None:
        key = _phase_key(event)
        if key is None:
            return None
        if key not in phases:
            phases[key] = {"cycle": key[0], "phase": key[1], "agent": None,
                           "outcome": "running", "attempts": 0, "commit": None,
                           "durationS": 0.0, **_zero()}
        return phases[key]

    for event in events:
        target = phase_of(event)
        buckets = [totals] + ([target] if target is not None else [])
        match event:
            case InvocationStarted():
                run.update({k: v for k, v in (("runId", event.run_id), ("feature", event.feature),
                                              ("branch", event.branch),
                                              ("rgrVersion", event.rgr_version))
                            if v is not None})
                invocations.append({"command": event.command, "startedAt": _ts(event),
                                    "finishedAt": None, "outcome": "running",
                                    "limits": event.limits})
                stop = None
            case InvocationFinished():
                if invocations:
                    invocations[-1].update(finishedAt=_ts(event), outcome=event.outcome,
                                           message=event.message)
            case PhaseStarted() if target is not None:
                target["agent"] = event.agent
                target["outcome"] = "running"
                current = (target["cycle"], target["phase"])
            case AttemptStarted(where=where) if target is not None:
                target["attempts"] = max(target["attempts"], where.attempt)
                session_started[_session_key(where)] = _ts(event)
            case AgentCalled(where=where):
                if target is not None:
                    # Which CLI and model ran the phase's sessions (the last one wins).
                    target["backend"] = event.backend or DEFAULT
                    target["model"] = event.model
                backend = backends.setdefault(event.backend or DEFAULT, {
                    "sessions": 0, "costReported": True, "modelTimeReported": True,
                    "inputTokens": 0, "outputTokens": 0})
                backend["sessions"] += 1
                backend["inputTokens"] += event.input_tokens
                backend["outputTokens"] += event.output_tokens
                if event.cost_usd is None:
                    backend["costReported"] = False  # tokens reported, no cost
                wall, model = _session_times(event, session_started.pop(_session_key(where),
                                                                        None))
                if model is None:
                    backend["modelTimeReported"] = False
                for bucket in buckets:
                    if model is None:
                        bucket["agentUnsplitS"] += wall
                    else:
                        bucket["agentModelS"] += model
                        bucket["agentOtherS"] += wall - model
                    bucket["agentCalls"] += 1
                    bucket["failedAgentCalls"] += 0 if event.ok else 1
                    bucket["turns"] += event.num_turns
                    bucket["costUsd"] += event.cost_usd or 0.0
                    bucket["agentDurationS"] += event.duration_ms / 1000
                    bucket["agentWallS"] += wall
                    bucket["permissionDenials"] += event.permission_denials
                    bucket["inputTokens"] += event.input_tokens
                    bucket["outputTokens"] += event.output_tokens
                    bucket["cacheReadInputTokens"] += event.cache_read_input_tokens
                    bucket["cacheCreationInputTokens"] += event.cache_creation_input_tokens
                    bucket["toolCalls"] += event.tool_calls
                    bucket["refusedEdits"] += event.refused_edits
            case TestRun():
                # Test runs belong to the phase that is running, if any (the baseline does not).
                if current is not None and current in phases:
                    buckets = [totals, phases[current]]
                for bucket in buckets:
                    bucket["testRuns"] += 1
                    bucket["testDurationS"] += event.duration_s
            case MutationGate():
                # The mutation gate's time is test runs (sealed pytest sessions), not rgr's.
                if current is not None and current in phases:
                    buckets = [totals, phases[current]]
                for bucket in buckets:
                    bucket["testDurationS"] += event.duration_s
            case GuardVerdict(ok=False):
                for bucket in buckets:
                    bucket["guardRejections"] += 1
            case Retry():
                field = "apiRetries" if event.source == "api" else "retries"
                for bucket in buckets:
                    bucket[field] += 1
            case PhaseDone() if target is not None:
                target.update(outcome="complete" if event.complete else "verified",
                              commit=event.commit, durationS=event.duration_s,
                              attempts=event.attempts)
                current = None
            case NeedsAttention():
                # The honest way out: counted apart from rejections (nothing was judged).
                for bucket in buckets:
                    bucket["needsAttention"] += 1
                if target is not None:
                    target["outcome"] = "needs-attention"
                    current = None
                stop = {"needsAttention": True, "message": event.reason, "at": _ts(event)}
            case LimitStopped():
                stop = {"limit": event.limit, "message": event.message, "at": _ts(event)}
        if isinstance(event, InvocationFinished) and current is not None and current in phases:
            if phases[current]["outcome"] == "running":
                phases[current]["outcome"] = event.outcome or "stopped"
            current = None

    for bucket in [totals, *phases.values()]:
        bucket["costUsd"] = round(bucket["costUsd"], 6)
        for name in ("agentDurationS", "agentWallS", "agentModelS", "agentOtherS",
                     "agentUnsplitS", "testDurationS"):
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
        "updatedAt": _ts(events[-1]) if events else None,
        "totals": totals,
        "backends": backends,
        "timeSplit": _time_split(totals, invocations, events),
        "phases": list(phases.values()),
        "invocations": invocations,
    }


def _phase_key(event: Event) -> tuple[int, str] | None:
    """(cycle, phase) of the phase an event belongs to, if it belongs to one."""
    match event:
        case AttemptStarted(where=where) | AgentStreamed(where=where) \
                | AgentCalled(where=where) | GuardVerdict(where=where) \
                | NeedsAttention(where=where):
            cycle, phase = where.cycle, where.phase
        case PhaseStarted() | MutationGate() | Retry() | PhaseDone() | LimitStopped():
            cycle, phase = event.cycle, event.phase
        case _:
            return None
    return (cycle, phase) if phase else None  # an old line without its phase


def _ts(event: Event) -> str | None:
    """When the event happened (None: a line without a time)."""
    return event.ts or None


def _session_key(where: Where) -> tuple[int, str, int]:
    return (where.cycle, where.phase, where.attempt)


def _session_times(call: AgentCalled, started: str | None) -> tuple[float, float | None]:
    """(wall, model) seconds of the session that ``call`` ends. Wall from its
    attempt_started (or, when that is missing, the agent's own duration); model time
    as the agent reports it (its API time), never above wall; None when its backend
    reports none (the Gemini CLI's duration is the whole session, its tools included:
    calling that model time would hide the tools' time in the model's)."""
    reported = call.duration_ms / 1000
    wall = _seconds(started, _ts(call)) if started else reported
    api = call.duration_api_ms
    if api <= 0:
        return wall, None
    return wall, min(api / 1000, wall)


def _time_split(totals: dict[str, Any], invocations: list[dict[str, Any]],
                events: Sequence[Event]) -> dict[str, float]:
    """The run's wall time (a running invocation counted up to the last event) as
    model + agent other + agent unsplit (sessions of a backend that reports no model
    time) + tests + rgr."""
    last = _ts(events[-1]) if events else None
    wall = sum(_seconds(i["startedAt"], i["finishedAt"] or last) for i in invocations)
    parts = {"agentModelS": totals["agentModelS"], "agentOtherS": totals["agentOtherS"],
             "agentUnsplitS": totals["agentUnsplitS"], "testsS": totals["testDurationS"]}
    return {"wallS": round(wall, 3), **parts,
            "rgrS": round(wall - sum(parts.values()), 3)}


def _seconds(start: str | None, end: str | None) -> float:
    if not start or not end:
        return 0.0
    try:
        return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    except ValueError:
        return 0.0
