"""The corpus of issue 35: real open-source projects, each fetched from the registry its
users get it from, set up as its contributors set it up, with its own test command and
the way to read that command's count from the runner's own summary.

The count compared is the number of tests the runner reports as passed (skipped,
failed and errored ones excluded), the verdict its exit code."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.corpus import fetch
from bench.corpus.build import Ecosystem, Setup

#: Reads the passed count from the own command's output (None: no summary found).
Counter = Callable[[str], "int | None"]


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def plain(counter: Counter) -> Counter:
    """``counter`` reading the output with its colours removed (``mocha --colors``)."""
    return lambda output: counter(_ANSI.sub("", output))


def _sum(pattern: str) -> Counter:
    """The sum of every match of ``pattern``'s first group (runners that print one
    summary per file, package or crate), None when none matches."""
    regex = re.compile(pattern, re.MULTILINE)

    def count(output: str) -> int | None:
        found = [int(m.group(1)) for m in regex.finditer(output)]
        return sum(found) if found else None
    return count


def _last(pattern: str) -> Counter:
    regex = re.compile(pattern, re.MULTILINE)

    def count(output: str) -> int | None:
        found = regex.findall(output)
        return int(found[-1]) if found else None
    return count


def unittest_passed(output: str) -> int | None:
    """``Ran N tests`` less the skipped, failures and errors unittest's last line lists."""
    ran = re.search(r"^Ran (\d+) tests? in", output, re.MULTILINE)
    if ran is None:
        return None
    tail = output[ran.end():]
    others = sum(int(n) for n in re.findall(r"(?:skipped|failures|errors)=(\d+)", tail))
    return int(ran.group(1)) - others


#: pytest's last line: ``54 passed in 0.61s`` (or ``1 failed, 53 passed ...``).
pytest_passed = _last(r"\b(\d+) passed\b")
#: Mocha's spec reporter: ``  303 passing (1s)``.
mocha_passing = plain(_last(r"^\s*(\d+) passing\b"))
#: node:test's reporters (spec and TAP): ``ℹ pass 47`` / ``# pass 47``.
node_test_pass = plain(_last(r"^\S+ pass (\d+)$"))
#: Jest's summary: ``Tests:       1 skipped, 120 passed, 121 total``.
jest_passed = plain(_last(r"^Tests:.*?\b(\d+) passed\b"))
#: Vitest's summary: ``      Tests  2 failed | 934 passed (936)``.
vitest_passed = plain(_last(r"^\s*Tests\s+(?:.*\| )?(\d+) passed\b"))


def node_test_and_jest(output: str) -> int | None:
    """A test script running node:test (bare or behind borp/c8) and then Jest: the sum
    of the two summaries, None unless both printed one. (tape files run by node's
    runner print their own ``# pass  N``, with two spaces, which node_test_pass skips.)"""
    node, jest = node_test_pass(output), jest_passed(output)
    return None if node is None or jest is None else node + jest


#: cargo test: one ``test result`` line per test binary and the doc tests.
cargo_passed = _sum(r"^test result: \w+\. (\d+) passed")


def surefire_passed(output: str) -> int | None:
    """Maven Surefire's ``Results:`` line of each module (``Tests run: 1156, Failures: 0,
    Errors: 0, Skipped: 1``; the per-class lines go on with ``Time elapsed``): runs less
    failures, errors and skipped, summed over the modules."""
    plain_output = _ANSI.sub("", output)
    found = re.findall(r"^\[\w+\] Tests run: (\d+), Failures: (\d+), Errors: (\d+), "
                       r"Skipped: (\d+)$", plain_output, re.MULTILINE)
    if not found:
        return None
    return sum(int(r) - int(f) - int(e) - int(s) for r, f, e, s in found)


def go_passes(output: str) -> int | None:
    """``go test -v`` output's ``--- PASS`` lines (tests and subtests), None if no
    package ran."""
    if not re.search(r"^(ok|FAIL|---)\s", output, re.MULTILINE):
        return None
    return len(re.findall(r"^\s*--- PASS: ", output, re.MULTILINE))


def minitest_passed(output: str) -> int | None:
    """Minitest's summary, ``389 runs, 1126 assertions, 0 failures, 0 errors, 10 skips``:
    runs less failures, errors and skips."""
    found = re.findall(r"^(\d+) runs, \d+ assertions, (\d+) failures, (\d+) errors, "
                       r"(\d+) skips$", output, re.MULTILINE)
    if not found:
        return None
    runs, failures, errors, skips = (int(n) for n in found[-1])
    return runs - failures - errors - skips


