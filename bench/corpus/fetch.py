"""Fetchers: each brings one project's source, as its registry publishes it, into the
cache (bench.corpus.cache) and returns the unpacked tree. A tree already in the cache is
returned without touching the network. Only PyPI, npm and Debian's packages are reached.

The unpacked tree is complete before it is visible: it is built beside its final place
and renamed into it, so an interrupted fetch leaves nothing a later run would trust."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from bench.corpus.cache import slot

#: Where Debian's golang-*-dev packages put Go sources.
GOCODE = Path("/usr/share/gocode/src")
#: Where Debian's librust-*-dev packages put crates (a cargo directory source).
CARGO_REGISTRY = Path("/usr/share/cargo/registry")


class FetchError(RuntimeError):
    """A source could not be fetched; the message names the command and what it said."""


def run(command: list[str], cwd: Path | None = None,
        env: dict[str, str] | None = None) -> str:
    """``command``'s standard output; a FetchError naming the command, its exit code and
    its output when it fails."""
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise FetchError(f"{' '.join(command)} exited {done.returncode}\n"
                         f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done.stdout


def _publish(build: Path, final: Path) -> Path:
    """``build`` renamed to ``final`` in one step; when another process published the
    same version first, its copy is kept (the two are the same release)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        build.rename(final)
    except OSError:
        if not final.is_dir():
            raise
    return final


def _only_child(folder: Path) -> Path:
    """The single top folder an sdist or npm tarball unpacks into."""
    children = [c for c in folder.iterdir() if c.is_dir()]
    if len(children) != 1:
        raise FetchError(f"{folder}: expected one top folder, found {children}")
    return children[0]


def _unpack(archive: Path, into: Path) -> Path:
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            z.extractall(into)
    else:
        with tarfile.open(archive) as t:
            t.extractall(into, filter="data")
    return _only_child(into)


def pypi_sdist(name: str, version: str, cache: Path | None = None) -> Path:
    """The unpacked source distribution of ``name==version`` from PyPI (``pip download
    --no-deps --no-binary :all:``)."""
    final = slot("pypi", name, version, cache) / "src"
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=final.parent) as tmp:
        work = Path(tmp)
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:",
             f"{name}=={version}", "-d", str(work / "dl")])
        archives = list((work / "dl").iterdir())
        if len(archives) != 1:
            raise FetchError(f"pip download {name}=={version}: got {archives}")
        return _publish(_unpack(archives[0], work / "x"), final)


def npm_package(name: str, version: str, cache: Path | None = None) -> Path:
    """The unpacked tarball of ``name@version`` as ``npm pack`` gets it from npm."""
    final = slot("npm", name, version, cache) / "src"
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=final.parent) as tmp:
        work = Path(tmp)
        (work / "dl").mkdir()
        run(["npm", "pack", "--silent", f"{name}@{version}", "--pack-destination",
             str(work / "dl")], cwd=work)
        archives = list((work / "dl").glob("*.tgz"))
        if len(archives) != 1:
            raise FetchError(f"npm pack {name}@{version}: got {archives}")
        return _publish(_unpack(archives[0], work / "x"), final)


def debian_installed(package: str) -> str | None:
    """The installed version of the Debian package ``package``, or None."""
    done = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Version}", package],
                          capture_output=True, text=True)
    if done.returncode != 0 or not done.stdout.startswith("install ok installed"):
        return None
    return done.stdout.split()[-1]


def debian_package(package: str) -> str:
    """Install the Debian source package ``package`` (and the packages it depends on,
    which hold the sources of its dependencies) unless it is installed; its version."""
    version = debian_installed(package)
    if version is not None:
        return version
    if shutil.which("apt-get") is None:
        raise FetchError(f"{package}: apt-get not found (a Debian or Ubuntu machine is "
                         "needed for the Go and Rust projects)")
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends", package],
        env={"DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    installed = debian_installed(package)
    if installed is None:
        raise FetchError(f"{package}: apt-get install succeeded but dpkg does not list it")
    return installed


def _copy_tree(source: Path, name: str, version: str, kind: str,
               cache: Path | None) -> Path:
    final = slot(kind, name, version, cache) / "src"
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=final.parent) as tmp:
        copy = Path(tmp) / "src"
        # symlinks=False: Debian links vendored files to other packages' copies; the
        # user's module holds the files themselves.
        shutil.copytree(source, copy, symlinks=False)
        return _publish(copy, final)


