"""The Java mutation gate with the real Maven and Surefire (Debian's, offline), on real
git repositories: a weak test lets a mutant of a line it runs survive, a line no test
runs is found by its probe (``Runtime.halt``), and a line only a test expecting an
exception runs is never called unrun (the probe halts the JVM; an exception it would
have caught). Each gate runs Maven a dozen times (about a minute of CPU), so the
default run leaves them to the full sweep:

    RGR_FULL_SWEEP=1 .venv/bin/python -m pytest tests/ecosystems/jvm/test_mutation_java_maven.py
"""

from __future__ import annotations

from pathlib import Path

from harness import sweep_only
from toolchains import ensure_maven, maven_home, maven_pom

from bench.corpus.ranges import STYLES
from rgr.base.config import AdequacyConfig
from rgr.store.handoff import AdequacyNote
from tests.gate_helpers import committed, detected_command, measure_commits

WHERE = "tests/ecosystems/jvm/test_mutation_java_maven.py"
RANGES = "src/main/java/kata/Ranges.java"

#: ``excess`` only shapes the message: its mutants survive, and its line runs only under
#: the test that expects the exception.
HALF = """package kata;

public final class Half {
    public static int half(int n) {
        if (n % 2 != 0) {
            int excess = n % 2 + 1;
            throw new IllegalArgumentException("odd by " + excess);
        }
        return n / 2;
    }
}
"""
HALF_TEST = """package kata;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class HalfTest {
    @Test
    public void halvesAnEvenNumber() {
        assertEquals(2, Half.half(4));
    }

    @Test(expected = IllegalArgumentException.class)
    public void refusesAnOddNumber() {
        Half.half(3);
    }
}
"""


def _gate(tmp_path: Path, red: dict[str, str], green: dict[str, str],
          pom: str | None = None) -> AdequacyNote:
    ensure_maven()
    env, _ = maven_home()
    base = {"pom.xml": pom or maven_pom(), ".gitignore": "target/\n", **red}
    repo, red_commit, green_commit = committed(tmp_path, base, green)
    # A generous budget: this file measures verdicts, not time (a loaded machine runs
    # a Maven build in 10-40 s).
    return measure_commits(repo, red_commit, green_commit, detected_command(repo), env=env,
                           settings=AdequacyConfig(budget=1200, jobs=2),
                           command_timeout=600)


def _ranges(text: str) -> str:
    return text.replace("{package}", "kata")


@sweep_only(WHERE, "a dozen Maven builds")
def test_an_over_implementing_line_is_found_by_its_probe(tmp_path: Path) -> None:
    """``if (value == 1337) { return 0; }``: no test passes 1337, so ``1337 -> 1338``
    survives on a line the tests run (the condition is evaluated), and ``return 0``'s
    probe is never reached: over-implemented, naming that line."""
    style = STYLES["junit4"]
    note = _gate(tmp_path, {RANGES: "package kata;\npublic final class Ranges {\n}\n",
                            "src/test/java/kata/RangesTest.java": _ranges(style["tests"])},
                 {RANGES: _ranges(style["over"])})
    by_line = {(m.original, m.replacement): m.status for m in note.mutants}
    assert note.decision == "over-implemented", note
    assert by_line[("1337", "1338")] == "survived", note
    assert by_line[("0", "1")] == "uncovered", note
    assert note.not_run == 0 and note.unviable == 0, note


@sweep_only(WHERE, "a dozen Maven builds")
def test_a_line_only_an_expected_exception_test_runs_is_not_called_unrun(
        tmp_path: Path) -> None:
    """A thrown probe would be caught by ``@Test(expected = ...)`` and the line called
    unrun (GREEN told to delete what its test needs); the halted JVM cannot be."""
    note = _gate(tmp_path, {"src/main/java/kata/Half.java":
                            "package kata;\npublic final class Half {\n"
                            "    public static int half(int n) {\n        return 0;\n"
                            "    }\n}\n",
                            "src/test/java/kata/HalfTest.java": HALF_TEST},
                 {"src/main/java/kata/Half.java": HALF})
    excess = [m for m in note.mutants if m.line == 6]
    assert excess and {m.status for m in excess} == {"survived"}, note
    assert note.decision == "test-too-weak", note


@sweep_only(WHERE, "a dozen Maven builds")
def test_a_direct_run_that_differs_from_maven_gives_way_to_maven(tmp_path: Path) -> None:
    """Surefire sets a system property a test needs (the pom's
    ``systemPropertyVariables``); rgr's direct JUnit run does not, so that test fails
    there unmutated. Its kills must not count: the mutants run with Maven again, the
    weak test's survivors are found, and the note says why."""
    surefire = "<artifactId>maven-surefire-plugin</artifactId><version>2.22.3</version>"
    pom = maven_pom().replace(surefire, surefire + (
        "<configuration><systemPropertyVariables><kata.mode>on</kata.mode>"
        "</systemPropertyVariables></configuration>"))
    assert pom != maven_pom()
    configured = HALF_TEST.replace("public class HalfTest {", (
        "public class HalfTest {\n    @Test\n    public void isConfigured() {\n"
        '        assertEquals("on", System.getProperty("kata.mode"));\n    }\n'))
    note = _gate(tmp_path, {"src/main/java/kata/Half.java":
                            "package kata;\npublic final class Half {\n"
                            "    public static int half(int n) {\n        return 0;\n"
                            "    }\n}\n",
                            "src/test/java/kata/HalfTest.java": configured},
                 {"src/main/java/kata/Half.java": HALF}, pom=pom)
    excess = [m for m in note.mutants if m.line == 6]
    assert excess and {m.status for m in excess} == {"survived"}, note
    assert note.decision == "test-too-weak", note
    assert "did not give the phase's own results" in (note.remark or ""), note