@dataclass(frozen=True)
class Project:
    """One corpus entry."""

    name: str
    version: str
    ecosystem: Ecosystem
    #: What the project stands for in the corpus (the case issue 35 names).
    case: str
    fetch: Callable[[Path | None], Path]
    setup: Setup
    #: The project's own test command, as its contributors run it (cwd: the project).
    own_command: tuple[str, ...]
    own_count: Counter
    #: Why the own command is what it is, where it is not simply the documented one.
    note: str = ""


def _pypi(name: str, version: str) -> Callable[[Path | None], Path]:
    return lambda cache: fetch.pypi_sdist(name, version, cache)


def _npm(name: str, version: str) -> Callable[[Path | None], Path]:
    return lambda cache: fetch.npm_package(name, version, cache)


def _go(package: str, module: str) -> Callable[[Path | None], Path]:
    return lambda cache: fetch.debian_go_module(package, module, cache)


def _debian_source(package: str, version: str,
                   build_deps: tuple[str, ...]) -> Callable[[Path | None], Path]:
    """A Debian source package and the packages its build needs (its Build-Depends that
    are not installed: the Maven plugins and libraries its POMs name)."""
    def get(cache: Path | None) -> Path:
        for dep in build_deps:
            fetch.debian_package(dep)
        return fetch.debian_source(package, version, cache)
    return get


def _ruby_gem(package: str, gem: str) -> Callable[[Path | None], Path]:
    return lambda cache: fetch.debian_ruby_gem(package, gem, cache)


def _crate(package: str, crate: str,
           also: tuple[str, ...] = ()) -> Callable[[Path | None], Path]:
    return lambda cache: fetch.debian_crate(package, crate, cache, also)


#: Minitest's own suite, as its Rakefile's Hoe task loads it (Hoe is not installed).
MINITEST_OWN = ("ruby", "-Ilib", "-Itest", "-e",
                "Dir.glob('test/**/test_*.rb').sort.each { |f| require File.expand_path(f) }")

#: Lines of the upstream repositories' .gitignore, for sources published without one.
PY_IGNORES = ("*.pyc", "__pycache__/", "*.egg-info/", "build/", "dist/", ".venv/",
              ".tox/", ".coverage", "htmlcov/")
JS_IGNORES = ("node_modules/", "coverage/", ".nyc_output/", "package-lock.json")
RUST_IGNORES = ("/target", "Cargo.lock")
JAVA_IGNORES = ("target/",)
#: What every Debian Maven build needs: the helper that patches the POMs and copies the
#: repository, JUnit, and the plugins commons-parent names.
MAVEN_BUILD = ("maven-debian-helper", "junit4", "libmaven-bundle-plugin-java",
               "libmaven-javadoc-plugin-java")

VENV_PY = ".venv/bin/python"

