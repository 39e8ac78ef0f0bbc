"""``codex exec --json`` lines -> the events rgr's observers already read.

rgr's live view, run artifacts and limits read the agent stream in one shape (the one
claude's ``stream-json`` has): ``system``/``init``, ``assistant`` events whose
``message.content`` holds ``tool_use`` and ``text`` blocks, ``user`` events holding
``tool_result`` blocks, and ``system``/``api_retry``. Codex items are mapped onto it,
each mapped event carrying ``backend: "codex"`` and the original line under ``codex``
(so the run folder keeps everything Codex said):

- ``thread.started`` -> ``system``/``init`` (session_id = the thread id);
- ``item.started`` of a ``command_execution`` -> an ``assistant`` ``tool_use`` named
  ``Bash`` with ``{"command": ...}``; its ``item.completed`` -> a ``user``
  ``tool_result`` (``is_error`` on a non-zero exit code);
- ``file_change`` -> ``tool_use`` ``apply_patch`` with ``{"file_path", "changes"}``;
- ``agent_message`` -> an ``assistant`` ``text`` block (the last one is the answer);
- top-level ``error`` "Reconnecting... N/M (reason)" -> ``system``/``api_retry``;
- ``turn.completed`` / ``turn.failed`` -> ``system``/``turn_completed`` / ``turn_failed``;
- a line that is not a JSON object -> ``rgr_unparsed``, as for claude.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rgr.backends.base import AgentRequest, SessionFigures
from rgr.base.backend_names import CODEX
from rgr.base.processes import SESSION_MARK_VAR, kill_marked_processes

_RETRY = re.compile(r"^Reconnecting\.\.\.\s*(\d+)/(\d+)\s*(?:\((.*)\))?\s*$", re.S)
_STATUS = re.compile(r"\b([1-5]\d\d)\b")

#: How much of a command's output a mapped tool_result keeps (the codex line has it all).
RESULT_CHARS = 2000


@dataclass
class StreamState:
    """What a session's stream said so far; filled by ``stream_reader``."""

    max_turns: int | None = None
    session_mark: str | None = None  # kill the session (marked processes) past max_turns
    model: str | None = None  # what rgr asked for (the stream does not say)
    thread_id: str | None = None
    started: bool = False
    completed: bool = False
    failure: str | None = None
    final_message: str | None = None
    turns: int = 0  # tool calls (command executions and file changes)
    turns_exceeded: bool = False
    usage: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    retries: int = 0
    unparsed: int = 0
    _calls: set[str] = field(default_factory=set)

    def result(self, request: AgentRequest, model: str | None,
               duration_ms: int) -> dict[str, Any]:
        """The session as one record in Codex's own terms (its usage as it reported
        it), for the audit trail; what rgr reads of it is ``figures``."""
        return {
            "type": "result",
            "backend": CODEX,
            "model": model,
            "session_id": request.session_id,
            "codex_thread_id": self.thread_id,
            "subtype": "success" if self.completed and not self.turns_exceeded else "error",
            "is_error": not self.completed or self.turns_exceeded,
            "tool_calls": self.turns,
            "duration_ms": duration_ms,
            "usage": dict(self.usage),
            "result": self.final_message if self.completed else self.failure,
            "errors": list(self.errors),
            "api_retries": self.retries,
        }

    def figures(self, model: str | None, duration_ms: int) -> SessionFigures:
        """What the session used. Codex counts cached input inside ``input_tokens``;
        rgr's figures keep them apart, as claude's do. It reports no cost: None."""
        usage = self.usage
        cached = int(usage.get("cached_input_tokens") or 0)
        return SessionFigures(
            backend=CODEX, model=model, num_turns=self.turns, duration_ms=duration_ms,
            input_tokens=max(0, int(usage.get("input_tokens") or 0) - cached),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read_input_tokens=cached,
            cache_creation_input_tokens=int(usage.get("cache_write_input_tokens") or 0),
            cost_usd=None)


def stream_reader(state: StreamState,
                  on_event: Callable[[dict[str, Any]], None] | None) -> Callable[[str], None]:
    """A line handler for ``codex exec --json``: updates ``state`` and passes each line,
    mapped, to ``on_event`` as it arrives."""

    def emit(event: dict[str, Any]) -> None:
        if on_event is not None:
            on_event({**event, "backend": CODEX})

    def handle(line: str) -> None:
        if not line.strip():
            return
        try:
            raw = json.loads(line)
        except ValueError:
            raw = None
        if not isinstance(raw, dict):
            state.unparsed += 1
            emit({"type": "rgr_unparsed", "line": line})
            return
        for event in _map(state, raw):
            emit({**event, CODEX: raw})

    return handle


