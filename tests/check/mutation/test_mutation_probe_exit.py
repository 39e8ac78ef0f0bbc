"""A survivor's line is probed with a statement that ends the test process (Go's
``os.Exit``, Rust's ``std::process::exit``, a SIGKILL in JavaScript), never one that
raises: a test asserting that the line raises (``assert.throws``, ``recover()``,
``#[should_panic]``) would catch a raising probe, and rgr would call the line unrun and
GREEN over-implemented. Real go, cargo and node, real git repositories."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from toolchains import ensure_cargo, ensure_go

from rgr.base.config import AdequacyConfig
from rgr.check.mutation.textual import probe_of
from rgr.ecosystems.mutant import apply
from rgr.store.handoff import AdequacyNote
from tests.gate_helpers import committed, detected_command, measure_commits

# ``excess`` only shapes the error: a test asserting the raise cannot tell its mutants
# apart, so they survive; the line runs (the raising test reaches it), so the verdict is
# test-too-weak, never over-implemented.
GO_HALF = """package calc

import "fmt"

// Half halves an even number and panics on an odd one.
func Half(n int) int {
\tif n%2 != 0 {
\t\texcess := n%2 + 1
\t\tpanic(fmt.Sprint("odd by ", excess))
\t}
\treturn n / 2
}
"""
GO_HALF_STUB = "package calc\n\n// Half halves.\nfunc Half(n int) int {\n\treturn 0\n}\n"
GO_HALF_TEST = """package calc

import "testing"

func TestHalf(t *testing.T) {
\tif got := Half(4); got != 2 {
\t\tt.Fatalf("Half(4) = %d", got)
\t}
}

func TestHalfOfAnOddNumberPanics(t *testing.T) {
\tdefer func() {
\t\tif recover() == nil {
\t\t\tt.Fatal("no panic")
\t\t}
\t}()
\tHalf(3)
}
"""

JS_HALF = """function half(n) {
  if (n % 2 !== 0) {
    const excess = n % 2 + 1;
    throw new RangeError(`odd by ${excess}`);
  }
  return n / 2;
}
module.exports = { half };
"""
JS_HALF_STUB = "function half(n) {\n  return 0;\n}\nmodule.exports = { half };\n"
JS_HALF_TEST = """const test = require("node:test");
const assert = require("node:assert");
const { half } = require("./half.js");

test("halves an even number", () => { assert.strictEqual(half(4), 2); });
test("refuses an odd number", () => { assert.throws(() => half(3)); });
"""
#: A line no test runs (no test passes 1000): still found unrun; and the body of a
#: one-line ``if`` no test passes (2000): every call evaluates its condition, none runs
#: its ``return 9``, so the probe must go inside the body, not before the line.
JS_HALF_OVER = JS_HALF.replace("  return n / 2;\n",
                               "  if (n === 1000) {\n    return 7;\n  }\n"
                               "  if (n === 2000) return 9;\n  return n / 2;\n")

RUST_HALF = """pub fn half(n: i64) -> i64 {
    if n % 2 != 0 {
        let excess = n % 2 + 1;
        panic!("odd by {}", excess);
    }
    n / 2
}
"""
RUST_HALF_STUB = "pub fn half(n: i64) -> i64 {\n    let _ = n;\n    0\n}\n"
RUST_HALF_TEST = """use half::half;

#[test]
fn halves() { assert_eq!(half(4), 2); }

