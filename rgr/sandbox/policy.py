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
from rgr.sandbox.jail import RELAY, Jail, executable_roots
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
        done = run(jail.wrap(["true"], "/"), cwd="/", timeout=30)
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
        readable = [*self._readable(executables), *extra_readable]
        if forwards and not network:
            readable += [RELAY.parent]
        return Jail(shutil.which(self.bwrap) or self.bwrap,
                    masked=self._masked(repo_root),
                    readable=tuple(readable),
                    masked_last=(repo_root,),
                    writable=(work, home, tmp),
                    network=network,
                    forwards=() if network else forwards,
                    mapped=(*self.toolchain.shared_into(work), *shared),
                    aliased=self._aliased(work, shared))

    def test_jail(self, *, repo_root: Path, checkout: Path, home: Path, tmp: Path,
                  executables: Iterable[Path], shared: tuple[tuple[Path, Path], ...] = ()
                  ) -> Jail:
        return Jail(shutil.which(self.bwrap) or self.bwrap,
                    masked=self._masked(repo_root),
                    readable=tuple(self._readable(executables)),
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
        homes = {Path(os.path.expanduser("~")), Path("/home"), Path("/root")}
        with contextlib.suppress(KeyError):
            homes.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
        parent = repo_root.parent
        return (*homes, Path("/tmp"), Path("/var/tmp"), Path("/run/user"), Path("/mnt"),
                Path("/media"), Path("/srv"), repo_root,
                *((parent,) if parent != Path("/") else ()), *self.hide_paths)

    def _readable(self, executables: Iterable[Path]) -> list[Path]:
        roots = [Path(sys.base_prefix), Path(sys.prefix), *self.toolchain.read_paths,
                 *self.read_paths]
        for executable in executables:
            roots += executable_roots(executable)
        return [r for r in roots if r != Path("/")]

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
