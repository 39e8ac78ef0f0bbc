"""A local stand-in for an OpenAI-compatible Chat Completions API, playing the same
session scripts, for opencode (npm ``opencode-ai``).

The real ``opencode run``, its provider pointed at ``ChatModelServer.url`` + ``/v1``
(rgr.backends.opencode writes that into the session's config), runs its real tools on
the model calls the script dictates, as ``FakeModelServer`` does for claude. The
scripts are claude-shaped; each step becomes what opencode offers (measured with
opencode-ai 1.18.33, its ``@ai-sdk/openai-compatible`` provider):

- ``Write(file_path, content)``: a ``write`` call (``filePath``, ``content``);
- ``Edit(file_path, old_string, new_string)``: ``edit`` (``filePath``, ``oldString``,
  ``newString``); for a GPT model opencode offers ``apply_patch`` (``patchText``, the
  grammar Codex's tool takes) instead of both, and these become patches;
- ``Read(file_path)``: ``read`` (``filePath``); ``Bash(command)``: ``bash``
  (``command`` and the ``description`` it asks for);
- ``StructuredOutput(obj)``: the final assistant text, the JSON itself (opencode has
  no output-schema flag: rgr asks for the JSON in the prompt and validates it);
- ``Text(text)``: assistant text (it ends opencode's turn);
- ``HttpError``, ``Hang``, ``CutStream``: an OpenAI-shaped error body, no answer, or
  a stream that stops before its first chunk.

Why Chat Completions and not the Messages API server with opencode's bundled
``@ai-sdk/anthropic``: the OpenAI-compatible provider is the one run and measured here
(docs/backends.md), it is what most providers and local model servers speak, and the
translation is the same size either way (opencode's tool names and arguments are its
own under both).

Wire format: POST ``/v1/chat/completions`` with ``stream: true``; the answer is
``chat.completion.chunk`` events (a delta with the text or the tool call, then one
with ``finish_reason`` and ``usage``) and ``data: [DONE]``. Each tool round trip is a
new POST whose ``messages`` repeat the history, so the turn is the number of tool
calls and texts the assistant gave already. The session is the ``x-rgr-session-id``
header, which rgr.backends.opencode puts in the provider's headers. A request that
offers no tools (the session's title, asked at the same time as the session's first
request: the server must answer both at once, as ThreadingHTTPServer does) is a side
call.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

from rgr.fake_model.responses import add_file_patch, update_file_patch
from rgr.fake_model.script import STRUCTURED_OUTPUT_TOOL, Text, ToolCall
from rgr.fake_model.server import (
    FakeModelServer,
    RequestRecord,
    _Handler,
    _replace,
    _tokens,
)

#: The header that names the session (rgr puts it in the provider's headers).
SESSION_HEADER = "x-rgr-session-id"


class ChatModelServer(FakeModelServer):
    """``FakeModelServer`` speaking Chat Completions (same scripts, same records)."""

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        return _ChatHandler


def count_answers(messages: Sequence[Any]) -> int:
    """How many scripted answers the conversation holds: each tool call and each
    non-empty text the assistant gave."""
    turn = 0
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls") or []
        turn += len(calls) if calls else int(bool(_text(message.get("content"))))
    return turn


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content
                         if isinstance(part, dict) and part.get("type") == "text")
    return ""


def system_text(body: Mapping[str, Any]) -> str:
    return "\n".join(_text(m.get("content")) for m in body.get("messages") or []
                     if isinstance(m, dict) and m.get("role") == "system")


def first_user_text(body: Mapping[str, Any]) -> str:
    """The prompt: the first user message's text."""
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            return _text(message.get("content"))
    return ""


def offered_tools(body: Mapping[str, Any]) -> tuple[str, ...]:
    names = [str((tool.get("function") or {}).get("name")) for tool in body.get("tools") or []
             if isinstance(tool, dict)]
    # The session's own request is the one with tools: it is where the answer comes.
    return (*names, STRUCTURED_OUTPUT_TOOL) if names else ()


