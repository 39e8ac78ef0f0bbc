"""One line of an agent's stream, typed. The line is claude's stream-json shape
(rgr.backends maps the other CLIs' streams to it); it is read here, once, and every
reader (the views, the run folder, the summary) matches on these types instead of
digging through the raw dict. The raw dict stays what ``AgentStreamed.event`` carries
and what events.jsonl and the stream files keep, byte for byte.

A line is whatever an agent CLI printed: nothing in it is trusted to have the shape the
CLI documents, so every field is read defensively (a block that is not an object is
skipped; a missing field is None).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: What rgr's edit hook says when it refuses an edit (rgr.sandbox's PreToolUse judge):
#: a tool result that carries it, as claude words a hook's error, is a refusal.
REFUSAL_MARK = "rgr refuses this edit"


@dataclass(frozen=True)
class ToolUse:
    """A tool call in an assistant turn."""

    name: str
    input: object


@dataclass(frozen=True)
class Text:
    """What the agent said in an assistant turn."""

    text: str


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer, sent back to the model."""

    is_error: bool
    content: object

    @property
    def refused_edit(self) -> bool:
        """A refusal by rgr's edit hook: an errored result that claude words as a
        PreToolUse hook's error and that carries the hook's mark (a command's output
        cannot start that way)."""
        said = str(self.content)
        return self.is_error and said.startswith("PreToolUse:") and REFUSAL_MARK in said


@dataclass(frozen=True)
class Turn:
    """``assistant``: one model turn, its text and tool calls."""

    blocks: tuple[ToolUse | Text, ...]

    @property
    def tool_calls(self) -> tuple[ToolUse, ...]:
        return tuple(block for block in self.blocks if isinstance(block, ToolUse))


@dataclass(frozen=True)
class ToolResults:
    """``user``: the tools' answers to the turn before."""

    results: tuple[ToolResult, ...]

    @property
    def refused_edits(self) -> int:
        return sum(1 for result in self.results if result.refused_edit)


@dataclass(frozen=True)
class ApiRetry:
    """``system``/``api_retry``: the CLI retries a failed API request itself."""

    attempt: object
    max_retries: object
    error_status: object
    error: object
    retry_delay_ms: object
    backend: object


@dataclass(frozen=True)
class SessionStarted:
    """``system``/``init``: the session started (its model, when said)."""

    model: object
    backend: object


@dataclass(frozen=True)
class Unparsed:
    """``rgr_unparsed``: a line of the CLI's output that was not JSON (kept as text)."""

    line: object


@dataclass(frozen=True)
class Other:
    """Any other line (a result line, a kind rgr does not read)."""

    kind: object


StreamLine = Turn | ToolResults | ApiRetry | SessionStarted | Unparsed | Other


def parse(raw: Mapping[str, object]) -> StreamLine:
    """The typed reading of one raw stream line."""
    kind = raw.get("type")
    if kind == "assistant":
        return Turn(tuple(_turn_block(block) for block in _blocks(raw)
                          if block.get("type") in ("tool_use", "text")))
    if kind == "user":
        return ToolResults(tuple(ToolResult(bool(block.get("is_error")), block.get("content"))
                                 for block in _blocks(raw)
                                 if block.get("type") == "tool_result"))
    if kind == "system" and raw.get("subtype") == "api_retry":
        return ApiRetry(raw.get("attempt"), raw.get("max_retries"), raw.get("error_status"),
                        raw.get("error"), raw.get("retry_delay_ms"), raw.get("backend"))
    if kind == "system" and raw.get("subtype") == "init":
        return SessionStarted(raw.get("model"), raw.get("backend"))
    if kind == "rgr_unparsed":
        return Unparsed(raw.get("line"))
    return Other(kind)


def _blocks(raw: Mapping[str, object]) -> list[Mapping[str, object]]:
    """The content blocks of a message line that are objects (the rest are skipped)."""
    message = raw.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, Mapping)]


def _turn_block(block: Mapping[str, object]) -> ToolUse | Text:
    if block.get("type") == "tool_use":
        return ToolUse(str(block.get("name")), block.get("input"))
    return Text(str(block.get("text") or ""))


def refused_edits(line: StreamLine) -> int:
    """How many of a line's tool results are refusals by rgr's edit hook."""
    return line.refused_edits if isinstance(line, ToolResults) else 0


def tool_calls(line: StreamLine) -> int:
    """How many tool calls a line makes (an assistant turn's)."""
    return len(line.tool_calls) if isinstance(line, Turn) else 0
