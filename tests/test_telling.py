"""The telling input of a Go survivor (rgr.ecosystems.go.telling), a Rust one
(rgr.ecosystems.rust.telling) and a Java one (rgr.ecosystems.jvm.telling): the tests'
compared calls, one argument varied; in the full sweep run by the real ``go test`` /
``cargo test`` (javac and java for Java) on the original and the mutant."""

from __future__ import annotations

import os
from pathlib import Path

from harness import sweep_only

from rgr.check.mutation.mutants import apply

# ------------------------------------------------------------------------------- Go

GO_PERCENT = ('package p\n\nimport "strconv"\n\n'
              "func Percent(ratio float64, digits int, sign bool) string {\n"
              "\ttext := strconv.FormatFloat(ratio*100, 'f', digits, 64) + \"%\"\n"
              "\tif sign && ratio > 0 {\n\t\treturn \"+\" + text\n\t}\n\treturn text\n}\n"
              "\nfunc (t *T) Count(name string) int {\n\treturn 0\n}\n\ntype T struct{}\n")
GO_PERCENT_TEST = ('package p\n\nimport "testing"\n\nfunc TestPercent(t *testing.T) {\n'
                   '\tif got := Percent(0.05, 0, true); got != "+5%" {\n'
                   '\t\tt.Errorf("got %q", got)\n\t}\n}\n')


def test_go_calls_tried_are_the_tests_compared_calls_then_one_argument_varied() -> None:
    from rgr.check.fakeit.facts import facts_of
    from rgr.ecosystems.go import telling as go_telling
    facts = [(f.callee, f.args) for f in facts_of("p_test.go", GO_PERCENT_TEST)]
    calls = go_telling.calls_to_try("Percent", facts)
    assert calls[0] == "0.05, 0, true" and "0.0, 0, true" in calls \
        and "0.05, 0, false" in calls and "0.05, -1, true" in calls, calls
    # the function a line is in, a method being none (its receiver's state is unknown)
    assert go_telling.function_at(GO_PERCENT, 7) == "Percent"
    assert go_telling.function_at(GO_PERCENT, 14) is None
    program = go_telling.program("p", "Percent", calls[:2])
    assert "rgrtellingfmt.Sprint(Percent(0.05, 0, true))" in program
    assert program.startswith("package p\n")


@sweep_only("tests/test_telling.py", "two go test builds")
def test_a_go_survivor_is_told_apart_by_a_varied_call(tmp_path: Path) -> None:
    from toolchains import ensure_go

    from rgr.check.fakeit.facts import facts_of
    from rgr.ecosystems.go import telling as go_telling
    ensure_go()
    (tmp_path / "go.mod").write_text("module example.com/p\n\ngo 1.19\n")
    (tmp_path / "p.go").write_text(GO_PERCENT)
    (tmp_path / "p_test.go").write_text(GO_PERCENT_TEST)
    from rgr.check.mutation.textual import mutants_of as token_mutants
    mutant = next(m for m in token_mutants("p.go", GO_PERCENT, {7}) if m.replacement == ">=")
    facts = [(f.callee, f.args) for f in facts_of("p_test.go", GO_PERCENT_TEST)]
    env = {**os.environ, "GOCACHE": str(tmp_path / "cache"), "GOFLAGS": "-mod=mod"}
    told = go_telling.find("p.go", GO_PERCENT, apply(GO_PERCENT, mutant), 7, facts,
                           tmp_path, None, env, 120)
    assert told == 'Percent(0.0, 0, true): the original returns 0% against the mutant ' \
                   'returns +0%', told
    assert (tmp_path / "p.go").read_text() == GO_PERCENT
    assert not (tmp_path / go_telling.FILE).exists()


@sweep_only("tests/test_telling.py", "a Go gate and two go test builds")
def test_the_gate_gives_a_go_survivor_its_telling_input(tmp_path: Path) -> None:
    from toolchains import ensure_go

    from rgr.base.config import AdequacyConfig
    from tests.gate_helpers import committed, detected_command, measure_commits
    ensure_go()
    files = {"go.mod": "module example.com/p\n\ngo 1.19\n", "p_test.go": GO_PERCENT_TEST,
             "p.go": "package p\n\nfunc Percent(ratio float64, digits int, sign bool) string "
                     "{\n\treturn \"+5%\"\n}\n"}
    code = GO_PERCENT[:GO_PERCENT.index("\nfunc (t *T)")]  # no method no test calls
    repo, base, tip = committed(tmp_path, files, {"p.go": code})
    note = measure_commits(repo, base, tip, detected_command(repo),
                           env={"GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"},
                           settings=AdequacyConfig(jobs=2))
    assert note.decision == "test-too-weak", note
    told = {m.replacement: m.telling_input for m in note.survivors if m.line == 7}
    assert told.get(">=") == ("Percent(0.0, 0, true): the original returns 0% against "
                              "the mutant returns +0%"), note


# ----------------------------------------------------------------------------- Rust

RUST_PERCENT = ("//! Ratios.\n\n"
                "pub fn percent(ratio: f64, digits: usize, sign: bool) -> String {\n"
                "    let text = format!(\"{:.*}%\", digits, ratio * 100.0);\n"
                "    if sign && ratio > 0.0 {\n        return format!(\"+{}\", text);\n    }\n"
                "    text\n}\n\nimpl T {\n    pub fn count(&self, name: &str) -> u64 {\n"
                "        0\n    }\n}\n\n"
                "pub fn slug<S: AsRef<str>>(text: S, sep: String) -> String {\n"
                "    String::new()\n}\n")
