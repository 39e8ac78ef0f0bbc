"""The summary reducer (rgr.observe.summary): a run's events summed per phase, the stop
reason, and each session's wall time split into the model's and the rest."""

from __future__ import annotations

from typing import Any

from rgr.observe.events import (
    Record,
    from_json,
    utc_now,
)
from rgr.observe.summary import summarize

# -- the summary reducer --------------------------------------------------------------------


def event(kind: str, **fields: Any) -> Record:
    """A line of events.jsonl, as the summary reads it back."""
    return {"type": kind, "ts": utc_now(), **fields}


def test_summary_per_phase_and_stop_reason() -> None:
    red = {"phase": "RED", "cycle": 1}
    evs: list[dict[str, Any]] = [
        event("invocation_started", command="run", runId="r", feature="f", branch="b"),
        event("test_run", durationS=0.5),  # the baseline: no phase
        event("phase_started", **red, agent="tester"),
        event("attempt_started", **red, attempt=1),
        event("agent_call", **red, attempt=1, ok=True, costUsd=0.25, inputTokens=100,
              outputTokens=10, numTurns=3),
        event("guard_verdict", **red, attempt=1, ok=False, violations=[{"rule": "red-passes"}]),
        event("test_run", durationS=0.5),
        event("retry", **red, attempt=2),
        event("attempt_started", **red, attempt=2),
        event("agent_call", **red, attempt=2, ok=False, errorKind="max_budget", costUsd=0.5,
              inputTokens=50, outputTokens=5),
        event("limit_reached", limit="max-budget-usd", message="spent", **red),
        event("invocation_finished", outcome="stopped", message="spent"),
    ]
    data = summarize([from_json(e) for e in evs])
    assert data["status"] == "stopped" and data["stopReason"]["limit"] == "max-budget-usd"
    totals = data["totals"]
    assert (totals["agentCalls"], totals["failedAgentCalls"], totals["costUsd"],
            totals["inputTokens"], totals["retries"], totals["guardRejections"],
            totals["testRuns"], totals["phasesVerified"]) == (2, 1, 0.75, 150, 1, 1, 2, 0)
    (phase,) = data["phases"]
    assert (phase["phase"], phase["attempts"], phase["outcome"], phase["testRuns"],
            phase["costUsd"]) == ("RED", 2, "stopped", 1, 0.75)
    resumed = summarize([from_json(e) for e in [*evs, event("invocation_started",
                                                                 command="resume")]])
    assert resumed["stopReason"] is None and resumed["status"] == "running"


def test_summary_splits_session_wall_time_into_model_and_the_rest() -> None:
    """Each session's wall (attempt_started to agent_call) = the model's time as the
    agent reports it + the rest, or unsplit when the agent reports no model time; with
    the test runs and rgr's own time, they add up to the run's wall time."""
    red = {"phase": "RED", "cycle": 1}

    def at(second: float, kind: str, **fields: Any) -> dict[str, Any]:
        return {**event(kind, **fields), "ts": f"2026-11-23T10:00:{second:05.2f}Z"}

    evs = [
        at(0, "invocation_started", command="run", runId="r"),
        at(1, "test_run", durationS=1.5),
        at(3, "phase_started", **red, agent="tester"),
        at(3, "attempt_started", **red, attempt=1),
        at(7.5, "agent_call", **red, attempt=1, ok=True, durationMs=3200, durationApiMs=2000),
        at(8, "test_run", durationS=0.5),
        at(9, "attempt_started", **red, attempt=2),
        at(10, "agent_call", **red, attempt=2, ok=True, durationMs=900),  # no API figure
        at(12, "invocation_finished", outcome="paused"),
    ]
    data = summarize([from_json(e) for e in evs])
    totals, split = data["totals"], data["timeSplit"]
    # the session without an API figure is not split: its second is neither called the
    # model's nor the tools'
    assert (totals["agentWallS"], totals["agentModelS"], totals["agentOtherS"],
            totals["agentUnsplitS"]) == (5.5, 2.0, 2.5, 1.0)
    assert totals["agentDurationS"] == 4.1  # the agents' own figure, unchanged
    assert split == {"wallS": 12.0, "agentModelS": 2.0, "agentOtherS": 2.5,
                     "agentUnsplitS": 1.0, "testsS": 2.0, "rgrS": 4.5}
    assert data["backends"]["claude"]["modelTimeReported"] is False
    assert data["phases"][0]["agentWallS"] == 5.5