def _map(state: StreamState, raw: dict[str, Any]) -> list[dict[str, Any]]:
    kind = raw.get("type")
    if kind == "thread.started":
        state.started = True
        state.thread_id = str(raw.get("thread_id") or "")
        return [{"type": "system", "subtype": "init", "session_id": state.thread_id,
                 "model": state.model}]
    if kind == "turn.completed":
        state.completed = True
        usage = raw.get("usage")
        if isinstance(usage, dict):
            state.usage = {k: int(v) for k, v in usage.items() if isinstance(v, int | float)}
        return [{"type": "system", "subtype": "turn_completed", "usage": state.usage}]
    if kind == "turn.failed":
        error = raw.get("error")
        state.failure = str(error.get("message") if isinstance(error, dict) else error)
        return [{"type": "system", "subtype": "turn_failed", "error": state.failure}]
    if kind == "error":
        message = str(raw.get("message") or "")
        retry = _RETRY.match(message)
        if retry:
            state.retries += 1
            reason = retry[3] or ""
            status = _STATUS.search(reason)
            return [{"type": "system", "subtype": "api_retry", "attempt": int(retry[1]),
                     "max_retries": int(retry[2]), "error": reason,
                     "error_status": int(status[1]) if status else None,
                     "retry_delay_ms": None}]
        state.errors.append(message)
        return [{"type": "system", "subtype": "error", "error": message}]
    if kind in ("item.started", "item.updated", "item.completed"):
        item = raw.get("item")
        if isinstance(item, dict):
            return _item(state, kind, item)
    return [{"type": f"codex_{kind}"}]


def _item(state: StreamState, kind: str, item: dict[str, Any]) -> list[dict[str, Any]]:
    item_type = item.get("type")
    item_id = str(item.get("id") or "")
    if item_type in ("command_execution", "file_change"):
        out: list[dict[str, Any]] = []
        if item_id not in state._calls:
            state._calls.add(item_id)
            out.append(_call(state, item_id, item))
        if kind == "item.completed":
            out.append(_result(item_id, item))
        return out
    if item_type == "agent_message" and kind == "item.completed":
        text = str(item.get("text") or "")
        state.final_message = text
        return [{"type": "assistant",
                 "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}]
    if item_type == "error":
        message = str(item.get("message") or "")
        state.errors.append(message)
        return [{"type": "system", "subtype": "warning", "error": message}]
    if item_type == "reasoning" and kind == "item.completed":
        return [{"type": "reasoning", "text": str(item.get("text") or "")}]
    return [{"type": f"codex_{item_type}"}]


def _call(state: StreamState, item_id: str, item: dict[str, Any]) -> dict[str, Any]:
    state.turns += 1
    if state.max_turns is not None and state.turns > state.max_turns \
            and not state.turns_exceeded:
        state.turns_exceeded = True
        if state.session_mark is not None:
            # codex itself carries the mark: this ends the session like a timeout.
            kill_marked_processes(SESSION_MARK_VAR, state.session_mark, grace_s=1.0)
    args: dict[str, Any]
    if item.get("type") == "command_execution":
        name, args = "Bash", {"command": str(item.get("command") or "")}
    else:
        changes = [c for c in item.get("changes") or [] if isinstance(c, dict)]
        first = str(changes[0].get("path")) if changes else ""
        name, args = "apply_patch", {"file_path": first, "changes": changes}
    return {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": item_id, "name": name, "input": args}]}}


def _result(item_id: str, item: dict[str, Any]) -> dict[str, Any]:
    if item.get("type") == "command_execution":
        code = item.get("exit_code")
        failed = (isinstance(code, int) and code != 0) or item.get("status") == "failed"
        content = str(item.get("aggregated_output") or "")[-RESULT_CHARS:]
    else:
        failed = item.get("status") == "failed"
        content = json.dumps(item.get("changes") or [])[:RESULT_CHARS]
    return {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": item_id, "is_error": failed,
         "content": content}]}}
