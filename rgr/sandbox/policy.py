"""What each kind of sandboxed process may see, built from ``[sandbox]`` in tdd.toml.

Two kinds, one policy:
- the **agent**: its scratch copy and its own HOME writable; the model API reachable
  through the bridge (the commands it runs share that: they can reach the model API
  and ``allow_hosts``, nothing else), or the host network with ``agent_network = "open"``;
- a **test run** (and refactor-mode gate commands): the pristine checkout and its own
  HOME writable; no network unless ``test_network = "open"``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rgr.base.errors import RgrError
from rgr.base.proc import run
from rgr.sandbox.jail import (
    RELAY,
    SYSTEM_FOLDERS,
    UNPRIVILEGED,
    Jail,
    executable_view,
    in_system,
    owner_only,
)
from rgr.sandbox.secrets import secrets_within
from rgr.sandbox.toolchain import Toolchain

INSTALL_HINT = ("install bubblewrap (`sudo apt-get install bubblewrap`, `dnf install "
                "bubblewrap`, `pacman -S bubblewrap`), or pass --no-sandbox to run agents "
                "and tests unconfined (not recommended)")

#: Variables every sandboxed process keeps; everything else is dropped unless the
#: backend or ``[sandbox] pass_env`` asks for it.
BASE_ENV = ("PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL",
            "SOURCE_DATE_EPOCH", "NO_COLOR", "FORCE_COLOR")
BASE_ENV_PREFIXES = ("LC_",)


class SandboxUnavailable(RgrError):
    """bubblewrap is missing or cannot create namespaces here."""

    category = "sandbox"


@dataclass(frozen=True)
class SandboxPolicy:
    bwrap: str = "bwrap"
    agent_network: str = "api"  # "api" or "open"
    test_network: str = "none"  # "none" or "open"
    allow_hosts: tuple[str, ...] = ()  # host:port the agent side may CONNECT to
    read_paths: tuple[Path, ...] = ()  # shown read-only inside (toolchains under HOME)
    hide_paths: tuple[Path, ...] = ()  # hidden besides the defaults
    pass_env: tuple[str, ...] = ()  # variable names (or PREFIX_*) kept in sandboxes
    #: The project's toolchain, found with no configuration (rgr.sandbox.toolchain).
    toolchain: Toolchain = field(default_factory=Toolchain)

    def probe(self) -> str:
        """bubblewrap's version once it has proven it can build a jail here; raises
        SandboxUnavailable naming the cause otherwise."""
        found = shutil.which(self.bwrap)
        if found is None:
            raise SandboxUnavailable(f"bubblewrap ({self.bwrap!r}) is not installed: rgr runs "
                                     "every agent and every test run inside it", INSTALL_HINT)
        version = run([found, "--version"], cwd="/", timeout=30).stdout.strip()
        jail = Jail(found, masked=(), readable=(), writable=())
        # `true` from the system folders every jail shows: a PATH of the user's may find
        # one first where no jail looks (under /tmp, say), and the probe would fail there.
        true = shutil.which("true", path="/usr/bin:/bin") or "true"
        done = run(jail.wrap([true], "/"), cwd="/", timeout=30)
        if done.returncode != 0 or done.timed_out:
            if "Can't mount proc" in done.stderr:
                # Inside a container: the kernel refuses a fresh /proc while the
                # runtime's masks cover parts of the outer one.
                raise SandboxUnavailable(
                    f"bubblewrap cannot create a sandbox here: {done.stderr.strip()} (this "
                    "looks like a container whose runtime masks parts of /proc)",
                    "run the container with /proc unmasked: podman --security-opt "
                    "'unmask=/proc/*', docker --security-opt systempaths=unconfined, "
                    "Kubernetes securityContext procMount: Unmasked (docs/daemon.md: \"A fleet\"); "
                    "or pass --no-sandbox and let the container alone confine the agents")
            raise SandboxUnavailable(
                f"bubblewrap cannot create a sandbox on this machine: {done.stderr.strip()} "
                "(user namespaces are off, or this is a container that forbids them)",
                "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 "
                "or, on Ubuntu 24.04+, an AppArmor profile for bwrap), run on a host that "
                "has them, or pass --no-sandbox (the scratch copy and the guards still apply)")
        return version or "bubblewrap"

    # -- the two kinds of jail ---------------------------------------------------------

    def agent_jail(self, *, repo_root: Path, work: Path, home: Path, tmp: Path,
                   executables: Iterable[Path], forwards: tuple[tuple[int, Path], ...],
                   shared: tuple[tuple[Path, Path], ...] = (),
                   extra_readable: Iterable[Path] = ()) -> Jail:
        network = self.agent_network == "open"
        readable, links = self._readable(executables)
        readable += [*extra_readable]
        if forwards and not network:
            readable += [RELAY.parent]
        return Jail(shutil.which(self.bwrap) or self.bwrap,
                    masked=self._masked(repo_root),
                    readable=tuple(readable),
                    links=links,
                    secrets=self._secrets(readable),
                    masked_last=(repo_root,),
                    writable=(work, home, tmp),
                    network=network,
                    forwards=() if network else forwards,
                    mapped=(*self.toolchain.shared_into(work), *shared),
                    aliased=self._aliased(work, shared))

    def test_jail(self, *, repo_root: Path, checkout: Path, home: Path, tmp: Path,
                  executables: Iterable[Path], shared: tuple[tuple[Path, Path], ...] = ()
                  ) -> Jail:
        readable, links = self._readable(executables)
        return Jail(shutil.which(self.bwrap) or self.bwrap,
                    masked=self._masked(repo_root),
                    readable=tuple(readable),
                    links=links,
                    secrets=self._secrets(readable),
                    masked_last=(repo_root,),
                    writable=(checkout, home, tmp),
                    network=self.test_network == "open",
                    mapped=(*self.toolchain.shared_into(checkout), *shared),
                    aliased=self._aliased(checkout))

    def _aliased(self, working_copy: Path, shared: tuple[tuple[Path, Path], ...] = ()
                 ) -> tuple[tuple[Path, Path], ...]:
        """The working copy again at the repository's path(s), and the dependency
        folders inside it again: bubblewrap binds from the host's view, where the
        folders mapped into the working copy are only empty mount points. What is
        mapped at its own path under the repository (the object store a scratch copy
        borrows, the configuration snapshot in its git dir) gets its mount point made in
        the working copy now: the alias is read-only, so bubblewrap could not make it."""
        pairs: list[tuple[Path, Path]] = []
        for alias in self.toolchain.aliases:
            if alias == working_copy:
                continue
            for _source, target in shared:
                if target.is_relative_to(alias):
                    (working_copy / target.relative_to(alias)).mkdir(parents=True,
                                                                     exist_ok=True)
            pairs.append((working_copy, alias))
            pairs += [(source, alias / target.relative_to(working_copy))
                      for source, target in self.toolchain.shared_into(working_copy)]
        return tuple(pairs)

    def _masked(self, repo_root: Path) -> tuple[Path, ...]:
        # The rest of the machine (/opt, /srv, /mnt, /run ...) is absent unless shown:
        # these are empty folders over what the allow-list shows (a repository under
        # /tmp) and at the homes, so what runs there does not trip over a missing HOME.
        homes = {Path(os.path.expanduser("~")), Path("/home"), Path("/root")}
        with contextlib.suppress(KeyError):
            homes.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
        parent = repo_root.parent
        return (*homes, Path("/tmp"), Path("/var/tmp"), repo_root,
                *((parent,) if parent != Path("/") else ()), *self.hide_paths)

    def _readable(self, executables: Iterable[Path]
                  ) -> tuple[list[Path], tuple[tuple[str, Path], ...]]:
        """What is shown read-only beyond the system folders (rgr's interpreter, the
        toolchain, ``read_paths``, each executable's own folders), and the links that
        lead to them."""
        roots = [Path(sys.base_prefix), Path(sys.prefix), *self.toolchain.read_paths,
                 *self.read_paths]
        links: list[tuple[str, Path]] = []
        home = _home()
        for executable in executables:
            view = executable_view(executable, home)
            roots += view.roots
            links += view.links
        kept = [r for r in dict.fromkeys(roots) if r != Path("/") and not in_system(r)]
        return kept, tuple(dict.fromkeys(links))

    def allow_list(self, executables: Mapping[str, Path]) -> list[tuple[str, str]]:
        """Everything a sandbox shows of this machine, as (path, why), in the order
        bubblewrap builds it (for `rgr doctor`): the system folders, what of them is
        covered, rgr's interpreter, the toolchain, ``read_paths``, each program's own
        installation, the secrets covered inside those, and whom the command runs as."""
        out = [(f, "a system folder, read-only") for f in SYSTEM_FOLDERS if os.path.lexists(f)]
        out += [(p, "hidden: only its owner may read it") for p in owner_only("/etc")]
        out += [(sys.base_prefix, "rgr's interpreter"), (sys.prefix, "rgr's installation")]
        out += [(str(s.path), s.why) for s in self.toolchain.shown if s.inside is None]
        out += [(str(p), "[sandbox] read_paths") for p in self.read_paths]
        home = _home()
        readable, _ = self._readable(executables.values())
        for name, path in executables.items():
            view = executable_view(path, home)
            out += [(str(r), f"{name}'s own installation ({path})") for r in view.roots]
            out += [(str(link), f"a link {name} leads through, made again inside")
                    for _, link in view.links
                    if not any(link.is_relative_to(r) for r in readable)]
        out += [(str(p), "hidden: it holds secrets (rgr.sandbox.secrets)")
                for p in self._secrets(readable)]
        out += [("(everything else)", "absent: the homes, /opt, /srv, /var, /mnt, /media, "
                 "/run, the repository's siblings")]
        if os.geteuid() == 0:
            uid, gid = UNPRIVILEGED
            out.append((f"uid {uid}, gid {gid}", "whom agents and test runs run as: rgr runs "
                        "as root, and root's own files (a 0600 file in /etc) must not read"))
        return [(p, why) for p, why in dict.fromkeys(out)
                if p == "(everything else)" or p.startswith("uid") or not (
                    why.startswith(("rgr's", "[sandbox]")) and in_system(Path(p)))]

    def shown_over(self, path: Path, executables: Iterable[Path]) -> Path | None:
        """The folder a sandbox with these ``executables`` shows that holds ``path``
        (the system folders, the toolchain, ``read_paths``, each executable's own
        folders), or None: ``path`` is out of every such sandbox's sight."""
        target = Path(os.path.realpath(path))
        readable, _ = self._readable(executables)
        for root in (*(Path(f) for f in SYSTEM_FOLDERS), *readable):
            for seen in dict.fromkeys((root, Path(os.path.realpath(root)))):
                if target == seen or target.is_relative_to(seen):
                    return root
        return None

    @staticmethod
    def _secrets(readable: Iterable[Path]) -> tuple[Path, ...]:
        return tuple(secrets_within(readable, _home()))

    # -- environment -------------------------------------------------------------------

    def environment(self, env: Mapping[str, str], *, home: Path, tmp: Path,
                    keep: Iterable[str] = ()) -> dict[str, str]:
        """``env`` scrubbed for a sandboxed process: the base variables, the ones
        ``keep`` and ``pass_env`` name (``NAME`` or ``PREFIX_*``), the toolchain's
        (which locate what the sandbox shows), HOME and TMPDIR."""
        wanted = [*keep, *self.pass_env]
        names = {w for w in wanted if not w.endswith("*")}
        prefixes = tuple(w[:-1] for w in wanted if w.endswith("*")) + BASE_ENV_PREFIXES
        out = {k: v for k, v in env.items()
               if k in BASE_ENV or k in names or k.startswith(prefixes)}
        out.update(self.toolchain.env)
        path = self.toolchain.path_value(out.get("PATH"))
        if path is not None:
            out["PATH"] = path
        out.update(HOME=str(home), TMPDIR=str(tmp), XDG_CONFIG_HOME=str(home / ".config"),
                   XDG_CACHE_HOME=str(home / ".cache"), XDG_DATA_HOME=str(home / ".local/share"),
                   XDG_STATE_HOME=str(home / ".local/state"))
        return out


def _home() -> Path:
    return Path(os.path.expanduser("~"))
