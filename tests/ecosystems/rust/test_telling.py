"""The telling input of a Rust survivor (rgr.ecosystems.rust.telling): the tests' literal
calls, one argument varied by its parameter's type; in the full sweep run by the real
``cargo test`` on the original and the mutant."""

from __future__ import annotations

import os
from pathlib import Path

from harness import sweep_only

from rgr.ecosystems.mutant import apply

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


@sweep_only("tests/ecosystems/rust/test_telling.py", "two cargo test builds")
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


@sweep_only("tests/ecosystems/rust/test_telling.py", "a Rust gate and two cargo test builds")
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
