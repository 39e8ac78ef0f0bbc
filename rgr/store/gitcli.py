"""git's CLI: every git command rgr runs is built here (:func:`argv`), and the daemon's ref
plumbing (update-ref, push, fetch, notes merge) runs through :class:`Git`.

The daemon uses git's own CLI, not libgit2, for everything that must be a
compare-and-swap: ``git update-ref <ref> <new> <old>`` and ``git push
--force-with-lease`` are checked atomically by git itself, and libgit2 updates some refs
without that check. Every call goes through rgr.base.proc (argv only, a timeout).
"""

from __future__ import annotations

import os

from rgr.base.errors import CommandError
from rgr.base.proc import Completed, run

TYPE_CHECKING = False  # typing's, without importing typing: `rgr history` builds argv here

if TYPE_CHECKING:  # `rgr history` builds its argv here: nothing heavy at import
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

#: No hook, no pager, no prompt for credentials: the daemon runs unattended.
_SAFE = ("-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat")
_NO_PAGER = ("-c", "core.pager=cat")


def argv(*args: str, user_hooks: bool = False) -> list[str]:
    """The argv of ``git args``, with no pager and no hook: rgr's own reads and writes must
    not run whatever a repository's hooks do. ``user_hooks``: a command rgr runs on the
    user's behalf in their own repository (a push of their branch) runs their hooks as
    their own push would."""
    return ["git", *(_NO_PAGER if user_hooks else _SAFE), *args]

GIT_TIMEOUT_S = 120.0

#: Blobs per cat-file call: job records are well under 1 KB each.
_BATCH = 2000


def git_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_NOTES_REF"):
        env.pop(name, None)
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


class Git:
    """git in one directory (a work tree or a git dir)."""

    __slots__ = ("cwd", "env")

    def __init__(self, cwd: Path, env: Mapping[str, str]) -> None:
        self.cwd = cwd
        self.env = env

    def run(self, *args: str, input: str | None = None,
            timeout: float = GIT_TIMEOUT_S,
            on_spawn: Callable[[int], None] | None = None) -> Completed:
        return run(argv(*args), cwd=self.cwd, timeout=timeout, env=self.env,
                   stdin_data=input, on_spawn=on_spawn)

    def out(self, *args: str, input: str | None = None) -> str:
        """stdout of a git command that must succeed (CommandError otherwise)."""
        done = self.run(*args, input=input)
        if done.returncode != 0 or done.timed_out:
            raise CommandError(f"git {args[0]} failed:\n{done.describe(1500)}")
        return done.stdout

    def ok(self, *args: str) -> bool:
        done = self.run(*args)
        return done.returncode == 0 and not done.timed_out

    def rev(self, spec: str) -> str | None:
        """The object id ``spec`` names, or None."""
        done = self.run("rev-parse", "-q", "--verify", spec)
        return done.stdout.strip() or None if done.returncode == 0 else None

    def write_blob(self, text: str) -> str:
        return self.out("hash-object", "-w", "--stdin", input=text).strip()

    def read_blobs(self, ids: Sequence[str]) -> dict[str, str]:
        """The contents of many blobs in one ``git cat-file --batch``."""
        found: dict[str, str] = {}
        # In chunks: rgr.base.proc keeps at most a few MB of a command's output.
        for start in range(0, len(ids), _BATCH):
            found.update(self._read_batch(ids[start:start + _BATCH]))
        return found

    def _read_batch(self, ids: Sequence[str]) -> dict[str, str]:
        done = run(argv("cat-file", "--batch"), cwd=self.cwd,
                   timeout=GIT_TIMEOUT_S, env=self.env,
                   stdin_data="".join(f"{i}\n" for i in ids))
        if done.returncode != 0:
            raise CommandError(f"git cat-file failed:\n{done.describe(1500)}")
        data = done.stdout.encode()
        found: dict[str, str] = {}
        pos = 0
        while pos < len(data):
            end = data.index(b"\n", pos)
            header = data[pos:end].decode().split()
            pos = end + 1
            if len(header) < 3 or header[1] == "missing":
                continue
            size = int(header[2])
            found[header[0]] = data[pos:pos + size].decode("utf-8", "replace")
            pos += size + 1
        return found

    def ref_blobs(self, prefix: str) -> dict[str, tuple[str, str]]:
        """refname -> (object id, content) under ``prefix``: one ``for-each-ref`` with
        ``%(raw)`` reads every ref and its blob (git >= 2.36), no second process."""
        found: dict[str, tuple[str, str]] = {}
        for pattern in (prefix,):
            done = self.run("for-each-ref", "--format=%(refname)%00%(objectname)%00%(raw)%00",
                            pattern)
            if done.returncode != 0 or "characters cut ..." in done.stdout:
                # An old git, or more than rgr.base.proc keeps of one output: per first digit.
                if pattern == prefix and done.returncode == 0 and prefix.endswith("/"):
                    for digit in "123456789":
                        found.update(self._ref_blobs_exact(f"{prefix}{digit}*"))
                    return found
                return self._ref_blobs_slow(prefix)
            found.update(_split_raw(done.stdout))
        return found

    def _ref_blobs_exact(self, pattern: str) -> dict[str, tuple[str, str]]:
        done = self.run("for-each-ref", "--format=%(refname)%00%(objectname)%00%(raw)%00",
                        pattern)
        if done.returncode != 0 or "characters cut ..." in done.stdout:
            return self._ref_blobs_slow(pattern)
        return _split_raw(done.stdout)

    def _ref_blobs_slow(self, pattern: str) -> dict[str, tuple[str, str]]:
        refs = self.refs(pattern)
        blobs = self.read_blobs(sorted(set(refs.values())))
        return {ref: (oid, blobs[oid]) for ref, oid in refs.items() if oid in blobs}

    def refs(self, *prefixes: str) -> dict[str, str]:
        """refname -> object id for every ref under ``prefixes``."""
        text = self.out("for-each-ref", "--format=%(objectname) %(refname)", *prefixes)
        pairs = (line.split(" ", 1) for line in text.splitlines() if line)
        return {name: oid for oid, name in pairs}


def _split_raw(text: str) -> dict[str, tuple[str, str]]:
    parts = text.split("\0")
    found: dict[str, tuple[str, str]] = {}
    for i in range(0, len(parts) - 2, 3):
        found[parts[i].lstrip("\n")] = (parts[i + 1], parts[i + 2])
    return found
