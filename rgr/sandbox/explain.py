"""Why a command cannot run inside the sandbox, in terms a user can act on.

A sandboxed test run that cannot start says ``bwrap: execvp pytest: No such file or
directory`` or ``sh: 1: vitest: not found``; a generic "make sure the test command runs
pytest" sends the user the wrong way. This module reads such an output, finds the
missing program on the user's machine (PATH, the repository's virtualenvs and
``node_modules/.bin``, ``~/.local/bin``), and names the path, why the sandbox does not
show it, and the setting that would.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

from rgr.ecosystems import registry
from rgr.ecosystems.base import Diagnosis as Diagnosis
from rgr.sandbox.jail import install_root
from rgr.sandbox.toolchain import Toolchain, home_relative, masked_roots, user_homes

#: What shells, env and bubblewrap print for a program they cannot find.
_MISSING_PROGRAM = (
    re.compile(r"bwrap: execvp (?P<name>[^:\s]+): No such file or directory"),
    # run by root, the command starts through setpriv as the sandbox's own user
    re.compile(r"setpriv: failed to execute (?P<name>[^:\s]+): No such file or directory"),
    re.compile(r"(?:^|\n)(?:/bin/)?(?:sh|bash|dash|zsh)(?:: line \d+|: \d+)?: "
               r"(?P<name>[^:\s]+): (?:command )?not found"),
    re.compile(r"(?:^|\n)(?P<name>[^:\s]+): command not found"),
    re.compile(r"(?:^|\n)(?:/usr/bin/)?env: ['‘]?(?P<name>[^:'’\s]+)['’]?: No such file or "
               r"directory"),
)
_MISSING_SOURCE = re.compile(r"bwrap: Can't find source path (?P<path>\S+?):? No such file")


#: Where a test command is changed when nothing overrides tdd.toml.
TEST_SETTING = "test_command in tdd.toml"


def diagnose(output: str, argv: Iterable[str], toolchain: Toolchain, repo_root: Path,
             env: Mapping[str, str], detect_enabled: bool = True,
             test_setting: str = TEST_SETTING) -> Diagnosis | None:
    """The precise cause of a sandboxed command's failure to start, read from its
    ``output``; None when the output shows no such cause (a real test failure, say)."""
    own = registry.diagnose(output, toolchain.env)
    if own is not None:
        return own
    source = _MISSING_SOURCE.search(output)
    if source is not None:
        path = source.group("path")
        return Diagnosis(f"the sandbox cannot show {path}: it does not exist",
                         "correct or remove it in [sandbox] read_paths or share in tdd.toml")
    for pattern in _MISSING_PROGRAM:
        match = pattern.search(output)
        if match is None:
            continue
        name = match.groupdict().get("name") or next(iter(argv), "")
        return missing_program(name, toolchain, repo_root, env, detect_enabled,
                               test_setting)
    return None


def missing_program(name: str, toolchain: Toolchain, repo_root: Path,
                    env: Mapping[str, str], detect_enabled: bool = True,
                    test_setting: str = TEST_SETTING) -> Diagnosis:
    """``name`` was not found inside: where it is outside, and why it is not shown.
    ``test_setting`` is where the test command is changed (rgr.base.config.TestCommand:
    a TDD_TEST_COMMAND variable overrides tdd.toml)."""
    found = locate(name, repo_root, env)
    if found is None:
        return Diagnosis(
            f"{name} is not installed: the sandbox found no {name} on PATH, and neither "
            f"did rgr outside it (PATH, the repository's virtualenvs and node_modules/.bin, "
            f"~/.local/bin)",
            f"install {name} for this project (for example in its virtualenv or with its "
            f"package manager), or set {test_setting} to the command that runs the tests")
    where = home_relative(found, env)
    reason, fix = why_hidden(found, toolchain, repo_root, env, detect_enabled)
    return Diagnosis(f"{name} is at {where}, which the sandbox does not show: {reason}", fix)


def locate(name: str, repo_root: Path, env: Mapping[str, str]) -> Path | None:
    """Where ``name`` is on the user's machine: PATH first, then where projects keep
    their tools without putting them on PATH."""
    if "/" in name:
        path = Path(name) if os.path.isabs(name) else repo_root / name
        return path if path.exists() else None
    found = shutil.which(name, path=env.get("PATH"))
    if found is not None:
        return Path(found)
    home = user_homes(env)[0]
    places = [*(repo_root / v / "bin" for v in (".venv", "venv", "env")),
              repo_root / "node_modules" / ".bin", home / ".local" / "bin",
              home / ".cargo" / "bin"]
    for place in places:
        candidate = place / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def why_hidden(path: Path, toolchain: Toolchain, repo_root: Path, env: Mapping[str, str],
               detect_enabled: bool = True) -> tuple[str, str]:
    """Why the sandbox does not show ``path``, and the setting that would."""
    for skipped in toolchain.skipped:
        head, _, rest = skipped.partition(": ")
        if os.path.isabs(head) and path.is_relative_to(head):
            return rest, "remove it from [sandbox] hide_paths in tdd.toml"
    if path.is_relative_to(repo_root):
        rel = path.relative_to(repo_root)
        top = rel.parts[0]
        reason = (f"it is in the repository but not committed ({top} is ignored by git or "
                  "untracked), and agents and test runs work in a checkout of committed "
                  "files")
        if not detect_enabled:
            return (reason + "; [sandbox] detect = false turned off finding dependency "
                    "folders", f'set [sandbox] detect = true, or share = ["{top}"]')
        return reason, f'add it to [sandbox] share in tdd.toml: share = ["{top}"]'
    root = install_root(path)
    hidden_by = next((m for m in masked_roots(repo_root, env) if path.is_relative_to(m)),
                     None)
    what = ("your HOME" if hidden_by in user_homes(env) else
            "the repository's parent folder (its sibling projects)"
            if hidden_by == repo_root.parent else str(hidden_by))
    reason = (f"it is under {what}, which the sandbox hides" if hidden_by is not None
              else "it is outside what the sandbox shows")
    if not detect_enabled:
        reason += " ([sandbox] detect = false)"
    return reason, (f'show it read-only with [sandbox] read_paths = ["{home_relative(root, env)}"] '
                    "in tdd.toml (and pass_env for any variable it needs)")
