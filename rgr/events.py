"""What happens during a run, as events: the one interface between the orchestrator and
whoever watches it (the run artifacts on disk, the console view, the limits).

The orchestrator and ``rgr run``/``rgr resume`` call ``observer.emit(event)``; an event
is a plain JSON-ready dict with ``type`` and ``ts`` (UTC, ISO 8601) and camelCase
fields. Observers are composed with ``Observers``; none of them may change what the
orchestrator does, except ``Limits``, which the orchestrator asks before each attempt.

Event types, in the order a phase produces them:

- ``invocation_started`` (command, runId, feature, branch, limits, rgrVersion) and
  ``invocation_finished`` (outcome: complete | paused | stopped | failed | interrupted
  | error, message) around each ``rgr run``/``rgr resume``;
- ``test_run`` (command, exitCode, durationS, passed, failed, errors, skipped,
  timedOut, output): one per real test run;
- ``phase_started`` (phase, cycle, agent, currentTest);
- ``attempt_started`` (phase, cycle, attempt, sessionId, agent, promptVersion, prompt,
  systemPromptFile, maxTurns, maxBudgetUsd, model);
- ``agent_event`` (phase, cycle, attempt, sessionId, event): one line of the agent's own
  stream, as it arrives;
- ``agent_call`` (phase, cycle, attempt, sessionId, ok, errorKind, error, numTurns,
  costUsd, durationMs, inputTokens, outputTokens, cacheReadInputTokens,
  cacheCreationInputTokens, permissionDenials, result): one per agent session;
- ``adequacy`` (phase, cycle, tried, killed, survived, uncovered, notRun, decision,
  durationS): the mutation gate after GREEN/REFACTOR (rgr.check.mutation), when it ran;
- ``guard_verdict`` (phase, cycle, attempt, ok, commit, violations);
- ``retry`` (phase, cycle, attempt, reason, backendSide): before attempt 2, 3, ...;
- ``phase_done`` (phase, cycle, attempts, commit, nextPhase, durationS);
- ``limit_reached`` (limit, message, phase, cycle).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

Event = dict[str, Any]


class Observer(Protocol):
    def emit(self, event: Event) -> None: ...


def event(type_: str, **fields: Any) -> Event:
    return {"type": type_, "ts": utc_now(), **fields}


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


class NullObserver:
    def emit(self, event: Event) -> None:
        pass


class Observers:
    """Several observers, called in order."""

    def __init__(self, observers: Iterable[Observer]) -> None:
        self.observers = list(observers)

    def emit(self, event: Event) -> None:
        for observer in self.observers:
            observer.emit(event)


NULL_OBSERVER = NullObserver()
