"""Token mutants that need a statement's shape (rgr.check.mutation.blocks), through the
real tokenizer: Go's and Rust's ``if`` block of one ``return`` emptied (go-mutesting's
``branch/if``) and a map read guarded to panic on a missing key; then, in the full sweep,
both on a real repository with the real ``go test``: an unrun return of the zero value is
GREEN's over-implementation, an unread missing key RED's gap."""

from __future__ import annotations

from pathlib import Path

from harness import sweep_only
from toolchains import ensure_go

from rgr.base.config import AdequacyConfig
from rgr.check.mutation.textual import mutants_of
from rgr.ecosystems.mutant import apply
from rgr.store.handoff import AdequacyNote
from tests.gate_helpers import committed, detected_command, measure_commits

ALL = set(range(1, 60))


def _note(tmp_path: Path, before: dict[str, str], after: dict[str, str],
          env: dict[str, str] | None = None) -> AdequacyNote:
    repo, base, tip = committed(tmp_path, before, after)
    return measure_commits(repo, base, tip, detected_command(repo), env=env,
                           settings=AdequacyConfig(jobs=2))


# ------------------------------------- Go: an early return removed, a missing key read

GO_PERCENT = ('package p\n\nimport "strconv"\n\n'
              "func Percent(ratio float64, digits int) string {\n"
              '\tif digits < 0 {\n\t\treturn ""\n\t}\n'
              "\treturn strconv.FormatFloat(ratio*100, 'f', digits, 64) + \"%\"\n}\n")
GO_PERCENT_TEST = ('package p\n\nimport "testing"\n\nfunc TestPercent(t *testing.T) {\n'
                   '\tif got := Percent(0.5, 0); got != "50%" {\n'
                   '\t\tt.Errorf("Percent = %q", got)\n\t}\n}\n')


def test_a_go_if_block_of_one_return_is_emptied_and_no_other() -> None:
    # a return of the zero value has no mutant of its own: its block is emptied
    assert ('return ""', "", "statement") in {
        (m.original, m.replacement, m.operator) for m in mutants_of("p.go", GO_PERCENT, {7})}
    # a block of two statements, a final return and an if with an else are left alone
    other = ("package p\n\nfunc F(x int) int {\n\tif x < 0 {\n\t\tx = 1\n\t\treturn x\n\t}\n"
             "\tif x > 9 {\n\t\treturn 9\n\t} else {\n\t\treturn x\n\t}\n}\n")
    assert not [m for m in mutants_of("p.go", other, ALL) if m.operator == "statement"]
    # a return with a mutant of its own needs no other (one run less)
    own = "package p\n\nfunc F(x int) int {\n\tif x < 0 {\n\t\treturn x + 1\n\t}\n\treturn x\n}\n"
    assert not [m for m in mutants_of("p.go", own, ALL) if m.operator == "statement"]
    # JavaScript has its return mutant instead
    js = "export function f(x) {\n  if (x < 0) {\n    return ''\n  }\n  return x\n}\n"
    assert not [m for m in mutants_of("f.js", js, ALL) if m.operator == "statement"]


RUST_ADD = ("pub fn add(&mut self, name: &str, times: u64) -> Result<(), &'static str> {\n"
            "    if name.is_empty() {\n        return Ok(());\n    }\n"
            "    if times < 1 {\n        return Err(\"times must be at least 1\");\n    }\n"
            "    if times > 9 {\n        return Err(format!(\"{}\", times - 9));\n    }\n"
            "    Ok(())\n}\n")


def test_a_rust_if_block_of_one_return_is_emptied_where_it_has_no_mutant() -> None:
    """cargo-mutants' "replace a function's body with ``Default``" is the unrun branch's
    test: rgr empties the ``if`` block of one ``return`` that has no mutant of its own
    (``return Ok(());``; an ``Err``'s message is noise, not a mutant), as Go's."""
    found = {(m.line, m.original) for m in mutants_of("src/tally.rs", RUST_ADD, ALL)
             if m.operator == "statement"}
    assert found == {(3, "return Ok(());"), (6, 'return Err("times must be at least 1");')}
    emptied = next(m for m in mutants_of("src/tally.rs", RUST_ADD, {3})
                   if m.operator == "statement")
    assert apply(RUST_ADD, emptied).splitlines()[1:4] == [
        "    if name.is_empty() {", "        ", "    }"]


