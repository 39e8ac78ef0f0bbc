"""Java/Maven: a RED's test of a class or method not written yet fails at testCompile;
when every compile error names only the code under test (rgr.ecosystems.jvm.javac_errors) it
is a right RED, and the tests the failed compile hid are held to GREEN's run. Real mvn
and javac on Debian's Maven repository; the sweep's cases with RGR_FULL_SWEEP=1."""

from __future__ import annotations

import os
from pathlib import Path

from harness import sweep_only
from toolchains import ensure_maven, maven_home, maven_pom

from rgr.check.guards import check_tests, hidden_tests
from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.jvm.javac_errors import compile_kinds, javac_errors
from rgr.ecosystems.registry import detect_test_command
from rgr.store.handoff import Phase

SLUG = ("package kata;\npublic class Slug {\n"
        "  public static String up(String s) { return s.toUpperCase(); }\n}\n")
SLUG_TEST = ("package kata;\nimport static org.junit.Assert.assertEquals;\nimport org.junit.Test;\n"
             "public class SlugTest {\n"
             "  @Test public void ups() { assertEquals(\"A\", Slug.up(\"a\")); }\n}\n")
HEADER = "package kata;\nimport static org.junit.Assert.assertEquals;\nimport org.junit.Test;\n"
#: A RED naming only what does not exist yet: a class (used statically and built), a
#: method and a constant of an existing class.
CALC_TEST = HEADER + (
    "public class CalcTest {\n"
    "  @Test public void adds() { assertEquals(3, Calc.add(1, 2)); }\n"
    "  @Test public void made() { Calc c = new Calc(3); assertEquals(3, c.value()); }\n"
    "  @Test public void twice() { assertEquals(4, Slug.twice(2)); }\n"
    "  @Test public void limit() { assertEquals(4, Slug.LIMIT); }\n}\n")
CALC = ("package kata;\npublic class Calc {\n  private final int v;\n"
        "  public Calc(int v) { this.v = v; }\n  public int value() { return v; }\n"
        "  public static int add(int a, int b) { return a + b; }\n}\n")
SLUG_MORE = SLUG.replace("\n}\n", "\n  public static final int LIMIT = 4;\n"
                         "  public static int twice(int n) { return 2 * n; }\n}\n")


def write(root: Path, contents: dict[str, str]) -> Path:
    for name, text in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def mvn(root: Path) -> TestReport:
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == "maven"
    env, _ = maven_home()
    return run_tests(cmd, root, timeout=300, env={**os.environ, **env})


def project(tmp_path: Path) -> tuple[Path, TestReport]:
    ensure_maven()
    root = write(tmp_path / "kata", {"pom.xml": maven_pom(), "src/main/java/kata/Slug.java": SLUG,
                                     "src/test/java/kata/SlugTest.java": SLUG_TEST})
    start = mvn(root)
    assert start.all_passed and set(start.outcomes) == {"kata.SlugTest::ups"}, \
        start.output_excerpt
    return root, start


# Java's RED failure kinds from a real Maven build run in every run
# (tests/ecosystems/test_failure_kind.py::test_maven_kinds), and Surefire's per-test reading
# (tests/ecosystems/test_runners.py::test_maven_surefire).
@sweep_only("tests/ecosystems/jvm/test_javac_errors.py", "a Maven RED of a class not written yet")
def test_a_test_of_a_class_and_methods_not_written_yet_is_a_right_red(tmp_path: Path) -> None:
    root, start = project(tmp_path)
    write(root, {"src/test/java/kata/CalcTest.java": CALC_TEST})
    red = mvn(root)
    assert red.load_kinds == {"src/test/java/kata/CalcTest.java": "missing-code"}, red.output
    # testCompile failed: no test ran, the existing one is hidden, not removed
    assert hidden_tests(start, red) == {"kata.SlugTest::ups"}
    assert check_tests(Phase.RED, start, red) == []


