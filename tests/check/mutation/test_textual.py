"""The mutation gate for JavaScript, Go and Rust (rgr.check.mutation.textual): the token
mutator on real sources, then the gate on real git repositories with the real go,
cargo and Vitest, each scenario of the calc kata (a weak test, an over-implementing
GREEN, an honest one). A toolchain that cannot be installed fails by name
(tests/e2e/toolchains.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ecosystems import CALC_HONEST as HONEST
from ecosystems import CALC_OVER as OVER
from ecosystems import CALC_STUB as STUB
from ecosystems import calc_files as project_files
from harness import full_sweep, sweep
from toolchains import ensure_cargo, ensure_go, ensure_js_runners

from rgr.base.config import AdequacyConfig
from rgr.check.mutation.textual import mutants_of, probe_of
from rgr.ecosystems.mutant import apply
from rgr.store.handoff import AdequacyNote
from tests.gate_helpers import committed, detected_command, measure_commits

GO = """package calc

import "strings"

// Add adds two numbers. // not "a string"
func Add(a, b int) int {
\tif a == 1337 {
\t\treturn 0
\t}
\t_ = strings.Repeat("-", 2)
\treturn a + b
}
"""

JS = """import { x } from './y.js';
const path = require('node:path');
export function add(a, b) {
  if (a === 1337 || b > 2) {
    return 0;
  }
  const slug = 'A B'.split(/\\s+/).join('-'); // a + b
  return a +
    b;
}
"""

RUST = """use std::fmt;

pub fn add(a: i64, b: i64) -> i64 {
    let v: Vec<u8> = Vec::new();
    if a == 1337 { return 0; }
    println!("{}", a);
    a + b
}

