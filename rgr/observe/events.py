"""What happens during a run, as events: the one interface between the orchestrator and
whoever watches it (the run artifacts on disk, the console view, the limits).

The orchestrator and ``rgr run``/``rgr resume`` call ``observer.emit(event)`` with one
of the frozen dataclasses below, one per kind; observers match on the type
(``match event: case AgentCalled(...)``). ``to_json`` turns an event into the dict the
run folder's ``events.jsonl`` records (``type``, ``ts`` in UTC ISO 8601, camelCase
fields), the format ``rgr serve``, the summary and ``rgr report`` read. Observers are
composed with ``Observers``; none of them may change what the orchestrator does,
except ``Limits``, which the orchestrator asks before each attempt.

The kinds, in the order a phase produces them (the JSON ``type`` in brackets):

- ``InvocationStarted`` / ``InvocationFinished`` (invocation_started/_finished) around
  each ``rgr run``/``rgr resume``; ``SandboxShown`` (sandbox) once, what agents see;
- ``TestRun`` (test_run): one per real test run;
- ``PhaseStarted`` (phase_started);
- ``AttemptStarted`` (attempt_started): one agent session about to run;
- ``AgentStreamed`` (agent_event): one line of the agent's own stream, as it arrives;
- ``AgentCalled`` (agent_call): one per agent session, its figures and outcome;
- ``MutationGate`` (adequacy): the mutation gate after GREEN/REFACTOR
  (rgr.check.mutation), when it ran;
- ``GuardVerdict`` (guard_verdict);
- ``Retry`` (retry): before attempt 2, 3, ...;
- ``PhaseDone`` (phase_done);
- ``NeedsAttention`` (needs_attention): the agent said its task cannot be done
  honestly; the run stops, no retry (not a ``GuardVerdict``: nothing was judged);
- ``LimitStopped`` (limit_reached).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol

#: Field metadata: the field is flattened into the event's JSON (its keys in its place).
FLATTEN = {"flatten": True}
#: Field metadata: the field is for the observers only, never written as it is (the
#: run folder writes it as a file of its own, or derives a figure from it).
NOT_RECORDED = {"recorded": False}


#: An event as ``events.jsonl`` records it (``to_json``, plus what the run folder adds:
#: ``seq``, the files it wrote): what the readers of a run folder get.
Record = dict[str, Any]


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


@dataclass(frozen=True)
class Where:
    """The attempt an event is about: the fields every attempt event carries."""

    phase: str
    cycle: int
    attempt: int
    session_id: str
    batch: str | None = None  # a refactor batch's id

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"phase": self.phase, "cycle": self.cycle,
                                 "attempt": self.attempt, "sessionId": self.session_id}
        if self.batch is not None:
            found["batch"] = self.batch
        return found


@dataclass(frozen=True, kw_only=True)
class Event:
    """What every event has: when it happened."""

    kind: ClassVar[str]
    ts: str = field(default_factory=utc_now)


@dataclass(frozen=True, kw_only=True)
class InvocationStarted(Event):
    kind: ClassVar[str] = "invocation_started"
    command: str
    run_id: str
    feature: str | None = None
    branch: str | None = None
    limits: dict[str, Any] = field(default_factory=dict)
    rgr_version: str = ""


@dataclass(frozen=True, kw_only=True)
class InvocationFinished(Event):
    #: complete | paused | stopped | failed | needs-attention | interrupted | error | crashed
    kind: ClassVar[str] = "invocation_finished"
    outcome: str
    message: str | None = None
    spent_usd: float = 0.0


@dataclass(frozen=True, kw_only=True)
class SandboxShown(Event):
    """What the sandbox showed agents and test runs, and why (the sealer's note)."""

    kind: ClassVar[str] = "sandbox"
    note: dict[str, Any] = field(default_factory=dict, metadata=FLATTEN)


@dataclass(frozen=True, kw_only=True)
class TestRun(Event):
    __test__ = False  # not a pytest test class, whatever its name says
    kind: ClassVar[str] = "test_run"
    command: list[str] = field(default_factory=list)
    exit_code: int | None = None
    duration_s: float = 0.0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    timed_out: bool = False
    output: str = ""


@dataclass(frozen=True, kw_only=True)
class PhaseStarted(Event):
    kind: ClassVar[str] = "phase_started"
    phase: str
    cycle: int
    agent: str | None = None
    current_test: str | None = None


@dataclass(frozen=True, kw_only=True)
class AttemptStarted(Event):
    kind: ClassVar[str] = "attempt_started"
    where: Where = field(metadata=FLATTEN)
    agent: str | None = None
    prompt_version: str | None = None
    prompt: str = ""
    system_prompt_file: str = ""
    max_turns: int | None = None
    max_budget_usd: float | None = None
    model: str | None = None
    sandboxed: bool = False
    backend: str | None = None


@dataclass(frozen=True, kw_only=True)
class AgentStreamed(Event):
    """One line of the agent's stream (claude's stream-json shape; rgr.backends maps
    other CLIs' streams to it)."""

    kind: ClassVar[str] = "agent_event"
    where: Where = field(metadata=FLATTEN)
    event: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class AgentCalled(Event):
    """One agent session's outcome and figures (rgr.backends.base.SessionFigures)."""

    kind: ClassVar[str] = "agent_call"
    where: Where = field(metadata=FLATTEN)
    ok: bool
    backend: str | None = None
    model: str | None = None
    error_kind: str | None = None
    error: str | None = None
    num_turns: int = 0
    #: None: the backend reports no cost (codex), which is not the same as $0.
    cost_usd: float | None = 0.0
    duration_ms: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    permission_denials: int = 0
    #: The model's share of the session, when the backend reported a result.
    duration_api_ms: int = field(default=0, metadata=NOT_RECORDED)
    #: The backend's own final result, kept verbatim as the attempt's result.json.
    result: Mapping[str, Any] | None = field(default=None, metadata=NOT_RECORDED)


@dataclass(frozen=True, kw_only=True)
class GuardVerdict(Event):
    kind: ClassVar[str] = "guard_verdict"
    where: Where = field(metadata=FLATTEN)
    ok: bool
    commit: str = ""
    violations: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class MutationGate(Event):
    """What the mutation gate found on a phase's changed lines, and how long it took."""

    kind: ClassVar[str] = "adequacy"
    phase: str
    cycle: int
    tried: int
    killed: int
    survived: int
    uncovered: int
    not_run: int
    decision: str
    duration_s: float


@dataclass(frozen=True, kw_only=True)
class NeedsAttention(Event):
    """The agent took the honest way out: its reason, the commit it worked on and where
    its commits were kept (if it made any)."""

    kind: ClassVar[str] = "needs_attention"
    where: Where = field(metadata=FLATTEN)
    reason: str
    commit: str = ""
    kept: str | None = None


@dataclass(frozen=True, kw_only=True)
class Retry(Event):
    kind: ClassVar[str] = "retry"
    phase: str
    cycle: int
    attempt: int
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class PhaseDone(Event):
    kind: ClassVar[str] = "phase_done"
    phase: str
    cycle: int
    attempts: int = 1
    commit: str = ""
    next_phase: str | None = None
    complete: bool = False
    duration_s: float = 0.0


@dataclass(frozen=True, kw_only=True)
class LimitStopped(Event):
    """A run limit stopped the run before an attempt."""

    kind: ClassVar[str] = "limit_reached"
    limit: str
    message: str
    phase: str
    cycle: int
    commit: str = ""


def to_json(event: Event) -> Record:
    """The event as ``events.jsonl`` records it: ``type``, ``ts``, then its fields in
    their order, camelCase; the fields for observers only are left out."""
    record: Record = {"type": event.kind}
    for f in fields(event):
        if not f.metadata.get("recorded", True):
            continue
        value = getattr(event, f.name)
        if f.metadata.get("flatten"):
            record.update(value.as_json() if isinstance(value, Where) else value)
        else:
            record[camel(f.name)] = value
    return record


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


class Observer(Protocol):
    def emit(self, event: Event) -> None: ...


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
