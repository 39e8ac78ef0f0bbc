"""One bubblewrap sandbox, as data, and the command line that builds it.

What a sandboxed process sees:
- the machine's filesystem read-only (``--ro-bind / /``), so compilers, interpreters
  and libraries work as they do outside;
- empty, private directories over every place that holds other people's or other
  projects' files: the homes, the temporary directories, the repository under work and
  its parent folder (its sibling projects), anything ``[sandbox] hide`` names;
- back on top of those, read-only, only what the command needs to run (the agent's and
  the test runner's installations, rgr's interpreter) and, writable, only the scratch
  copy it works in and its own HOME and temporary directory;
- no network at all (``--unshare-net``: a loopback of its own), except the loopback
  ports ``relay.py`` opens to rgr's bridge, or the host network where the user asked;
- its own user, pid, ipc, uts and cgroup namespaces, no capabilities, a new session
  (no typing into rgr's terminal), and death when rgr dies.

The user and mount namespaces make the read-only binds final: inside, even uid 0
cannot remount them writable (bubblewrap's own guarantee, checked by the tests).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

RELAY = Path(__file__).with_name("relay.py")
PRETOOL = Path(__file__).with_name("pretool.py")


@dataclass(frozen=True)
class Jail:
    bwrap: str
    #: Empty private directories over these (existing directories only).
    masked: tuple[Path, ...]
    #: Shown again read-only on top of the masks.
    readable: tuple[Path, ...]
    #: The only writable places (bound at their own paths).
    writable: tuple[Path, ...]
    #: Put back over everything before the writable places, however they were exposed
    #: (the repository under work, even inside a readable path the user named).
    masked_last: tuple[Path, ...] = ()
    #: Host network (True) or a private loopback (False).
    network: bool = False
    #: Inside loopback port -> outside unix socket, via relay.py.
    forwards: tuple[tuple[int, Path], ...] = ()
    #: Read-only binds from a host path to another path inside (shared dependency
    #: folders such as a virtualenv, shown inside a scratch checkout).
    mapped: tuple[tuple[Path, Path], ...] = field(default=())
    #: Read-only binds applied last, over everything: the working copy shown again at
    #: the repository's own path (rgr.sandbox.toolchain), with the folders mapped into it.
    aliased: tuple[tuple[Path, Path], ...] = field(default=())

    def wrap(self, argv: Sequence[str], cwd: Path | str) -> tuple[str, ...]:
        """The bubblewrap command line that runs ``argv`` in ``cwd`` inside this jail."""
        args = [self.bwrap, "--die-with-parent", "--new-session", "--unshare-user",
                "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
                "--cap-drop", "ALL"]
        if not self.network:
            args.append("--unshare-net")
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for path in _outermost(_existing_dirs(self.masked)):
            args += ["--tmpfs", str(path)]
        for path in _by_depth(p for p in self.readable if p.exists()):
            args += ["--ro-bind", str(path), str(path)]
        for path in _outermost(_existing_dirs(self.masked_last)):
            args += ["--tmpfs", str(path)]
        for path in _by_depth(self.writable):
            args += ["--bind", str(path), str(path)]
        for source, target in self.mapped:
            if source.exists():
                args += ["--ro-bind", str(source), str(target)]
        for source, target in self.aliased:
            args += ["--ro-bind", str(source), str(target)]
        # What was mapped at its own path inside the repository (the object store the
        # scratch copy borrows, the run's configuration snapshot) is shown again over
        # the working copy's alias at that path, which covered it.
        covered = [target for _, target in self.aliased]
        for source, target in self.mapped:
            if source.exists() and any(target.is_relative_to(c) for c in covered):
                args += ["--ro-bind", str(source), str(target)]
        args += ["--chdir", str(cwd), "--"]
        if self.forwards:
            # The relay runs on rgr's own interpreter, which the policy shows read-only.
            args += [sys.executable, "-I", "-S", str(RELAY)]
            for port, socket_path in self.forwards:
                args += ["--forward", f"{port}={socket_path}"]
            args.append("--")
        return (*args, *argv)


def _existing_dirs(paths: Iterable[Path]) -> list[Path]:
    return [p for p in paths if p.is_dir() and p != Path("/")]


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """Drop paths inside another one of the list (its tmpfs already hides them)."""
    unique = sorted({p.resolve() for p in paths}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(path.is_relative_to(k) for k in kept):
            kept.append(path)
    return kept


def _by_depth(paths: Iterable[Path]) -> list[Path]:
    """Parents before children, so a deeper bind is not hidden by a shallower one."""
    return sorted({p for p in paths}, key=lambda p: (len(p.parts), str(p)))


def install_root(path: Path) -> Path:
    """The folder an executable was installed as part of: its npm package for anything
    under ``node_modules``, the prefix for ``<prefix>/bin/x``, else its folder."""
    parts = path.parts
    if "node_modules" in parts:
        at = len(parts) - 1 - parts[::-1].index("node_modules")
        depth = 3 if at + 1 < len(parts) and parts[at + 1].startswith("@") else 2
        return Path(*parts[:at + depth])
    if path.parent.name in ("bin", "sbin"):
        return path.parent.parent
    return path.parent


def executable_roots(path: Path) -> list[Path]:
    """Install roots of ``path`` as named, of every link it leads through and as
    resolved (a venv's ``python`` is a link into the base interpreter; ``~/bin/claude``
    may lead through ``~/.npm-global/bin/claude``, a link in another hidden folder,
    which the kernel must find too), and of a ``#!`` interpreter it names."""
    roots = [install_root(path)]
    hop = path
    for _ in range(40):  # the kernel's own limit on links followed
        try:
            target = Path(os.readlink(hop))
        except OSError:
            break
        hop = target if target.is_absolute() else hop.parent / target
        roots.append(install_root(Path(os.path.normpath(hop))))
    real = path.resolve()
    if real != path:
        roots.append(install_root(real))
    interpreter = _shebang_interpreter(real)
    if interpreter is not None:
        roots += [install_root(interpreter), install_root(interpreter.resolve())]
    return roots


def _shebang_interpreter(path: Path) -> Path | None:
    try:
        with open(path, "rb") as handle:
            first = handle.readline(256)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:
        import shutil

        found = shutil.which(words[1])
        return Path(found) if found else None
    return Path(words[0])
