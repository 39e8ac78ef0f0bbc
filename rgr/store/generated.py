"""Files the project's own build wrote into its source tree, which git ignores and a
pristine checkout therefore lacks: a hatch-vcs or setuptools-scm version file, compiled
translations, extension modules built in place. Without them the user's green suite
fails to import in every checkout rgr makes, so each one is copied, read-only, from the
user's working tree into every pristine checkout and scratch copy.

Each file is found by a named rule (``GeneratedFile.why``, which ``rgr doctor`` prints)
and none is ever one of ``DENIED``: secrets and local state stay out whatever a rule or
``[sandbox] show_generated`` says. Paths are resolved and must stay inside the work
tree; a symlink is never followed out of it, neither when reading the user's tree nor
when writing into a checkout (whose folders come from a commit an agent made).
"""

from __future__ import annotations

import fnmatch
import os
import re
import tomllib
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pygit2

from rgr.base.config import GlobSet
from rgr.ecosystems import registry

#: Never shown, whatever finds it: a path any of whose parts matches one of these
#: (case-insensitively) is secrets or local state, not build output. Environment files,
#: keys and certificates, credentials files and folders, virtualenvs, dependency
#: folders, caches, and git's own folder.
DENIED: tuple[str, ...] = (
    ".env", ".env.*", "*.env",                                 # environment files
    "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",  # keys, certificates
    # SSH keys by ssh-keygen's names (not ``id_*``: that is also Indonesian's locale
    # folder, ``locale/id_ID/``, whose compiled translation a suite may need)
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "id_xmss*",
    "credentials", "credentials.*", ".netrc", "_netrc", ".pypirc", ".npmrc", ".yarnrc.yml",
    ".aws", ".gcloud", ".azure", ".kube", ".ssh", ".gnupg",    # credentials folders
    ".venv", "venv", ".tox", ".nox", "node_modules",           # environments, dependencies
    "__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
    ".cache",                                                  # caches
    ".git",
)
#: Denied as a whole relative path (a part alone is too broad: ``.docker/`` may hold
#: Dockerfiles, its config.json holds registry logins).
DENIED_PATHS: tuple[str, ...] = ("*.docker/config.json", ".docker/config.json")

#: Folders not walked for ``show_generated`` globs (besides what DENIED names).
_NOT_WALKED = {".git"}


@dataclass(frozen=True)
class GeneratedFile:
    """One file copied into every checkout: ``path`` relative to the work tree (with
    ``/``), ``why`` the rule that found it. ``in_tracked_folder``: its folder holds
    tracked files, so a checkout without that folder is of a commit that removed it."""

    path: str
    why: str
    in_tracked_folder: bool = False

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "why": self.why}


def denied(path: str) -> bool:
    """Whether ``path`` (relative, ``/``-separated) is secrets or local state."""
    lowered = path.lower()
    parts = lowered.split("/")
    return (any(fnmatch.fnmatchcase(part, pattern) for part in parts for pattern in DENIED)
            or any(fnmatch.fnmatchcase(lowered, pattern) for pattern in DENIED_PATHS))


def find(repo: pygit2.Repository, root: Path, show: Iterable[str] = (),
         hide: Iterable[str] = ()) -> list[GeneratedFile]:
    """What the project's build generated into ``root`` (the work tree of ``repo``) and
    git ignores, by rule; ``show`` adds files matching its globs, ``hide`` removes them.
    Sorted by path, each path once (the first rule that found it)."""
    if repo.is_bare:
        return []
    tracked = {entry.path for entry in repo.index}
    folders = {path.rpartition("/")[0] for path in tracked}
    hidden = GlobSet(hide)
    found: dict[str, GeneratedFile] = {}
    candidates = [*_version_files(root), *_beside_tracked(tracked, root),
                  *_shown(root, tuple(show))]
    for candidate in candidates:
        path = candidate.path
        if (path in found or path in tracked or denied(path) or hidden.matches(path)
                or _in_virtualenv(root, path) or not _regular_inside(root, path)):
            continue
        # A version file, a .mo or a .so the user left untracked without ignoring it is
        # not build output rgr may vouch for; the user's own glob is their say.
        if candidate.why.startswith("[sandbox]") or repo.path_is_ignored(path):
            found[path] = GeneratedFile(path, candidate.why,
                                        path.rpartition("/")[0] in folders)
    return sorted(found.values(), key=lambda f: f.path)


def _version_files(root: Path) -> Iterator[GeneratedFile]:
    """The version file pyproject.toml tells its build backend to write."""
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return
    tool = _table(data, "tool")
    hatch = _table(tool, "hatch")
    hatch_vcs = _table(_table(_table(hatch, "build"), "hooks"), "vcs")
    raw = _table(_table(hatch, "version"), "raw-options")
    scm = _table(tool, "setuptools_scm")
    settings = [
        (hatch_vcs, "version-file", "[tool.hatch.build.hooks.vcs] version-file"),
        (raw, "version_file", "[tool.hatch.version.raw-options] version_file"),
        (raw, "write_to", "[tool.hatch.version.raw-options] write_to"),
        (scm, "version_file", "[tool.setuptools_scm] version_file"),
        (scm, "write_to", "[tool.setuptools_scm] write_to"),
    ]
    for table, key, setting in settings:
        value = table.get(key)
        if isinstance(value, str) and (path := _relative(value)) is not None:
            yield GeneratedFile(path, f"the version file pyproject.toml names ({setting})")


