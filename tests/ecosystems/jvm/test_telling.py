"""The telling input of a Java survivor (rgr.ecosystems.jvm.telling): the tests' literal
calls of a static method, one argument varied; in the full sweep compiled by javac and
run by java on the original and the mutant."""

from __future__ import annotations

import os
from pathlib import Path

from harness import sweep_only

from rgr.ecosystems.mutant import apply

# ----------------------------------------------------------------------------- Java

JAVA_PERCENT = ("package org.example;\n\nimport java.util.Locale;\n\npublic class Percent{\n"
                "\tpublic static String percent(final double ratio, final int digits, "
                "final boolean sign){\n"
                "\t\tfinal String text = String.format(Locale.ROOT, \"%.\" + digits + \"f%%\", "
                "ratio * 100);\n"
                "\t\tif(sign && ratio > 0){\n\t\t\treturn \"+\" + text;\n\t\t}\n"
                "\t\treturn text;\n\t}\n\n"
                "\tpublic int count(final String name){\n\t\treturn 0;\n\t}\n\n"
                "\tstatic void log(final String text){\n\t\tSystem.out.println(text);\n\t}\n\n"
                "\tstatic class Inner{\n\t\tstatic long twice(final long n){\n"
                "\t\t\treturn n * 2;\n\t\t}\n\t}\n}\n")
JAVA_PERCENT_TEST = ("package org.example;\n\nimport org.junit.Assert;\nimport org.junit.Test;\n\n"
                     "public class PercentTest{\n\t@Test\n\tpublic void testAGain(){\n"
                     "\t\tAssert.assertEquals(\"+5%\", Percent.percent(0.05, 0, true));\n"
                     "\t\tAssert.assertEquals(\"x\", Percent.percent(ratio(), 0, true));\n"
                     "\t}\n}\n")
JAVA_PATH = "src/main/java/org/example/Percent.java"


def test_java_calls_tried_are_the_tests_literal_calls_then_one_argument_varied() -> None:
    from rgr.ecosystems.jvm import telling as java_telling
    calls = java_telling.calls_to_try("percent", [JAVA_PERCENT_TEST])
    # the call with a computed argument is not tried; the literal one first, then varied
    assert calls[0] == "0.05, 0, true" and "0.0, 0, true" in calls \
        and "0.05, 0, false" in calls and "0.05, -1, true" in calls, calls
    assert not any("ratio()" in call for call in calls)
    # suffixes and strings written back as Java writes them
    assert java_telling.calls_to_try("f", ['f(2L, "ab", -1.5f)'])[:4] == [
        '2L, "ab", -1.5f', '0L, "ab", -1.5f', '1L, "ab", -1.5f', '-1L, "ab", -1.5f']
    # the static method a line is in; an instance method, a void one and a nested
    # class's are none (an object's state, nothing returned, a name not reached)
    assert java_telling.method_at(JAVA_PERCENT, 8) == ("Percent", "percent")
    assert java_telling.method_at(JAVA_PERCENT, 14) is None
    assert java_telling.method_at(JAVA_PERCENT, 18) is None
    assert java_telling.method_at(JAVA_PERCENT, 23) is None
    anonymous = ("class C{\n\tstatic final Runnable R = new Runnable(){\n"
                 "\t\tpublic void run(){\n\t\t}\n\t};\n}\n")
    assert java_telling.method_at(anonymous, 3) is None
    program = java_telling.program("org.example", "Percent", "percent", calls[:2])
    assert program.startswith("package org.example;\n")
    assert "return Percent.percent(0.05, 0, true);" in program


@sweep_only("tests/ecosystems/jvm/test_telling.py", "two javac builds and two JVMs")
def test_a_java_survivor_is_told_apart_by_a_varied_call(tmp_path: Path) -> None:
    from rgr.check.mutation.textual import mutants_of as token_mutants
    from rgr.ecosystems.jvm import telling as java_telling
    code, test = tmp_path / JAVA_PATH, tmp_path / "src/test/java/org/example/PercentTest.java"
    code.parent.mkdir(parents=True)
    test.parent.mkdir(parents=True)
    code.write_text(JAVA_PERCENT)
    test.write_text(JAVA_PERCENT_TEST)
    mutant = next(m for m in token_mutants(JAVA_PATH, JAVA_PERCENT, {8})
                  if m.replacement == ">=")
    told = java_telling.find(JAVA_PATH, JAVA_PERCENT, apply(JAVA_PERCENT, mutant), 8, [],
                             tmp_path, None, os.environ, 120)
    assert told == ('Percent.percent(0.0, 0, true): the original returns "0%" against the '
                    'mutant returns "+0%"'), told
    assert code.read_text() == JAVA_PERCENT
    # rgr's class and builds are gone, and the build folder it made with them
    assert not (tmp_path / "target").exists()