RUST_PERCENT_TEST = ("use pc::percent::percent;\n\n#[test]\nfn gain() {\n"
                     "    assert_eq!(percent(0.05, 0, true), \"+5%\");\n"
                     "    assert_eq!(percent(-0.05, 0, true).to_string(), \"-5%\");\n"
                     "    assert_eq!(slug(\"A b\", \"-\".to_string()), \"a-b\");\n}\n")


def test_rust_calls_tried_are_the_tests_literal_calls_then_one_argument_varied_by_type(
        ) -> None:
    from rgr.ecosystems.rust import telling as rust_telling
    function = rust_telling.function_at(RUST_PERCENT, 6)
    assert function == rust_telling.Function("percent", ("f64", "usize", "bool"))
    # a method needs its receiver's state: none; a generic parameter's type is unknown
    assert rust_telling.function_at(RUST_PERCENT, 13) is None
    assert rust_telling.function_at(RUST_PERCENT, 18) == rust_telling.Function(
        "slug", ("", "String"))
    given = rust_telling.calls_in(RUST_PERCENT_TEST, "percent")
    assert given == [("0.05", "0", "true"), ("-0.05", "0", "true")]
    calls = rust_telling.calls_to_try(function, given)
    assert calls[0] == "0.05, 0, true" and "0.0, 0, true" in calls \
        and "0.05, 0, false" in calls and "0.05, 1, true" in calls, calls
    assert not [c for c in calls if ", -1," in c], calls  # no negative usize
    # a String parameter gets its literal converted; a generic one only the tests' own
    slug = rust_telling.Function("slug", ("", "String"))
    assert rust_telling.calls_to_try(slug, rust_telling.calls_in(RUST_PERCENT_TEST, "slug")) \
        == ['"A b", String::from("-")', '"A b", String::from("")',
            '"A b", String::from("--")']
    program = rust_telling.program("percent", calls[:2])
    assert "super::percent(0.05, 0, true)" in program and "#[cfg(test)]" in program


@sweep_only("tests/test_telling.py", "two cargo test builds")
def test_a_rust_survivor_is_told_apart_by_a_varied_call(tmp_path: Path) -> None:
    from toolchains import ensure_cargo

    from rgr.check.mutation.textual import mutants_of as token_mutants
    from rgr.ecosystems.rust import telling as rust_telling
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "pc"\nversion = "0.1.0"\n'
                                         'edition = "2021"\n')
    (tmp_path / "src" / "lib.rs").write_text("pub mod percent;\n")
    code = RUST_PERCENT[:RUST_PERCENT.index("\nimpl T")]
    (tmp_path / "src" / "percent.rs").write_text(code)
    (tmp_path / "tests" / "percent.rs").write_text(
        RUST_PERCENT_TEST[:RUST_PERCENT_TEST.index("    assert_eq!(slug")] + "}\n")
    mutant = next(m for m in token_mutants("src/percent.rs", code, {5})
                  if m.replacement == ">=")
    env = {**os.environ, **ensure_cargo(), "CARGO_TARGET_DIR": str(tmp_path / "target")}
    told = rust_telling.find("src/percent.rs", code, apply(code, mutant), 5, [], tmp_path,
                             None, env, 240)
    assert told == ('percent(0.0, 0, true): the original returns "0%" against the mutant '
                    'returns "+0%"'), told
    assert (tmp_path / "src" / "percent.rs").read_text() == code


@sweep_only("tests/test_telling.py", "a Rust gate and two cargo test builds")
def test_the_gate_gives_a_rust_survivor_its_telling_input(tmp_path: Path) -> None:
    from toolchains import ensure_cargo

    from rgr.base.config import AdequacyConfig
    from tests.gate_helpers import committed, detected_command, measure_commits
    env = ensure_cargo()
    code = RUST_PERCENT[:RUST_PERCENT.index("\nimpl T")]
    tests = RUST_PERCENT_TEST[:RUST_PERCENT_TEST.index("    assert_eq!(slug")] + "}\n"
    files = {"Cargo.toml": '[package]\nname = "pc"\nversion = "0.1.0"\nedition = "2021"\n',
             ".gitignore": "/target\nCargo.lock\n", "src/lib.rs": "pub mod percent;\n",
             "tests/percent.rs": tests,
             "src/percent.rs": "pub fn percent(ratio: f64, digits: usize, sign: bool) -> "
                               "String {\n    String::from(\"+5%\")\n}\n"}
    repo, base, tip = committed(tmp_path, files, {"src/percent.rs": code})
    note = measure_commits(repo, base, tip, detected_command(repo), env=env,
                           settings=AdequacyConfig(jobs=2))
    assert note.decision == "test-too-weak", note
    told = {m.replacement: m.telling_input for m in note.survivors if m.line == 5}
    assert told.get(">=") == ('percent(0.0, 0, true): the original returns "0%" against '
                              'the mutant returns "+0%"'), note


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


@sweep_only("tests/test_telling.py", "two javac builds and two JVMs")
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
