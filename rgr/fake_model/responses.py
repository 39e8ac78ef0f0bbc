"""A local stand-in for OpenAI's Responses API, playing the same session scripts.

The real ``codex exec`` binary, pointed at ``ResponsesModelServer.url`` + ``/v1`` through
a ``[model_providers.x]`` table (see rgr.backends.codex), runs its real tools on the
model calls the script dictates, as ``FakeModelServer`` does for claude. The scripts
are claude-shaped (``write``, ``read``, ``bash``, ``structured``...); each step is
translated into what Codex offers, measured with codex-cli 0.169.0:

- ``Bash(command)`` and ``Read(file_path)``: a ``function_call`` of Codex's shell tool,
  ``exec_command`` (``{"cmd": ...}``), or ``shell`` (``{"command": ["bash", "-lc",
  ...]}``) when that is what the request offers;
- ``Write(file_path, content)`` and ``Edit(...)``: a ``custom_tool_call`` of
  ``apply_patch`` (the freeform patch grammar) when offered, else a shell command;
- ``StructuredOutput(obj)``: the final assistant ``message`` whose text is the JSON
  (Codex's ``--output-schema`` asks for exactly that: no tool, the last message);
- ``Text(text)``: an assistant message (it ends Codex's turn);
- ``HttpError``, ``Hang``, ``CutStream``: an OpenAI-shaped error body, no answer, or a
  stream that stops after ``response.created``.

Wire format: POST ``/v1/responses`` with ``stream: true``; the answer is server-sent
events ``event: <type>\\ndata: <json>\\n\\n``: ``response.created``, one
``response.output_item.done`` with the item, ``response.completed`` with ``usage``. Each
tool round trip is a new POST whose ``input`` repeats the history (the call and its
``function_call_output``/``custom_tool_call_output``), so the turn is the number of
answer items already in ``input``. The session is the ``session-id`` header (Codex's
thread id). A request without an output schema is a side call and gets a short text.
A WebSocket upgrade (Codex tries one first when a provider supports it) is refused
with 426, after which Codex falls back to HTTP.

``RequestRecord.tools`` lists the tools offered, plus ``StructuredOutput`` when the
request carries an output schema, so code that looks for scripted requests works for
both servers.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import socket
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

from rgr.fake_model.script import STRUCTURED_OUTPUT_TOOL, Text, ToolCall
from rgr.fake_model.server import (
    FakeModelServer,
    RequestRecord,
    _Handler,
    _replace,
    _tokens,
)

#: A model whose tools codex 0.169 offers as plain function calls (``exec_command``) and
#: a freeform ``apply_patch``, which is what this server scripts. Codex's default model
#: gets its tools through a JavaScript "code mode" (``additional_tools`` in ``input``)
#: instead, which this server does not speak: tests and the demo name this model.
FAKE_MODEL = "gpt-5.5"

#: The header Codex names its session (thread) with on every request.
SESSION_HEADER = "session-id"

#: Items of ``input`` that are one scripted answer each.
ANSWER_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})


class ResponsesModelServer(FakeModelServer):
    """``FakeModelServer`` speaking the Responses API (same scripts, same records)."""

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        return _ResponsesHandler


def count_answers(items: Sequence[Any]) -> int:
    """How many scripted answers the conversation already holds: each tool call item and
    each assistant message is one (Codex sends the whole history every time)."""
    turn = 0
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in ANSWER_ITEMS or (kind == "message" and item.get("role") == "assistant"):
            turn += 1
    return turn


def _texts(item: Mapping[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))


def system_text(body: Mapping[str, Any]) -> str:
    """``instructions`` plus the developer messages: where Codex puts the system prompt
    (``model_instructions_file`` becomes the first developer message)."""
    parts = [str(body.get("instructions") or "")]
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("role") in ("developer", "system"):
            parts.append(_texts(item))
    return "\n".join(p for p in parts if p)


def first_user_text(body: Mapping[str, Any]) -> str:
    """The prompt: the first user message that is not Codex's environment context."""
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "message" \
                and item.get("role") == "user":
            text = _texts(item)
            if not text.lstrip().startswith("<environment_context>"):
                return text
    return ""


