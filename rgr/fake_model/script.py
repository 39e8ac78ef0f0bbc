"""What the fake model says: a script per session, one step per model response.

A step is either an *answer* (``ToolCall`` or ``Text``: one complete assistant message)
or a *failure* (``HttpError``, ``Hang``, ``CutStream``) that the server plays before the
answer that follows it. Claude retries a failed request with the same messages, so the
failures in front of an answer are consumed one per request, and then the answer is
given. Failures at the end of a script, with no answer after them, repeat forever: that
is how a test makes claude give up.

Scripts are plain data and round-trip through JSON-like dicts (``to_dict`` /
``from_dict``), so a demo or a test fixture can keep them in a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

#: The tool that ``claude --json-schema`` adds; calling it ends the run.
STRUCTURED_OUTPUT_TOOL = "StructuredOutput"


@dataclass(frozen=True)
class ToolCall:
    """One assistant message holding a single tool_use block (stop_reason tool_use)."""

    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class Text:
    """One assistant message holding only text (stop_reason end_turn)."""

    text: str


@dataclass(frozen=True)
class HttpError:
    """Answer ``times`` consecutive requests with an HTTP error in Anthropic's JSON shape.

    claude retries 408/409/429/5xx (and 401 once its key cache is cleared) with its own
    exponential backoff, 0.5 s doubling to 32 s, up to ``CLAUDE_CODE_MAX_RETRIES``
    (default 10) times; a ``retry-after`` header can only lengthen the wait. Tests stay
    fast by setting that variable low, not through this step.
    """

    status: int
    error_type: str
    message: str
    times: int = 1


@dataclass(frozen=True)
class Hang:
    """Accept the request and send nothing for ``seconds`` (then drop the connection)."""

    seconds: float


@dataclass(frozen=True)
class CutStream:
    """Send message_start and half a text block, then close the connection."""


Answer: TypeAlias = ToolCall | Text
Failure: TypeAlias = HttpError | Hang | CutStream
Step: TypeAlias = ToolCall | Text | HttpError | Hang | CutStream


def bash(command: str, description: str | None = None) -> ToolCall:
    args: dict[str, Any] = {"command": command}
    if description is not None:
        args["description"] = description
    return ToolCall("Bash", args)


def write(path: str, content: str) -> ToolCall:
    return ToolCall("Write", {"file_path": path, "content": content})


def edit(path: str, old: str, new: str) -> ToolCall:
    return ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new})


def read(path: str) -> ToolCall:
    return ToolCall("Read", {"file_path": path})


def structured(obj: Mapping[str, Any]) -> ToolCall:
    """The call of the StructuredOutput tool: its input *is* the structured output."""
    return ToolCall(STRUCTURED_OUTPUT_TOOL, obj)


@dataclass(frozen=True)
class Turn:
    """What the server does for one turn: failures, one per request, then the answer."""

    failures: tuple[Failure, ...]
    answer: Answer | None  # None: the failures repeat forever (the last one does)

    def play(self, attempt: int) -> Step:
        """The step for the ``attempt``-th request (0-based) that arrives for this turn."""
        if attempt < len(self.failures):
            return self.failures[attempt]
        if self.answer is not None:
            return self.answer
        return self.failures[-1]


@dataclass(frozen=True)
class SessionScript:
    """The ordered steps of one claude session, plus an optional system-prompt check."""

    steps: Sequence[Step]
    expect_system_contains: str | None = None
    name: str | None = None  # only for messages and records
    _turns: tuple[Turn, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "_turns", _group(self.steps))

    @property
    def turns(self) -> tuple[Turn, ...]:
        return self._turns

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"steps": [step_to_dict(s) for s in self.steps]}
        if self.expect_system_contains is not None:
            out["expect_system_contains"] = self.expect_system_contains
        if self.name is not None:
            out["name"] = self.name
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionScript:
        steps = data.get("steps")
        if not isinstance(steps, list):
            raise ValueError("a session script needs a list under 'steps'")
        return cls(
            steps=[step_from_dict(s) for s in steps],
            expect_system_contains=data.get("expect_system_contains"),
            name=data.get("name"),
        )


def _group(steps: Iterable[Step]) -> tuple[Turn, ...]:
    turns: list[Turn] = []
    pending: list[Failure] = []
    for step in steps:
        if isinstance(step, HttpError):
            if step.times < 1:
                raise ValueError(f"HttpError.times must be >= 1, got {step.times}")
            pending.extend([step] * step.times)
        elif isinstance(step, Hang | CutStream):
            pending.append(step)
        else:
            turns.append(Turn(tuple(pending), step))
            pending = []
    if pending:
        turns.append(Turn(tuple(pending), None))
    return tuple(turns)


_KINDS: dict[str, type[Step]] = {
    "tool_call": ToolCall,
    "text": Text,
    "http_error": HttpError,
    "hang": Hang,
    "cut_stream": CutStream,
}


def step_to_dict(step: Step) -> dict[str, Any]:
    kind = next(k for k, t in _KINDS.items() if isinstance(step, t))
    out: dict[str, Any] = {"kind": kind}
    if isinstance(step, ToolCall):
        out.update(name=step.name, input=dict(step.input))
    elif isinstance(step, Text):
        out.update(text=step.text)
    elif isinstance(step, HttpError):
        out.update(
            status=step.status,
            error_type=step.error_type,
            message=step.message,
            times=step.times,
        )
    elif isinstance(step, Hang):
        out.update(seconds=step.seconds)
    return out


def step_from_dict(data: Mapping[str, Any]) -> Step:
    fields = dict(data)
    kind = fields.pop("kind", None)
    cls = _KINDS.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown step kind {kind!r}; expected one of {sorted(_KINDS)}")
    try:
        return cls(**fields)
    except TypeError as exc:
        raise ValueError(f"bad {kind} step {dict(data)!r}: {exc}") from exc
