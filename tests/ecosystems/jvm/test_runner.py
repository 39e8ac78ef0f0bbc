"""The mutation gate's Java declaration (rgr.ecosystems.jvm.runner, rgr.check.mutation.textual):
Java's lexical rules (comments, strings, text blocks, char literals, annotations,
imports), what is never mutated, which statements are class-level, where a probe can
stand, how a mutant's Maven run is scoped, and how a forked JVM's end reads. No
process: the real-Maven gate is in tests/ecosystems/jvm/test_mutation_java_maven.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rgr.base.config import AdequacyConfig, TestCommand
from rgr.base.proc import Completed
from rgr.check.mutation.gate import Checkout, Subject, measure
from rgr.check.mutation.textual import (
    language_of,
    mutants_of,
    probe_of,
    reach_of,
    reached_lines,
    tokens_of,
)
from rgr.ecosystems.base import Finished, Results
from rgr.ecosystems.jvm import runner as jvm
from rgr.ecosystems.jvm.runner import Maven
from rgr.ecosystems.jvm.syntax import class_level_lines as java_class_level_lines
from rgr.ecosystems.mutant import apply
from rgr.ecosystems.test_scope import scope_of

PATH = "src/main/java/org/example/Ranges.java"
MAVEN = TestCommand(("mvn", "test"), "maven", (), False, "detected")

SOURCE = """package org.example;

import java.util.List;
import static java.util.Objects.requireNonNull;

/** Clamping a value; "not a string" 1 + 2. */
@SuppressWarnings({"unchecked", "rawtypes"})
public final class Ranges {
    private static final int LIMIT = 10;

    // a comment: low > high
    public static int clamp(int value, int low, int high) {
        requireNonNull(LOG, "no log " + 1);
        if (low > high) {
            throw new IllegalArgumentException("low must not exceed high " + low);
        }
        LOG.debug("clamping {}", value + 1);
        System.out.println("clamping " + value);
        assert value != 3 : "three " + 3;
        char sign = value < 0 ? '-' : '+';
        String block = \"\"\"
            a text block, "quoted", 1 + 2
            \"\"\";
        List<String> names = new java.util.ArrayList<>();
        if (value < low) {
            return low;
        }
        if (Ranges.class != null && value == 1337) { return 0; }
        return value;
    }

    private final Runnable task = new Runnable() {
        @Override
        public void run() { int kept = 4; }
    };
}
"""


def described(source: str) -> list[str]:
    return [f"{m.line}:{m.original}->{m.replacement}" + (" (class level)"
                                                          if m.module_level else "")
            for m in mutants_of(PATH, source, range(1, 100))]


def test_java_is_a_language_of_the_token_mutator() -> None:
    assert language_of(PATH) == "java"
    assert language_of("build.gradle.kts") is None


def test_java_mutants_skip_comments_strings_annotations_messages_and_log_calls() -> None:
    assert described(SOURCE) == [
        "9:10->11 (class level)",
        "14:>-><=", "14:>->>=",
        "19:!=->==", "19:3->4",  # the assert's condition, not its message
        "20:<-><=", "20:<->>=", "20:0->1",
        '21:"""\n            a text block, "quoted", 1 + 2\n            """->""',
        "25:<-><=", "25:<->>=",
        "28:!=->==", "28:&&->||", "28:==->!=", "28:1337->1338", "28:0->1",
        "34:4->5",  # a method's body inside an anonymous class: not class level
    ]


def test_a_boundary_guarding_the_return_of_its_operand_is_equivalent() -> None:
    boundary = [m for m in mutants_of(PATH, SOURCE, [25]) if m.replacement == "<="]
    assert len(boundary) == 1 and "value < low" in boundary[0].equivalent


def test_text_blocks_and_char_literals_are_single_tokens() -> None:
    tokens = tokens_of('char q = \'\\\'\'; String s = """\n  a "b" \\""" c\n  """; int n;\n',
                       "java")
    assert [t.kind for t in tokens if t.kind in ("char", "string")] == ["char", "string"]
    assert tokens[-2].text == "n"


def test_class_level_lines_are_the_declarations_of_a_type_body() -> None:
    lines = java_class_level_lines(tokens_of(SOURCE, "java"))
    assert {9, 12, 32, 33, 34} <= lines
    assert not {13, 14, 17, 25, 26, 28, 29} & lines
    record = "class A {\n  void f() {\n    if (record != null) {\n      x = 1;\n    }\n  }\n}\n"
    assert java_class_level_lines(tokens_of(record, "java")) == {2}


def test_a_probe_halts_the_jvm_before_a_statement_and_stands_nowhere_else() -> None:
    probe = probe_of(PATH, SOURCE, 26)
    assert probe is not None
    assert ("            java.lang.Runtime.getRuntime().halt(86);\n            return low;"
            in apply(SOURCE, probe))
    inside = probe_of(PATH, SOURCE, 28, SOURCE.index("return 0"))
    assert inside is not None and inside.col > 1
    assert "{ java.lang.Runtime.getRuntime().halt(86); return 0; }" in apply(SOURCE, inside)
    assert probe_of(PATH, SOURCE, 9) is None  # a field: no statement stands there
    assert probe_of(PATH, SOURCE, 27) is None  # a closing brace
    assert probe_of(PATH, SOURCE, 23) is None  # inside a statement (the text block)


