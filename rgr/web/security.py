"""What keeps `rgr serve` safe to leave open: hostile text cannot run, other sites
cannot act through the browser, other machines cannot read it without a token.

- Every page is rendered by Jinja2 with autoescaping on, and every response carries a
  strict Content-Security-Policy: scripts and styles only from rgr's own /static/
  files, no inline script or style, no plugin, no frame, forms posting only here. An
  agent's ``<script>`` in a feature, a test name or a summary is text twice over.
- A loopback server answers only requests whose Host is a loopback name: a web page
  cannot reach it through DNS rebinding.
- With ``--token`` (required for any bind other than loopback) every request must
  carry the token: once in the URL (``?token=``, turned into a SameSite=Strict cookie
  and a redirect that drops it from the address bar), then by cookie, or as
  ``Authorization: Bearer``.
- Actions (off unless ``--allow-actions``) are POSTs that must carry the per-process
  CSRF token the server put in its own forms, and, when the browser sends an Origin,
  come from this origin.
"""

from __future__ import annotations

import hmac
import ipaddress
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")

HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # no-referrer makes form posts Origin: null
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]

COOKIE = "rgr_serve_token"

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The host of a Host header, without its port (``[::1]:8765`` -> ``::1``)."""
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class Guard:
    """The ASGI middleware in front of every route: the Host check, the token, the
    security headers."""

    def __init__(self, app: ASGIApp, token: str | None, loopback_only: bool) -> None:
        self.app = app
        self.token = token
        self.loopback_only = loopback_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}

        started = time.perf_counter()

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                # Server-Timing: how long the server took (bench/serve_bench.py reads it).
                took = f"app;dur={(time.perf_counter() - started) * 1000:.1f}".encode()
                message["headers"] = [*message.get("headers", []), *HEADERS,
                                      (b"server-timing", took)]
            await send(message)

        if self.loopback_only and not is_loopback(host_name(headers.get("host", ""))):
            await _plain(secured, 421, "rgr serve answers only to a loopback Host "
                                       "(localhost, 127.0.0.1, [::1])")
            return
        if self.token is not None:
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if same(query.get("token"), self.token):
                rest = urlencode({k: v for k, v in query.items() if k != "token"})
                await _redirect(secured, scope["path"] + (f"?{rest}" if rest else ""),
                                self.token)
                return
            bearer = headers.get("authorization", "").removeprefix("Bearer ").strip()
            if not (same(_cookie(headers.get("cookie", "")), self.token)
                    or same(bearer or None, self.token)):
                await _plain(secured, 403, "this rgr serve needs its token: open the URL "
                                           "it printed (with ?token=...)")
                return
        await self.app(scope, receive, secured)


def _cookie(header: str) -> str | None:
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return None


async def _plain(send: Send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
    await send({"type": "http.response.body", "body": text.encode() + b"\n"})


async def _redirect(send: Send, location: str, token: str) -> None:
    cookie = f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", location.encode()),
                            (b"set-cookie", cookie.encode())]})
    await send({"type": "http.response.body", "body": b""})
