"""A Maven project's JUnit 4 test classes run directly, for the mutation gate: the changed
``.java`` file compiled alone with the JDK's compiler into a private folder that stands
first on the class path, then the test classes written for it run with JUnitCore, in one
JVM (``RgrJUnit4Direct.java`` beside this file, started by ``java`` in source-file mode).

Why: json-simple's 73 tests take under a second, while ``mvn test`` takes Maven's start,
its plugins, the compile check and Surefire's forked JVM; each mutant paid all of it.

What it needs, read from the checkout at each run (``settle``): the class path Surefire
reported for the module's tests (``surefire.test.class.path`` in
``target/surefire-reports/TEST-*.xml``, written by an earlier Maven run in that checkout)
and the class file Maven compiled from the changed file (its version gives javac's
``-source``/``-target``); the encoding is the pom's ``project.build.sourceEncoding``.
Without them the checkout is not ``ready``, and the gate runs Maven instead.

Not exact, so the gate holds it to what Maven says: the direct run, unmutated, must give
the phase's own results for those test classes before its kills count; a mutant that
survives it still runs with the user's Maven command and every test; and a change Maven
would compile into other classes too (a constant: ``final`` on the mutated statement, or
any ``interface``, whose fields are constants) is never run directly
(``may_run``; a ``final`` local runs directly). JUnit 5 (Jupiter) test classes keep Maven.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import Finished, Results, TestOutcome
from rgr.ecosystems.junit import MTIME_SLACK_S, ReportUnreadable, parse_xml, read_reports
from rgr.ecosystems.jvm import syntax
from rgr.ecosystems.tokens import tokens_of

NAME = "junit4-direct"
LAUNCHER = Path(__file__).with_name("RgrJUnit4Direct.java")
#: Stand-ins in the unsettled command (what messages show), made concrete per run.
CLASS_PATH = "<out>:<surefire.test.class.path>"
_LAUNCHER_WORD = LAUNCHER.name
_JAVAC_OPTIONS = "<javac options>"
#: Where the direct run writes, under the module: the build's own output folder.
_OUT = "target/rgr-direct/classes"
_REPORT = "target/rgr-direct/report.xml"
#: The launcher's own exit codes for "nothing ran" (RgrJUnit4Direct.java).
_DOES_NOT_COMPILE, _NO_TEST_CLASS, _NO_COMPILER = 3, 4, 5
#: Faster start for a short JVM (C1 only, one GC thread): neither changes what a test sees.
_JVM_FLAGS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
_ENCODING = re.compile(
    r"<(?:project\.build\.sourceEncoding|maven\.compiler\.encoding)>\s*([\w.-]+)\s*<")
_JUNIT4 = re.compile(r"\bimport\s+(?:static\s+)?(?:org\.junit\.(?!jupiter)|junit\.framework\.)")
_JUPITER = re.compile(r"\borg\.junit\.jupiter\.")
_CONSTANT = re.compile(r"\bfinal\b")
_INTERFACE = re.compile(r"(?<![\w.])@?interface\s+\w")


def direct_command(cmd: TestCommand, root: Path, path: str,
                   classes: tuple[str, ...]) -> TestCommand | None:
    """The direct run of the test classes ``classes`` (simple names, beside ``path`` in
    the module's ``src/test/java``) against a change of ``path``; None where rgr does not
    run them directly (a shell command, JUnit 5, no test class, an interface)."""
    marker = "src/main/java/"
    at = path.find(marker)
    if cmd.shell or at < 0 or not classes:
        return None
    module, inner = path[:at], path[at + len(marker):]
    folder = inner.rpartition("/")[0]
    try:
        if _INTERFACE.search((root / path).read_text(encoding="utf-8", errors="replace")):
            return None
        tests = [(root / module / "src/test/java" / folder / f"{name}.java").read_text(
            encoding="utf-8", errors="replace") for name in classes]
    except OSError:
        return None
    if any(_JUPITER.search(text) or not _JUNIT4.search(text) for text in tests):
        return None
    package = folder.replace("/", ".")
    qualified = ",".join(f"{package}.{name}" if package else name for name in classes)
    argv = ("java", *_JVM_FLAGS, "-cp", CLASS_PATH, _LAUNCHER_WORD, module + _OUT,
            module + _REPORT, path, qualified, _JAVAC_OPTIONS)
    return TestCommand(argv, NAME, (), False, cmd.source, cmd.setting)


def may_run(source: str, line: int) -> bool:
    """Whether a mutant of ``line`` of ``source`` may run directly: not a constant's
    declaration (a field with ``final`` on it), whose value javac copies into the
    classes that use it, which the direct run does not compile again (Maven does). A
    ``final`` local or parameter inside a method is seen by that method only, compiled
    again with the file: it runs directly."""
    lines = source.splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    if not _CONSTANT.search(text):
        return True
    return line in syntax.code_lines(tokens_of(source, "java"))


def ready(root: Path, cmd: TestCommand) -> bool:
    """Whether the checkout ``root`` has what the direct run ``cmd`` needs (a Maven run
    there reported the test class path and compiled the changed file)."""
    return _settled_parts(root, cmd) is not None


def settle(cmd: TestCommand, root: Path) -> TestCommand:
    """``cmd`` with the class path and javac's options read from the checkout ``root``;
    as it is when they are missing (the run then reads as not run: ``read``)."""
    if cmd.runner != NAME:
        return cmd
    parts = _settled_parts(root, cmd)
    if parts is None:
        return cmd
    class_path, options = parts
    argv: list[str] = []
    for word in cmd.argv:
        if word == CLASS_PATH:
            argv.append(class_path)
        elif word == _JAVAC_OPTIONS:
            argv.extend(options)
        else:
            argv.append(word)
    return TestCommand(tuple(argv), cmd.runner, cmd.junit_globs, cmd.shell, cmd.source,
                       cmd.setting)


def test_files(cmd: TestCommand) -> frozenset[str]:
    """The test classes' files the direct run ``cmd`` runs, relative to the checkout."""
    out, _report, _path = _fields(cmd)
    module = out.removesuffix(_OUT)
    classes = cmd.argv[cmd.argv.index(_LAUNCHER_WORD) + 4].split(",")
    return frozenset(f"{module}src/test/java/{name.replace('.', '/')}.java"
                     for name in classes)


def _fields(cmd: TestCommand) -> tuple[str, str, str]:
    """(the output folder, the report, the changed file), relative to the checkout."""
    at = cmd.argv.index(_LAUNCHER_WORD)
    return cmd.argv[at + 1], cmd.argv[at + 2], cmd.argv[at + 3]


def _settled_parts(root: Path, cmd: TestCommand) -> tuple[str, tuple[str, ...]] | None:
    if _LAUNCHER_WORD not in cmd.argv:
        return None
    out, _report, path = _fields(cmd)
    module = out.removesuffix(_OUT)
    class_path = _test_class_path(root / module / "target" / "surefire-reports")
    version = _class_version(root / module / "target" / "classes"
                             / path.split("src/main/java/", 1)[1].replace(".java", ".class"))
    if class_path is None or version is None:
        return None
    options = ["-source", version, "-target", version]
    try:
        encoding = _ENCODING.search((root / module / "pom.xml").read_text(errors="replace"))
    except OSError:
        encoding = None
    if encoding:
        options += ["-encoding", encoding.group(1)]
    return f"{out}:{class_path}", tuple(options)


def test_class_path(root: Path, module: str) -> str | None:
    """The test class path Surefire reported for ``module`` (``""`` or ``"core/"``) in
    the checkout ``root``, where an earlier Maven run left its reports; else None."""
    return _test_class_path(root / module / "target" / "surefire-reports")


def _test_class_path(reports: Path) -> str | None:
    """The module's test class path, as Surefire's newest report gives it."""
    try:
        found = sorted((p for p in reports.glob("TEST-*.xml")
                        if p.is_file() and not p.is_symlink()),
                       key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    for report in found[:3]:
        try:
            element = parse_xml(report)
        except ReportUnreadable:
            continue
        for prop in element.iter("property"):
            if prop.get("name") == "surefire.test.class.path" and prop.get("value"):
                entries = [e for e in (prop.get("value") or "").split(":") if e]
                return ":".join(entries) if entries else None
    return None


def _class_version(class_file: Path) -> str | None:
    """The Java version a class file was compiled for (its major version less 44)."""
    try:
        with class_file.open("rb") as handle:
            head = handle.read(8)
    except OSError:
        return None
    if len(head) < 8 or head[:4] != b"\xca\xfe\xba\xbe":
        return None
    major = int.from_bytes(head[6:8], "big")
    return str(major - 44) if major > 44 else None


class JUnit4Direct:
    """The runner of the direct command: reads the launcher's JUnit XML."""

    name = NAME
    label = "JUnit 4, run directly (rgr's mutation gate)"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        launcher = tmp / LAUNCHER.name
        shutil.copyfile(LAUNCHER, launcher)
        return tuple(str(launcher) if word == _LAUNCHER_WORD else word for word in cmd.argv)

    def read(self, run: Finished) -> Results:
        results = Results()
        _out, report_path, path = _fields(run.cmd)
        code = run.done.returncode
        if CLASS_PATH in run.done.argv:
            # the checkout lacked what the run needs: nothing was tested, nothing killed
            results.load_error(path)
            results.report_error = "no Maven test class path in this checkout"
            return results
        report = run.root / report_path
        fresh = (report.is_file() and not report.is_symlink()
                 and report.stat().st_mtime >= run.started - MTIME_SLACK_S)
        if fresh:
            read_reports(run, [report], results, jvm=True)
            results.no_tests = code == 0 and not results.outcomes
            if code != 0 and all(o.status in ("passed", "skipped")
                                 for o in results.outcomes.values()):
                results.add(TestOutcome(f"{path}::(the test run)", None, "error",
                                        f"the direct test run exited with code {code}"))
        elif code in (_DOES_NOT_COMPILE, _NO_TEST_CLASS, _NO_COMPILER):
            results.load_error(path)
        elif code != 0:
            # the JVM ended under the tests (System.exit, halt, a crash), as Surefire's
            # "crashed" class: a test run that ends the JVM never passes
            results.add(TestOutcome(f"{path}::(the JVM ended)", None, "error",
                                    f"the JVM ended (exit code {code}) during the tests"))
        return results

    def fix(self) -> str:
        return "rgr's direct JUnit 4 run is the mutation gate's own; nothing to set"