#[cfg(test)]
mod tests {
    #[test]
    fn t() { assert_eq!(super::add(2, 3), 5); }
}
"""


def described(path: str, source: str) -> list[str]:
    return [f"{m.line}:{m.original}->{m.replacement}"
            for m in mutants_of(path, source, range(1, 100))]


def test_go_mutants_skip_imports_comments_and_keep_to_the_changed_lines() -> None:
    assert described("calc.go", GO) == [
        "7:==->!=", "7:1337->1338", "8:0->1", '10:"-"->""', "10:2->3", "11:+->-"]
    assert [m.line for m in mutants_of("calc.go", GO, {11})] == [11]
    [mutant] = mutants_of("calc.go", GO, {11})
    assert apply(GO, mutant).endswith("\treturn a - b\n}\n")


def test_javascript_mutants_skip_regular_expressions_requires_and_comments() -> None:
    assert described("src/calc.js", JS) == [
        "4:a === 1337 || b > 2->!(a === 1337 || b > 2)", "4:===->!==", "4:1337->1338",
        "4:||->&&", "4:>-><=", "4:>->>=", "4:2->3", "5:0->1", "5:0->undefined",
        "7:'A B'->''", "7:'-'->''", "8:+->-"]
    # a statement over two lines is probed at its first
    assert {m.statement_line for m in mutants_of("src/calc.js", JS, {8})} == {8}


def test_rust_mutants_skip_generics_macro_formats_and_test_modules() -> None:
    assert described("src/lib.rs", RUST) == ["5:==->!=", "5:1337->1338", "5:0->1", "7:+->-"]


def test_numbers_keep_their_suffix_and_other_bases_are_left_alone() -> None:
    source = "fn f() -> u32 {\n    let m = 0xFF;\n    2u32 + 1_000\n}\n"
    assert described("src/lib.rs", source) == ["3:2u32->3u32", "3:+->-", "3:1_000->1001"]


def test_a_probe_stands_before_a_statement_and_nowhere_else() -> None:
    probe = probe_of("calc.go", GO, 8)
    assert probe is not None
    assert '\t\trgrprobeos.Exit(86)\n\t\treturn 0\n' in apply(GO, probe)
    js = probe_of("src/calc.js", JS, 8)
    assert js is not None and '  process.kill(process.pid, "SIGKILL");' in apply(JS, js)
    assert probe_of("calc.go", GO, 9) is None  # a closing brace
    assert probe_of("src/calc.js", JS, 9) is None  # the second line of a statement
    assert probe_of("calc.php", "$x = 1;\n", 1) is None


# ------------------------------------------------------------------ the gate, for real

def toolchain(kind: str, tmp_path: Path) -> dict[str, str]:
    if kind == "go":
        ensure_go()
        return {"GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"}
    if kind == "rust":
        return ensure_cargo()
    return {}


def gate_of(tmp_path: Path, kind: str, body: str, strong: bool) -> AdequacyNote:
    env = toolchain(kind, tmp_path)
    modules = ensure_js_runners() if kind == "vitest" else None
    repo, base, tip = committed(tmp_path, project_files(kind, STUB[kind], strong),
                                {path: text for path, text in
                                 project_files(kind, body, strong).items()
                                 if path in ("calc.go", "src/lib.rs", "src/calc.js")})
    return measure_commits(repo, base, tip, detected_command(repo), env=env,
                           settings=AdequacyConfig(jobs=2), node_modules=modules)


KINDS = ["go", "rust", "vitest"]
#: The survivor and probe cases in Vitest take a Vitest start per mutant: the full sweep's
#: (node's probe is tests/check/mutation/test_mutation_probe_exit.py's, in every run).
PROBED = sweep(KINDS, lambda k: full_sweep() or k != "vitest",
               "tests/check/mutation/test_textual.py")


@pytest.mark.parametrize("kind", PROBED)
def test_a_weak_test_lets_a_run_line_survive(kind: str, tmp_path: Path) -> None:
    note = gate_of(tmp_path, kind, HONEST[kind], strong=False)
    assert note.decision == "test-too-weak", note
    assert ("+", "-", "survived") in {(m.original, m.replacement, m.status)
                                      for m in note.mutants}, note


@pytest.mark.parametrize("kind", PROBED)
def test_code_no_test_runs_is_found_by_its_probe(kind: str, tmp_path: Path) -> None:
    note = gate_of(tmp_path, kind, OVER[kind], strong=True)
    assert note.decision == "over-implemented", note
    # the lines of the body: the file's head takes 3 lines in Go, 1 elsewhere
    first = 5 if kind == "go" else 2
    uncovered = {(m.line - first, m.original) for m in note.mutants
                 if m.status == "uncovered"}
    assert (1, "0") in uncovered, note  # return 0
    # the condition's line runs under the test: its survivor is not called uncovered
    assert (0, "1337") not in uncovered and (0, "1337") in {
        (m.line - first, m.original) for m in note.mutants}, note


@pytest.mark.parametrize("kind", KINDS)
def test_an_honest_change_with_a_strong_test_passes(kind: str, tmp_path: Path) -> None:
    note = gate_of(tmp_path, kind, HONEST[kind], strong=True)
    assert note.decision == "pass" and note.killed == note.tried >= 1, note


def test_a_mutant_that_does_not_build_is_unviable_not_killed(tmp_path: Path) -> None:
    body = '\ts := "x" + "y"\n\t_ = s\n\treturn a + b\n'
    note = gate_of(tmp_path, "go", body, strong=True)
    # '"x" - "y"' does not compile; the string constants do and change nothing tested
    assert note.unviable == 1, note
    assert note.tried == note.killed + note.survived + note.uncovered
    assert note.decision == "test-too-weak", note


def test_a_go_mutant_vet_would_reject_is_judged_by_the_tests(tmp_path: Path) -> None:
    # Each mutant of the condition is one go vet rejects ("redundant or"): run under
    # vet, neither would reach a test and both would be unviable. The tests kill both.
    files = {"go.mod": "module example.com/calc\n\ngo 1.19\n",
             "calc.go": "package calc\n\nfunc Add(a, b int) int {\n\treturn 0\n}\n",
             "calc_test.go": "package calc\n\nimport \"testing\"\n\n"
                             "func TestAdd(t *testing.T) {\n"
                             "\tif Add(2, 3) != 5 || Add(3, 4) != 7 {\n"
                             "\t\tt.Fatal(Add(2, 3), Add(3, 4))\n\t}\n}\n"}
    code = ("package calc\n\nfunc Add(a, b int) int {\n\tif a != 2 || a == 2 {\n"
            "\t\treturn a + b\n\t}\n\treturn 0\n}\n")
    env = toolchain("go", tmp_path)
    repo, base, tip = committed(tmp_path, files, {"calc.go": code})
    note = measure_commits(repo, base, tip, detected_command(repo), env=env,
                           settings=AdequacyConfig(jobs=1))
    assert note.unviable == 0, note
    assert not [m for m in note.mutants if m.original in ("==", "!=")], note
