"""The model API's gateway: the agent's key never enters its sandbox.

Inside the sandbox the agent CLI talks plain HTTP to a loopback port and holds only a
placeholder key (rgr.backends.base.SEALED_KEY). Each request reaches rgr here, outside, through
the session's unix socket; rgr drops whatever credentials the request carries, adds
the real ones, and sends it on to the real API (over TLS when its URL is https). So
the commands the agent runs cannot read the key from the CLI's environment
(``/proc/<pid>/environ``), and neither they nor the model can hand it out: there is
nothing to hand.

One request per connection: the forwarded request and the answer both say
``Connection: close``, so a client never sends a second request down a connection
whose first one was already rewritten. Bodies are passed on as they come, framed as
their heads say (``Content-Length`` or chunked): the answer is a server-sent event
stream, which must reach the CLI event by event.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from io import BufferedReader
from urllib.parse import urlsplit

#: The most a request or response head may be.
MAX_HEAD = 64 * 1024
CONNECT_TIMEOUT_S = 30.0
#: How long a client may take to send a request's head.
HEAD_TIMEOUT_S = 30.0
_CHUNK = 64 * 1024

#: Request headers that describe the client's own connection, not the request.
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "proxy-authorization",
                         "te", "trailer", "upgrade", "host", "expect"})


class GatewayError(Exception):
    """A request the gateway cannot pass on (malformed, too large)."""


@dataclass(frozen=True)
class Upstream:
    """The real API: where the gateway sends each request, and the credentials it adds
    (header name, lower case -> value)."""

    scheme: str
    host: str
    port: int
    credentials: Mapping[str, str]

    @classmethod
    def of(cls, url: str, credentials: Mapping[str, str]) -> Upstream:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url}")
        return cls(parts.scheme, parts.hostname, parts.port or
                   (443 if parts.scheme == "https" else 80),
                   {k.lower(): v for k, v in credentials.items()})

    @property
    def authority(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"

    def connect(self) -> socket.socket:
        raw = socket.create_connection((self.host, self.port), timeout=CONNECT_TIMEOUT_S)
        if self.scheme != "https":
            raw.settimeout(None)
            return raw
        secure = ssl.create_default_context().wrap_socket(raw, server_hostname=self.host)
        secure.settimeout(None)
        return secure


def serve_one(client: socket.socket, upstream: Upstream) -> None:
    """Pass one request from ``client`` to ``upstream`` and its answer back (a
    connection that breaks on either side ends both)."""
    with contextlib.suppress(OSError, GatewayError, ValueError), \
            contextlib.ExitStack() as closing:
        incoming = _closing_file(closing, client)
        client.settimeout(HEAD_TIMEOUT_S)
        try:
            request_line, headers = _read_head(incoming)
        except (GatewayError, TimeoutError):
            _answer(client, b"400 Bad Request")
            return
        method, _, rest = request_line.partition(b" ")
        target, _, version = rest.partition(b" ")
        if method == b"CONNECT":
            _answer(client, b"405 Method Not Allowed")
            return
        if not target.startswith(b"/") or not version.startswith(b"HTTP/1."):
            _answer(client, b"400 Bad Request")
            return
        client.settimeout(None)  # a request body may come slowly; the session's timeout rules
        try:
            server = upstream.connect()
        except OSError:
            _answer(client, b"502 Bad Gateway")
            return
        answer = _closing_file(closing, server)
        server.sendall(_head(request_line, _request_headers(headers, upstream)))
        _copy_body(incoming, server, headers)
        try:
            status_line, answer_headers = _read_head(answer)
        except GatewayError:
            _answer(client, b"502 Bad Gateway")
            return
        kept = [(n, v) for n, v in answer_headers
                if n.lower() not in (b"connection", b"keep-alive")]
        client.sendall(_head(status_line, [*kept, (b"Connection", b"close")]))
        # To the answer's own end: a server may keep its side open whatever it was told.
        status = status_line.split(b" ")[1:2]
        if status and status[0] not in (b"204", b"304") and not status[0].startswith(b"1"):
            _copy_body(answer, client, answer_headers, to_close=True)


def _closing_file(closing: contextlib.ExitStack, sock: socket.socket) -> BufferedReader:
    """A buffered reader on ``sock``; both closed on the way out (a socket with a file
    still open on it stays open, and the other side would wait for its end forever)."""
    def end() -> None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()

    closing.callback(end)
    reader = sock.makefile("rb")
    closing.callback(reader.close)
    return reader


def _request_headers(headers: list[tuple[bytes, bytes]],
                     upstream: Upstream) -> list[tuple[bytes, bytes]]:
    """The client's headers for the real API: its own connection's headers and any
    credentials it sent go; the real host, the real credentials and close come in."""
    replaced = set(upstream.credentials)
    kept = [(n, v) for n, v in headers
            if n.lower().decode("latin-1") not in _HOP_BY_HOP | replaced]
    return [(b"Host", upstream.authority.encode()), *kept,
            *((n.encode(), v.encode()) for n, v in upstream.credentials.items()),
            (b"Connection", b"close")]


def _copy_body(source: BufferedReader, sink: socket.socket,
               headers: list[tuple[bytes, bytes]], to_close: bool = False) -> None:
    """The message body that ``headers`` frame, from ``source`` to ``sink`` as it comes:
    chunked, ``Content-Length`` bytes, or (an answer with neither, ``to_close``)
    everything until the sender closes."""
    names = {n.lower(): v for n, v in headers}
    if b"chunked" in names.get(b"transfer-encoding", b"").lower():
        while True:
            size_line = source.readline(MAX_HEAD)
            if not size_line.endswith(b"\n"):
                raise GatewayError("a chunked body cut short")
            sink.sendall(size_line)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while (trailer := source.readline(MAX_HEAD)) not in (b"\r\n", b"\n", b""):
                    sink.sendall(trailer)
                sink.sendall(b"\r\n")
                return
            _copy_exactly(source, sink, size + 2)  # the data and its CRLF
    length = names.get(b"content-length")
    if length is None and to_close:
        while chunk := source.read1(_CHUNK):
            sink.sendall(chunk)
        return
    _copy_exactly(source, sink, int((length or b"0").strip() or b"0"))


def _copy_exactly(source: BufferedReader, sink: socket.socket, count: int) -> None:
    while count > 0:
        data = source.read1(min(count, _CHUNK))
        if not data:
            raise GatewayError("the sender closed the connection mid-message")
        sink.sendall(data)
        count -= len(data)


def _read_head(stream: BufferedReader) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    first = stream.readline(MAX_HEAD)
    if not first.endswith(b"\n"):
        raise GatewayError("no request line")
    headers: list[tuple[bytes, bytes]] = []
    size = len(first)
    while True:
        line = stream.readline(MAX_HEAD)
        size += len(line)
        if not line.endswith(b"\n") or size > MAX_HEAD:
            raise GatewayError("the head is cut short or too large")
        if line in (b"\r\n", b"\n"):
            return first.rstrip(b"\r\n"), headers
        name, sep, value = line.partition(b":")
        if not sep or not name.strip() or name != name.strip():
            raise GatewayError("a malformed header line")
        headers.append((name, value.strip()))


def _head(first: bytes, headers: list[tuple[bytes, bytes]]) -> bytes:
    return first + b"\r\n" + b"".join(n + b": " + v + b"\r\n" for n, v in headers) + b"\r\n"


def _answer(client: socket.socket, status: bytes) -> None:
    with contextlib.suppress(OSError):
        client.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\n"
                       b"Connection: close\r\n\r\n")