def offered_tools(body: Mapping[str, Any]) -> tuple[str, ...]:
    names = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            names.append(str(tool.get("name") or tool.get("type")))
    fmt = (body.get("text") or {}).get("format") if isinstance(body.get("text"), dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        names.append(STRUCTURED_OUTPUT_TOOL)
    return tuple(names)


def add_file_patch(path: str, content: str) -> str:
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    body = "".join(f"+{line}\n" for line in lines)
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"


def update_file_patch(path: str, old: str, new: str) -> str:
    minus = "".join(f"-{line}\n" for line in old.rstrip("\n").split("\n"))
    plus = "".join(f"+{line}\n" for line in new.rstrip("\n").split("\n"))
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{minus}{plus}*** End Patch\n"


def write_command(path: str, content: str) -> str:
    """A shell command that writes ``content`` to ``path`` exactly (parents made)."""
    quoted = shlex.quote(path)
    return (f"mkdir -p \"$(dirname {quoted})\" && printf %s {shlex.quote(content)} > {quoted}")


def translate(step: ToolCall | Text, tools: Sequence[str], call_id: str) -> dict[str, Any]:
    """The Responses API output item that plays ``step`` with the tools Codex offers."""
    if isinstance(step, Text):
        return _message(call_id, step.text)
    args = dict(step.input)
    if step.name == STRUCTURED_OUTPUT_TOOL:
        return _message(call_id, json.dumps(args))
    patch = "apply_patch" in tools
    if step.name == "Write":
        path, content = str(args["file_path"]), str(args["content"])
        if patch:
            # Add File replaces an existing file whole, like claude's Write.
            return _custom(call_id, "apply_patch", add_file_patch(path, content))
        return _shell(call_id, tools, write_command(path, content))
    if step.name == "Edit":
        path = str(args["file_path"])
        if patch:
            return _custom(call_id, "apply_patch", update_file_patch(
                path, str(args["old_string"]), str(args["new_string"])))
        raise ValueError("an Edit step needs Codex's apply_patch tool")
    if step.name == "Read":
        return _shell(call_id, tools, f"cat {shlex.quote(str(args['file_path']))}")
    if step.name == "Bash":
        return _shell(call_id, tools, str(args["command"]))
    if step.name == "apply_patch":  # a raw patch, for scripts written for Codex
        return _custom(call_id, "apply_patch", str(args["input"]))
    raise ValueError(f"no Codex equivalent for the tool {step.name!r}")


def _message(item_id: str, text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "id": item_id,
            "content": [{"type": "output_text", "text": text}]}


def _custom(call_id: str, name: str, text: str) -> dict[str, Any]:
    return {"type": "custom_tool_call", "call_id": call_id, "name": name, "input": text}


def _shell(call_id: str, tools: Sequence[str], command: str) -> dict[str, Any]:
    if "shell" in tools and "exec_command" not in tools:
        arguments: dict[str, Any] = {"command": ["bash", "-lc", command]}
        name = "shell"
    else:
        # Plain pipes, not a PTY; wait long enough for a test run to finish.
        arguments = {"cmd": command, "tty": False, "yield_time_ms": 30000}
        name = "exec_command"
    return {"type": "function_call", "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments)}


class _ResponsesHandler(_Handler):
    """The Responses API on top of the Anthropic handler's script bookkeeping."""

    def _session(self) -> str | None:
        return self.headers.get(SESSION_HEADER)

    def do_GET(self) -> None:
        if (self.headers.get("Upgrade") or "").lower() == "websocket":
            # Refuse cleanly: Codex then streams over plain HTTP.
            self._record(RequestRecord("GET", self.path, self._session(), 0,
                                       step="websocket", status=426))
            self._send_error(426, "upgrade_required", "fake model: no WebSocket, use HTTP")
            return
        self._other("GET")

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.rstrip("/").endswith("/responses"):
            self._responses()
        else:
            self._other("POST")

    def _send_error(self, status: int, error_type: str, message: str,
                    headers: Mapping[str, str] | None = None) -> None:
        # OpenAI's error body: {"error": {"message", "type", "param", "code"}}.
        self._send_json(status, {"error": {"message": message, "type": error_type,
                                           "param": None, "code": error_type}}, headers)

    def _responses(self) -> None:
        request = self._json_request()
        if request is None:
            return
        raw, session, body = request
        tools = offered_tools(body)
        record = RequestRecord(
            "POST", self.path, session, len(raw), tools=tools, system=system_text(body),
            model=body.get("model"), stream=bool(body.get("stream")),
            first_user_text=first_user_text(body))
        self._reply(record, body, lambda: count_answers(body.get("input") or []))

    def _answer(self, record: RequestRecord, body: Mapping[str, Any],
                reply: ToolCall | Text, kind: str) -> None:
        try:
            item = translate(reply, record.tools, self.state.next_id("call"))
        except ValueError as exc:
            self._fail(record, 500, "server_error", f"fake model: {exc}")
            return
        tokens_in, tokens_out = _tokens(record.body_bytes), _tokens(len(json.dumps(item)))
        usage = {"input_tokens": tokens_in, "input_tokens_details": None,
                 "output_tokens": tokens_out, "output_tokens_details": None,
                 "total_tokens": tokens_in + tokens_out}
        self._record(_replace(record, step=kind, input_tokens=tokens_in,
                              output_tokens=tokens_out))
        response_id = self.state.next_id("resp")
        self._start_sse()
        self._event("response.created", {"type": "response.created",
                                         "response": {"id": response_id}})
        self._event("response.output_item.done", {"type": "response.output_item.done",
                                                  "output_index": 0, "item": item})
        self._event("response.completed", {
            "type": "response.completed",
            "response": {"id": response_id, "model": body.get("model"), "usage": usage}})
        self._end_chunks()

    def _cut(self, body: Mapping[str, Any]) -> None:
        """Open the stream, then drop the connection before any output item."""
        self._start_sse()
        self._event("response.created", {"type": "response.created",
                                         "response": {"id": self.state.next_id("resp")}})
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
