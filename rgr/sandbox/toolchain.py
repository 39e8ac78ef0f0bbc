"""What of the user's machine a sandboxed process needs to see: the project's toolchain.

The sandbox hides the user's HOME and the repository. Real projects keep their
toolchains exactly there: a virtualenv inside the repository (ignored by git), pyenv,
nvm, rustup or sdkman under HOME, Go's module cache in ``~/go``, Maven's in ``~/.m2``,
``node_modules`` beside ``package.json``. Without them no test command starts. This
module finds them, with no configuration, and says for each why it is shown:

- **dependency folders of the repository** (``.venv``, ``venv``, any folder holding a
  ``pyvenv.cfg``, ``node_modules`` at the top and in workspace packages, an ignored
  ``vendor``, and ``[sandbox] share``) are mapped read-only into every working copy
  (scratch copy, pristine checkout) at the same relative path;
- **the working copy itself** is shown read-only at the repository's own path too (and
  at the path of the repository the dependencies came from, for a daemon's job clone),
  so the absolute paths a virtualenv recorded (its scripts' ``#!`` lines, an editable
  install's ``.pth``) lead into the commit under test, never to the user's working tree;
- **toolchain homes** (the active virtualenv and its base interpreter, pyenv, asdf,
  mise, nvm, volta, fnm, rustup, cargo, goenv, ``GOROOT``, sdkman, ``JAVA_HOME``, a
  poetry virtualenv kept outside the project) and **caches the run reads** (Go's module
  cache, ``~/.m2``, Gradle's dependency cache) are shown read-only at their own paths,
  with the variables that locate them (the sandbox's HOME is a throwaway one, so a tool
  that looks under ``$HOME`` would look in the wrong place);
- **small files under HOME that choose a version** (``~/.tool-versions``, mise's
  global config) are copied into the sandbox's HOME.

Nothing shown is writable: bubblewrap binds every one read-only. An install into the
shared virtualenv or an edit under ``node_modules`` fails inside and leaves the user's
copy as it was.

Detection reads a few directory entries and environment variables and starts no
process: it runs once per run, and its result is the same for every sandbox of the run.
"""

from __future__ import annotations

import base64
import hashlib
import os
import pwd
import re
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from rgr.ecosystems import registry
from rgr.ecosystems.base import Ecosystem, ToolHome
from rgr.ecosystems.python import virtualenvs
from rgr.sandbox import user_config

#: Environment variable a daemon worker sets for the ``rgr`` it runs in a job clone: the
#: working tree whose dependency folders the job's working copies share (the job clone
#: has none of its own: ``node_modules`` and ``.venv`` are never committed).
DEPENDENCIES_FROM_VAR = "RGR_DEPENDENCIES_FROM"

