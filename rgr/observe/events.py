"""What happens during a run, as events: the one interface between the orchestrator and
whoever watches it (the run artifacts on disk, the console view, the limits).

The orchestrator and ``rgr run``/``rgr resume`` call ``observer.emit(event)`` with one
of the frozen dataclasses below, one per kind; observers match on the type
(``match event: case AgentCalled(...)``). ``to_json`` turns an event into the dict the
run folder's ``events.jsonl`` records (``type``, ``ts`` in UTC ISO 8601, camelCase
fields), the format ``rgr serve``, the summary and ``rgr report`` read. Observers are
composed with ``Observers``; none of them may change what the orchestrator does,
except ``Limits``, which the orchestrator asks before each attempt.

``from_json`` is ``to_json`` backwards, the one decoder every reader of ``events.jsonl``
uses (the summary, the run folder, ``rgr serve``): each line becomes the typed event of
its ``type``, so readers match on classes and attributes, never on kind strings or
camelCase keys. It reads what the run folder adds to a line (``seq``, an attempt's
``dir``, ``toolCalls``, ...: the ``RUN_FOLDER`` fields), and is tolerant of lines older
rgr versions wrote: a missing or mistyped field takes its default (or its type's zero,
as the readers' ``.get(...) or 0`` used to), keys it does not know are dropped, and a
``type`` it does not know becomes an ``UnknownEvent`` that keeps the line as it was.

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

import json
import types
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from datetime import UTC, datetime
from functools import cache, cached_property
from typing import (
    Any,
    ClassVar,
    Protocol,
    TypedDict,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from rgr.observe.stream import StreamLine
from rgr.observe.stream import parse as parse_stream_line

_T = TypeVar("_T")
_D = TypeVar("_D")

#: Field metadata: the field is flattened into the event's JSON (its keys in its place).
FLATTEN = {"flatten": True}
#: Field metadata: the field is for the observers only, never written as it is (the
#: run folder writes it as a file of its own, or derives a figure from it).
NOT_RECORDED = {"recorded": False}
#: Field metadata: ``to_json`` leaves the field out, the run folder
#: (rgr.observe.artifacts) adds it to the line, and ``from_json`` reads it back.
RUN_FOLDER = {"recorded": False, "run_folder": True}


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

    @classmethod
    def from_json(cls, record: Mapping[str, object]) -> Where:
        """``as_json`` backwards (missing or mistyped values read as their zero)."""
        batch = record.get("batch")
        return cls(phase=_typed(record.get("phase"), str, ""),
                   cycle=_typed(record.get("cycle"), int, 0),
                   attempt=_typed(record.get("attempt"), int, 0),
                   session_id=_typed(record.get("sessionId"), str, ""),
                   batch=batch if isinstance(batch, str) else None)


#: The keys ``Where.as_json`` writes.
WHERE_KEYS = frozenset({"phase", "cycle", "attempt", "sessionId", "batch"})


@dataclass(frozen=True, kw_only=True)
class Event:
    """What every event has: when it happened."""

    kind: ClassVar[str]
    ts: str = field(default_factory=utc_now)
    #: The line's number in events.jsonl.
    seq: int | None = field(default=None, metadata=RUN_FOLDER)


@dataclass(frozen=True, kw_only=True)
class UnknownEvent(Event):
    """A line whose ``type`` this rgr does not know (an older or newer rgr wrote it),
    kept as it was: ``to_json`` gives the line back unchanged."""

    kind: ClassVar[str] = "unknown"
    line: dict[str, object] = field(default_factory=dict)


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
    #: The file (in the run folder) that holds ``output``.
    output_file: str | None = field(default=None, metadata=RUN_FOLDER)


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
    #: The attempt's folder (prompt, request, stream, result) in the run folder.
    dir: str | None = field(default=None, metadata=RUN_FOLDER)


@dataclass(frozen=True, kw_only=True)
class AgentStreamed(Event):
    """One line of the agent's stream (claude's stream-json shape; rgr.backends maps
    other CLIs' streams to it): ``event`` as the CLI said it (what the run folder keeps),
    ``line`` its typed reading (rgr.observe.stream), which every reader matches on."""

    kind: ClassVar[str] = "agent_event"
    where: Where = field(metadata=FLATTEN)
    event: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def line(self) -> StreamLine:
        return parse_stream_line(self.event)


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
    #: Counted from the session's stream by the run folder: tool_use blocks, and the
    #: edits rgr's PreToolUse hook refused.
    tool_calls: int = field(default=0, metadata=RUN_FOLDER)
    refused_edits: int = field(default=0, metadata=RUN_FOLDER)
    dir: str | None = field(default=None, metadata=RUN_FOLDER)


class ViolationJson(TypedDict):
    """One rule a judged attempt broke (rgr.check.violation.Violation), as a verdict's line
    holds it."""

    rule: str
    message: str
    path: str | None


@dataclass(frozen=True, kw_only=True)
class GuardVerdict(Event):
    kind: ClassVar[str] = "guard_verdict"
    where: Where = field(metadata=FLATTEN)
    ok: bool
    commit: str = ""
    violations: list[ViolationJson] = field(default_factory=list)


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
    #: The phase the decision faults (rgr.check.mutation.rule.blamed), or None.
    blamed: str | None = None


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
    #: "rgr" (rgr retries the phase) or "api" (the agent CLI's own API retry, which
    #: the run folder records from the agent's stream as a retry line).
    source: str | None = field(default=None, metadata=RUN_FOLDER)


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
    if isinstance(event, UnknownEvent):
        return dict(event.line)
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


def from_json(line: str | Mapping[str, object]) -> Event:
    """A line of ``events.jsonl`` (the text, or its parsed dict) as its typed event:
    ``to_json`` backwards, plus the run folder's ``RUN_FOLDER`` fields. ValueError when
    the text is not JSON (a line a kill cut short)."""
    record = json.loads(line) if isinstance(line, str) else line
    if not isinstance(record, Mapping):
        raise ValueError(f"an event line is a JSON object, not {type(record).__name__}")
    cls = event_classes().get(str(record.get("type")))
    if cls is None:
        return UnknownEvent(ts=_typed(record.get("ts"), str, ""),
                            seq=_typed(record.get("seq"), int, None), line=dict(record))
    hints = _hints(cls)
    values: dict[str, Any] = {}  # checked field by field below; the constructor cannot be
    taken = {"type"}
    for f in fields(cls):
        if not f.init:
            continue
        if f.metadata.get("flatten") and hints[f.name] is Where:
            values[f.name] = Where.from_json(record)
            taken |= WHERE_KEYS
        elif f.metadata.get("flatten"):
            continue  # a flattened dict: whatever keys the other fields leave
        else:
            key = camel(f.name)
            taken.add(key)
            values[f.name] = _decoded(record.get(key, MISSING), hints[f.name], f)
    for f in fields(cls):
        if f.metadata.get("flatten") and hints[f.name] is not Where:
            values[f.name] = {k: v for k, v in record.items() if k not in taken}
    values["ts"] = _typed(record.get("ts"), str, "")  # never invented: none is ""
    return cls(**values)


@cache
def event_classes() -> dict[str, type[Event]]:
    """Every event class by its JSON ``type`` (found, so a new kind needs no entry)."""
    found: dict[str, type[Event]] = {}
    pending: list[type[Event]] = list(Event.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls is UnknownEvent:
            continue
        if cls.kind in found:
            raise TypeError(f"two event classes say type {cls.kind!r}: "
                            f"{found[cls.kind].__name__} and {cls.__name__}")
        found[cls.kind] = cls
    return found


_HINTS: dict[str, dict[str, object]] = {}


def _hints(cls: type[Event]) -> dict[str, object]:
    """The fields' types, resolved once per class (they are strings in the source)."""
    if cls.kind not in _HINTS:
        _HINTS[cls.kind] = get_type_hints(cls)
    return _HINTS[cls.kind]