def _table(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _relative(value: str) -> str | None:
    """``value`` as a clean path inside the work tree, or None when it leaves it."""
    path = PurePosixPath(value.replace("\\", "/"))
    if not value or path.is_absolute() or ".." in path.parts:
        return None
    return str(path)


def _beside_tracked(tracked: set[str], root: Path) -> Iterator[GeneratedFile]:
    """Compiled translations next to a tracked ``.po``; extension modules in a folder
    that holds tracked sources of a language whose build leaves them in place
    (Language.built_in_place: a package, built in place)."""
    catalogs: set[str] = set()
    packages: dict[str, set[str]] = {}
    for path in tracked:
        folder, _, name = path.rpartition("/")
        if name.endswith(".po"):
            catalogs.add(folder)
        elif (language := registry.language_of(name)) is not None \
                and language.built_in_place:
            packages.setdefault(folder, set()).update(language.built_in_place)
    for folder in sorted(catalogs):
        for name in _file_names(root, folder):
            if name.endswith(".mo"):
                yield GeneratedFile(_join(folder, name),
                                    "a compiled translation next to a tracked .po")
    for folder in sorted(packages):
        for name in _file_names(root, folder):
            if name.endswith(tuple(sorted(packages[folder]))):
                yield GeneratedFile(_join(folder, name),
                                    "an extension module built in place in a tracked package")


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _file_names(root: Path, folder: str) -> list[str]:
    """The names of the entries of ``root / folder`` (nothing when it is missing)."""
    try:
        with os.scandir(root / folder) as entries:
            return sorted(entry.name for entry in entries)
    except OSError:
        return []


def _shown(root: Path, patterns: tuple[str, ...]) -> Iterator[GeneratedFile]:
    """Files matching ``[sandbox] show_generated``, walked from each glob's literal
    start (symlinked folders are not entered; denied folders are not walked)."""
    if not patterns:
        return
    for pattern in patterns:
        globs = GlobSet([pattern])
        start = _literal_start(pattern)
        top = root / start if start else root
        if not top.is_dir() or top.is_symlink():
            if globs.matches(start):
                yield GeneratedFile(start, f"[sandbox] show_generated {pattern!r}")
            continue
        for directory, folders, files in os.walk(top, followlinks=False):
            here = Path(directory).relative_to(root).as_posix()
            prefix = "" if here == "." else here + "/"
            folders[:] = [f for f in folders
                          if f not in _NOT_WALKED and not denied(prefix + f)]
            for name in files:
                if globs.matches(prefix + name):
                    yield GeneratedFile(prefix + name, f"[sandbox] show_generated {pattern!r}")


def _literal_start(pattern: str) -> str:
    """The folders at the start of ``pattern`` that hold no wildcard."""
    parts: list[str] = []
    for part in pattern.strip("/").split("/"):
        if any(c in part for c in "*?["):
            break
        parts.append(part)
    return "/".join(parts)


def _in_virtualenv(root: Path, path: str) -> bool:
    """Whether a folder on the way to ``path`` is a virtualenv (has a pyvenv.cfg)."""
    folder = root
    for part in path.split("/")[:-1]:
        folder = folder / part
        if (folder / "pyvenv.cfg").exists():
            return True
    return False


def _regular_inside(root: Path, path: str) -> bool:
    """Whether ``root / path`` resolves to a regular file inside ``root``."""
    try:
        resolved = (root / path).resolve(strict=True)
        inside = resolved.relative_to(root.resolve())
    except (OSError, ValueError, RuntimeError):
        return False
    return (resolved.is_file() and not denied(inside.as_posix())
            and not _in_virtualenv(root, inside.as_posix()))


def copy_into(root: Path, files: Iterable[GeneratedFile], checkout: Path) -> list[str]:
    """Copy ``files`` from the work tree ``root`` into ``checkout``, read-only; the
    paths copied. A file the checkout already has (the commit tracks it) is left as the
    commit has it; so is one whose folder there is a symlink or a file, or whose source
    is gone or leads outside ``root``. A missing folder is made, unless it is one of
    tracked files (the commit removed it: its build output goes with it)."""
    copied = []
    for item in files:
        folder = item.path.rpartition("/")[0]
        if item.in_tracked_folder and folder and not (checkout / folder).is_dir():
            continue
        if not _regular_inside(root, item.path):
            continue
        source = (root / item.path).resolve()
        with suppress(OSError):
            if _write_new(checkout, item.path, source):
                copied.append(item.path)
    return copied


def _write_new(checkout: Path, path: str, source: Path) -> bool:
    """Write ``source``'s bytes to ``checkout / path`` (mode 0444) only if nothing is
    there, walking its folders without following any symlink."""
    parts = path.split("/")
    directory = os.open(checkout, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for part in parts[:-1]:
            with suppress(FileExistsError):
                os.mkdir(part, 0o755, dir_fd=directory)
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW,
                            dir_fd=directory)
            os.close(directory)
            directory = inner
        try:
            target = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                             0o444, dir_fd=directory)
        except FileExistsError:
            return False  # the commit has it: the commit wins
        with os.fdopen(target, "wb") as out, source.open("rb") as src:
            while chunk := src.read(1 << 20):
                out.write(chunk)
            if os.fstat(src.fileno()).st_mode & 0o111:
                os.fchmod(out.fileno(), 0o555)  # an extension module may be executable
        return True
    finally:
        os.close(directory)