#: Folders at the top of a repository that are dependency folders when present.
DEPENDENCY_FOLDERS = (".venv", "venv", "node_modules")
#: Folders that are dependency folders only when git ignores them (Go keeps ``vendor``
#: committed; PHP's Composer and Ruby's Bundler keep theirs ignored).
IGNORED_DEPENDENCY_FOLDERS = ("vendor",)
#: Never looked into for nested dependency folders: big, or not the project's.
_NOT_SCANNED = frozenset({".git", "node_modules", "target", "build", "dist", ".tox", ".nox",
                          "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})


@dataclass(frozen=True)
class Shown:
    """One path the sandbox shows read-only, and why."""

    path: Path
    why: str
    #: For a dependency folder of the repository: its path relative to the working
    #: copy, where it is also mapped inside every scratch copy and pristine checkout.
    inside: str | None = None

    def as_dict(self) -> dict[str, str]:
        out = {"path": str(self.path), "why": self.why}
        if self.inside is not None:
            out["inside"] = self.inside
        return out


@dataclass(frozen=True)
class Toolchain:
    """Everything the sandbox shows of the user's machine beyond its own files."""

    shown: tuple[Shown, ...] = ()
    #: Variables that locate what is shown (PYENV_ROOT, RUSTUP_HOME, GOMODCACHE, ...).
    env: Mapping[str, str] = field(default_factory=dict)
    #: bin folders put ahead of PATH inside: a project virtualenv nobody activated.
    path_prefix: tuple[Path, ...] = ()
    #: Where the working copy is also shown read-only (the repository's own path).
    aliases: tuple[Path, ...] = ()
    #: Files under HOME copied into the sandbox's HOME: (source, path relative to HOME).
    home_files: tuple[tuple[Path, str], ...] = ()
    #: What was found and deliberately not shown, with the reason.
    skipped: tuple[str, ...] = ()

    @property
    def read_paths(self) -> tuple[Path, ...]:
        """Shown read-only at their own path (outside any working copy)."""
        return tuple(s.path for s in self.shown if s.inside is None)

    @property
    def dependency_folders(self) -> tuple[Shown, ...]:
        return tuple(s for s in self.shown if s.inside is not None)

    def path_value(self, path: str | None) -> str | None:
        """``PATH`` as sandboxed processes get it: the prefix, then the user's."""
        if not self.path_prefix:
            return path
        return os.pathsep.join([*(str(p) for p in self.path_prefix), *([path] if path else [])])

    def shared_into(self, working_copy: Path) -> tuple[tuple[Path, Path], ...]:
        """(source, target) read-only binds of the dependency folders into
        ``working_copy``, for the folders the working copy does not have itself (a
        committed ``vendor`` is the commit's own)."""
        pairs = []
        for dep in self.dependency_folders:
            assert dep.inside is not None
            target = working_copy / dep.inside
            if not target.exists() and not target.is_symlink():
                pairs.append((dep.path, target))
        return tuple(pairs)

    def record(self) -> dict[str, object]:
        """What a run folder and a start note keep of it: paths, reasons, and only the
        names of the variables (a passed GOPROXY or MAVEN_OPTS can hold credentials)."""
        return {
            "shown": [s.as_dict() for s in self.shown],
            "env": sorted(self.env),
            "pathPrefix": [str(p) for p in self.path_prefix],
            "aliases": [str(p) for p in self.aliases],
            "homeFiles": [rel for _, rel in self.home_files],
            "skipped": list(self.skipped),
        }


#: Version managers every ecosystem may use. Each is shown read-only when its folder
#: exists, and its variable is set inside to that folder (the sandbox's HOME is another
#: one); each ecosystem's own homes (rgr.ecosystems) only when the project uses it.
SHARED_TOOL_HOMES = (
    ToolHome("asdf", "ASDF_DATA_DIR", ".asdf", ("ASDF_DIR",)),
    ToolHome("mise", "MISE_DATA_DIR", ".local/share/mise", ("MISE_ENV",)),
    ToolHome("mise", "MISE_CONFIG_DIR", ".config/mise"),
)
TOOL_HOMES = (*SHARED_TOOL_HOMES, *registry.tool_homes())

#: Files under HOME that choose a toolchain version, copied into the sandbox's HOME.
VERSION_FILES = (".tool-versions", ".python-version", ".node-version", ".nvmrc",
                 ".ruby-version", ".java-version")


def detect(repo_root: Path, env: Mapping[str, str], *, share: Sequence[str] = (),
           hide: Iterable[Path] = (), enabled: bool = True,
           ignored: Iterable[str] | None = None,
           tracked: Iterable[str] = (), origin_tracked: Iterable[str] = (),
           ecosystems: Sequence[Ecosystem] | None = None) -> Toolchain:
    """What the sandbox must show for ``repo_root``'s tools to run, given the user's
    environment ``env``. ``share`` names more dependency folders (``[sandbox] share``),
    ``hide`` paths never to show (``[sandbox] hide_paths``), ``enabled`` False turns
    detection off (``[sandbox] detect = false``: only ``share`` is mapped). ``ignored``
    is git's list of ignored top-level names, when the caller has it; ``tracked`` the
    folders that hold tracked files: never an environment (an agent's commit could
    plant a ``pyvenv.cfg`` and a ``bin/pytest`` to be put first on PATH), in the
    repository and in the tree a daemon job came from (``origin_tracked``).
    ``ecosystems``: those the project uses (rgr.ecosystems.registry.ecosystems_used):
    only their toolchain homes and caches are shown (Maven's ``~/.m2`` to a JVM
    project, Go's module cache to a Go one); None, or none recognised: every one."""
    found = _Finder(repo_root, env, tuple(hide), frozenset(tracked),
                    frozenset(origin_tracked))
    origin = _dependencies_origin(repo_root, env)
    found.dependency_folders(origin, share, enabled, set(ignored or ()))
    if enabled:
        found.virtualenv(env)
        used = tuple(ecosystems) if ecosystems else tuple(registry.ECOSYSTEMS)
        # Asked, and none recognised: each is shown, saying so.
        every = ecosystems is not None and not ecosystems
        found.asked = ecosystems is not None
        found.tool_homes(env, used, every)
        found.caches(env, used, every)
        found.version_files()
        found.config_files(used)
    # The alias is for what recorded the repository's path (a venv's scripts and .pth,
    # node_modules' links): without such a folder nothing needs it, and agents then see
    # the repository's path as the sandbox's other hidden places, an empty folder.
    needs_alias = bool(found.dependency_folders_shown() or found.virtualenv_shown)
    aliases = tuple(dict.fromkeys(p for p in (repo_root, origin) if p is not None)
                    ) if needs_alias else ()
    return Toolchain(shown=tuple(found.shown), env=found.env,
                     path_prefix=tuple(found.path_prefix), aliases=aliases,
                     home_files=tuple(found.home_files), skipped=tuple(found.skipped))


def dependencies_origin(repo_root: Path, env: Mapping[str, str]) -> Path | None:
    """The working tree a daemon job's clone borrows dependency folders from, if any."""
    return _dependencies_origin(repo_root, env)


def _dependencies_origin(repo_root: Path, env: Mapping[str, str]) -> Path | None:
    value = env.get(DEPENDENCIES_FROM_VAR, "")
    if not value or not os.path.isabs(value):
        return None
    origin = Path(value)
    return origin if origin.is_dir() and origin != repo_root else None


def user_homes(env: Mapping[str, str]) -> list[Path]:
    """``$HOME`` and the password database's home (Java's ``user.home`` is the latter)."""
    homes = [Path(env.get("HOME") or os.path.expanduser("~"))]
    with suppress(KeyError):
        homes.append(Path(pwd.getpwuid(os.getuid()).pw_dir))
    return list(dict.fromkeys(homes))


def home_relative(path: Path | str, env: Mapping[str, str]) -> str:
    """``path`` as a person reads it: ``~/...`` under ``$HOME``."""
    home = user_homes(env)[0]
    path = Path(path)
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


class _Finder:
    def __init__(self, repo_root: Path, env: Mapping[str, str], hide: tuple[Path, ...],
                 tracked: frozenset[str] = frozenset(),
                 origin_tracked: frozenset[str] = frozenset()):
        self.repo_root = repo_root
        self.tracked = tracked
        self.origin_tracked = origin_tracked
        self.env_in = env
        self.home = user_homes(env)[0]
        self.hide = tuple(p if p.is_absolute() else repo_root / p for p in hide)
        self.masked = masked_roots(repo_root, env)
        self.shown: list[Shown] = []
        self.env: dict[str, str] = {}
        self.path_prefix: list[Path] = []
        self.home_files: list[tuple[Path, str]] = []
        self.skipped: list[str] = []
        #: An active or poetry virtualenv outside the repository is shown: its editable
        #: installs may name the repository's path.
        self.virtualenv_shown = False
        #: Whether the caller said which ecosystems the project uses (else: all).
        self.asked = False

    def dependency_folders_shown(self) -> bool:
        return any(s.inside is not None for s in self.shown)

    # -- recording ---------------------------------------------------------------------

    def hidden(self, path: Path) -> bool:
        """Would the sandbox hide ``path`` unless shown? (/usr, /opt are visible.)"""
        return any(path == m or path.is_relative_to(m) for m in self.masked)

    def show(self, path: Path, why: str, inside: str | None = None) -> bool:
        if not path.is_dir() and not path.is_file():
            return False
        for hidden in self.hide:
            if path == hidden or path.is_relative_to(hidden):
                self.skipped.append(f"{path}: {why}, not shown: [sandbox] hide_paths "
                                    f"names {hidden}")
                return False
        if path == Path("/") or any(s.path == path and s.inside == inside
                                    for s in self.shown):
            return True
        self.shown.append(Shown(path, why, inside))
        return True

    # -- the repository's dependency folders -------------------------------------------

    def dependency_folders(self, origin: Path | None, share: Sequence[str], enabled: bool,
                           ignored: set[str]) -> None:
        """Folders of the working tree that every working copy gets read-only at the
        same relative path; a daemon job's clone that has none of its own (no setup ran
        there) borrows those of ``origin``, the tree the job came from."""
        trees = [self.repo_root, *((origin,) if origin else ())]
        names: dict[str, str] = {}
        for name in share:
            names[name] = "[sandbox] share"
        if enabled:
            for name in DEPENDENCY_FOLDERS:
                names.setdefault(name, "a dependency folder")
            for name in IGNORED_DEPENDENCY_FOLDERS:
                if name in ignored:
                    names.setdefault(name, "a dependency folder ignored by git")
            for tree in trees:
                for rel in _nested_dependency_folders(tree):
                    names.setdefault(rel, "a dependency folder")
        venvs: list[tuple[Path, Path]] = []
        for rel, why in names.items():
            tree = next((t for t in trees if (t / rel).is_dir()), None)
            if tree is None:
                continue
            source = tree / rel
            if source.is_symlink():
                continue
            if rel in (self.tracked if tree == self.repo_root else self.origin_tracked):
                self.skipped.append(f"{source}: holds files git tracks: part of the "
                                    "commit, not an environment, so not shared or put on "
                                    "PATH")
                continue
            where = ("the repository the job came from" if tree == origin
                     else "the repository")
            is_venv = (source / "pyvenv.cfg").is_file()
            label = "a virtualenv" if is_venv else why
            if self.show(source, f"{label} of {where} ({rel})", inside=rel) and is_venv:
                venvs.append((tree, source))
                if enabled:
                    self._venv_interpreter(source)
        if enabled and not self.env_in.get("VIRTUAL_ENV") and venvs:
            self._prefer_project_venv(venvs)

    def _prefer_project_venv(self, venvs: list[tuple[Path, Path]]) -> None:
        """A project virtualenv nobody activated (uv and poetry users rarely do): its
        bin folder goes first on PATH inside, as ``uv run`` and ``poetry run`` would."""
        top = [(tree, v) for tree, v in venvs if v.parent == tree]
        if len(top) != 1:
            if len(top) > 1:
                self.skipped.append("several virtualenvs at the top of the repository ("
                                    + ", ".join(v.name for _, v in top) + "): none is put "
                                    "on PATH; activate the one the tests use")
            return
        ((tree, chosen),) = top
        # Inside, the working copy is shown at the repository's path, and the venv in
        # it: the bin folder at its recorded path works in every working copy.
        self.path_prefix.append(self.repo_root / chosen.relative_to(tree) / "bin")

    # -- Python -------------------------------------------------------------------------

    def virtualenv(self, env: Mapping[str, str]) -> None:
        """The active virtualenv (outside the repository: inside it is a dependency
        folder already), or a poetry virtualenv kept in poetry's cache."""
        active = env.get("VIRTUAL_ENV")
        if active and os.path.isabs(active):
            venv = Path(active)
            if venv.is_relative_to(self.repo_root):
                # Inside the repository: a dependency folder, mapped into every working
                # copy (found already when it sits in the top two levels).
                rel = str(venv.relative_to(self.repo_root))
                if self.show(venv, f"the active virtualenv (VIRTUAL_ENV), in the "
                             f"repository ({rel})", inside=rel):
                    self._venv_interpreter(venv)
            elif self.show(venv, "the active virtualenv (VIRTUAL_ENV)"):
                self.virtualenv_shown = True
                self._venv_interpreter(venv)
            if venv.is_dir():
                self.env["VIRTUAL_ENV"] = active
            return
        poetry = _poetry_venv(self.repo_root, env, self.home)
        if poetry is not None and self.show(poetry, "the project's poetry virtualenv"):
            self.virtualenv_shown = True
            self._venv_interpreter(poetry)
            self.path_prefix.append(poetry / "bin")

    def _venv_interpreter(self, venv: Path) -> None:
        """The interpreter a virtualenv was made from (``home`` in its pyvenv.cfg, and
        where its ``python`` link leads: pyenv, uv's managed Pythons, a system one)."""
        for prefix in virtualenvs.interpreter_prefixes(venv):
            if self.hidden(prefix):
                self.show(prefix, f"the interpreter of the virtualenv {venv}")

    # -- toolchain homes and caches -------------------------------------------------------

    def tool_homes(self, env: Mapping[str, str], used: Sequence[Ecosystem],
                   every: bool) -> None:
        """The shared version managers, and each ecosystem's homes: shown when the
        project uses it, else named among what is not shown (``every``: no ecosystem
        was recognised, so each is shown)."""
        # A home two ecosystems declare (pyenv: pytest and unittest) is one home, shown
        # for the first of them the project uses.
        declared: dict[ToolHome, list[Ecosystem]] = {}
        for declaring in registry.ECOSYSTEMS:
            for tool in declaring.tool_homes:
                declared.setdefault(tool, []).append(declaring)
        owners: list[tuple[ToolHome, Ecosystem | None]] = [
            (tool, None) for tool in SHARED_TOOL_HOMES]
        for tool, ecos in declared.items():
            owners.append((tool, next((e for e in ecos if e in used), ecos[0])))
        for tool, eco in owners:
            explicit = env.get(tool.variable)
            path = (Path(explicit) if explicit and os.path.isabs(explicit) else
                    self.home / tool.default if tool.default else None)
            if path is None or not path.is_dir() or not self.hidden(path):
                continue
            source = f"${tool.variable}" if explicit else f"~/{tool.default}"
            why = f"{tool.tool}'s home ({source})"
            if eco is not None and eco not in used:
                self.unused(path, why, eco)
                continue
            why += self.used_for(eco, every)
            if tool.needs:
                # Its tools only: what else the home keeps (cargo's credentials.toml, a
                # token in its config) stays hidden.
                shown = [self.show(path / entry, f"{why}: {entry}") for entry in tool.needs
                         if not self.holds_credentials(path / entry, why)]
                if tool.names_folders is not None and any(shown):
                    for folder in tool.names_folders(path):
                        if self.hidden(folder):
                            self.show(folder, f"{why}: a source its configuration names")
                if any(shown):
                    self.env[tool.variable] = str(path)
                    for name in tool.passes:
                        if env.get(name):
                            self.env[name] = env[name]
                continue
            if self.show(path, why):
                self.env[tool.variable] = str(path)
                for name in tool.passes:
                    if env.get(name):
                        self.env[name] = env[name]

    def holds_credentials(self, path: Path, why: str) -> bool:
        """A configuration file a tool home shows that keeps a credential (a registry's
        ``token``, a proxy's password): not shown, and said."""
        if not path.is_file():
            return False
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        if not user_config.holds_credentials(text):
            return False
        self.skipped.append(f"{path}: {why}: holds a credential (a token or a password), "
                            "so not shown; keep the credential in the tool's credentials "
                            "file beside it (credentials.toml) and this one is shown")
        return True

    def used_for(self, eco: Ecosystem | None, every: bool) -> str:
        """Why an ecosystem's home is shown, in words for `rgr doctor`."""
        if eco is None or not self.asked:
            return ""
        if every:
            return ", shown as no ecosystem was recognised here"
        return f", for the project's {registry.short_name(eco)}"

    def unused(self, path: Path, why: str, eco: Ecosystem) -> None:
        self.skipped.append(f"{path}: {why}: the project uses no "
                            f"{registry.short_name(eco)} (none of its files found here)")

    def caches(self, env: Mapping[str, str], used: Sequence[Ecosystem], every: bool) -> None:
        """The caches a test run reads (each ecosystem's tool_caches), each shown only to
        a project that uses its ecosystem, with the variables that locate it."""
        homes = user_homes(self.env_in)
        for eco in registry.ECOSYSTEMS:
            for cache in eco.tool_caches:
                for spot in cache.find(env, homes):
                    if not spot.root.is_dir():
                        continue
                    if eco not in used:
                        self.unused(spot.root, spot.why, eco)
                        continue
                    shown: Path | None = None
                    for path, why in spot.shows:
                        if self.show(path, why or spot.why + self.used_for(eco, every)):
                            shown = path
                    self.env.update(spot.locate(shown, self.env))

    def version_files(self) -> None:
        for name in VERSION_FILES:
            source = self.home / name
            if source.is_file():
                self.home_files.append((source, name))

    def config_files(self, used: Sequence[Ecosystem]) -> None:
        """The user's configuration of the tools the project's runners use (``.npmrc``,
        ``pip.conf``), copied with its credentials left out (rgr.sandbox.user_config)."""
        names = dict.fromkeys(name for eco in used for name in eco.home_config)
        for name in names:
            source = user_config.source_of(name, self.home, self.env_in)
            if source.is_file() and not any(rel == name for _, rel in self.home_files):
                self.home_files.append((source, name))


def _nested_dependency_folders(tree: Path) -> list[str]:
    """Relative paths of virtualenvs (any folder with a ``pyvenv.cfg``) in the top two
    levels, and of ``node_modules`` in workspace packages (``packages/a/node_modules``)."""
    found: list[str] = []
    for first in _subdirs(tree):
        if first.name in _NOT_SCANNED:
            continue
        if (first / "pyvenv.cfg").is_file():
            found.append(first.name)
            continue
        for second in _subdirs(first):
            if second.name in _NOT_SCANNED:
                if second.name == "node_modules":
                    found.append(f"{first.name}/node_modules")
                continue
            if (second / "pyvenv.cfg").is_file():
                found.append(f"{first.name}/{second.name}")
            elif (second / "node_modules").is_dir() and (second / "package.json").is_file():
                found.append(f"{first.name}/{second.name}/node_modules")
    return found


def _subdirs(path: Path) -> list[Path]:
    try:
        with os.scandir(path) as entries:
            return sorted(Path(e.path) for e in entries
                          if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def masked_roots(repo_root: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """The places the sandbox hides (rgr.sandbox.policy masks them): the homes, the
    temporary folders, the repository and its parent folder (its sibling projects)."""
    parent = repo_root.parent
    return (*user_homes(env), Path("/home"), Path("/root"), Path("/tmp"), Path("/var/tmp"),
            Path("/run/user"), Path("/mnt"), Path("/media"), Path("/srv"), repo_root,
            *((parent,) if parent != Path("/") else ()))


def _poetry_venv(repo_root: Path, env: Mapping[str, str], home: Path) -> Path | None:
    """The virtualenv poetry made for this project outside it, found the way poetry
    names it (``<name>-<hash of the project path>-py<version>``), without running it."""
    pyproject = repo_root / "pyproject.toml"
    if not pyproject.is_file():
        return None
    try:
        text = pyproject.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if "[tool.poetry" not in text and "poetry" not in text:
        return None
    match = re.search(r'^\s*name\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if match is None:
        return None
    cache = Path(env.get("POETRY_CACHE_DIR") or home / ".cache" / "pypoetry")
    folder = Path(env.get("POETRY_VIRTUALENVS_PATH") or cache / "virtualenvs")
    name = re.sub(r'[ $`!*@"\\\r\n\t]', "_", match.group(1).lower())[:42]
    digest = hashlib.sha256(os.path.normcase(os.path.realpath(repo_root)).encode()).digest()
    stem = f"{name}-{base64.urlsafe_b64encode(digest).decode()[:8]}-py"
    candidates = sorted(p for p in _subdirs(folder) if p.name.startswith(stem))
    return candidates[-1] if candidates else None