@sweep_only("tests/ecosystems/jvm/test_javac_errors.py", "GREEN after that RED: a third Maven run")
def test_green_after_a_red_that_did_not_compile_is_held_to_the_start(tmp_path: Path) -> None:
    root, start = project(tmp_path)
    write(root, {"src/test/java/kata/CalcTest.java": CALC_TEST})
    red = mvn(root)
    write(root, {"src/main/java/kata/Calc.java": CALC, "src/main/java/kata/Slug.java": SLUG_MORE})
    green = mvn(root)
    assert green.all_passed and len(green.outcomes) == 5, green.output_excerpt
    assert check_tests(Phase.GREEN, start, green, red_report=red) == []


#: Each file one wrong RED (its own error, not the code under test missing), and one right.
WRONG = {
    "src/test/java/kata/LibraryTest.java": "package kata;\n"
                                           "import org.assertj.core.api.Assertions;\n"
                                           "public class LibraryTest {}\n",
    "src/test/java/kata/TypeTest.java": "package kata;\npublic class TypeTest {\n"
                                        "  int x = Slug.up(\"a\");\n}\n",
    "src/test/java/kata/HelperTest.java": "package kata;\npublic class HelperTest {\n"
                                          "  String s = helper(\"a\");\n}\n",
    "src/test/java/kata/LocalTest.java": "package kata;\npublic class LocalTest {\n"
                                         "  int y = count + 1;\n}\n",
    "src/test/java/kata/StringTest.java": "package kata;\npublic class StringTest {\n"
                                          "  String s = \"a\".shout();\n}\n",
    "src/test/java/kata/FakeTest.java": "package kata;\npublic class FakeTest {\n"
                                        "  Object o = new SlugTestHelper();\n}\n",
    "src/test/java/kata/PackageTest.java": "package kata;\nimport kata.text.Words;\n"
                                           "public class PackageTest {\n"
                                           "  String w = Words.up(\"a\");\n}\n",
}


@sweep_only("tests/ecosystems/jvm/test_javac_errors.py", "every wrong RED in one Maven run")
def test_compile_errors_of_the_tests_own_making_are_no_red(tmp_path: Path) -> None:
    root, start = project(tmp_path)
    write(root, WRONG)
    red = mvn(root)
    kinds = dict(red.load_kinds)
    assert kinds.pop("src/test/java/kata/PackageTest.java") == "missing-code", red.output
    assert kinds == {f: "test-error" for f in WRONG if "PackageTest" not in f}, red.output
    assert [v.rule for v in check_tests(Phase.RED, start, red)] == ["tests-do-not-load"]
    # javac stops at a syntax error before it looks for any symbol: a run of its own
    for name in WRONG:
        (root / name).unlink()
    write(root, {"src/test/java/kata/SyntaxTest.java": CALC_TEST.replace("Calc.add(1, 2)",
                                                                          "Calc.add(1, )")})
    syntax = mvn(root)
    assert syntax.load_kinds == {"src/test/java/kata/SyntaxTest.java": "test-error"}, \
        syntax.output


# ------------------------------------------------------------------ Gradle's words for it

#: javac's lines as Gradle prints them (no Gradle here to run: the reader is checked on
#: javac's own format, which Gradle passes through).
GRADLE_OUTPUT = """\
> Task :compileTestJava FAILED
{root}/src/test/java/kata/CalcTest.java:6: error: cannot find symbol
  @Test public void twice() {{ assertEquals(4, Slug.twice(2)); }}
                                                ^
  symbol:   method twice(int)
  location: class Slug
{root}/src/test/java/kata/CalcTest.java:7: error: cannot find symbol
  @Test public void adds() {{ assertEquals(3, Calc.add(1, 2)); }}
                                          ^
  symbol:   variable Calc
  location: class CalcTest
2 errors
"""


