"""The toolchains the runner tests and the ecosystem katas need, installed by the tests
themselves: OS packages with ``apt-get install -y`` (after ``apt-get update``) when a
program is missing, the JavaScript runners with ``npm install`` from the lockfile in
``runners/`` beside this file.

A toolchain that cannot be installed, or that is on PATH but cannot run, raises
ToolchainMissing: the test is reported NOT VERIFIED with the toolchain's name and what was
tried, among the skipped (never counted as passed, never failing the suite).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from harness import _install_lock

from rgr.base.proc import run

#: package.json + package-lock.json pin Vitest, Jest, Mocha and TypeScript.
RUNNERS_DIR = Path(__file__).resolve().parent / "runners"

APT_TIMEOUT_S = 900.0

#: Debian ships the Maven plugins a plain `mvn test` needs (Maven Central is not reachable
#: from every machine that runs these tests): their versions, pinned in the kata's pom.
MAVEN_DEBIAN_PACKAGES = ("libsurefire-java", "libmaven-compiler-plugin-java",
                         "libmaven-resources-plugin-java", "libmaven-jar-plugin-java", "junit4")
MAVEN_DEBIAN_REPO = Path("/usr/share/maven-repo")
MAVEN_PLUGINS = {"maven-surefire-plugin": "2.22.3", "maven-compiler-plugin": "3.10.1",
                 "maven-resources-plugin": "3.3.0", "maven-jar-plugin": "3.3.0"}


class ToolchainMissing(pytest.skip.Exception):  # type: ignore[misc,name-defined]
    """A toolchain a test needs is missing here, or on PATH and unusable (rustup's cargo
    proxy with no toolchain for this HOME), and could not be installed: the test is
    reported NOT VERIFIED, by name, among the skipped (pytest -ra lists each), never as
    passed and never as a failure of the suite."""

    def __init__(self, message: str) -> None:
        super().__init__(f"NOT VERIFIED here: {message}")


def apt_install(*packages: str) -> None:
    """``apt-get install -y`` (after one ``apt-get update``); ToolchainMissing on failure."""
    apt = shutil.which("apt-get")
    if apt is None:
        raise ToolchainMissing(f"apt-get is not available to install {', '.join(packages)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with _install_lock(Path("apt-get")):
        for argv in ([apt, "update", "-q"], [apt, "install", "-y", "-q", *packages]):
            done = run(argv, cwd="/", timeout=APT_TIMEOUT_S, env=env)
            if done.returncode != 0 or done.timed_out:
                raise ToolchainMissing(f"cannot install {', '.join(packages)}:\n"
                                       f"{done.describe()}")


#: How long a toolchain may take to say its version: rustup's proxy answers at once.
PROBE_TIMEOUT_S = 120.0


def ensure_program(program: str, *packages: str, probe: tuple[str, ...] = ("--version",),
                   env: dict[str, str] | None = None) -> str:
    """The path of ``program``, installing ``packages`` from the OS registry if needed,
    once ``program probe`` has run (with ``env`` added to this process's environment):
    a program on PATH that cannot run is missing too.

    rustup's ``cargo`` on PATH with no toolchain for this HOME (the tests run under a
    throwaway one) fails every command it is given; a test would then fail on whatever
    rgr made of that output (no results), saying nothing about the toolchain. Installing
    the OS package would not help: PATH still finds the proxy first."""
    found = shutil.which(program)
    if found is None:
        apt_install(*packages)
        found = shutil.which(program)
    if found is None:
        raise ToolchainMissing(f"{program} is still missing after installing {packages}")
    done = run([found, *probe], cwd="/", timeout=PROBE_TIMEOUT_S,
               env={**os.environ, **(env or {})})
    if done.returncode != 0 or done.timed_out:
        raise ToolchainMissing(f"{program} is on PATH ({found}) but cannot run here:\n"
                               f"{done.describe()}")
    return found


def ensure_go() -> str:
    return ensure_program("go", "golang", probe=("version",))


def ensure_cargo() -> dict[str, str]:
    """Make sure cargo runs; returns the variables it needs to (``rustup_env``), for the
    caller to pass to whatever runs it. They are never put into this process's
    environment: a later test building a user's environment from it would inherit a
    rustup install that user does not have."""
    env = rustup_env()
    ensure_program("cargo", "cargo", env=env)
    return env


def rustup_env() -> dict[str, str]:
    """rustup keeps its toolchains in ``$RUSTUP_HOME`` (default ``~/.rustup``) beside
    ``$CARGO_HOME`` (``~/.cargo``), where its ``cargo`` proxy sits. Under the tests'
    throwaway HOME the proxy looks in the wrong place: when PATH's cargo is such a proxy
    (``<x>/.cargo/bin/cargo``), the variables this process has, else ``<x>/.cargo`` and
    ``<x>/.rustup``, where the install really is. Empty for a cargo not from rustup."""
    found = shutil.which("cargo")
    if found is None:
        return {}
    bin_dir = Path(found).parent
    if bin_dir.name != "bin" or bin_dir.parent.name != ".cargo":
        return {}
    rustup = bin_dir.parent.parent / ".rustup"
    if not rustup.is_dir():
        return {}
    return {"CARGO_HOME": os.environ.get("CARGO_HOME", str(bin_dir.parent)),
            "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", str(rustup))}


def ensure_ruby_rspec() -> str:
    return ensure_program("rspec", "ruby-rspec")


def ensure_ruby_minitest() -> str:
    """``ruby`` with Minitest loadable (Debian's ``ruby-minitest``, which Ruby's own
    bundled copy stands in for where it is there) and ``rake``, which runs it."""
    ruby = ensure_program("ruby", "ruby")
    ensure_program("rake", "rake")
    loads = ("-e", "require 'minitest'")
    if run([ruby, *loads], cwd="/", timeout=PROBE_TIMEOUT_S).returncode != 0:
        apt_install("ruby-minitest")
    done = run([ruby, *loads], cwd="/", timeout=PROBE_TIMEOUT_S)
    if done.returncode != 0 or done.timed_out:
        raise ToolchainMissing(f"Minitest does not load in {ruby}:\n{done.describe()}")
    return ruby


def ensure_phpunit() -> str:
    return ensure_program("phpunit", "phpunit")


def ensure_maven() -> str:
    """``mvn`` and the Debian-packaged plugins the katas' poms pin."""
    mvn = ensure_program("mvn", "maven")
    plugins = MAVEN_DEBIAN_REPO / "org" / "apache" / "maven" / "plugins"
    if not all((plugins / name / version).is_dir() for name, version in MAVEN_PLUGINS.items()):
        apt_install(*MAVEN_DEBIAN_PACKAGES)
    return mvn


