"""One bubblewrap sandbox, as data, and the command line that builds it.

What a sandboxed process sees (an allow-list, never ``--ro-bind / /``):
- the system folders read-only (:data:`SYSTEM_FOLDERS`), so compilers, interpreters and
  libraries work as they do outside, less what in ``/etc`` only its owner may read;
- empty, private directories at the places that hold other people's or other projects'
  files: the homes, the temporary directories, the repository under work and its
  parent folder (its sibling projects), anything ``[sandbox] hide`` names; nothing at
  all of the rest of the machine (/opt, /srv, /var, /mnt ...);
- on top of those, read-only, only what the command needs to run (each executable's own
  installation, never its prefix: :func:`install_root`; rgr's interpreter; the
  toolchain), less the secrets inside them (rgr.sandbox.secrets), and, writable, only
  the scratch copy it works in and its own HOME and temporary directory;
- no network at all (``--unshare-net``: a loopback of its own), except the loopback
  ports ``relay.py`` opens to rgr's bridge, or the host network where the user asked;
- its own pid, ipc, uts and cgroup namespaces, no capabilities, a new session (no
  typing into rgr's terminal), and death when rgr dies.

Run by a user, the sandbox has a user namespace of its own, which makes the read-only
binds final: inside, even uid 0 cannot remount them writable. Run by root, a user
namespace would leave the command root to every file's owner check (a 0600 file of
root's reads), so bubblewrap runs without one and the command runs as uid 65534 with no
capability (``setpriv``), its writable folders handed to that user for the command and
back after it (:meth:`Jail.release`).
"""

from __future__ import annotations

import functools
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

RELAY = Path(__file__).with_name("relay.py")
PRETOOL = Path(__file__).with_name("pretool.py")


#: The top-level folders every sandbox shows read-only: programs, libraries and the
#: machine's configuration (less its secrets, below). Everything else at the top (/home,
#: /root, /opt, /srv, /var, /mnt, /media, /run, /tmp ...) is absent unless a toolchain
#: of the run lives there, and then only that toolchain's own folder is shown.
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                  "/sys")
#: Writable by anyone inside, sticky, empty: the temporary folders programs expect.
SHARED_TMP = ("/tmp", "/var/tmp")
#: The uid and gid an agent or test run runs as when rgr runs as root: root inside
#: would still be root to the files' owners (a 0600 file of root's reads), so the
#: process is ``nobody`` to the kernel, and its writable folders are handed to it.
UNPRIVILEGED = (65534, 65534)


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
    #: (target, path): links made inside, as the executables' links are outside.
    links: tuple[tuple[str, Path], ...] = ()
    #: Covered again after the readable binds: secrets inside a shown folder
    #: (rgr.sandbox.secrets).
    secrets: tuple[Path, ...] = ()
    #: (uid, gid) the command runs as, when rgr runs as root (None: rgr's own user,
    #: mapped to root of a user namespace of its own).
    run_as: tuple[int, int] | None = field(
        default_factory=lambda: UNPRIVILEGED if os.geteuid() == 0 else None)
    #: Path -> (uid, gid) before the writable folders were handed to ``run_as``.
    _owners: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False,
                                                repr=False)

    def wrap(self, argv: Sequence[str], cwd: Path | str) -> tuple[str, ...]:
        """The bubblewrap command line that runs ``argv`` in ``cwd`` inside this jail
        (when it runs as another user, its writable folders are handed to that user:
        :meth:`release` takes them back)."""
        args = [self.bwrap, "--die-with-parent", "--new-session"]
        if self.run_as is None:
            args.append("--unshare-user")
        args += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
                 "--cap-drop", "ALL"]
        if self.run_as is not None:
            # Only to become the unprivileged user (setpriv, below): lost on the switch.
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        if not self.network:
            args.append("--unshare-net")
        args += [*system_binds(), "--dev", "/dev", "--proc", "/proc"]
        # bubblewrap makes the folders on the way to a mount point owner-only: each is
        # made first, open to all (0755), so an unprivileged user inside can pass.
        made: set[Path] = set()

        def way(path: Path) -> list[str]:
            out: list[str] = []
            for parent in reversed(path.parents[:-1]):
                if parent not in made and not in_system(parent):
                    made.add(parent)
                    out += ["--dir", str(parent)]
            return out

        for shared in SHARED_TMP:
            args += [*way(Path(shared)), "--perms", "1777", "--tmpfs", shared]
        for path in _outermost(_existing_dirs(self.masked)):
            if str(path) not in SHARED_TMP:
                args += [*way(path), "--tmpfs", str(path)]
        made.clear()  # folders made under a tmpfs mounted since are gone
        for path in _by_depth(p for p in self.readable if p.exists()):
            args += [*way(path), "--ro-bind", str(path), str(path)]
        shown = [p for p in self.readable if p.exists()]
        for link_target, link in self.links:
            if not any(link.is_relative_to(r) for r in shown):
                args += [*way(link), "--symlink", link_target, str(link)]
        for path in _by_depth(self.secrets):
            args += _cover(path)
        for path in _outermost(_existing_dirs(self.masked_last)):
            args += [*way(path), "--tmpfs", str(path)]
        made.clear()
        for path in _by_depth(self.writable):
            args += [*way(path), "--bind", str(path), str(path)]
        for source, target in self.mapped:
            if source.exists():
                args += [*way(target), "--ro-bind", str(source), str(target)]
        for source, target in self.aliased:
            args += [*way(target), "--ro-bind", str(source), str(target)]
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
        if self.run_as is None:
            return (*args, *argv)
        self._hand_over(self.run_as)
        uid, gid = self.run_as
        args += [_setpriv(), f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                 "--no-new-privs", "--inh-caps=-all", "--"]
        # bubblewrap makes the folders on the way to what it shows with rgr's umask:
        # under 022 they are open to the unprivileged user, whatever rgr's umask is.
        return ("/bin/sh", "-c", 'umask 022 && exec "$@"', "sh", *args, *argv)

    def release(self) -> None:
        """Take the writable folders back from the unprivileged user the command ran
        as: what was there before gets its owner back, what the command made becomes
        rgr's own user's (rgr's git and checks then read files of their own user)."""
        if self.run_as is None:
            return
        for path in self.writable:
            if not shared_folder(path):
                take_back(path, self.run_as[0], self._owners)
        self._owners.clear()

    def _hand_over(self, owner: tuple[int, int]) -> None:
        for path in self.writable:
            if not shared_folder(path):
                lend(path, owner, self._owners)