PROJECTS: tuple[Project, ...] = (
    Project("iniconfig", "2.3.1", "python", "setuptools-scm, as cloned (src/ layout, "
            "_version.py generated and ignored)", _pypi("iniconfig", "2.3.1"),
            Setup("python", pip_install=("-e", ".", "pytest")),
            (VENV_PY, "-m", "pytest"), pytest_passed),
    Project("markdown", "3.10", "python", "unittest only (tox: unittest discover)",
            _pypi("markdown", "3.10"),
            Setup("python", pip_install=("-e", ".[testing]"), gitignore=PY_IGNORES),
            (VENV_PY, "-m", "unittest", "discover", "tests"), unittest_passed),
    Project("six", "1.17.0", "python", "setup.py (setuptools), pytest",
            _pypi("six", "1.17.0"),
            Setup("python", pip_install=("-e", ".", "pytest"), gitignore=PY_IGNORES),
            (VENV_PY, "-m", "pytest"), pytest_passed),
    Project("humanize", "4.17.0", "python", "hatch-vcs, src/ layout, compiled "
            "translations (*.mo) ignored by its .gitignore", _pypi("humanize", "4.17.0"),
            Setup("python", pip_install=("-e", ".[tests]")),
            (VENV_PY, "-m", "pytest"), pytest_passed),
    Project("pluggy", "1.6.0", "python", "setuptools-scm, src/ layout, pytest",
            _pypi("pluggy", "1.6.0"),
            Setup("python", pip_install=("-e", ".", "pytest")),
            (VENV_PY, "-m", "pytest"), pytest_passed),
    Project("deep-diff", "1.0.2", "javascript", "Mocha 5 (JSON report on standard "
            "output)", _npm("deep-diff", "1.0.2"), Setup("javascript", gitignore=JS_IGNORES),
            ("npm", "test"), mocha_passing),
    Project("chai-string", "2.0.0", "javascript", "Mocha 11",
            _npm("chai-string", "2.0.0"), Setup("javascript", gitignore=JS_IGNORES),
            ("npm", "test"), mocha_passing),
    Project("@fastify/error", "4.3.0", "javascript",
            "node:test behind c8 (`c8 --100 node --test`) and a type test",
            _npm("@fastify/error", "4.3.0"), Setup("javascript", gitignore=JS_IGNORES),
            ("npm", "test"), node_test_pass),
    Project("cron", "1.8.2", "javascript", "Jest 24 (`jest`), CommonJS, fake timers",
            _npm("cron", "1.8.2"), Setup("javascript", gitignore=JS_IGNORES),
            ("npm", "test"), jest_passed),
    Project("pino", "10.4.0", "javascript", "a package mixing runners: node:test files "
            "(behind borp and c8), tape files node's runner runs as scripts, a Jest file "
            "(`npm run borp && jest test/jest`), lint and type tests around them",
            _npm("pino", "10.4.0"),
            Setup("javascript", gitignore=(
                *JS_IGNORES,
                # npm publishes no .gitignore; the fixtures `npm test` transpiles are
                # ignored upstream (npm packs by it, and the tarball lacks them), the
                # fixture folder named node_modules is tracked (the tarball has it)
                "test/fixtures/ts/*js", "!test/fixtures/ts/transpile.cjs",
                "!test/fixtures/eval/node_modules/"),
                # a test loads a transpiled fixture: generated code rgr finds by no rule;
                # CI reaches the tests (the sandbox scrubs the environment);
                # module-link.test.js links a fixture package into node_modules, and
                # `rgr verify` names writable_copy for it
                tdd_toml='[sandbox]\nshow_generated = ["test/fixtures/ts/*.cjs"]\n'
                         'pass_env = ["CI"]\nwritable_copy = ["node_modules"]\n',
                # `npm test` transpiles those fixtures before its tests: a user who has
                # run the suite has them (without, `rgr run`'s baseline misses them)
                after_install=(("npm", "run", "transpile"),),
                env={
                    # docsify's postinstall runs `npx husky install`: npx asks before
                    # downloading husky, and a user answers yes
                    "npm_config_yes": "true",
                    # 57 node files (workers, child processes) take 70 s unloaded
                    "TDD_COMMAND_TIMEOUT": "900",
                    # as its CI runs it: "eight million lines" (skipped under CI) outlasts
                    # borp's 60 s timeout on the loaded 2-core machine
                    "CI": "true"}),
            ("npm", "test"), node_test_and_jest,
            note="CI=true (its CI's setting: skips one 8-million-line test), "
                 "npm_config_yes=true (a dependency's install script asks), "
                 "TDD_COMMAND_TIMEOUT=900, a tdd.toml (a transpiled fixture, CI passed, "
                 "a writable copy of node_modules)"),
    Project("css-what", "8.0.0", "javascript", "Vitest 4, an ES module package in "
            "TypeScript, its specs beside the code (`src/*.spec.ts`)",
            _npm("css-what", "8.0.0"),
            Setup("javascript", gitignore=(*JS_IGNORES, "dist/"),
                  # `npm test` lints after Vitest with tsc, ESLint and Biome, whose
                  # configurations npm does not publish: its user runs the Vitest half
                  tdd_toml='test_command = "npm run test:vi"\n'),
            ("npm", "run", "test:vi"), vitest_passed,
            note="`npm run test:vi`, the Vitest half of `npm test` (which then lints with "
                 "tsc, ESLint and Biome, whose configurations the tarball lacks), and a "
                 "tdd.toml naming it"),
    Project("commons-codec", "1.15", "java", "Maven, offline from Debian's Maven "
            "repository (POMs patched as Debian's build does), JUnit 4",
            _debian_source("libcommons-codec-java", "1.15-1",
                           (*MAVEN_BUILD, "libcommons-lang3-java")),
            Setup("java", gitignore=JAVA_IGNORES, maven_package="libcommons-codec-java",
                  # its 1156 tests take 2-2.5 min on the loaded 2-core machine, past
                  # rgr's default command timeout (120 s)
                  env={"TDD_COMMAND_TIMEOUT": "900"}),
            ("mvn", "test"), surefire_passed,
            note="TDD_COMMAND_TIMEOUT=900: the suite outlasts rgr's default 120 s here"),
    Project("jsoup", "1.15.3", "java", "Maven, offline from Debian's Maven repository, "
            "JUnit 5 (Jupiter), a local Jetty for its connection tests",
            _debian_source("jsoup", "1.15.3-1",
                           (*MAVEN_BUILD, "junit5", "libgoogle-gson-java", "libjetty9-java")),
            Setup("java", gitignore=JAVA_IGNORES, maven_package="libjsoup-java",
                  env={"TDD_COMMAND_TIMEOUT": "900"}),
            ("mvn", "test"), surefire_passed,
            note="a red suite: Debian's repacked source excludes two pages ParseTest "
                 "reads (Files-Excluded in debian/copyright), so 2 tests error"),
    Project("json-simple", "2.3.0", "java", "Maven, offline from Debian's Maven "
            "repository, JUnit 4, a small suite",
            _debian_source("json-simple", "2.3.0-1", MAVEN_BUILD),
            Setup("java", gitignore=JAVA_IGNORES, maven_package="libjson-simple-java"),
            ("mvn", "test"), surefire_passed),
    Project("commons-collections4", "4.2", "java", "Maven, offline from Debian's Maven "
            "repository, JUnit 4 and EasyMock, a large generated suite (70010 tests)",
            _debian_source("libcommons-collections4-java", "4.2-1",
                           (*MAVEN_BUILD, "libeasymock-java")),
            Setup("java", gitignore=JAVA_IGNORES,
                  maven_package="libcommons-collections4-java",
                  # Debian builds it at release 7 (debian/maven.properties): on the JDK's
                  # own API a test's toArray(null) is ambiguous (Java 11's overload)
                  maven_config=("-Dmaven.compiler.release=7",),
                  env={"TDD_COMMAND_TIMEOUT": "900"}),
            ("mvn", "test"), surefire_passed,
            note="Debian's -Dmaven.compiler.release=7 in .mvn/maven.config; "
                 "TDD_COMMAND_TIMEOUT=900 for its 70010 tests"),
    Project("github.com/google/go-cmp", "0.5.9", "go", "Go module, no dependencies",
            _go("golang-github-google-go-cmp-dev", "github.com/google/go-cmp"),
            Setup("go", gitignore=()), ("go", "test", "-v", "./..."), go_passes),
    Project("github.com/google/uuid", "1.3.0", "go", "Go module, no go directive",
            _go("golang-github-google-uuid-dev", "github.com/google/uuid"),
            Setup("go", gitignore=()), ("go", "test", "-v", "./..."), go_passes),
    Project("golang.org/x/sys", "0.3.0", "go", "Go module, four tested packages "
            "(cpu, execabs, unix: system calls)",
            _go("golang-golang-x-sys-dev", "golang.org/x/sys"),
            Setup("go", gitignore=()), ("go", "test", "-v", "./..."), go_passes,
            # As root with its capabilities the own run passes TestOpenByHandleAt's 2
            # subtests, which need CAP_DAC_READ_SEARCH (152); rgr's sandbox drops every
            # capability, so they skip there, as in the own run without them (150:
            # bench/verify_corpus.py compares that one and prints root's beside it).
            note="TestOpenByHandleAt's 2 subtests need CAP_DAC_READ_SEARCH: they pass in "
                 "root's own run only"),
    Project("github.com/BurntSushi/toml", "1.2.0", "go", "Go module, several packages "
            "(one tested, with the toml-test suite), no dependencies",
            _go("golang-github-burntsushi-toml-dev", "github.com/BurntSushi/toml"),
            Setup("go", gitignore=()), ("go", "test", "-v", "./..."), go_passes),
    Project("minitest", "5.15.0", "ruby", "Minitest testing itself (389 tests, 10 "
            "skipped), as Debian's Ruby bundles the gem with its tests; a Rakefile of Hoe's",
            _ruby_gem("libruby3.1", "minitest-5.15.0"),
            Setup("ruby", gitignore=("pkg/", "doc/"),
                  # its Rakefile is Hoe's (not installed): the command Hoe's test task runs
                  tdd_toml=f"test_command = {json.dumps(list(MINITEST_OWN))}\n"),
            MINITEST_OWN, minitest_passed,
            note="a tdd.toml naming the test command (Hoe's Rakefile is not detected)"),
    Project("semver", "1.0.14", "rust", "Rust crate with a build script, tests/ and "
            "doc tests", _crate("librust-semver-dev", "semver-1.0.14",
                   # cargo resolves optional dependencies too (serde, a feature)
                   also=("librust-serde-dev",)),
            Setup("rust", gitignore=RUST_IGNORES), ("cargo", "test"), cargo_passed),
    Project("unicode-normalization", "0.1.22", "rust", "Rust crate with a dependency "
            "(smallvec, as Debian patches it) and doc tests",
            _crate("librust-unicode-normalization-dev", "unicode-normalization-0.1.22"),
            Setup("rust", gitignore=RUST_IGNORES), ("cargo", "test"), cargo_passed),
    Project("itoa", "1.0.1", "rust", "Rust crate, tests/ and doc tests",
            _crate("librust-itoa-dev", "itoa-1.0.1"),
            Setup("rust", gitignore=RUST_IGNORES), ("cargo", "test"), cargo_passed),
)


def by_name(name: str) -> Project:
    """The corpus entry called ``name``; a KeyError listing the names otherwise."""
    for project in PROJECTS:
        if project.name == name:
            return project
    raise KeyError(f"{name}: not in the corpus ({', '.join(p.name for p in PROJECTS)})")
