"""A fetched source made into a user's working copy under a given HOME: a git
repository (the project's own .gitignore kept; the release tagged, as a clone at that
tag would be) with the project's dependencies installed the way its contributors
install them: a ``.venv`` inside the project for Python, ``npm install`` for
JavaScript, Go's module cache and cargo's home under HOME (offline, from Debian's
source packages), and for Java a Maven repository in ``~/.m2`` made from Debian's, the
POMs patched to the versions Debian ships, as Debian's own Maven build does."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bench.corpus.cache import cache_root
from bench.corpus.fetch import CARGO_REGISTRY, run

#: maven-debian-helper's script copying /usr/share/maven-repo with Maven's metadata.
COPY_REPO = "/usr/share/maven-debian-helper/copy-repo.sh"

Ecosystem = Literal["python", "javascript", "go", "rust", "java", "ruby"]

#: The system folders every user has on PATH.
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin")

#: ~/.cargo/config.toml of a Rust user working offline against Debian's crates: the
#: source replacement Debian's own packaging (debcargo, dh-cargo) writes.
CARGO_CONFIG = f"""[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "{CARGO_REGISTRY}"

[net]
offline = true
"""


@dataclass(frozen=True)
class Setup:
    """How a contributor sets the project up after cloning it."""

    ecosystem: Ecosystem
    #: ``pip install`` arguments run in the project's own ``.venv`` (Python).
    pip_install: tuple[str, ...] = ()
    #: Lines of the upstream repository's .gitignore, written only when the published
    #: source lacks one (npm never publishes .gitignore; many sdists do not).
    gitignore: tuple[str, ...] = ()
    #: More variables the user's shell has for this project.
    env: Mapping[str, str] = field(default_factory=dict)
    #: Java: the Debian binary package whose POMs are patched (mh_patchpoms -p).
    maven_package: str = ""
    #: Java: the Maven options Debian's build passes (its debian/maven.properties, as
    #: ``-Dname=value``), kept in ``.mvn/maven.config`` where Maven reads them on every
    #: run: a source level the project's tests need on today's JDK.
    maven_config: tuple[str, ...] = ()
    #: The tdd.toml the user commits on top of the release, where rgr needs one.
    tdd_toml: str = ""
    #: Commands a contributor has run after installing (a build step the project's own
    #: test command runs first, whose ignored output its tests load): the working tree
    #: as a user who has run the suite has it.
    after_install: tuple[tuple[str, ...], ...] = ()


def base_python() -> str:
    """The interpreter this script runs on, outside any virtualenv (a user's python3)."""
    return str(getattr(sys, "_base_executable", sys.executable))


def _tool_dir(tool: str) -> str | None:
    found = shutil.which(tool)
    return str(Path(found).parent) if found else None


def user_env(home: Path, ecosystem: Ecosystem, extra: Mapping[str, str] = {},
             bin_dirs: tuple[Path, ...] = ()) -> dict[str, str]:
    """The environment of a user whose HOME is ``home``: ``bin_dirs`` first on PATH
    (``~/.local/bin`` where pipx links rgr), then the toolchain the ecosystem needs,
    then the system's folders. Caches that would download again (pip, npm) are the
    corpus cache's, so a second build reads them from disk."""
    path = [str(d) for d in bin_dirs]
    env = {"HOME": str(home), "LANG": "C.UTF-8", "USER": "corpus",
           "PIP_CACHE_DIR": str(cache_root() / "pip-cache"),
           "npm_config_cache": str(cache_root() / "npm-cache"),
           "npm_config_update_notifier": "false", "npm_config_fund": "false",
           "npm_config_audit": "false", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    if ecosystem == "go":
        # Module mode, offline: the module cache under HOME (Go's default) is all it has.
        env |= {"GOPATH": str(home / "go"), "GOFLAGS": "-mod=mod", "GOPROXY": "off",
                "GOSUMDB": "off", "GOTOOLCHAIN": "local"}
    if ecosystem == "java":
        # Java reads user.home from the password database, not $HOME: a user whose
        # HOME is this folder has it there too.
        env["MAVEN_OPTS"] = f"-Duser.home={home}"
    if ecosystem == "rust":
        # rustup's toolchains stay where this machine keeps them; cargo's home (its
        # config with the Debian source replacement) is the user's.
        env["CARGO_HOME"] = str(home / ".cargo")
        rustup = os.environ.get("RUSTUP_HOME") or str(Path.home() / ".rustup")
        if Path(rustup).is_dir():
            env["RUSTUP_HOME"] = rustup
    tools = {"python": [], "javascript": ["node", "npm"], "go": ["go"], "rust": ["cargo"],
             "java": ["mvn", "java"], "ruby": ["ruby"]}[ecosystem]
    for tool in [*tools, "git"]:
        where = _tool_dir(tool)
        if where and where not in path and where not in SYSTEM_PATH:
            path.append(where)
    env["PATH"] = os.pathsep.join([*path, *SYSTEM_PATH])
    return env | dict(extra)


def prepare_home(home: Path, ecosystem: Ecosystem) -> None:
    """A new user's HOME: a git identity, and for Rust cargo's offline configuration."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Corpus User\n\temail = corpus@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n")
    if ecosystem == "rust":
        (home / ".cargo").mkdir(exist_ok=True)
        (home / ".cargo" / "config.toml").write_text(CARGO_CONFIG)
    if ecosystem == "java":
        (home / ".m2").mkdir(exist_ok=True)
        (home / ".m2" / "settings.xml").write_text(
            f"<settings>\n  <localRepository>{maven_repo(home)}</localRepository>\n"
            "  <offline>true</offline>\n</settings>\n")


def maven_repo(home: Path) -> Path:
    """The user's Maven repository: Debian's, copied by maven-debian-helper's
    copy-repo.sh (which also writes the metadata Maven resolves plugin versions by)."""
    return home / ".m2" / "maven-repo"


def patch_poms(dest: Path, setup: Setup, home: Path, env: Mapping[str, str]) -> None:
    """The Java project's POMs rewritten to the versions Debian ships (its
    debian/maven.rules), as Debian's build does before it runs Maven."""
    run([COPY_REPO, str(home / ".m2")], env=dict(env))
    run(["mh_patchpoms", f"-p{setup.maven_package}", "--debian-build",
         "--keep-pom-version", f"--maven-repo={maven_repo(home)}"], cwd=dest, env=dict(env))
    if setup.maven_config:
        (dest / ".mvn").mkdir(exist_ok=True)
        (dest / ".mvn" / "maven.config").write_text("\n".join(setup.maven_config) + "\n")


def commit_source(source: Path, dest: Path, tag: str, gitignore: tuple[str, ...],
                  env: Mapping[str, str],
                  before: Callable[[], None] = lambda: None,
                  all_tracked: bool = False) -> None:
    """``source`` copied to ``dest`` and committed as the release ``tag``: the files a
    clone at that tag holds, ignored ones excluded by the project's own .gitignore
    (unless ``all_tracked``: the source is an export of the repository, every file in it
    tracked, as json-simple tracks its pom.xml under a ``*.xml`` ignore rule);
    ``before`` runs on the copy first."""
    shutil.copytree(source, dest, symlinks=True)
    before()
    ignore = dest / ".gitignore"
    if not ignore.exists() and gitignore:
        ignore.write_text("".join(f"{line}\n" for line in gitignore))
    git = ["git", "-C", str(dest)]
    run([*git, "init", "-q"], env=dict(env))
    run([*git, "add", "-A", *(["--force"] if all_tracked else [])], env=dict(env))
    run([*git, "commit", "-q", "-m", f"release {tag}"], env=dict(env))
    run([*git, "tag", tag], env=dict(env))


def install(dest: Path, setup: Setup, env: Mapping[str, str]) -> None:
    """The project's dependencies, installed as its contributors install them."""
    if setup.ecosystem == "python":
        run([base_python(), "-m", "venv", ".venv"], cwd=dest, env=dict(env))
        if setup.pip_install:
            run([str(dest / ".venv/bin/python"), "-m", "pip", "install", "-q",
                 *setup.pip_install], cwd=dest, env=dict(env))
    elif setup.ecosystem == "javascript":
        run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=dest, env=dict(env))
    elif setup.ecosystem == "go":
        run(["go", "mod", "download"], cwd=dest, env=dict(env))
    elif setup.ecosystem == "rust":
        run(["cargo", "fetch"], cwd=dest, env=dict(env))
    # java: the repository is made before the commit (patch_poms); ruby: Debian's gems
    for command in setup.after_install:
        run(list(command), cwd=dest, env=dict(env))


def build(source: Path, home: Path, name: str, version: str, setup: Setup) -> Path:
    """The project at ``source`` as a user has it under ``home`` (in ``~/src/<name>``),
    committed and set up; its path."""
    prepare_home(home, setup.ecosystem)
    env = user_env(home, setup.ecosystem, setup.env)
    dest = home / "src" / name.replace("/", "_").lstrip("@")
    before = (lambda: patch_poms(dest, setup, home, env)) \
        if setup.ecosystem == "java" else (lambda: None)
    # Debian's upstream tarballs of Java projects are exports of the upstream repository
    commit_source(source, dest, f"v{version}", setup.gitignore, env, before,
                  all_tracked=setup.ecosystem == "java")
    if setup.tdd_toml:
        (dest / "tdd.toml").write_text(setup.tdd_toml)
        git = ["git", "-C", str(dest)]
        run([*git, "add", "tdd.toml"], env=dict(env))
        run([*git, "commit", "-q", "-m", "rgr's configuration"], env=dict(env))
    install(dest, setup, env)
    return dest
