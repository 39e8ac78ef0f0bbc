"""The outside ends of a sandbox's only way out: unix sockets rgr listens on.

Each socket is bound into the agent's sandbox, where ``relay.py`` turns it into a
loopback port. What a connection reaches is decided here, outside, where the agent
cannot change it:

- a *gateway* passes HTTP requests to the model API, adding the key that only rgr
  holds (rgr.sandbox.gateway);
- a *forward* leads to one fixed ``host:port``;
- the *proxy* speaks HTTP ``CONNECT`` and opens a tunnel only to the ``host:port``
  pairs it was given (the model API over HTTPS, plus ``[sandbox] allow_hosts``);
  anything else is answered ``403`` and remembered, so rgr can say what was refused.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rgr.sandbox.gateway import Upstream, serve_one
from rgr.sandbox.relay import splice

#: The most a CONNECT request head may be; a client sending more is not a client.
MAX_HEAD = 8192
CONNECT_TIMEOUT_S = 30.0


@dataclass
class Bridge:
    """The unix sockets of one sandboxed session, under ``directory``; ``close`` ends
    them all (connections still open die with the session's sandbox)."""

    directory: Path
    refused: list[str] = field(default_factory=list)
    _listeners: list[socket.socket] = field(default_factory=list)

    def forward(self, name: str, host: str, port: int) -> Path:
        """A socket whose every connection is copied to ``host:port``."""
        return self._listen(name, lambda client: self._forward_one(client, host, port))

    def gateway(self, name: str, upstream: Upstream) -> Path:
        """A socket whose every connection carries one HTTP request to ``upstream``,
        with the real credentials put in here (rgr.sandbox.gateway)."""
        return self._listen(name, lambda client: serve_one(client, upstream))

    def proxy(self, name: str, allowed: frozenset[tuple[str, int]]) -> Path:
        """A socket speaking HTTP CONNECT, tunnelling only to ``allowed`` hosts."""
        return self._listen(name, lambda client: self._connect_one(client, allowed))

    def close(self) -> None:
        for listener in self._listeners:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        self._listeners.clear()

    # -- pieces ------------------------------------------------------------------------

    def _listen(self, name: str, handle: Callable[[socket.socket], None]) -> Path:
        path = self.directory / f"{name}.sock"
        path.unlink(missing_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(64)
        self._listeners.append(listener)

        def serve() -> None:
            while True:
                try:
                    client, _ = listener.accept()
                except OSError:
                    return
                threading.Thread(target=handle, args=(client,), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        return path

    @staticmethod
    def _forward_one(client: socket.socket, host: str, port: int) -> None:
        try:
            upstream = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        splice(client, upstream)

    def _connect_one(self, client: socket.socket, allowed: frozenset[tuple[str, int]]) -> None:
        head = b""
        try:
            while b"\r\n\r\n" not in head and len(head) < MAX_HEAD:
                chunk = client.recv(1024)
                if not chunk:
                    client.close()
                    return
                head += chunk
        except OSError:
            client.close()
            return
        first = head.split(b"\r\n", 1)[0].decode("latin-1", "replace")
        parts = first.split()
        target = _parse_target(parts[1]) if len(parts) == 3 and parts[0] == "CONNECT" else None
        if target is None or target not in allowed:
            self.refused.append(first[:200])
            with contextlib.suppress(OSError):
                client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n"
                               b"Connection: close\r\n\r\n")
            client.close()
            return
        try:
            upstream = socket.create_connection(target, timeout=CONNECT_TIMEOUT_S)
        except OSError:
            with contextlib.suppress(OSError):
                client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            client.close()
            return
        upstream.settimeout(None)
        rest = head.split(b"\r\n\r\n", 1)[1]
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if rest:
            upstream.sendall(rest)
        splice(client, upstream)


def _parse_target(authority: str) -> tuple[str, int] | None:
    host, sep, port = authority.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]").lower(), int(port)
