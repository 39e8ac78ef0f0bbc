"""A Maven mutant's first step run directly (rgr.ecosystems.jvm.direct): which changes
take it, what it reads from the checkout Maven built, how its results read, and when the
gate keeps Maven instead. No process here: the real runs, with Maven and javac, are in
tests/ecosystems/jvm/test_mutation_java_maven.py (full sweep)."""

from __future__ import annotations

from pathlib import Path

from rgr.base.config import TestCommand
from rgr.base.proc import Completed
from rgr.check.mutation.gate import agrees_with_phase
from rgr.check.verify import TestReport
from rgr.ecosystems.base import Finished, Status, TestOutcome
from rgr.ecosystems.jvm import direct as jvm_direct
from rgr.ecosystems.jvm.runner import ECOSYSTEM
from rgr.ecosystems.test_scope import Scope, scope_of

MAVEN = TestCommand(("mvn", "test"), "maven", (), False, "detected")
SOURCE = "src/main/java/kata/Ranges.java"
RANGES = """package kata;

public final class Ranges {
    public static final int LIMIT = 100;

    public static int clamp(int value, int low, int high) {
        return value < low ? low : value;
    }
}
"""
JUNIT4 = "package kata;\n\nimport org.junit.Test;\n\npublic class RangesTest {}\n"
JUPITER = "package kata;\n\nimport org.junit.jupiter.api.Test;\n\npublic class RangesTest {}\n"


def project(root: Path, test: str = JUNIT4, source: str = RANGES) -> Path:
    for path, text in {SOURCE: source, "src/test/java/kata/RangesTest.java": test,
                       "pom.xml": "<project><properties><project.build.sourceEncoding>"
                                  "ISO-8859-1</project.build.sourceEncoding></properties>"
                                  "<dependencies>junit</dependencies></project>"}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def built(root: Path, major: int = 51) -> Path:
    """What a Maven run leaves: Surefire's report with the test class path, and the
    changed file's class (``major``: its class file version)."""
    reports = root / "target/surefire-reports"
    reports.mkdir(parents=True, exist_ok=True)
    (reports / "TEST-kata.RangesTest.xml").write_text(
        '<?xml version="1.0"?><testsuite name="kata.RangesTest"><properties>'
        '<property name="surefire.test.class.path" value="/c/target/test-classes:'
        '/c/target/classes:/m2/junit.jar:"/></properties>'
        '<testcase name="a" classname="kata.RangesTest"/></testsuite>')
    classes = root / "target/classes/kata"
    classes.mkdir(parents=True, exist_ok=True)
    (classes / "Ranges.class").write_bytes(b"\xca\xfe\xba\xbe\x00\x00"
                                           + major.to_bytes(2, "big") + b"\x00" * 8)
    return root


def test_a_junit4_class_beside_the_change_runs_directly_first(tmp_path: Path) -> None:
    """The first step is the direct run of ``RangesTest``; Maven's own first step stays
    beside it, and the scope stays exact (a survivor faces ``mvn test``)."""
    scope = scope_of(MAVEN, project(tmp_path), SOURCE)
    assert scope.direct and scope.exact and scope.cmd == MAVEN
    assert scope.first is not None and scope.first.runner == jvm_direct.NAME
    assert scope.first.argv[-5:] == ("target/rgr-direct/classes",
                                     "target/rgr-direct/report.xml", SOURCE,
                                     "kata.RangesTest", "<javac options>")
    assert scope.plain_first is not None and "-Dtest=RangesTest" in scope.plain_first.argv
    assert scope.checked_in(tmp_path) == scope.first
    assert scope.undirected(MAVEN) == Scope(MAVEN, first=scope.plain_first)
    assert jvm_direct.test_files(scope.first) == {"src/test/java/kata/RangesTest.java"}
    # the gate asks the scope, which names no runner, for the files the phase must match
    assert scope.test_files is not None
    assert scope.test_files(scope.first) == {"src/test/java/kata/RangesTest.java"}
    assert scope.undirected(MAVEN).test_files is None


def test_jupiter_an_interface_and_a_shell_keep_maven(tmp_path: Path) -> None:
    jupiter = scope_of(MAVEN, project(tmp_path / "j", JUPITER), SOURCE)
    assert not jupiter.direct and jupiter.first is not None
    assert jupiter.first.runner == "maven"
    interface = project(tmp_path / "i", source="package kata;\n\npublic interface Ranges {\n"
                                               "    int LIMIT = 100;\n}\n")
    assert not scope_of(MAVEN, interface, SOURCE).direct
    shell = TestCommand(("mvn test",), "maven", (), True, "tdd.toml")
    assert not scope_of(shell, project(tmp_path / "s"), SOURCE).direct


def test_the_checkout_maven_built_settles_the_command(tmp_path: Path) -> None:
    """The class path from Surefire's report, behind the private output folder; javac's
    ``-source``/``-target`` from the class file Maven wrote; the pom's encoding."""
    root = project(tmp_path)
    direct = scope_of(MAVEN, root, SOURCE).first
    assert direct is not None
    assert not jvm_direct.ready(root, direct)
    assert not scope_of(MAVEN, root, SOURCE).first_ready(root)  # as the gate asks
    assert ECOSYSTEM.settle(direct, root) == direct  # not built: nothing to fill in
    built(root, major=52)
    assert jvm_direct.ready(root, direct)
    assert scope_of(MAVEN, root, SOURCE).first_ready(root)
    argv = ECOSYSTEM.settle(direct, root).argv
    assert argv[argv.index("-cp") + 1] == ("target/rgr-direct/classes:/c/target/test-classes:"
                                           "/c/target/classes:/m2/junit.jar")
    assert argv[-7:] == ("kata.RangesTest", "-source", "8", "-target", "8",
                         "-encoding", "ISO-8859-1")


