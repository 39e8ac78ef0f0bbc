"""The model API gateway (rgr.sandbox.gateway) against real HTTP and HTTPS servers on
loopback: the key the CLI holds is a placeholder, the one the API gets is rgr's."""

from __future__ import annotations

import http.server
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rgr.backends.base import SEALED_KEY
from rgr.sandbox.bridge import Bridge
from rgr.sandbox.gateway import Upstream

REAL_KEY = "sk-real-key-only-rgr-holds"


@dataclass
class Seen:
    requests: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)


def _api(seen: Seen) -> type[http.server.BaseHTTPRequestHandler]:
    class Api(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            if "chunked" in (self.headers.get("Transfer-Encoding") or ""):
                body = b""
                while (size := int(self.rfile.readline().split(b";")[0], 16)) > 0:
                    body += self.rfile.read(size)
                    self.rfile.readline()
                self.rfile.readline()
            else:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()},
                                  body))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "keep-alive")
            self.end_headers()
            for event in (b"event: one\ndata: 1\n\n", b"event: two\ndata: 2\n\n"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, *args: object) -> None:
            pass

    return Api


@pytest.fixture
def api() -> Iterator[tuple[int, Seen]]:
    seen = Seen()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _api(seen))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], seen
    server.shutdown()


def _through(bridge_socket: Path, request: bytes) -> bytes:
    """Send ``request`` down the gateway's socket (what relay.py does inside the
    sandbox) and read the answer to the end."""
    with socket.socket(socket.AF_UNIX) as client:
        client.settimeout(10)
        client.connect(str(bridge_socket))
        client.sendall(request)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    return answer


def _request(body: bytes, *extra: bytes) -> bytes:
    return (b"POST /v1/messages?beta=true HTTP/1.1\r\nHost: 127.0.0.1:41100\r\n"
            b"x-api-key: " + SEALED_KEY.encode() + b"\r\nConnection: keep-alive\r\n"
            + b"".join(h + b"\r\n" for h in extra)
            + b"Content-Length: %d\r\n\r\n" % len(body) + body)


def test_the_api_gets_rgrs_key_and_the_answer_streams_back(api: tuple[int, Seen],
                                                           tmp_path: Path) -> None:
    port, seen = api
    bridge = Bridge(tmp_path)
    try:
        path = bridge.gateway("g", Upstream.of(f"http://127.0.0.1:{port}/v1",
                                               {"x-api-key": REAL_KEY}))
        body = b'{"model": "m", "stream": true}'
        answer = _through(path, _request(body, b"Authorization: Bearer stolen"))
    finally:
        bridge.close()
    [(where, headers, got)] = seen.requests
    assert where == "/v1/messages?beta=true" and got == body
    assert headers["x-api-key"] == REAL_KEY  # the placeholder went, the key came in
    assert headers["authorization"] == "Bearer stolen"  # not a credential this API uses
    assert headers["host"] == f"127.0.0.1:{port}" and headers["connection"] == "close"
    head, _, stream = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"Connection: close" in head
    assert b"keep-alive" not in head.lower()
    assert b"event: one\ndata: 1" in stream and b"event: two\ndata: 2" in stream
    assert stream.endswith(b"0\r\n\r\n")


def test_a_chunked_request_body_arrives_whole(api: tuple[int, Seen], tmp_path: Path) -> None:
    port, seen = api
    bridge = Bridge(tmp_path)
    try:
        path = bridge.gateway("g", Upstream.of(f"http://127.0.0.1:{port}",
                                               {"authorization": f"Bearer {REAL_KEY}"}))
        request = (b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                   + SEALED_KEY.encode() + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
                   b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n")
        answer = _through(path, request)
    finally:
        bridge.close()
    [(_, headers, body)] = seen.requests
    assert body == b"hello, world" and headers["authorization"] == f"Bearer {REAL_KEY}"
    assert answer.startswith(b"HTTP/1.1 200")


def test_bad_requests_and_a_dead_api_get_an_answer_not_a_hang(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    bridge = Bridge(tmp_path)
    try:
        path = bridge.gateway("g", Upstream.of(f"http://127.0.0.1:{dead}", {"x-api-key": "k"}))
        assert _through(path, b"garbage\r\n\r\n").startswith(b"HTTP/1.1 400")
        assert _through(path, b"CONNECT evil.example:443 HTTP/1.1\r\nHost: e\r\n\r\n"
                        ).startswith(b"HTTP/1.1 405")
        assert _through(path, _request(b"{}")).startswith(b"HTTP/1.1 502")
    finally:
        bridge.close()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")
def test_an_https_api_is_reached_over_verified_tls(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The real APIs are https: the gateway speaks TLS to them and checks the
    certificate (here a certificate made for the test and trusted through
    SSL_CERT_FILE, as a company's own CA would be)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    seen = Seen()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _api(seen))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    bridge = Bridge(tmp_path)
    try:
        upstream = Upstream.of(f"https://localhost:{server.server_address[1]}",
                               {"x-api-key": REAL_KEY})
        path = bridge.gateway("g", upstream)
        # Not trusted yet: the gateway refuses to send the key to an unverified server.
        assert _through(path, _request(b"{}")).startswith(b"HTTP/1.1 502")
        assert seen.requests == []
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        answer = _through(path, _request(b'{"a": 1}'))
    finally:
        bridge.close()
        server.shutdown()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    [(_, headers, body)] = seen.requests
    assert headers["x-api-key"] == REAL_KEY and body == b'{"a": 1}'
    assert headers["host"] == f"localhost:{server.server_address[1]}"
