"""The bubblewrap jail, the relay inside it and the bridge outside: real bwrap, real
sockets, real processes. What a jailed process can reach is tested by trying."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rgr.base.proc import run
from rgr.sandbox.bridge import Bridge
from rgr.sandbox.jail import Jail, executable_roots, executable_view, install_root
from rgr.sandbox.policy import SandboxPolicy, SandboxUnavailable

PY = sys.executable


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    repo, work, home, tmp = (tmp_path / n for n in ("repo", "work", "home", "tmp"))
    for folder in (repo, work, home, tmp):
        folder.mkdir()
    (repo / "secret.txt").write_text("repo secret")
    return {"repo": repo, "work": work, "home": home, "tmp": tmp}


def _jail(places: dict[str, Path], **changes: object) -> Jail:
    policy = SandboxPolicy()
    jail = policy.agent_jail(repo_root=places["repo"], work=places["work"],
                             home=places["home"], tmp=places["tmp"],
                             executables=[Path(PY)], forwards=())
    return Jail(**{**jail.__dict__, **changes})  # type: ignore[arg-type]


def _python(jail: Jail, code: str, cwd: Path) -> tuple[int, str]:
    done = run([PY, "-c", code], cwd=cwd, timeout=30, launcher=jail)
    return done.returncode, done.stdout + done.stderr


def test_writes_land_only_in_the_writable_places(places: dict[str, Path]) -> None:
    jail = _jail(places)
    code, out = _python(jail, "open('inside.txt', 'w').write('ok')", places["work"])
    assert code == 0, out
    assert (places["work"] / "inside.txt").read_text() == "ok"
    for target in ("/etc/rgr-escape", f"{sys.prefix}/rgr-escape"):
        code, out = _python(jail, f"open({target!r}, 'w')", places["work"])
        assert code != 0 and "Read-only file system" in out, (target, out)
    assert not Path(sys.prefix, "rgr-escape").exists()


def test_the_repository_home_and_tmp_are_hidden(places: dict[str, Path],
                                                  tmp_path: Path) -> None:
    jail = _jail(places)
    code, out = _python(jail, f"print(open({str(places['repo'] / 'secret.txt')!r}).read())",
                        places["work"])
    assert code != 0 and "No such file" in out, out
    # a write there lands in a private empty folder, never in the real one
    _python(jail, f"open({str(places['repo'] / 'planted')!r}, 'w').write('x')", places["work"])
    assert not (places["repo"] / "planted").exists()
    sibling = tmp_path / "sibling-project"
    sibling.mkdir()
    code, out = _python(jail, f"import os; print(os.listdir({str(tmp_path)!r}))",
                        places["work"])
    assert "sibling-project" not in out, out


def test_no_capabilities_and_the_read_only_binds_cannot_be_remounted(
        places: dict[str, Path]) -> None:
    jail = _jail(places)
    done = run(["sh", "-c", "grep CapEff /proc/self/status; mount -o remount,rw /"],
               cwd=places["work"], timeout=30, launcher=jail)
    assert "CapEff:\t0000000000000000" in done.stdout, done.stdout
    assert done.returncode != 0


@pytest.fixture
def tcp_server() -> Iterator[tuple[int, list[bytes]]]:
    """A host-side TCP server on loopback that records what it receives."""
    seen: list[bytes] = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            seen.append(client.recv(100))
            client.sendall(b"pong")
            client.close()

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1], seen
    listener.close()


def test_no_network_by_default(places: dict[str, Path],
                               tcp_server: tuple[int, list[bytes]]) -> None:
    port, seen = tcp_server
    code, out = _python(_jail(places), "import socket; socket.create_connection("
                        f"('127.0.0.1', {port}), 3)", places["work"])
    assert code != 0 and "Connection refused" in out, out
    assert seen == []


def test_a_forward_reaches_one_loopback_port_through_the_bridge(
        places: dict[str, Path], tcp_server: tuple[int, list[bytes]], tmp_path: Path) -> None:
    port, seen = tcp_server
    control = Path(os.path.realpath(__import__("tempfile").mkdtemp(prefix="rgr-t-")))
    bridge = Bridge(control)
    try:
        sock = bridge.forward("api", "127.0.0.1", port)
        policy = SandboxPolicy()
        jail = policy.agent_jail(repo_root=places["repo"], work=places["work"],
                                 home=places["home"], tmp=places["tmp"],
                                 executables=[Path(PY)], forwards=((port, sock),),
                                 extra_readable=(control,))
        code, out = _python(jail, "import socket; s=socket.create_connection(('127.0.0.1', "
                            f"{port}), 3); s.sendall(b'ping'); print(s.recv(10))",
                            places["work"])
        assert code == 0 and "b'pong'" in out, out
        assert seen == [b"ping"]
    finally:
        bridge.close()


def test_the_proxy_tunnels_to_allowed_hosts_only(
        tcp_server: tuple[int, list[bytes]], tmp_path: Path) -> None:
    port, seen = tcp_server
    bridge = Bridge(tmp_path)
    try:
        path = bridge.proxy("proxy", frozenset({("127.0.0.1", port)}))
        for target, allowed in ((f"127.0.0.1:{port}", True), ("127.0.0.1:1", False),
                                (f"localhost:{port}", False)):
            client = socket.socket(socket.AF_UNIX)
            client.connect(str(path))
            client.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
            answer = client.recv(100)
            if allowed:
                assert answer.startswith(b"HTTP/1.1 200"), answer
                client.sendall(b"ping")
                assert client.recv(10) == b"pong"
            else:
                assert answer.startswith(b"HTTP/1.1 403"), answer
            client.close()
        assert seen == [b"ping"]
        assert bridge.refused == ["CONNECT 127.0.0.1:1 HTTP/1.1",
                                  f"CONNECT localhost:{port} HTTP/1.1"]
    finally:
        bridge.close()


def test_a_process_left_running_dies_with_the_jail(places: dict[str, Path]) -> None:
    marker = places["work"] / "late"
    jail = _jail(places)
    done = run(["sh", "-c", f"(sleep 2; touch {marker}) & exit 0"], cwd=places["work"],
               timeout=30, launcher=jail)
    assert done.returncode == 0
    time.sleep(3)
    assert not marker.exists()


def test_probe_names_bubblewrap_and_the_way_out_when_it_is_missing() -> None:
    assert SandboxPolicy().probe().startswith("bubblewrap")
    with pytest.raises(SandboxUnavailable) as caught:
        SandboxPolicy(bwrap="bwrap-not-installed-here").probe()
    assert "bubblewrap" in caught.value.message
    assert "apt-get install bubblewrap" in (caught.value.hint or "")
    assert "--no-sandbox" in (caught.value.hint or "")


def test_the_environment_keeps_only_what_is_named(tmp_path: Path) -> None:
    policy = SandboxPolicy(pass_env=("MY_TOOL_*", "EXTRA"))
    env = policy.environment(
        {"PATH": "/usr/bin", "LC_ALL": "C", "AWS_SECRET_ACCESS_KEY": "s", "GITHUB_TOKEN": "t",
         "ANTHROPIC_API_KEY": "k", "MY_TOOL_X": "1", "EXTRA": "2", "HOME": "/root"},
        home=tmp_path / "h", tmp=tmp_path / "t", keep=("ANTHROPIC_*",))
    assert env["PATH"] == "/usr/bin" and env["LC_ALL"] == "C"
    assert env["ANTHROPIC_API_KEY"] == "k" and env["MY_TOOL_X"] == "1" and env["EXTRA"] == "2"
    assert "AWS_SECRET_ACCESS_KEY" not in env and "GITHUB_TOKEN" not in env
    assert env["HOME"] == str(tmp_path / "h") and env["TMPDIR"] == str(tmp_path / "t")


@pytest.mark.parametrize(("path", "root"), [
    ("/opt/node/lib/node_modules/@anthropic-ai/claude-code/cli.js",
     "/opt/node/lib/node_modules/@anthropic-ai/claude-code"),
    ("/x/node_modules/vitest/vitest.mjs", "/x/node_modules/vitest"),
    ("/root/.pyenv/versions/3.11.7/bin/python3.11", "/root/.pyenv/versions/3.11.7"),
    ("/usr/local/go/pkg/tool/x", "/usr/local/go/pkg/tool"),
    # a prefix holds more than the tool: the file itself, never ~/.local or HOME
    ("/h/u/.local/bin/claude", "/h/u/.local/bin/claude"),
    ("/h/u/.local/share/claude/versions/2.1.197", "/h/u/.local/share/claude/versions/2.1.197"),
    ("/h/u/.rustup/toolchains/stable-x86_64/bin/cargo", "/h/u/.rustup/toolchains/stable-x86_64"),
    ("/h/u/.volta/bin/volta-shim", "/h/u/.volta"),
    ("/h/u/sdk/go1.22.0/bin/go", "/h/u/sdk/go1.22.0"),
])
def test_install_roots(path: str, root: str) -> None:
    assert install_root(Path(path)) == Path(root)


def test_every_link_an_executable_leads_through_is_shown(tmp_path: Path) -> None:
    """``~/bin/claude`` -> ``~/.npm-global/bin/claude`` -> the package: the middle link
    sits in another hidden folder, and without its folder inside the sandbox the kernel
    cannot follow the chain (it was found with claude linked from a checkout in /tmp)."""
    package = tmp_path / "prefix" / "lib" / "node_modules" / "pkg"
    (package / "bin").mkdir(parents=True)
    (package / "bin" / "tool.js").write_text("#!/bin/sh\n")
    middle = tmp_path / "prefix" / "bin" / "tool"
    middle.parent.mkdir()
    middle.symlink_to("../lib/node_modules/pkg/bin/tool.js")
    first = tmp_path / "home" / "bin" / "tool"
    first.parent.mkdir(parents=True)
    first.symlink_to(middle)
    view = executable_view(first, tmp_path / "home")
    assert view.roots == (package,)  # where it resolves, never a prefix it leads through
    # each link on the way, made again inside as the link it is
    assert (str(middle), first) in view.links
    assert ("../lib/node_modules/pkg/bin/tool.js", middle) in view.links
    assert executable_roots(first) == [package]