#[test]
#[should_panic]
fn refuses_odd() { half(3); }
"""
CARGO_TOML = '[package]\nname = "half"\nversion = "0.1.0"\nedition = "2021"\n'
PACKAGE_JSON = '{"name": "half", "private": true, "scripts": {"test": "node --test"}}\n'


def gate(tmp_path: Path, before: Mapping[str, str], after: Mapping[str, str],
         env: Mapping[str, str]) -> AdequacyNote:
    """The gate of a GREEN that turned ``before`` (RED's commit) into ``after``."""
    repo, base, tip = committed(tmp_path, before, after)
    return measure_commits(repo, base, tip, detected_command(repo), env=env,
                           settings=AdequacyConfig(jobs=2))


def statuses(note: AdequacyNote) -> set[tuple[int, str]]:
    return {(m.line, m.status) for m in note.mutants}


def test_the_go_probe_exits_with_its_own_import_and_moves_no_line() -> None:
    probe = probe_of("calc.go", GO_HALF, 8)
    assert probe is not None
    probed = apply(GO_HALF, probe)
    assert probed.startswith('package calc; import rgrprobeos "os"\n')
    assert probed.splitlines()[7:9] == ["\t\trgrprobeos.Exit(86)", "\t\texcess := n%2 + 1"]
    # a file without a package clause before the line gets no probe (nothing to import in)
    assert probe_of("calc.go", "func f() {\n\treturn\n}\n", 2) is None


def test_the_javascript_and_rust_probes_end_the_process() -> None:
    js = probe_of("half.js", JS_HALF, 3)
    assert js is not None
    assert '    process.kill(process.pid, "SIGKILL");\n    const excess' in apply(JS_HALF, js)
    rust = probe_of("src/lib.rs", RUST_HALF, 3)
    assert rust is not None
    assert "        if true { extern crate std; std::process::exit(86); }\n        let excess" \
        in apply(RUST_HALF, rust)


def test_a_survivor_in_a_one_line_body_is_probed_inside_that_body() -> None:
    """The condition of ``if (v === 1) return 0`` runs on every call, its body only
    when it holds: a probe before the line would call the body run."""
    js = "function f(v) {\n  if (v === 1) return 0; else return 2\n}\n"
    inside = probe_of("f.js", js, 2, js.index("0;"))
    assert inside is not None and inside.col > 1
    assert '  if (v === 1) {process.kill(process.pid, "SIGKILL"); return 0; } else return 2\n' \
        in apply(js, inside)
    # the condition and the else branch: before the line, as any statement
    for needle in ("1)", "2\n"):
        before = probe_of("f.js", js, 2, js.index(needle))
        assert before is not None and before.col == 1, needle
    go = "package p\n\nfunc F(v int) int {\n\tif v == 1 { return 0 }\n\treturn v\n}\n"
    block = probe_of("p.go", go, 4, go.index("0 }"))
    assert block is not None
    assert apply(go, block).splitlines()[3] == "\tif v == 1 { rgrprobeos.Exit(86); return 0 }"
    # a body that goes on past its line is probed before the line
    go_on = "function f(v) {\n  if (v === 1) return v +\n    1\n}\n"
    assert (probe_of("f.js", go_on, 2, go_on.index("v +")) or inside).col == 1


def test_go_a_raising_line_run_only_by_a_test_that_recovers_is_run(tmp_path: Path) -> None:
    ensure_go()
    files = {"go.mod": "module example.com/calc\n\ngo 1.19\n", "calc_test.go": GO_HALF_TEST}
    note = gate(tmp_path, {**files, "calc.go": GO_HALF_STUB}, {**files, "calc.go": GO_HALF},
                {"GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"})
    assert (8, "survived") in statuses(note), note
    assert note.uncovered == 0 and note.decision == "test-too-weak", note


def test_node_a_raising_line_run_only_by_assert_throws_is_run(tmp_path: Path) -> None:
    files = {"package.json": PACKAGE_JSON, "half.test.js": JS_HALF_TEST}
    note = gate(tmp_path, {**files, "half.js": JS_HALF_STUB}, {**files, "half.js": JS_HALF},
                {})
    assert (3, "survived") in statuses(note), note
    assert note.uncovered == 0 and note.decision == "test-too-weak", note


def test_node_a_line_no_test_runs_is_still_found_unrun(tmp_path: Path) -> None:
    files = {"package.json": PACKAGE_JSON, "half.test.js": JS_HALF_TEST}
    note = gate(tmp_path, {**files, "half.js": JS_HALF_STUB},
                {**files, "half.js": JS_HALF_OVER}, {})
    found = statuses(note)
    assert (7, "uncovered") in found and (3, "survived") in found, note
    # line 9: ``if (n === 2000) return 9;``: 2000 -> 2001 survives on a line every call
    # runs; 9 -> 10 survives in a body no test runs
    assert {(9, "2000", "survived"), (9, "9", "uncovered")} <= {
        (m.line, m.original, m.status) for m in note.mutants}, note
    assert note.decision == "over-implemented", note


@pytest.mark.parametrize("over", [False, True])
def test_rust_a_line_run_only_by_a_should_panic_test_is_run(over: bool,
                                                            tmp_path: Path) -> None:
    """The over-implementing crate is ``#![no_std]`` (as itoa is): no ``std`` in scope,
    yet its probe must build (it brings its own ``extern crate std``)."""
    env = ensure_cargo()
    files = {"Cargo.toml": CARGO_TOML, "tests/half.rs": RUST_HALF_TEST}
    body = "#![no_std]\n" + RUST_HALF.replace(
        "    n / 2\n", "    if n == 1000 {\n        return 7;\n    }\n    n / 2\n") \
        if over else RUST_HALF
    note = gate(tmp_path, {**files, "src/lib.rs": RUST_HALF_STUB},
                {**files, "src/lib.rs": body},
                env)
    found = statuses(note)
    shift = 1 if over else 0  # the no_std line
    assert (3 + shift, "survived") in found and (3 + shift, "uncovered") not in found, note
    if over:
        assert (8, "uncovered") in found and note.decision == "over-implemented", note
    else:
        assert note.decision == "test-too-weak", note
