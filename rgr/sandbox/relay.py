"""Runs inside the sandbox, in front of the agent: loopback ports that lead out.

The agent's sandbox has a network namespace of its own with nothing but loopback, so
neither the agent nor any command it starts can reach a network. The model API must
stay reachable, so rgr (outside) listens on unix sockets that it binds into the
sandbox, and this script (inside) listens on ``127.0.0.1:<port>`` and copies each
connection to its socket. rgr decides on the outside where a socket leads: to the one
loopback address of a local API server, or to an allow-listed HTTPS CONNECT proxy.

It is started as ``python -I -S relay.py --forward PORT=SOCKET ... -- ARGV``: the
standard library only (it must not import rgr, whose files may not even be visible),
then the agent is started as its child, signals are passed on, and the child's exit
status becomes this process's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading


def pipe(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until either closes, then shut both (rgr's bridge,
    outside, uses the same two functions)."""
    try:
        while True:
            chunk = source.recv(65536)
            if not chunk:
                break
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for sock in (sink, source):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def _serve(listener: socket.socket, unix_path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(unix_path)
        except OSError:
            client.close()
            upstream.close()
            continue
        splice(client, upstream)


def splice(a: socket.socket, b: socket.socket) -> None:
    """Copy both ways between ``a`` and ``b``, each direction in a thread of its own."""
    for x, y in ((a, b), (b, a)):
        threading.Thread(target=pipe, args=(x, y), daemon=True).start()


def main(args: list[str]) -> int:
    if "--" not in args:
        print("usage: relay.py [--forward PORT=SOCKET]... -- ARGV", file=sys.stderr)
        return 2
    split = args.index("--")
    options, argv = args[:split], args[split + 1:]
    forwards: list[tuple[int, str]] = []
    while options:
        flag, value = options[0], options[1] if len(options) > 1 else ""
        options = options[2:]
        if flag != "--forward":
            print(f"relay.py: unknown option {flag}", file=sys.stderr)
            return 2
        number, _, socket_path = value.partition("=")
        forwards.append((int(number), socket_path))
    for port, path in forwards:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    child = subprocess.Popen(argv)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda number, _frame: child.send_signal(number))
    code = child.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv[1:]))
