"""A local stand-in for the Gemini API (generateContent), playing the same session scripts.

The real ``gemini`` CLI (npm ``@google/gemini-cli``), pointed at ``GeminiModelServer.url``
with ``GOOGLE_GEMINI_BASE_URL`` (see rgr.backends.gemini), runs its real tools on the
model calls the script dictates, as ``FakeModelServer`` does for claude. The scripts are
claude-shaped; each step becomes what the Gemini CLI offers (measured with 0.61.0):

- ``Write(file_path, content)``: a ``functionCall`` of ``write_file`` (same arguments);
- ``Edit(file_path, old_string, new_string)``: ``replace`` (same arguments, plus the
  ``instruction`` it asks for), which rgr offers only to an agent that cannot write
  whole files (rgr.backends.gemini.gemini_tools): a script for one that can writes;
- ``Read(file_path)``: ``read_file``; ``Bash(command)``: ``run_shell_command``;
- ``StructuredOutput(obj)``: the final model text, the JSON itself (the Gemini CLI has
  no output-schema flag: rgr asks for the JSON in the prompt and validates it);
- ``Text(text)``: model text (it ends the CLI's turn);
- ``HttpError``, ``Hang``, ``CutStream``: a Google-shaped error body, no answer, or a
  stream that stops before its first chunk.

Wire format: POST ``/v1beta/models/<model>:streamGenerateContent?alt=sse`` (or
``:generateContent``); the answer is one ``data: <GenerateContentResponse>`` event
with ``candidates[0].content.parts`` and ``usageMetadata``. Each tool round trip is a
new POST whose ``contents`` repeat the history, so the turn is the number of model
parts (function calls and texts) already there. The session is the ``x-rgr-session-id``
header, which rgr.backends.gemini asks the CLI to send (``GEMINI_CLI_CUSTOM_HEADERS``).
A request that offers no tools (a routing or next-speaker check) is a side call.
"""

from __future__ import annotations

import json
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

#: The header that names the session (rgr sets it through GEMINI_CLI_CUSTOM_HEADERS).
SESSION_HEADER = "x-rgr-session-id"

#: Google's status names for the HTTP codes a script plays.
_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
           404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
           503: "UNAVAILABLE", 529: "UNAVAILABLE"}


class GeminiModelServer(FakeModelServer):
    """``FakeModelServer`` speaking the Gemini API (same scripts, same records)."""

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        return _GeminiHandler


def count_answers(contents: Sequence[Any]) -> int:
    """How many scripted answers the conversation holds: each function call and each
    text the model gave (thoughts aside)."""
    turn = 0
    for content in contents:
        if not isinstance(content, dict) or content.get("role") != "model":
            continue
        for part in content.get("parts") or []:
            if isinstance(part, dict) and not part.get("thought") and (
                    "functionCall" in part or part.get("text")):
                turn += 1
    return turn


def _texts(content: Any) -> str:
    if not isinstance(content, dict):
        return ""
    return "\n".join(str(p.get("text", "")) for p in content.get("parts") or []
                     if isinstance(p, dict) and "text" in p)


def first_user_text(body: Mapping[str, Any]) -> str:
    """The prompt: the user texts before the model's first answer, without the CLI's
    own ``<session_context>`` part (it shares the first user content with the prompt)."""
    texts = []
    for content in body.get("contents") or []:
        if not isinstance(content, dict) or content.get("role") != "user":
            break
        texts += [str(part["text"]) for part in content.get("parts") or []
                  if isinstance(part, dict) and "text" in part
                  and not str(part["text"]).lstrip().startswith("<session_context>")]
    return "\n".join(texts)


def offered_tools(body: Mapping[str, Any]) -> tuple[str, ...]:
    names = [str(f.get("name")) for tool in body.get("tools") or [] if isinstance(tool, dict)
             for f in tool.get("functionDeclarations") or [] if isinstance(f, dict)]
    # The CLI's agent loop is the request with tools: it is where the answer comes.
    return (*names, STRUCTURED_OUTPUT_TOOL) if names else ()


def translate(step: ToolCall | Text) -> dict[str, Any]:
    """The Gemini API part that plays ``step``."""
    if isinstance(step, Text):
        return {"text": step.text}
    args = dict(step.input)
    if step.name == STRUCTURED_OUTPUT_TOOL:
        return {"text": json.dumps(args)}
    if step.name == "Write":
        call = ("write_file", {"file_path": args["file_path"], "content": args["content"]})
    elif step.name == "Edit":
        call = ("replace", {"file_path": args["file_path"], "old_string": args["old_string"],
                            "new_string": args["new_string"],
                            "instruction": "Apply the scripted edit."})
    elif step.name == "Read":
        call = ("read_file", {"file_path": args["file_path"]})
    elif step.name == "Bash":
        call = ("run_shell_command", {"command": args["command"]})
    else:
        raise ValueError(f"no Gemini CLI equivalent for the tool {step.name!r}")
    return {"functionCall": {"name": call[0], "args": call[1]}}


class _GeminiHandler(_Handler):
    """The Gemini API on top of the Anthropic handler's script bookkeeping."""

    def _session(self) -> str | None:
        return self.headers.get(SESSION_HEADER)

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.endswith(":countTokens"):
            body = self._read_body()
            self._record(RequestRecord("POST", self.path, self._session(), len(body),
                                       step="count_tokens"))
            self._send_json(200, {"totalTokens": _tokens(len(body))})
        elif path.endswith((":streamGenerateContent", ":generateContent")):
            self._generate()
        else:
            self._other("POST")

    def _send_error(self, status: int, error_type: str, message: str,
                    headers: Mapping[str, str] | None = None) -> None:
        self._send_json(status, {"error": {"code": status, "message": message,
                                           "status": _STATUS.get(status, "UNKNOWN")}}, headers)

    def _generate(self) -> None:
        request = self._json_request()
        if request is None:
            return
        raw, session, body = request
        tools = offered_tools(body)
        record = RequestRecord(
            "POST", self.path, session, len(raw), tools=tools,
            system=_texts(body.get("systemInstruction")),
            model=self.path.split("/models/", 1)[-1].split(":", 1)[0],
            stream="alt=sse" in self.path, first_user_text=first_user_text(body),
            body=body if self.state.bodies is not None else None)
        self._reply(record, body, lambda: count_answers(body.get("contents") or []))

    def _answer(self, record: RequestRecord, body: Mapping[str, Any],
                reply: ToolCall | Text, kind: str) -> None:
        try:
            part = translate(reply)
        except ValueError as exc:
            self._fail(record, 500, "server_error", f"fake model: {exc}")
            return
        tokens_in, tokens_out = _tokens(record.body_bytes), _tokens(len(json.dumps(part)))
        self._record(_replace(record, step=kind, input_tokens=tokens_in,
                              output_tokens=tokens_out))
        chunk = {"candidates": [{"content": {"role": "model", "parts": [part]},
                                 "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": tokens_in,
                                   "candidatesTokenCount": tokens_out,
                                   "totalTokenCount": tokens_in + tokens_out},
                 "modelVersion": record.model, "responseId": self.state.next_id("resp")}
        if not record.stream:
            self._send_json(200, chunk)
            return
        self._start_sse()
        self._data(chunk)
        self._end_chunks()

    def _data(self, payload: Mapping[str, Any]) -> None:
        self._chunk(f"data: {json.dumps(payload)}\r\n\r\n")

    def _cut(self, body: Mapping[str, Any]) -> None:
        """Open the stream, then drop the connection before any chunk."""
        self._start_sse()
        self._drop_connection()