def _typed(value: object, kind: type[_T], default: _D) -> _T | _D:
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    return default


def _decoded(value: object, hint: object, f: Field[object]) -> object:
    """``value`` as the field's type; a missing or mistyped value takes the field's
    default, else its type's zero."""
    if value is not MISSING:
        matched, decoded = _as(value, hint)
        if matched:
            return decoded
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return _zero(hint)


def _as(value: object, hint: object) -> tuple[bool, object]:
    """(whether ``value`` is of type ``hint``, the value as that type): JSON's types
    only; a list or dict keeps the items that fit."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        for arm in get_args(hint):
            matched, decoded = _as(value, arm)
            if matched:
                return True, decoded
        return False, None
    if hint is Any or hint is object:
        return True, value
    if hint is type(None):
        return value is None, None
    if hint is bool:
        return isinstance(value, bool), value
    if hint is int:
        if isinstance(value, float) and value.is_integer():
            return True, int(value)
        return isinstance(value, int) and not isinstance(value, bool), value
    if hint is float:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return number, float(value) if number else None  # type: ignore[arg-type]
    if hint is str:
        return isinstance(value, str), value
    if is_typeddict(hint):
        return (True, _typed_dict(value, hint)) if isinstance(value, dict) else (False, None)
    if origin is list and isinstance(value, list):
        (item,) = get_args(hint)
        return True, [d for m, d in (_as(v, item) for v in value) if m]
    if origin in (dict, Mapping) and isinstance(value, dict):
        _, item = get_args(hint)
        return True, {k: d for k, (m, d) in ((k, _as(v, item)) for k, v in value.items())
                      if m and isinstance(k, str)}
    return False, None


def _typed_dict(value: dict[str, object], hint: object) -> dict[str, object]:
    """``value`` with the TypedDict ``hint``'s keys only, each as its type (a missing or
    mistyped one as its zero, like an event's field)."""
    typed: dict[str, object] = {}
    for key, kind in get_type_hints(hint).items():
        matched, decoded = _as(value[key], kind) if key in value else (False, None)
        typed[key] = decoded if matched else _zero(kind)
    return typed


def _zero(hint: object) -> object:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType) and type(None) in get_args(hint):
        return None
    for kind, zero in ((bool, False), (int, 0), (float, 0.0), (str, "")):
        if hint is kind:
            return zero
    if origin is list:
        return []
    if origin in (dict, Mapping):
        return {}
    raise TypeError(f"no zero for {hint!r}")  # an event field of a type JSON cannot hold


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