def lend(root: Path, owner: tuple[int, int], owners: dict[str, tuple[int, int]]) -> None:
    """``root`` and everything in it owned by ``owner``, each earlier owner kept in
    ``owners`` (:func:`take_back`)."""
    for path, st in _entries(root):
        if (st.st_uid, st.st_gid) != owner:
            owners.setdefault(path, (st.st_uid, st.st_gid))
            os.chown(path, *owner, follow_symlinks=False)


def take_back(root: Path, sandbox_uid: int, owners: dict[str, tuple[int, int]]) -> None:
    """What in ``root`` the sandbox's user owns, back to its owner before :func:`lend`
    (what the command made: to rgr's own user)."""
    mine = (os.geteuid(), os.getegid())
    for path, st in _entries(root):
        if st.st_uid == sandbox_uid:
            os.chown(path, *owners.get(path, mine), follow_symlinks=False)


def _entries(root: Path) -> list[tuple[str, os.stat_result]]:
    """``root`` and everything in it, links not followed, other filesystems left out;
    a file with another name elsewhere (a hard link) is left out too: the other name is
    not the sandbox's to give."""
    try:
        top = os.lstat(root)
    except OSError:
        return []
    found = [(str(root), top)]
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if st.st_dev == top.st_dev and (stat.S_ISDIR(st.st_mode) or st.st_nlink == 1):
                found.append((path, st))
    return found


def shared_folder(path: Path) -> bool:
    """A folder never handed to the sandbox's user, whatever a jail names writable: the
    root, the system and temporary folders, a HOME, anything one level below the
    top (the writable places rgr makes sit deeper, in folders of their own)."""
    resolved = Path(os.path.realpath(path))
    homes = {Path(os.path.expanduser("~")), Path("/root"), Path("/home")}
    return (len(resolved.parts) < 4 or in_system(resolved) or resolved in homes
            or any(str(resolved) == t for t in SHARED_TMP)
            or any(h.is_relative_to(resolved) for h in homes))


def _setpriv() -> str:
    """setpriv's path: from rgr's PATH, else where util-linux installs it (rgr may run
    with a PATH of the user's own that leaves /usr/bin out; bubblewrap looks the program
    up on that same PATH)."""
    import shutil

    found = shutil.which("setpriv")
    if found:
        return found
    for folder in ("/usr/bin", "/bin"):
        candidate = Path(folder) / "setpriv"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return "setpriv"


def _cover(path: Path) -> list[str]:
    if path.is_symlink():
        return []
    if path.is_dir():
        return ["--tmpfs", str(path)]
    return ["--ro-bind", "/dev/null", str(path)]


def in_system(path: Path) -> bool:
    """Inside one of the system folders every sandbox shows."""
    return any(path.is_relative_to(folder) for folder in SYSTEM_FOLDERS)


@functools.cache
def system_binds() -> tuple[str, ...]:
    """The bubblewrap arguments that show the system folders (a merged-usr link as the
    link it is), ``/etc`` less what only its owner may read (shadow, private keys, a
    0600 file of root's: covered, whoever rgr runs as), and the file a
    ``/etc/resolv.conf`` link leads to."""
    args: list[str] = []
    for name in SYSTEM_FOLDERS:
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    for path in owner_only("/etc"):
        args += _cover(Path(path))
    resolver = Path(os.path.realpath("/etc/resolv.conf"))
    if resolver.is_file() and not in_system(resolver):
        args += ["--ro-bind", str(resolver), str(resolver)]
    return tuple(args)