#: A user home for the tests' Maven: its settings send every download to the Debian
#: repository on disk (a local mirror) and keep its local repository (copies of Debian's
#: jars) there, shared by the tests of one machine and never the user's ~/.m2. Outside
#: the tests' temporary folders, so a sandboxed test run can be shown it read-only.
MAVEN_USER_HOME = Path(tempfile.gettempdir()) / "rgr-e2e-maven"


#: Options of Maven's own JVM for short builds (see ``maven_home``).
MAVEN_JVM_SPEED = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def maven_home() -> tuple[dict[str, str], Path]:
    """The environment for `mvn` with that home, and the home."""
    m2 = MAVEN_USER_HOME / ".m2"
    m2.mkdir(parents=True, exist_ok=True)
    (m2 / "settings.xml").write_text(
        "<settings>"
        f"<localRepository>{m2 / 'repository'}</localRepository>"
        "<offline>false</offline>"
        "<mirrors><mirror><id>debian</id><mirrorOf>*</mirrorOf>"
        f"<url>file://{MAVEN_DEBIAN_REPO}</url></mirror></mirrors>"
        "</settings>\n")
    # Java's user.home comes from the password database, not $HOME: say it explicitly.
    # Maven's own JVM compiles with C1 only and collects with the serial collector, as
    # users speed up a short build: its CPU per `mvn test` of a kata fell from 4.2 s to
    # 2.4 s (median of 3, 2026-12-02). Surefire's forked JVM, which runs the tests, is
    # left as it is.
    env = {"MAVEN_OPTS": f"-Duser.home={MAVEN_USER_HOME} {MAVEN_JVM_SPEED}"}
    _warm_maven_repository(m2 / "repository", env)
    return env, MAVEN_USER_HOME


def _warm_maven_repository(repository: Path, env: dict[str, str]) -> None:
    """Fill the local repository once, outside any sandbox: Maven refuses to start
    without a writable local repository unless it already holds everything the build
    needs, and a sealed test run can only be shown it read-only."""
    provider = repository / "org" / "apache" / "maven" / "surefire" / "surefire-junit4"
    if provider.is_dir():
        return
    with _install_lock(MAVEN_USER_HOME):
        if provider.is_dir():
            return
        with tempfile.TemporaryDirectory(prefix="rgr-maven-warm-") as tmp:
            root = Path(tmp)
            for name, text in {
                "pom.xml": maven_pom("warm-up"),
                "src/main/java/warm/Up.java": "package warm;\npublic class Up {}\n",
                "src/test/java/warm/UpTest.java":
                    "package warm;\nimport org.junit.Test;\n"
                    "public class UpTest { @Test public void t() {} }\n",
            }.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text)
            done = run(["mvn", "-B", "-q", "test"], cwd=root, timeout=APT_TIMEOUT_S,
                       env={**os.environ, **env})
        if done.returncode != 0 or not provider.is_dir():
            raise ToolchainMissing(f"Maven cannot build a JUnit 4 project from Debian's "
                                   f"repository ({MAVEN_DEBIAN_REPO}):\n{done.describe()}")


