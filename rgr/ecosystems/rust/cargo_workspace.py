"""A cargo workspace as rgr needs it: which member crate a test target belongs to, and
the command that runs the crates a compile error left out.

cargo names a test target by its path inside its own crate (``Running tests/add.rs
(target/debug/deps/add-<hash>)``), so in a workspace two crates' ``src/lib.rs`` would
give one id; rgr prefixes the member's folder (``calc/tests/add.rs::adds``). And cargo
stops building every crate at the first one that does not compile: a RED's test of a
function not written yet in one crate would hide the tests of all the others, so rgr
runs them again without that crate (``--workspace --exclude <crate>``).

Read from the Cargo.toml files (no cargo command to run): ``[workspace] members`` (globs
allowed) minus ``exclude``, and each member's package, ``[lib]`` and ``[[bin]]`` names.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Member:
    #: Its folder relative to the workspace root, "" for a root package.
    folder: str
    package: str
    #: The names its test binaries can carry: its library's and its binaries'.
    binaries: frozenset[str]


@dataclass(frozen=True)
class Workspace:
    members: tuple[Member, ...]
    #: No ``[package]`` at the root: a plain ``cargo test`` tests every member.
    virtual: bool


def _toml(path: Path) -> dict[str, Any] | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def _member(root: Path, folder: str) -> Member | None:
    data = _toml(root / folder / "Cargo.toml")
    package = data.get("package") if data else None
    if data is None or not isinstance(package, dict) or not isinstance(package.get("name"), str):
        return None
    name: str = package["name"]
    lib = data.get("lib")
    names = {name.replace("-", "_"), name}
    if isinstance(lib, dict) and isinstance(lib.get("name"), str):
        names.add(lib["name"])
    for binary in data.get("bin") or []:
        if isinstance(binary, dict) and isinstance(binary.get("name"), str):
            names.add(binary["name"])
    return Member(folder, name, frozenset(names))


def workspace(root: Path) -> Workspace | None:
    """The workspace whose root manifest is ``root/Cargo.toml``, or None for a single
    crate (or a manifest rgr cannot read: then ids stay as cargo prints them)."""
    data = _toml(root / "Cargo.toml")
    table = data.get("workspace") if data else None
    if data is None or not isinstance(table, dict):
        return None
    excluded = {str(Path(e)) for e in table.get("exclude") or [] if isinstance(e, str)}
    folders: list[str] = [""] if isinstance(data.get("package"), dict) else []
    for pattern in table.get("members") or []:
        if not isinstance(pattern, str):
            continue
        for found in sorted(root.glob(pattern)):
            folder = found.relative_to(root).as_posix()
            if (found / "Cargo.toml").is_file() and folder not in excluded \
                    and folder not in folders:
                folders.append("" if folder == "." else folder)
    members = tuple(m for f in folders if (m := _member(root, f)) is not None)
    return Workspace(members, virtual="package" not in data) if members else None


def crate_folder(space: Workspace, root: Path, target: str, binary: str,
                 previous: str | None) -> str | None:
    """The folder of the member whose test target ``target`` (``tests/add.rs``) ran as
    ``binary`` (the file name cargo printed, ``add-<hash>``). When several members have
    such a file, the one whose library or binary carries that name; else ``previous``
    (cargo runs a crate's test targets one after the other); else None."""
    having = [m for m in space.members if (root / m.folder / target).is_file()]
    if len(having) == 1:
        return having[0].folder
    stem = binary.rsplit("-", 1)[0] if "-" in binary else binary
    named = [m for m in having if stem in m.binaries]
    if len(named) == 1:
        return named[0].folder
    return previous if previous in {m.folder for m in having} else None


_NOT_COMPILED = re.compile(r"^error: could not compile `([^`]+)`", re.MULTILINE)
#: Options that choose packages: with them the user chose what runs, rgr adds nothing.
_CHOOSING = frozenset({"-p", "--package", "--manifest-path"})


def rerun_without(space: Workspace, argv: tuple[str, ...], stderr: str) -> tuple[str, ...] | None:
    """The argv that runs the members ``argv`` left out because the crates cargo names in
    ``stderr`` (``could not compile `calc```) did not compile: ``argv`` with
    ``--workspace --exclude <crate>`` for each. None when no new crate broke, when the
    user's command chose its packages, or when a plain ``cargo test`` in a workspace with
    a root package runs only that package anyway."""
    words = set(argv)
    if any(w in _CHOOSING or w.startswith(("--package=", "-p", "--manifest-path="))
           for w in words):
        return None
    everything = space.virtual or bool({"--workspace", "--all"} & words)
    if not everything:
        return None
    cut = argv.index("--") if "--" in argv else len(argv)
    excluded = {argv[i + 1] for i in range(cut - 1) if argv[i] == "--exclude"}
    known = {m.package for m in space.members}
    broken = [name for name in dict.fromkeys(_NOT_COMPILED.findall(stderr))
              if name in known and name not in excluded]
    if not broken or len(excluded) + len(broken) >= len(known):
        return None
    extra = ([] if {"--workspace", "--all"} & words else ["--workspace"])
    for name in broken:
        extra += ["--exclude", name]
    return (*argv[:cut], *extra, *argv[cut:])