def test_gradle_prints_javac_errors_read_alike(tmp_path: Path) -> None:
    root = write(tmp_path, {"src/main/java/kata/Slug.java": SLUG})
    output = GRADLE_OUTPUT.format(root=root)
    assert [(e.file, e.line, e.symbol) for e in javac_errors(output, root)] == [
        ("src/test/java/kata/CalcTest.java", 6, "method twice(int)"),
        ("src/test/java/kata/CalcTest.java", 7, "variable Calc")]
    assert compile_kinds(output, root) == {"src/test/java/kata/CalcTest.java": "missing-code"}
    (root / "src/main/java/kata/Slug.java").unlink()  # no longer the project's class
    assert compile_kinds(output, root) == {"src/test/java/kata/CalcTest.java": "test-error"}


def module_pom(name: str) -> str:
    return maven_pom(name).replace(
        f"<groupId>kata</groupId><artifactId>{name}</artifactId><version>1.0</version>",
        "<parent><groupId>kata</groupId><artifactId>parent</artifactId><version>1.0</version>"
        f"</parent><artifactId>{name}</artifactId>")


WORD_TEST = ("package other;\nimport static org.junit.Assert.assertEquals;\n"
             "import org.junit.Test;\npublic class WordTest {\n"
             "  @Test public void one() { assertEquals(1, Word.one()); }\n}\n")


@sweep_only("tests/ecosystems/jvm/test_javac_errors.py", "a Maven build of two modules")
def test_a_red_in_one_module_leaves_the_other_module_running(tmp_path: Path) -> None:
    """rgr runs Maven with --fail-at-end: module b, which does not build on a, still runs
    its tests after a's testCompile failed, and they count."""
    ensure_maven()
    parent = maven_pom("parent").replace(
        "<version>1.0</version>", "<version>1.0</version><packaging>pom</packaging>"
        "<modules><module>a</module><module>b</module></modules>", 1)
    root = write(tmp_path / "build", {
        "pom.xml": parent, "a/pom.xml": module_pom("a"), "b/pom.xml": module_pom("b"),
        "a/src/main/java/kata/Slug.java": SLUG, "a/src/test/java/kata/SlugTest.java": SLUG_TEST,
        "b/src/main/java/other/Word.java": "package other;\npublic class Word {\n"
                                           "  public static int one() { return 1; }\n}\n",
        "b/src/test/java/other/WordTest.java": WORD_TEST})
    start = mvn(root)
    assert set(start.outcomes) == {"kata.SlugTest::ups", "other.WordTest::one"}, start.output
    write(root, {"a/src/test/java/kata/CalcTest.java": CALC_TEST})
    red = mvn(root)
    assert set(red.outcomes) == {"other.WordTest::one"}, red.output
    assert red.load_kinds == {"a/src/test/java/kata/CalcTest.java": "missing-code"}
    assert hidden_tests(start, red) == {"kata.SlugTest::ups"}
    assert check_tests(Phase.RED, start, red) == []
    # a RED that also breaks module b's test is caught there: b still ran
    write(root, {"b/src/test/java/other/WordTest.java": WORD_TEST.replace("(1, Word", "(2, Word")})
    broken = mvn(root)
    assert [v.rule for v in check_tests(Phase.RED, start, broken)] == ["red-breaks-tests"]


def test_a_new_constructor_of_an_existing_class_is_a_type_error(tmp_path: Path) -> None:
    """javac does not say "cannot find symbol" for an overload that does not exist: the
    test calls existing code with a signature it lacks, which rgr rejects (start from the
    class's existing signature)."""
    root = write(tmp_path, {"src/main/java/kata/Slug.java": SLUG})
    output = (f"[ERROR] {root}/src/test/java/kata/NewTest.java:[5,18] constructor Slug in "
              "class kata.Slug cannot be applied to given types;\n"
              "  required: no arguments\n  found:    int\n"
              "  reason: actual and formal argument lists differ in length\n[INFO] 1 error\n")
    assert compile_kinds(output, root) == {"src/test/java/kata/NewTest.java": "test-error"}