@functools.cache
def owner_only(top: str) -> tuple[str, ...]:
    """Files and folders under ``top`` that others may not read (their contents are
    not walked); once per process."""
    found: list[str] = []
    for folder, dirs, files in os.walk(top):
        for name in list(dirs):
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISLNK(st.st_mode) and st.st_mode & 0o005 != 0o005:
                found.append(path)
                dirs.remove(name)
        for name in files:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and not st.st_mode & 0o004:
                found.append(path)
    return tuple(found)


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


#: Parent folders whose entries are each one installed version of a tool (pyenv's and
#: nvm's ``versions``, rustup's ``toolchains``, asdf's and mise's ``installs``, sdkman's
#: ``candidates``, volta's ``image``, Homebrew's ``Cellar``, fnm's ``node-versions``,
#: ``~/sdk`` of Go's downloaded releases): one entry is one tool's own folder.
VERSION_FOLDERS = frozenset({"versions", "toolchains", "installs", "candidates", "image",
                             "Cellar", "node-versions", "sdk"})
#: Prefixes that belong to one tool manager whole (its ``bin`` holds shims that run
#: what it keeps beside them: volta's, asdf's): shown whole, less their secrets
#: (rgr.sandbox.secrets covers cargo's credentials.toml).
TOOL_PREFIXES = frozenset({".volta", ".nvm", ".asdf", ".pyenv", ".rustup", ".cargo", ".bun",
                           ".deno", ".sdkman", ".goenv", ".nodenv", ".rbenv", ".jenv",
                           "mise", "fnm", ".linuxbrew"})


def install_root(path: Path, home: Path | None = None) -> Path:
    """The folder an executable was installed as part of, never more: its npm package
    for anything under ``node_modules``; a version folder's entry (``versions/3.12``,
    ``toolchains/stable-...``, a native installer's ``versions/2.0.1`` file); the
    prefix of a virtualenv or of a Python installation (their ``bin`` needs ``lib``);
    else the file itself for ``<prefix>/bin/x`` (a prefix such as ``~/.local`` or HOME
    holds much more than the tool), or its folder. Never HOME nor a folder holding it."""
    parts = path.parts
    if "node_modules" in parts:
        at = len(parts) - 1 - parts[::-1].index("node_modules")
        depth = 3 if at + 1 < len(parts) and parts[at + 1].startswith("@") else 2
        return Path(*parts[:at + depth])
    for ancestor in [path, *path.parents][:6]:
        if ancestor.parent.name in VERSION_FOLDERS and ancestor.parent != ancestor:
            return _not_above(ancestor, path, home)
    if path.parent.name in ("bin", "sbin"):
        prefix = path.parent.parent
        if (prefix.name in TOOL_PREFIXES or (prefix / "pyvenv.cfg").is_file()
                or any(prefix.glob("lib/python3*/os.py"))):
            return _not_above(prefix, path, home)
        return path
    return _not_above(path.parent, path, home)


def _not_above(root: Path, path: Path, home: Path | None) -> Path:
    home = home or Path(os.path.expanduser("~"))
    return path if home == root or home.is_relative_to(root) else root


@dataclass(frozen=True)
class ExecutableView:
    """What a sandbox must show for one executable to start: the install roots of
    every file it leads to (read-only binds), and each link on the way (made again
    inside, as links, so a program that finds its files relative to its real path, as
    node does, finds them)."""

    roots: tuple[Path, ...]
    links: tuple[tuple[str, Path], ...]


def executable_view(path: Path, home: Path | None = None, _depth: int = 0) -> ExecutableView:
    """The view of ``path``: links in it followed (those in the system folders every
    sandbox shows are there already), the install root of where it resolves, and of a
    ``#!`` interpreter it names. Roots inside the system folders are left out."""
    links: list[tuple[str, Path]] = []
    real = _follow(Path(os.path.abspath(path)), links)
    roots = [install_root(real, home)]
    interpreter = _shebang_interpreter(real)
    if interpreter is not None and _depth < 3:
        inner = executable_view(interpreter, home, _depth + 1)
        roots += inner.roots
        links += inner.links
    return ExecutableView(
        tuple(dict.fromkeys(r for r in roots if not in_system(r))),
        tuple(dict.fromkeys((t, p) for t, p in links if not in_system(p))))


def executable_roots(path: Path) -> list[Path]:
    """The install roots of ``path`` (rgr.sandbox.explain, the tests)."""
    return list(executable_view(path).roots)


def _follow(path: Path, links: list[tuple[str, Path]]) -> Path:
    """``path`` with every link in it followed, each recorded as (target, link)."""
    for _ in range(40):  # the kernel's own limit on links followed
        current = Path(path.anchor)
        for part in path.parts[1:]:
            current = current / part
            try:
                target = os.readlink(current)
            except OSError:
                continue
            links.append((target, current))
            rest = path.relative_to(current)
            path = Path(os.path.normpath(current.parent / target / rest))
            break
        else:
            return path
    return path
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