GO_COUNT = ("package p\n\ntype Tally struct {\n\tcounts map[string]int\n}\n\n"
            "func (t *Tally) Add(name string) {\n\tif t.counts == nil {\n"
            "\t\tt.counts = map[string]int{}\n\t}\n\tt.counts[name] += 1\n}\n\n"
            "func (t *Tally) Count(name string) int {\n\treturn t.counts[name]\n}\n\n"
            "func (t *Tally) Has(name string) bool {\n\t_, ok := t.counts[name]\n"
            "\tn, ok := t.counts[name]\n\treturn ok && n > 0 && len(t.counts[f(name)]) > 0\n}\n")


def test_a_go_map_read_gets_a_guard_that_panics_on_a_missing_key() -> None:
    guarded = [m for m in mutants_of("p.go", GO_COUNT, ALL) if "missing key" in m.replacement]
    # the read in Count only: not the write (+=), the comma-ok forms, nor a key that
    # calls a function (evaluated twice)
    assert [(m.line, m.original) for m in guarded] == [(15, "return t.counts[name]")], guarded
    # a slice's index is no map's (its guard would only cost an unviable build)
    slices = "package p\n\nfunc At(xs []int, i int) int {\n\treturn xs[i]\n}\n"
    assert not [m for m in mutants_of("p.go", slices, ALL) if "missing key" in m.replacement]
    assert apply(GO_COUNT, guarded[0]).splitlines()[14] == (
        '\tif _, ok := t.counts[name]; !ok { panic("rgr: a missing key") }; '
        "return t.counts[name]")


@sweep_only("tests/check/mutation/test_blocks.py", "two Go gates, ~40 s")
def test_go_unrun_return_and_unread_missing_key_survive_go_test(tmp_path: Path) -> None:
    """The two Go shapes with no mutant before: a branch returning the zero value that no
    test runs is GREEN's (``uncovered``), a missing key no test reads RED's gap."""
    ensure_go()
    env = {"GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"}
    (tmp_path / "over").mkdir()
    (tmp_path / "weak").mkdir()
    files = {"go.mod": "module example.com/p\n\ngo 1.19\n",
             "percent.go": "package p\n\nfunc Percent(ratio float64, digits int) string {"
                           "\n\treturn \"\"\n}\n",
             "percent_test.go": GO_PERCENT_TEST}
    note = _note(tmp_path / "over", files, {"percent.go": GO_PERCENT}, env)
    assert note.decision == "over-implemented", note
    assert ('return ""', "uncovered") in {(m.original, m.status) for m in note.mutants}, note
    # GREEN's over-implementation sends no RED back: no telling input searched
    assert not [m for m in note.mutants if m.telling_input], note
    count_test = ('package p\n\nimport "testing"\n\nfunc TestCount(t *testing.T) {\n'
                  '\tvar tally Tally\n\ttally.Add("a")\n'
                  '\tif got := tally.Count("a"); got != 1 {\n'
                  '\t\tt.Errorf("Count = %d", got)\n\t}\n}\n')
    code = GO_COUNT[:GO_COUNT.index("func (t *Tally) Has")]
    files = {"go.mod": "module example.com/p\n\ngo 1.19\n", "count_test.go": count_test,
             "count.go": "package p\n\ntype Tally struct{}\n\nfunc (t *Tally) Add(name string) "
                         "{}\n\nfunc (t *Tally) Count(name string) int {\n\treturn 1\n}\n"}
    weak = _note(tmp_path / "weak", files, {"count.go": code}, env)
    assert weak.decision == "test-too-weak", weak
    assert [m.line for m in weak.survivors if "missing key" in m.replacement] == [15], weak
