"""Java and the JVM: Maven Surefire and Gradle, found from ``pom.xml`` (with JUnit in it)
or a Gradle build file, read from the JUnit XML they write into their build directory.

Surefire and Gradle have no switch to move their reports out of the build directory
(``target/``, ``build/``), which is their own output and normally ignored by git; rgr
reads only the reports written during this run (by modification time) there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import (
    PROBE_EXIT_CODE,
    Finished,
    Guess,
    MutationSyntax,
    Plain,
    Results,
    TestOutcome,
    ToolHome,
    detected,
    relative,
)
from rgr.ecosystems.junit import MTIME_SLACK_S, fresh_reports, read_reports
from rgr.ecosystems.jvm import caches, syntax, telling
from rgr.ecosystems.jvm import direct as jvm_direct
from rgr.ecosystems.jvm.javac_errors import compile_kinds

# Maven: "[ERROR] /abs/src/test/java/x/FooTest.java:[12,5] cannot find symbol"
_JAVAC_ERROR = re.compile(r"^\[ERROR\] (\S+?\.(?:java|kt|groovy|scala)):\[\d+", re.MULTILINE)
# Gradle: "/abs/FooTest.java:12: error: ..." (javac) or "e: file:///abs/Foo.kt:12:5 ..."
_GRADLE_ERROR = re.compile(
    r"^(?:e: )?(?:file://)?(/\S+?\.(?:java|kt|groovy|scala)):(?:\d+:)?(?:\d+ )?(?: ?error:)?",
    re.MULTILINE)
# Surefire, when a forked JVM ends without reporting (System.exit, Runtime.halt, a
# crash): "[ERROR] Process Exit Code: 86", then "[ERROR] Crashed tests:" and one
# "[ERROR] pkg.FooTest" a line. Maven says so even when it exits 0
# (-Dmaven.test.failure.ignore=true).
_CRASHED = re.compile(r"^\[ERROR\] Crashed tests:\n((?:\[ERROR\] [\w.$]+\n?)+)", re.MULTILINE)
_EXIT_CODE = re.compile(r"Process Exit Code: (\d+)")


class _BuildTool:
    """Maven and Gradle: reports in the build directory, compile errors in the output."""

    name: str
    label: str
    tool: str
    globs: tuple[str, ...]
    compile_error: re.Pattern[str]
    no_tests_words: tuple[str, ...]

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        return cmd.argv

    def read(self, run: Finished) -> Results:
        results = Results()
        globs = run.cmd.junit_globs or self.globs
        reports = fresh_reports(run.root, globs, since=run.started - MTIME_SLACK_S)
        read_reports(run, reports, results, jvm=True)
        if run.done.returncode != 0:
            # why each file did not compile: a RED's test of a class or method not
            # written yet is missing code (rgr.ecosystems.jvm.javac_errors)
            kinds = compile_kinds(run.output, run.root)
            for raw in self.compile_error.findall(run.output):
                file = relative(raw, run.root)
                results.load_error(file, kinds.get(file))
        self.read_crashes(run, results)
        results.no_tests = (run.done.returncode == 0 and not results.outcomes
                            and not reports and self.ran_no_tests(run.output))
        return results

    def ran_no_tests(self, output: str) -> bool:
        return any(w in output for w in self.no_tests_words)

    def read_crashes(self, run: Finished, results: Results) -> None:
        """Test classes whose JVM ended under them (Gradle: its exit code says it)."""

    def fix(self) -> str:
        return (f"make sure `{self.tool}` builds and runs the tests (its output is in the run "
                f"folder) and writes JUnit XML reports ({', '.join(self.globs)}), or set "
                "junit_xml in tdd.toml to where they go")


class Maven(_BuildTool):
    name = "maven"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        # batch mode: no colours, no download progress in the output rgr reads;
        # --fail-at-end: a module whose tests do not compile (a RED's test of a class not
        # written yet) stops only the modules built on it, not every module after it
        if cmd.shell:
            return cmd.argv
        words = set(cmd.argv)
        extra = [] if {"-B", "--batch-mode"} & words else ["--batch-mode"]
        if not {"-fae", "--fail-at-end", "-ff", "--fail-fast", "-fn", "--fail-never"} & words:
            extra.append("--fail-at-end")
        return (*cmd.argv, *extra)

    label = "Maven Surefire"
    tool = "mvn test"
    # the second glob covers the modules of a multi-module build
    globs = ("target/surefire-reports/TEST-*.xml", "*/target/surefire-reports/TEST-*.xml")
    compile_error = _JAVAC_ERROR
    no_tests_words = ("No tests to run.", "Tests run: 0,")

    def read_crashes(self, run: Finished, results: Results) -> None:
        """Each test class Surefire names as crashed is an error (its JVM ended under it,
        so no report of it was written): a test run that ends the JVM never passes,
        whatever the exit code (the mutation gate's probe, rgr.check.mutation.textual,
        ends it on purpose)."""
        output = run.output.replace("\r\n", "\n")
        code = _EXIT_CODE.search(output)
        said = (f"the forked JVM ended (exit code {code.group(1)}) during this class"
                if code else "the forked JVM ended during this class")
        for block in _CRASHED.findall(output):
            for line in block.splitlines():
                name = line.removeprefix("[ERROR] ").strip()
                if name:
                    results.add(TestOutcome(f"{name}::(the JVM ended)",
                                            _test_file(run.root, name), "error", said))

    def ran_no_tests(self, output: str) -> bool:
        # Surefire writes a report per test class it runs; when it ran (and was not
        # told to skip) and wrote none, there are none. It does not always say so.
        return super().ran_no_tests(output) or (
            "maven-surefire-plugin" in output and "Tests are skipped" not in output)


class Gradle(_BuildTool):
    name = "gradle"
    label = "Gradle"
    tool = "gradle test"
    globs = ("build/test-results/test/*.xml", "*/build/test-results/test/*.xml")
    compile_error = _GRADLE_ERROR
    no_tests_words = ("NO-SOURCE",)


def _test_file(root: Path, name: str) -> str | None:
    """The source file of the test class ``name`` (``pkg.FooTest``), where rgr finds it."""
    relative_path = name.split("$", 1)[0].replace(".", "/") + ".java"
    for found in sorted(root.glob(f"**/src/test/java/{relative_path}"))[:1]:
        return found.relative_to(root).as_posix()
    return None


def tests_beside(root: Path, path: str) -> tuple[str, ...]:
    """The test classes written for the main class ``path`` (``src/main/java/x/Foo.java``:
    ``FooTest``, ``FooTests``, ``TestFoo`` under the module's ``src/test/java/x/``), by
    simple name, as Surefire's ``-Dtest`` takes them; () when there are none."""
    marker = "src/main/java/"
    at = path.find(marker)
    if at < 0 or not path.endswith(".java"):
        return ()
    folder, _, file = path[at + len(marker):].rpartition("/")
    stem = file.removesuffix(".java")
    tests = root / path[:at] / "src" / "test" / "java" / folder
    return tuple(name for name in (f"{stem}Test", f"{stem}Tests", f"Test{stem}")
                 if (tests / f"{name}.java").is_file())


class JVM(Plain):
    name = "Java (Maven, Gradle)"
    # the third is the mutation gate's own direct run of JUnit 4 classes (jvm_direct),
    # never a user's command
    runners = (Maven(), Gradle(), jvm_direct.JUnit4Direct())
    reads_junit_xml_itself = frozenset({"maven", "gradle"})
    test_config_globs = ("**/pom.xml", "**/build.gradle*", "**/settings.gradle*",
                         "**/gradle.properties")
    tool_caches = (caches.MAVEN, caches.GRADLE)
    tool_homes = (
        ToolHome("sdkman", "SDKMAN_DIR", ".sdkman"),
        ToolHome("java", "JAVA_HOME", None, ("JAVA_TOOL_OPTIONS",)),
        ToolHome("maven", "M2_HOME", None),
        ToolHome("maven", "MAVEN_HOME", None),
        ToolHome("gradle", "GRADLE_HOME", None),
    )
    # An exit, not a throw: a test expecting an exception (@Test(expected=...),
    # assertThrows) would catch a thrown probe. halt, not System.exit: it runs no
    # shutdown hook that could hang or report. Surefire reports the forked JVM's end
    # (Maven.read_crashes); Gradle fails its test task; under
    # forkCount=0 it ends Maven itself with the code. Fully qualified: a project may
    # have a class of its own named Runtime.
    # The reach marker: a system property makes it write once per line and run (a line
    # in a loop costs one property lookup after that); every Throwable caught (a
    # SecurityManager refusing the property or the write too), so a marker that cannot
    # write changes nothing the tests see (a line without its mark
    # is then "not reached" only when other marks were written: rgr.check.mutation.gate).
    mutation_syntax = (MutationSyntax(
        "java", (".java",), f"java.lang.Runtime.getRuntime().halt({PROBE_EXIT_CODE});",
        reach_marker=(
            'try { if (java.lang.System.getProperty("rgr.reached." + {file} + {line}) == null)'
            ' { java.lang.System.setProperty("rgr.reached." + {file} + {line}, "");'
            " java.nio.file.Files.write(java.nio.file.Paths.get({file}),"
            ' ("{line}" + "\\n").getBytes(), java.nio.file.StandardOpenOption.CREATE,'
            " java.nio.file.StandardOpenOption.APPEND); }"
            " } catch (java.lang.Throwable rgrReachError) { }"),
        parenthesised_conditions=True, type_level=syntax.type_level,
        code_lines=syntax.code_lines, arid=syntax.arid, call_kind=syntax.call_kind,
        bitwise=frozenset({"&", "|", "^", "<<", ">>", ">>>"}), typed_declarations=True,
        may_not_build=True, telling=telling.find),)

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        pom = root / "pom.xml"
        if pom.is_file() and "junit" in pom.read_text(errors="replace").lower():
            return detected(("mvn", "test"), "maven", "pom.xml", Maven.globs)
        for name in ("build.gradle", "build.gradle.kts"):
            if (root / name).is_file():
                gradle = "./gradlew" if (root / "gradlew").is_file() else "gradle"
                return detected((gradle, "test"), "gradle", name, Gradle.globs)
        return None

    def settle(self, cmd: TestCommand, root: Path) -> TestCommand:
        return jvm_direct.settle(cmd, root)

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        if any(n in ("mvn", "mvnw") for n in names):
            return "maven"
        if any(n in ("gradle", "gradlew") for n in names):
            return "gradle"
        return None


ECOSYSTEM = JVM()