def maven_pom(artifact: str = "kata") -> str:
    """A JUnit 4 project whose plugins are the versions Debian ships."""
    plugins = "".join(
        "<plugin><groupId>org.apache.maven.plugins</groupId>"
        f"<artifactId>{name}</artifactId><version>{version}</version></plugin>"
        for name, version in MAVEN_PLUGINS.items())
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kata</groupId><artifactId>{artifact}</artifactId><version>1.0</version>
  <properties>
    <maven.compiler.source>17</maven.compiler.source>
    <maven.compiler.target>17</maven.compiler.target>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId>
    <version>4.13.2</version><scope>test</scope></dependency></dependencies>
  <build><plugins>{plugins}</plugins></build>
</project>
"""


def ensure_js_runners(runners_dir: Path = RUNNERS_DIR) -> Path:
    """``node_modules`` with the pinned Vitest, Jest, Mocha and TypeScript."""
    modules = runners_dir / "node_modules"
    marker = modules / ".bin" / "vitest"
    if marker.exists():
        return modules
    npm = shutil.which("npm")
    if npm is None:
        raise ToolchainMissing("npm is not on PATH: install Node.js 20 or later")
    with _install_lock(runners_dir):
        if marker.exists():
            return modules
        # `npm install`, not `npm ci`: the lockfile pins every version either way, but
        # it holds only this platform's optional rollup/esbuild binaries, and `npm ci`
        # refuses a lock without the other platforms' entries (seen with npm 11).
        done = run([npm, "install", "--no-audit", "--no-fund", "--no-save"], cwd=runners_dir,
                   timeout=900.0)
        if done.returncode != 0 or done.timed_out or not marker.exists():
            raise ToolchainMissing(f"installing the JavaScript test runners failed:\n"
                                   f"{done.describe()}")
    return modules


C8_DIR = Path(__file__).resolve().parent / "c8"
TAP_DIR = Path(__file__).resolve().parent / "tap"


def ensure_c8(c8_dir: Path = C8_DIR) -> Path:
    """``node_modules`` with the pinned c8 (a coverage tool a project's ``npm test`` wraps
    its runner in: ``c8 --100 node --test``)."""
    return _ensure_pinned(c8_dir, ("c8",), "c8")


def ensure_tap_runners(tap_dir: Path = TAP_DIR) -> Path:
    """``node_modules`` with the pinned tape, nyc (a tape project under nyc) and ava."""
    return _ensure_pinned(tap_dir, ("tape", "ava"), "tape, nyc and ava")


NODE_TAP_DIR = Path(__file__).resolve().parent / "nodetap"


def ensure_node_tap(node_tap_dir: Path = NODE_TAP_DIR) -> Path:
    """``node_modules`` with the pinned node-tap (the ``tap`` package: TAP 14, nested
    subtests)."""
    return _ensure_pinned(node_tap_dir, ("tap",), "node-tap")


PNPM_DIR = Path(__file__).resolve().parent / "pnpm"


def ensure_pnpm(pnpm_dir: Path = PNPM_DIR) -> Path:
    """The pinned pnpm's ``node_modules`` (its program in ``.bin``)."""
    return _ensure_pinned(pnpm_dir, ("pnpm",), "pnpm")


def _ensure_pinned(folder: Path, programs: tuple[str, ...], what: str) -> Path:
    """``folder``'s ``node_modules`` as its package.json and lockfile pin it, installed
    once (under a lock shared with other test processes) when a program is missing."""
    modules = folder / "node_modules"

    def installed() -> bool:
        return all((modules / ".bin" / program).exists() for program in programs)

    if installed():
        return modules
    npm = shutil.which("npm")
    if npm is None:
        raise ToolchainMissing("npm is not on PATH: install Node.js 20 or later")
    with _install_lock(folder):
        if installed():
            return modules
        done = run([npm, "install", "--no-audit", "--no-fund", "--no-save"], cwd=folder,
                   timeout=900.0)
        if done.returncode != 0 or done.timed_out or not installed():
            raise ToolchainMissing(f"installing {what} failed:\n{done.describe()}")
    return modules


BUN_DIR = Path(__file__).resolve().parent / "bun"


def ensure_bun(bun_dir: Path = BUN_DIR) -> Path:
    """``node_modules`` with the pinned Bun (npm's ``bun`` package ships the binary);
    ToolchainMissing when it cannot be installed or does not run here."""
    modules = bun_dir / "node_modules"
    binary = modules / ".bin" / "bun"
    npm = shutil.which("npm")
    if not binary.exists():
        if npm is None:
            raise ToolchainMissing("npm is not on PATH to install bun: install Node.js 20 "
                                   "or later")
        with _install_lock(bun_dir):
            if not binary.exists():
                done = run([npm, "install", "--no-audit", "--no-fund", "--no-save"],
                           cwd=bun_dir, timeout=600.0)
                if done.returncode != 0 or done.timed_out or not binary.exists():
                    raise ToolchainMissing(f"installing bun failed:\n{done.describe()}")
    probe = run([str(binary), "--version"], cwd=bun_dir, timeout=60.0)
    if probe.returncode != 0 or probe.timed_out:
        raise ToolchainMissing(f"bun is installed ({binary}) but cannot run here:\n"
                               f"{probe.describe()}")
    return modules
