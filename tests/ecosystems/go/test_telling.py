"""The telling input of a Go survivor (rgr.ecosystems.go.telling): the tests' compared
calls, one argument varied; in the full sweep run by the real ``go test`` on the original
and the mutant."""

from __future__ import annotations

import os
from pathlib import Path

from harness import sweep_only

from rgr.ecosystems.mutant import apply

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


@sweep_only("tests/ecosystems/go/test_telling.py", "two go test builds")
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


@sweep_only("tests/ecosystems/go/test_telling.py", "a Go gate and two go test builds")
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