def exclude_in(git_dir: Path, files: Iterable[GeneratedFile]) -> None:
    """Name ``files`` in a scratch repository's ``info/exclude``: copied in, they are
    never the agent's to commit, whichever ignore file of the user's hid them."""
    _exclude(git_dir, [f"/{item.path}" for item in files],
             "generated files copied from the working tree")


def exclude_folders(git_dir: Path, folders: Iterable[str]) -> None:
    """Name ``folders`` (relative to the work tree) in a scratch repository's
    ``info/exclude``: the dependency folders the sandbox shows inside every copy (a
    ``.venv``, ``node_modules``). The user's clone may ignore them only in its own
    ``info/exclude`` or a global excludes file, which a scratch copy does not have:
    without this line an agent's ``git add -A`` commits the user's virtualenv."""
    # No trailing slash: with the sandbox off the folder is a symbolic link, which a
    # ``name/`` pattern does not match.
    _exclude(git_dir, [f"/{folder.strip('/')}" for folder in folders],
             "dependency folders shown from the user's working tree")


def _exclude(git_dir: Path, lines: list[str], why: str) -> None:
    if not lines:
        return
    info = git_dir / "info"
    info.mkdir(parents=True, exist_ok=True)
    exclude = info / "exclude"
    kept = (exclude.read_text(encoding="utf-8")
            if exclude.is_file() and not exclude.is_symlink() else "")
    exclude.unlink(missing_ok=True)
    exclude.write_text(kept + f"# rgr: {why}\n"
                       + "".join(f"{_escape(line)}\n" for line in lines), encoding="utf-8")


def _escape(line: str) -> str:
    """A path as a gitignore pattern that matches only itself."""
    out = []
    for char in line:
        if char in "*?[\\!#":
            out.append("\\")
        out.append(char)
    return "".join(out)


#: A path as a failure's text names it (a file a test opened, a module's source).
_PATH_WORD = re.compile(r"[\w.@+\-]*(?:/[\w.@+\-]+)+|[\w@+\-]+\.[A-Za-z]\w{0,9}")
#: Folders a build or a test run writes its output to: the runner's own output names
#: its reports and class files there, which are no evidence of a missing source.
_RUN_OUTPUT = frozenset({"target", "build", "dist", ".gradle", "coverage", ".nyc_output",
                         "htmlcov"})
#: Enough for a hint: names beyond this are not read.
_MAX_WORDS = 2000


def ignored_files_named(repo: pygit2.Repository, root: Path, text: str) -> list[str]:
    """Files of the user's work tree ``root`` that git ignores and ``text`` (failing
    tests' messages and output, load errors) names: a path (absolute in a checkout, or
    relative: any tail of it that is such a file counts) or a module a load error could
    not find. The evidence that a checkout lacks a file the user's build generated;
    without it, a red suite says nothing of generated files (a test's data file missing
    from the sources is no generated file). Secrets and local state are never named."""
    if repo.is_bare:
        return []
    tracked = {entry.path for entry in repo.index}
    candidates: list[str] = []
    for language in registry.LANGUAGES:  # a module a load error could not find
        if language.missing_files is not None:
            candidates += language.missing_files(text, lambda folder: _file_names(root, folder))
    for word in _PATH_WORD.findall(text)[:_MAX_WORDS]:
        candidates.append(_tail_words(word))
    named: dict[str, None] = {}
    for joined in candidates:
        for path in joined.split("\n"):
            if (path and path not in named and path not in tracked and not denied(path)
                    and not _RUN_OUTPUT.intersection(path.split("/")[:-1])
                    and _regular_inside(root, path) and repo.path_is_ignored(path)):
                named[path] = None
    return sorted(named)


def _tail_words(word: str) -> str:
    """Every tail of the path ``word`` (``/a/b/c.txt``: ``a/b/c.txt``, ``b/c.txt``,
    ``c.txt``), one a line: an absolute path in a checkout is a relative one in the
    user's tree."""
    parts = [p for p in word.split("/") if p and p not in (".", "..")]
    return "\n".join("/".join(parts[i:]) for i in range(len(parts)))