def translate(step: ToolCall | Text,
              offered: tuple[str, ...] = ()) -> tuple[str, dict[str, Any]] | str:
    """opencode's tool call ``(name, arguments)`` that plays ``step``, or its text.
    ``offered``: the request's tools; opencode offers a GPT model ``apply_patch``
    instead of ``write`` and ``edit``, and a script's writes become patches then."""
    if isinstance(step, Text):
        return step.text
    args = dict(step.input)
    if step.name == STRUCTURED_OUTPUT_TOOL:
        return json.dumps(args)
    if step.name in ("Write", "Edit") and "apply_patch" in offered and "write" not in offered:
        if step.name == "Write":
            patch = add_file_patch(args["file_path"], args["content"])
        else:
            patch = update_file_patch(args["file_path"], args["old_string"],
                                      args["new_string"])
        return "apply_patch", {"patchText": patch}
    if step.name == "Write":
        return "write", {"filePath": args["file_path"], "content": args["content"]}
    if step.name == "Edit":
        return "edit", {"filePath": args["file_path"], "oldString": args["old_string"],
                        "newString": args["new_string"]}
    if step.name == "Read":
        return "read", {"filePath": args["file_path"]}
    if step.name == "Bash":
        return "bash", {"command": args["command"], "description": "Run a scripted command"}
    raise ValueError(f"no opencode equivalent for the tool {step.name!r}")


class _ChatHandler(_Handler):
    """Chat Completions on top of the Anthropic handler's script bookkeeping."""

    def _session(self) -> str | None:
        return self.headers.get(SESSION_HEADER)

    def do_POST(self) -> None:
        if self.path.split("?", 1)[0].endswith("/chat/completions"):
            self._completions()
        else:
            self._other("POST")

    def _send_error(self, status: int, error_type: str, message: str,
                    headers: Mapping[str, str] | None = None) -> None:
        self._send_json(status, {"error": {"message": message, "type": error_type,
                                           "code": status}}, headers)

    def _completions(self) -> None:
        request = self._json_request()
        if request is None:
            return
        raw, session, body = request
        record = RequestRecord(
            "POST", self.path, session, len(raw), tools=offered_tools(body),
            system=system_text(body), model=body.get("model"),
            stream=bool(body.get("stream")), first_user_text=first_user_text(body),
            body=body if self.state.bodies is not None else None)
        self._reply(record, body, lambda: count_answers(body.get("messages") or []))

    def _answer(self, record: RequestRecord, body: Mapping[str, Any],
                reply: ToolCall | Text, kind: str) -> None:
        try:
            played = translate(reply, record.tools)
        except ValueError as exc:
            self._fail(record, 500, "server_error", f"fake model: {exc}")
            return
        if isinstance(played, str):
            message: dict[str, Any] = {"role": "assistant", "content": played}
            finish = "stop"
        else:
            call = {"index": 0, "id": self.state.next_id("call"), "type": "function",
                    "function": {"name": played[0], "arguments": json.dumps(played[1])}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        tokens_in, tokens_out = _tokens(record.body_bytes), _tokens(len(json.dumps(message)))
        self._record(_replace(record, step=kind, input_tokens=tokens_in,
                              output_tokens=tokens_out))
        usage = {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                 "total_tokens": tokens_in + tokens_out}
        answer_id, model = self.state.next_id("chatcmpl"), str(record.model or "scripted")
        head = {"id": answer_id, "created": int(time.time()), "model": model}
        if not record.stream:
            self._send_json(200, {**head, "object": "chat.completion", "usage": usage,
                                  "choices": [{"index": 0, "message": message,
                                               "finish_reason": finish}]})
            return
        self._start_sse()
        self._data({**head, "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": message, "finish_reason": None}]})
        self._data({**head, "object": "chat.completion.chunk", "usage": usage,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        self._data("[DONE]")
        self._end_chunks()

    def _data(self, payload: Mapping[str, Any] | str) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        self._chunk(f"data: {text}\n\n")

    def _cut(self, body: Mapping[str, Any]) -> None:
        """Open the stream, then drop the connection before any chunk."""
        self._start_sse()
        self._drop_connection()