def test_one_run_marks_every_line_a_statement_can_stand_before() -> None:
    """The reach markers: one per line, on the line itself (no line moves), none where
    no statement stands (a field, a closing brace, a text block's inside)."""
    instrumented = reach_of(PATH, SOURCE, [1, 6, 8, 9, 12, 14, 15, 23, 26, 27, 28],
                            "/tmp/x/m-0.txt")  # package, javadoc, class, method: none
    assert instrumented is not None
    text, marked = instrumented
    assert marked == {14, 15, 26, 28}
    lines = text.splitlines()
    assert len(lines) == len(SOURCE.splitlines())
    assert lines[25].endswith(" return low;") and '"/tmp/x/m-0.txt"' in lines[25]
    assert '("26" + "\\n")' in lines[25] and "Throwable" in lines[25]
    assert lines[8] == SOURCE.splitlines()[8] and lines[26] == "        }"
    assert reached_lines("26\n14\n26\n") == {14, 26}
    assert reach_of("src/calc.go", "package calc\n", [1], "/tmp/m") is None  # no marker


def test_a_mutant_of_a_class_faces_its_own_test_class_first(tmp_path: Path) -> None:
    (tmp_path / "src/test/java/org/example").mkdir(parents=True)
    (tmp_path / "src/test/java/org/example/RangesTest.java").write_text("class RangesTest {}")
    (tmp_path / "src/test/java/org/example/TestRanges.java").write_text("class TestRanges {}")
    assert jvm.tests_beside(tmp_path, PATH) == ("RangesTest", "TestRanges")
    assert jvm.tests_beside(tmp_path, "src/main/java/org/example/Other.java") == ()
    cmd = MAVEN
    scope = scope_of(cmd, tmp_path, PATH)
    assert scope.cmd == cmd and scope.exact and scope.first is not None
    assert scope.first.argv == ("mvn", "test", "-Dtest=RangesTest,TestRanges",
                                "-DfailIfNoTests=false",
                                "-Dsurefire.failIfNoSpecifiedTests=false")
    own = TestCommand(("mvn", "test", "-Dtest=Other*"), "maven", (), False, "test")
    assert scope_of(own, tmp_path, PATH).first is None  # the user's own choice stays
    assert scope_of(cmd, tmp_path, "src/main/java/org/example/Other.java").first is None


#: What Maven 3.8.7 with Surefire 2.22.3 printed here when a test's JVM was halted
#: with code 86 (under -Dmaven.test.failure.ignore=true it still exits 0).
CRASHED = """[INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 0 - in kata.OtherTest
[ERROR] The forked VM terminated without properly saying goodbye. VM crash or System.exit called?
[ERROR] Command was /bin/sh -c cd '/tmp/kata' && java -jar surefirebooter.jar
[ERROR] Error occurred in starting fork, check output in log
[ERROR] Process Exit Code: 86
[ERROR] Crashed tests:
[ERROR] kata.HalfTest
[ERROR] org.apache.maven.surefire.booter.SurefireBooterForkException: The forked VM
"""


def test_a_test_class_whose_jvm_ended_is_an_error_whatever_maven_exits(
        tmp_path: Path) -> None:
    (tmp_path / "src/test/java/kata").mkdir(parents=True)
    (tmp_path / "src/test/java/kata/HalfTest.java").write_text("class HalfTest {}")
    cmd = MAVEN
    done = Completed(("mvn", "test"), 0, CRASHED, "", 1.0, False)
    results = Maven().read(Finished(cmd, done, tmp_path, tmp_path, 0.0))
    outcome = results.outcomes["kata.HalfTest::(the JVM ended)"]
    assert (outcome.status, outcome.file) == ("error", "src/test/java/kata/HalfTest.java")
    assert "exit code 86" in outcome.message
    quiet = Maven().read(Finished(cmd, Completed(("mvn",), 0, "[INFO] BUILD SUCCESS\n", "",
                                                 1.0, False), tmp_path, tmp_path, 0.0))
    assert quiet.outcomes == {} and isinstance(quiet, Results)


def test_the_gate_measures_java_instead_of_saying_not_measured(tmp_path: Path) -> None:
    """A changed Java line with nothing to mutate (a return of a name): measured, a
    pass, no "not measured" remark; and nothing runs."""
    source = "package x;\nclass A {\n    int f(int v) {\n        return v;\n    }\n}\n"
    subject = Subject("GREEN", {"src/main/java/x/A.java": {4}},
                      {"src/main/java/x/A.java": source}, "tree")

    @contextmanager
    def no_checkout(label: str) -> Iterator[Checkout]:
        raise AssertionError(f"nothing to run, yet a checkout was opened ({label})")
        yield  # a generator, for contextmanager

    note = measure(subject, AdequacyConfig(), MAVEN,
                   no_checkout, tmp_path, command_timeout=10)
    assert (note.decision, note.remark) == ("pass", None)
