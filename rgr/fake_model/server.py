"""A local stand-in for the Anthropic Messages API that plays scripted sessions.

The real ``claude`` binary, pointed at ``FakeModelServer.url`` with
``ANTHROPIC_BASE_URL``, runs its real tools (Write, Bash, git...) on the model calls the
script dictates. That is how rgr's tests and ``rgr demo`` exercise the real CLI offline.

How a request finds its step:

- the session is the ``X-Claude-Code-Session-Id`` header;
- requests that do not offer the ``StructuredOutput`` tool are side calls (a login
  check, a title, a quota probe): they get a short text answer and consume nothing;
- the first scripted request of a new session takes the next script from the queue;
- the turn is the number of tool_use blocks (plus text-only assistant messages) already
  in the request's messages, not the number of requests: claude retries failed requests
  with the same messages and may merge consecutive assistant messages into one.

Standard library only: it ships in the package and must not add dependencies.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from rgr.fake_model.script import (
    STRUCTURED_OUTPUT_TOOL,
    CutStream,
    Hang,
    HttpError,
    SessionScript,
    Step,
    Text,
    ToolCall,
)

#: The answer to side calls (no StructuredOutput tool offered).
SIDE_CALL_TEXT = "OK"

#: The header claude uses to name its session on every API request.
SESSION_HEADER = "X-Claude-Code-Session-Id"


def credential_mark(headers: Mapping[str, str] | Message[str, str]) -> str:
    """``x-api-key:<digest>`` or ``bearer:<digest>`` for the credential a request
    carries (Anthropic's header, then an Authorization bearer), "" for none."""
    for name, value in (("x-api-key", headers.get("x-api-key")),
                        ("bearer", (headers.get("Authorization") or "").removeprefix("Bearer "))):
        if value:
            return f"{name}:{hashlib.sha256(value.encode()).hexdigest()[:16]}"
    return ""


@dataclass(frozen=True)
class RequestRecord:
    """What the server saw and how it answered; never holds headers (they carry keys)."""

    method: str
    path: str
    session_id: str | None
    body_bytes: int
    tools: tuple[str, ...] = ()
    system: str = ""
    model: str | None = None
    stream: bool = False
    script_index: int | None = None  # which script answered, None for side calls
    turn: int | None = None
    attempt: int | None = None
    step: str = ""  # the step kind played: tool_call, text, http_error, ..., side, error
    status: int = 200
    input_tokens: int = 0
    output_tokens: int = 0
    first_user_text: str = ""  # the session's prompt (the first user message's text)
    #: Which credential came with the request, as ``credential_mark`` makes it (a
    #: header name and a digest: a test compares it with its key's, and never holds
    #: the key in a record).
    credential: str = ""
    #: The parsed request body, kept only with FakeModelServer(keep_bodies=True): for
    #: measuring what a request is made of (system prompt, tools, messages).
    body: dict[str, Any] | None = None


@dataclass
class Usage:
    """Token totals the server reported for one session (all answered requests)."""

    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0


@dataclass
class _State:
    """Everything the handler threads share; guarded by ``lock``."""

    queue: deque[tuple[int, SessionScript]]
    scripts: tuple[SessionScript, ...]
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    requests: list[RequestRecord] = field(default_factory=list)
    sessions: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    usage: dict[str, Usage] = field(default_factory=dict)
    attempts: dict[tuple[str, int], int] = field(default_factory=dict)
    counter: int = 0
    choose: Chooser | None = None
    on_request: Callable[[RequestRecord], None] | None = None
    latency_s: float = 0.0  # think time before each scripted answer
    #: Every request body as received, when the server was asked to keep them (tests
    #: that search what reached the model, such as a secret an agent read).
    bodies: list[bytes] | None = None

    def next_id(self, prefix: str) -> str:
        # One counter for the server's lifetime: a repeated tool_use id makes claude
        # drop the turn and loop until max turns.
        with self.lock:
            self.counter += 1
            return f"{prefix}_fake{self.counter:06d}"


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # a Hang step must not keep the test process alive
    allow_reuse_address = True

    def __init__(self, state: _State, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.state = state

    def handle_error(self, request: Any, client_address: Any) -> None:
        # claude drops connections (timeouts, kills, retries): that is not our failure,
        # and a traceback on stderr would only hide the test's real output.
        pass


#: Picks the script of a new session from its system prompt and first user message,
#: once the queued scripts are used up: for runs whose order of sessions is not known
#: in advance (a crash, then a resume that redoes a phase).
Chooser = Callable[[str, str], SessionScript]


class FakeModelServer:
    """Serve ``scripts`` on 127.0.0.1 (a free port) while the context is open.

    ``choose`` scripts the sessions that come after the queued ``scripts``;
    ``on_request`` sees every agent request before it is answered (the fault-injection
    suite kills rgr from there, while an agent waits for its model); ``latency_s`` is
    how long the model "thinks" before each scripted answer (0 in tests; a little makes
    a demo or a terminal recording watchable).
    """

    def __init__(self, scripts: Iterable[SessionScript] = (), latency_s: float = 0.0, *,
                 choose: Chooser | None = None,
                 on_request: Callable[[RequestRecord], None] | None = None,
                 keep_bodies: bool = False) -> None:
        scripts = tuple(scripts)
        self._state = _State(queue=deque(enumerate(scripts)), scripts=scripts, choose=choose,
                             on_request=on_request, latency_s=latency_s,
                             bodies=[] if keep_bodies else None)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> FakeModelServer:
        if self._httpd is not None:
            raise RuntimeError("FakeModelServer already started")
        self._state.stopping.clear()
        self._httpd = _HTTPServer(self._state, self._handler())
        # A short poll interval: shutdown() waits for it, once per test.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-model-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        """The HTTP handler that speaks the API (the Responses API server swaps it)."""
        return _Handler

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._state.stopping.set()  # wake Hang steps
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("FakeModelServer is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    # -- what happened ---------------------------------------------------------------

    def add_script(self, script: SessionScript) -> None:
        """Queue one more session script (for a session not yet started)."""
        with self._state.lock:
            index = len(self._state.scripts)
            self._state.scripts = (*self._state.scripts, script)
            self._state.queue.append((index, script))

    @property
    def bodies(self) -> list[bytes]:
        """The request bodies received (``keep_bodies=True``), in order."""
        with self._state.lock:
            return list(self._state.bodies or [])

    @property
    def requests(self) -> list[RequestRecord]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def sessions(self) -> dict[str, int]:
        """Session id -> index of the script it consumed."""
        with self._state.lock:
            return dict(self._state.sessions)

    @property
    def errors(self) -> list[str]:
        with self._state.lock:
            return list(self._state.errors)

    @property
    def usage(self) -> dict[str, Usage]:
        """Session id -> the tokens this server reported to it."""
        with self._state.lock:
            return {
                k: Usage(v.input_tokens, v.output_tokens, v.requests)
                for k, v in self._state.usage.items()
            }

    @property
    def remaining(self) -> int:
        """Scripts not yet taken by a session."""
        with self._state.lock:
            return len(self._state.queue)


# -- request handling ----------------------------------------------------------------


def _system_text(system: Any) -> str:
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
    return ""


def _first_user_text(body: Mapping[str, Any]) -> str:
    """The text of the first user message (the phase prompt rgr sends on stdin)."""
    for message in body.get("messages") or []:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(str(block.get("text", "")) for block in content
                             if isinstance(block, dict) and block.get("type") == "text")
    return ""


def count_turn(messages: Sequence[Any]) -> int:
    """How many scripted answers the conversation already holds.

    Each ToolCall answer leaves one tool_use block and each Text answer one text block
    in an assistant message; counting blocks (not messages) survives claude merging
    consecutive assistant messages.
    """
    turn = 0
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str):
            turn += 1
            continue
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") in ("tool_use", "text"):
                turn += 1
    return turn


def _tokens(n_bytes: int) -> int:
    return max(1, n_bytes // 4)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"  # keep-alive and chunked SSE, like the real API

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests read server.requests; stderr noise helps nobody

    # -- plumbing ----------------------------------------------------------------------

    @property
    def state(self) -> _State:
        return self.server.state

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _record(self, record: RequestRecord) -> None:
        record = dataclasses.replace(record, credential=credential_mark(self.headers))
        with self.state.lock:
            self.state.requests.append(record)
            if record.session_id is not None and record.status == 200:
                usage = self.state.usage.setdefault(record.session_id, Usage())
                usage.input_tokens += record.input_tokens
                usage.output_tokens += record.output_tokens
                usage.requests += 1

    def _send_json(
        self, status: int, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", self.state.next_id("req"))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(
        self, status: int, error_type: str, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        self._send_json(
            status,
            {"type": "error", "error": {"type": error_type, "message": message}},
            headers,
        )

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("request-id", self.state.next_id("req"))
        self.end_headers()

    def _event(self, name: str, data: Mapping[str, Any]) -> None:
        self._chunk(f"event: {name}\ndata: {json.dumps(data)}\n\n")

    def _chunk(self, text: str) -> None:
        """One chunk of the chunked body, sent at once (a stream, not a buffer)."""
        chunk = text.encode()
        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        self.wfile.flush()

    def _drop_connection(self) -> None:
        """No terminating chunk: the client sees a truncated body, like a dropped
        network."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    # -- routes ------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._other("GET")

    def do_HEAD(self) -> None:
        # claude probes ``HEAD /`` for connectivity; a HEAD answer must carry no body.
        self._record(RequestRecord("HEAD", self.path, self._session(), 0, step="other"))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/v1/messages":
            self._messages()
        elif path == "/v1/messages/count_tokens":
            body = self._read_body()
            self._record(
                RequestRecord("POST", self.path, self._session(), len(body), step="count_tokens")
            )
            self._send_json(200, {"input_tokens": _tokens(len(body))})
        else:
            self._other("POST")

    def _other(self, method: str) -> None:
        # Anything else claude may probe: record it and answer harmlessly.
        body = self._read_body() if method == "POST" else b""
        self._record(
            RequestRecord(method, self.path, self._session(), len(body), step="other", status=404)
        )
        self._send_error(404, "not_found_error", f"fake model: no route {method} {self.path}")

    def _session(self) -> str | None:
        return self.headers.get(SESSION_HEADER)

    def _json_request(self) -> tuple[bytes, str | None, dict[str, Any]] | None:
        """The request's body (kept when the server keeps bodies), its session and the JSON
        object it holds; None when it holds none, once that request got its 400."""
        raw = self._read_body()
        if self.state.bodies is not None:
            with self.state.lock:
                self.state.bodies.append(raw)
        session = self._session()
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise ValueError("body is not a JSON object")
        except ValueError as exc:
            self._fail(RequestRecord("POST", self.path, session, len(raw)), 400,
                       "invalid_request_error", f"fake model: bad JSON body: {exc}")
            return None
        return raw, session, body

    def _messages(self) -> None:
        request = self._json_request()
        if request is None:
            return
        raw, session, body = request
        tools = tuple(str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict))
        record = RequestRecord(
            "POST",
            self.path,
            session,
            len(raw),
            tools=tools,
            system=_system_text(body.get("system")),
            model=body.get("model"),
            stream=bool(body.get("stream")),
            first_user_text=_first_user_text(body),
            body=body if self.state.bodies is not None else None,
        )
        self._reply(record, body, lambda: count_turn(body.get("messages") or []))

    def _reply(self, record: RequestRecord, body: Mapping[str, Any],
               turn: Callable[[], int]) -> None:
        """Answer a side call (no StructuredOutput tool offered) with the side text, and a
        scripted request with its session's step for the ``turn()``-th answer (counted
        only then)."""
        if STRUCTURED_OUTPUT_TOOL not in record.tools:
            self._answer(record, body, Text(SIDE_CALL_TEXT), "side")
            return
        selected = self._select(record, record.session_id, turn())
        if selected is not None:
            self._play(selected[0], body, selected[1])

    def _select(self, record: RequestRecord, session: str | None,
                turn: int) -> tuple[RequestRecord, Step] | None:
        """The script and step for a scripted request (its session's ``turn``-th answer),
        or None after answering the request with an error."""
        key = session or ""
        with self.state.lock:
            index = self.state.sessions.get(key)
            if index is None and self.state.queue:
                index, _ = self.state.queue.popleft()
                self.state.sessions[key] = index
            elif index is None and self.state.choose is not None:
                chosen = self.state.choose(record.system, record.first_user_text)
                self.state.scripts = (*self.state.scripts, chosen)
                index = len(self.state.scripts) - 1
                self.state.sessions[key] = index
            script = self.state.scripts[index] if index is not None else None
        if script is None or index is None:
            self._fail(
                record,
                500,
                "api_error",
                f"fake model: no session script left for session {session!r}",
            )
            return None
        record = _replace(record, script_index=index)
        expected = script.expect_system_contains
        if expected is not None and expected not in record.system:
            self._fail(
                record,
                500,
                "api_error",
                f"fake model: session {session!r} (script {index}) expected a system "
                f"prompt containing {expected!r}; it starts {record.system[:200]!r}",
            )
            return None
        if turn >= len(script.turns):
            self._fail(
                record,
                500,
                "api_error",
                f"fake model: session {session!r} (script {index}) asked for turn "
                f"{turn} but the script has {len(script.turns)} turns",
            )
            return None
        with self.state.lock:
            attempt = self.state.attempts.get((key, turn), 0)
            self.state.attempts[(key, turn)] = attempt + 1
        record = _replace(record, turn=turn, attempt=attempt)
        if self.state.on_request is not None:
            self.state.on_request(record)
        return record, script.turns[turn].play(attempt)

    def _fail(self, record: RequestRecord, status: int, error_type: str, message: str) -> None:
        with self.state.lock:
            self.state.errors.append(message)
        self._record(_replace(record, step="error", status=status))
        self._send_error(status, error_type, message)

    def _play(self, record: RequestRecord, body: Mapping[str, Any], step: Step) -> None:
        if isinstance(step, HttpError):
            self._record(_replace(record, step="http_error", status=step.status))
            self._send_error(step.status, step.error_type, step.message)
        elif isinstance(step, Hang):
            self._record(_replace(record, step="hang", status=0))
            self.state.stopping.wait(step.seconds)
            self.close_connection = True
        elif isinstance(step, CutStream):
            self._record(_replace(record, step="cut_stream", status=200))
            self._cut(body)
        else:
            if self.state.latency_s > 0:
                self.state.stopping.wait(self.state.latency_s)
            self._answer(record, body, step, "tool_call" if isinstance(step, ToolCall) else "text")

    def _answer(
        self, record: RequestRecord, body: Mapping[str, Any], reply: ToolCall | Text, kind: str
    ) -> None:
        content = self._content(reply)
        stop_reason = "tool_use" if isinstance(reply, ToolCall) else "end_turn"
        model = str(body.get("model") or "claude-fake")
        usage = {
            "input_tokens": _tokens(record.body_bytes),
            "output_tokens": _tokens(len(json.dumps(content))),
        }
        self._record(
            _replace(
                record,
                step=kind,
                input_tokens=usage["input_tokens"],
                output_tokens=usage["output_tokens"],
            )
        )
        message_id = self.state.next_id("msg")
        if not body.get("stream"):
            self._send_json(200, _message(message_id, model, content, stop_reason, usage))
            return
        self._start_sse()
        start = _message(
            message_id, model, [], None, {"input_tokens": usage["input_tokens"], "output_tokens": 1}
        )
        self._event("message_start", {"type": "message_start", "message": start})
        self._event("ping", {"type": "ping"})
        for index, block in enumerate(content):
            self._stream_block(index, block)
        self._event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
        self._event("message_stop", {"type": "message_stop"})
        self._end_chunks()

    def _content(self, reply: ToolCall | Text) -> list[dict[str, Any]]:
        if isinstance(reply, ToolCall):
            return [
                {
                    "type": "tool_use",
                    "id": self.state.next_id("toolu"),
                    "name": reply.name,
                    "input": dict(reply.input),
                }
            ]
        # Text("") is an empty assistant message: the real API sends those now and then,
        # and claude ends the run with error_during_execution on one.
        return [{"type": "text", "text": reply.text}] if reply.text else []

    def _stream_block(self, index: int, block: Mapping[str, Any]) -> None:
        # A tool call streams as an empty input plus input_json_delta, as the real API
        # does; claude ignores a tool_use whose input arrives only in content_block_start.
        if block["type"] == "tool_use":
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        self._event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opening},
        )
        self._event(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        )
        self._event("content_block_stop", {"type": "content_block_stop", "index": index})

    def _cut(self, body: Mapping[str, Any]) -> None:
        """Start a text answer, then drop the connection mid-block."""
        self._start_sse()
        model = str(body.get("model") or "claude-fake")
        start = _message(
            self.state.next_id("msg"), model, [], None, {"input_tokens": 1, "output_tokens": 1}
        )
        self._event("message_start", {"type": "message_start", "message": start})
        self._event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        )
        self._event(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "I will start by"},
            },
        )
        self._drop_connection()


def _message(
    message_id: str,
    model: str,
    content: list[dict[str, Any]],
    stop_reason: str | None,
    usage: Mapping[str, int],
) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            **usage,
        },
    }


def _replace(record: RequestRecord, **changes: Any) -> RequestRecord:
    return dataclasses.replace(record, **changes)