def test_a_constant_an_unbuilt_or_tainted_checkout_takes_maven(tmp_path: Path) -> None:
    """A mutated ``final`` field is copied into the classes that use it, which only
    Maven compiles again: Maven runs it, and that checkout runs no more mutants
    directly (its classes hold the mutated value)."""
    root = project(tmp_path)
    scope = scope_of(MAVEN, root, SOURCE)
    tainted: set[Path] = set()
    assert scope.first_in(root, RANGES, (7, 7), tainted) == scope.plain_first  # not built
    built(root)
    assert scope.first_in(root, RANGES, (7, 7), tainted) == scope.first
    assert scope.first_in(root, RANGES, (4, 4), tainted) == scope.plain_first  # final
    assert tainted == {root}
    assert scope.first_in(root, RANGES, (7, 7), tainted) == scope.plain_first
    plain = scope_of(MAVEN, project(tmp_path / "j", JUPITER), SOURCE)
    assert plain.first_in(root, RANGES, (7, 7), set()) == plain.first


def finished(root: Path, code: int, argv: tuple[str, ...] = ("java",)) -> Finished:
    cmd = scope_of(MAVEN, root, SOURCE).first
    assert cmd is not None
    return Finished(cmd, Completed(argv, code, "", "", 1.0), root / "tmp", root, 0.0)


def test_the_direct_runs_results_read_as_maven_s_would(tmp_path: Path) -> None:
    """Its report names each test as Surefire does; a file that does not compile is a
    load error (the mutant is unviable), a JVM that ended without a report an error (a
    probe's halt: the line runs), a run that could not be settled nothing at all."""
    root = project(tmp_path)
    (root / "target/rgr-direct").mkdir(parents=True)
    (root / "target/rgr-direct/report.xml").write_text(
        '<testsuite><testcase classname="kata.RangesTest" name="inside"/>'
        '<testcase classname="kata.RangesTest" name="below"><failure message="m">'
        "java.lang.AssertionError: m</failure></testcase></testsuite>")
    runner = jvm_direct.JUnit4Direct()
    read = runner.read(finished(root, 1))
    assert {k: (o.status, o.file) for k, o in read.outcomes.items()} == {
        "kata.RangesTest::inside": ("passed", "src/test/java/kata/RangesTest.java"),
        "kata.RangesTest::below": ("failed", "src/test/java/kata/RangesTest.java")}
    (root / "target/rgr-direct/report.xml").unlink()
    unbuildable = runner.read(finished(root, 3))
    assert unbuildable.collection_errors and not unbuildable.outcomes
    halted = runner.read(finished(root, 86))
    assert [o.status for o in halted.outcomes.values()] == ["error"]
    unsettled = runner.read(finished(root, 1, ("java", jvm_direct.CLASS_PATH)))
    assert unsettled.collection_errors and unsettled.report_error and not unsettled.outcomes


def report(*outcomes: tuple[str, str, Status]) -> TestReport:
    return TestReport(argv=(), exit_code=0, duration_s=0.1, timed_out=False,
                      outcomes={i: TestOutcome(i, f, s, "") for i, f, s in outcomes},
                      collection_errors=(), no_tests_collected=False, output_excerpt="")


def test_the_direct_run_must_give_the_phases_results_for_its_classes(tmp_path: Path) -> None:
    scope = scope_of(MAVEN, project(tmp_path), SOURCE)
    own = "src/test/java/kata/RangesTest.java"
    phase = report(("kata.RangesTest::a", own, "passed"),
                   ("kata.OtherTest::b", "src/test/java/kata/OtherTest.java", "passed"))
    assert agrees_with_phase(report(("kata.RangesTest::a", own, "passed")), phase, scope)
    assert not agrees_with_phase(report(("kata.RangesTest::a", own, "skipped")), phase,
                                 scope)
    assert not agrees_with_phase(report(("kata.RangesTest::a", own, "passed"),
                                        ("kata.RangesTest::z", own, "passed")), phase, scope)


def test_a_final_local_runs_directly_a_final_field_does_not() -> None:
    """Only a field's value is copied into other classes: a ``final`` local or
    parameter inside a method is the method's own, compiled again with the file."""
    source = ("package kata;\n\npublic class Duration{\n"
              "\tprivate static final long[] UNITS = {1, 60};\n"
              "\tpublic static long seconds(final String text){\n"
              "\t\tfinal int end = text.length() - 1;\n"
              "\t\tfor(final char c : text.toCharArray()){\n\t\t}\n"
              "\t\treturn end * UNITS[0];\n\t}\n}\n")
    assert not jvm_direct.may_run(source, 4)  # the field
    assert jvm_direct.may_run(source, 6) and jvm_direct.may_run(source, 7)
    assert jvm_direct.may_run(source, 9)  # no final at all