def debian_go_module(package: str, import_path: str, cache: Path | None = None) -> Path:
    """The Go module ``import_path`` as Debian's ``package`` ships it (sources with their
    tests, under /usr/share/gocode/src), copied out of the system tree."""
    version = debian_package(package)
    source = GOCODE / import_path
    if not (source / "go.mod").is_file():
        raise FetchError(f"{source}: no go.mod (is {import_path} the module's path?)")
    return _copy_tree(source, import_path, version, "debian-go", cache)


#: Where Debian's Ruby keeps the gems it bundles (libruby3.1: minitest, rake, test-unit
#: ..., each as its gem ships, tests included).
RUBY_BUNDLED_GEMS = Path("/usr/lib/ruby/gems")


def debian_ruby_gem(package: str, gem: str, cache: Path | None = None) -> Path:
    """The gem ``gem`` (``name-version``) as Debian's ``package`` installs it among
    Ruby's bundled gems (its sources and its own tests), copied out of the system tree."""
    version = debian_package(package)
    found = sorted(RUBY_BUNDLED_GEMS.glob(f"*/gems/{gem}"))
    if not found:
        raise FetchError(f"{gem}: not among {RUBY_BUNDLED_GEMS}/*/gems "
                         f"(installed {package} {version})")
    return _copy_tree(found[-1], gem, version, "debian-ruby", cache)


def debian_crate(package: str, crate: str, cache: Path | None = None,
                 also: tuple[str, ...] = ()) -> Path:
    """The crate ``crate`` (``name-version``, a folder of /usr/share/cargo/registry) as
    Debian's ``package`` ships it; ``also``: packages holding crates cargo needs to
    resolve it (optional dependencies: cargo's lock file names them all)."""
    version = debian_package(package)
    for other in also:
        debian_package(other)
    source = CARGO_REGISTRY / crate
    if not (source / "Cargo.toml").is_file():
        raise FetchError(f"{source}: no Cargo.toml (installed {package} {version})")
    return _copy_tree(source, crate, version, "debian-rust", cache)


#: Debian's source archive, for `apt-get source`: the machine's own apt lists carry only
#: binary packages, so a private apt state under the cache holds the source index (the
#: machine's sources.list is left as it is).
DEBIAN_SOURCES = "deb-src http://deb.debian.org/debian bookworm main\n"


def _apt_source_options(state: Path) -> list[str]:
    """apt-get options pointing at the private source index under ``state``."""
    (state / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (state / "parts").mkdir(exist_ok=True)
    (state / "sources.list").write_text(DEBIAN_SOURCES)
    return [f"-oDir::Etc::SourceList={state / 'sources.list'}",
            f"-oDir::Etc::SourceParts={state / 'parts'}",
            f"-oDir::State::Lists={state / 'lists'}", f"-oDir::Cache={state / 'cache'}"]


def debian_source(package: str, version: str, cache: Path | None = None) -> Path:
    """The Debian source package ``package`` at ``version`` (``1.15-1``), unpacked with
    its Debian patches applied (``apt-get source``, then ``dpkg-source -x``): the tree
    Debian's own build starts from. The index of sources is fetched once into the cache."""
    final = slot("debian-src", package, version, cache) / "src"
    if final.is_dir():
        return final
    if shutil.which("dpkg-source") is None:
        raise FetchError(f"{package}: dpkg-source not found (apt-get install dpkg-dev)")
    state = final.parent.parent / "apt-state"
    options = _apt_source_options(state)
    env = {"DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    if not any((state / "lists").glob("*Sources*")):
        run(["apt-get", *options, "update", "-q"], env=env)
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=final.parent) as tmp:
        work = Path(tmp)
        run(["apt-get", *options, "source", "-q", "--download-only",
             f"{package}={version}"], cwd=work, env=env)
        dscs = list(work.glob("*.dsc"))
        if len(dscs) != 1:
            raise FetchError(f"apt-get source {package}={version}: got {dscs}")
        run(["dpkg-source", "--no-check", "-x", dscs[0].name, "tree"], cwd=work, env=env)
        return _publish(work / "tree", final)
