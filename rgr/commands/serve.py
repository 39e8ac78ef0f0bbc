"""``rgr serve``: the queue, the runs and the history in a browser (rgr.web).

An optional extra (deploy/install.sh installs it; rgr.base.installed names the command
that adds it where rgr is installed otherwise): the web stack is
imported here, when the command runs, never by the rest of rgr. The port is bound before anything is
printed, so a port in use is a clear error rather than a traceback from the server;
the URL is printed and nothing is opened.
"""

from __future__ import annotations

import errno
import re
import socket
from typing import TYPE_CHECKING

from rgr.base.errors import RgrError
from rgr.base.installed import install_extra
from rgr.base.outcome import Outcome, Verbatim

if TYPE_CHECKING:
    from rgr.base.outcome import Say
    from rgr.store.workspace import Workspace

DEFAULT_PORT = 8765

#: The web extra's modules, checked before anything else is done.
EXTRA_MODULES = ("starlette", "uvicorn", "jinja2")


def install_hint() -> str:
    """rgr is installed from its clone (the README's pipx install), not from PyPI, where
    no rgr exists: `pipx install --force 'rgr[web]'` finds no distribution. Adding the
    three packages to the environment rgr runs in works (``pipx inject`` measured with
    pipx 1.18.4), named for the installer that made it."""
    return f"add it where rgr is installed: {install_extra('web')}"

#: A token goes in a URL and a cookie as it is: URL-safe characters, long enough.
TOKEN = re.compile(r"[A-Za-z0-9._~-]{16,}")


class ServeError(RgrError):
    """rgr serve cannot start as asked."""


def require_extra() -> None:
    """Import the web extra's modules (an import, not a lookup: a half-installed
    package is missing too), or say how to install them."""
    import importlib

    missing = []
    for name in EXTRA_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise ServeError(f"rgr serve needs the web extra, and {', '.join(missing)} "
                         f"{'is' if len(missing) == 1 else 'are'} not installed",
                         install_hint())


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: any free port)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ServeError(f"cannot bind to {host!r}: {exc.strerror}",
                         "give --host an address of this machine (default 127.0.0.1)") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(f"port {port} on {host} is already in use (another rgr serve, "
                             "or another program)",
                             "pick another with --port N, or --port 0 for any free one") from None
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror}",
                         "pick another --host or --port") from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, token: str | None) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def run(ws: Workspace, host: str, port: int, allow_actions: bool, token: str | None,
        remote: str | None, say: Say) -> Outcome[None]:
    """Serve until stopped; the address is said (``say``) once the port is bound."""
    require_extra()
    from rgr.web.security import is_loopback

    loopback = is_loopback(host)
    if token is not None and not TOKEN.fullmatch(token):
        raise ServeError("--token must be at least 16 letters, digits or ._~- characters",
                         "for example: --token \"$(python3 -c 'import secrets; "
                         "print(secrets.token_urlsafe(24))')\"")
    if not loopback and token is None:
        raise ServeError(f"--host {host} lets other machines reach this server: rgr serve "
                         "requires a token there",
                         "pass --token <secret> (every request must then carry it), or "
                         "bind the default 127.0.0.1")
    if remote is not None and remote not in {r.name for r in ws.repo.remotes}:
        raise ServeError(f"there is no remote named {remote!r} in this repository",
                         f"add it with `git remote add {remote} <url>`")
    sock = bind(host, port)
    import uvicorn

    from rgr.web.app import ServeState, create_app

    state = ServeState(ws, remote=remote, allow_actions=allow_actions, token=token,
                       loopback_only=loopback)
    say(Verbatim(f"rgr serve: {url_of(sock, token)}\n"
                 f"  {ws.root}, {'actions on' if allow_actions else 'read-only'}"
                 + (f", queue of {remote}" if remote else "") + "; Ctrl-C stops it"))
    config = uvicorn.Config(create_app(state), log_level="warning", access_log=False,
                            lifespan="off", server_header=False)
    uvicorn.Server(config).run(sockets=[sock])
    return Outcome()
