"""The telling input of a survivor (rgr.check.mutation.telling): the tests' own calls of
the mutant's function, one argument varied, run against the original and the mutant in
a real child process of Python."""

from __future__ import annotations

import os
from pathlib import Path

from harness import sweep_only

from rgr.check.mutation import telling
from rgr.check.mutation.mutants import apply, mutants_of

FMT = 'def fmt(value, digits=2):\n    digits = max(digits, 0)\n    return f"{value:.{digits}f}"\n'
TEST = ("from fmtlib import fmt\n\n\ndef test_default():\n    assert fmt(1.5) == '1.50'\n"
        "    assert fmt(value=x) == 'x'  # not literal: skipped\n"
        "    assert lib.fmt(2.5, 3) == '2.500'\n")


def test_the_calls_tried_are_the_tests_own_then_one_argument_varied() -> None:
    calls = telling.calls_to_try("fmt", ("value", "digits"), {"digits": 2}, [TEST])
    assert calls[0] == "1.5"
    # a default the test left alone is varied too, by name
    assert {"1.5, digits=0", "1.5, digits=-1", "1.5, digits=3", "0.0", "-1.5"} \
        <= set(calls)
    # a call through an attribute counts; both its arguments are varied positionally
    assert {"2.5, 3", "2.5, 0", "2.5, 4", "0.0, 3"} <= set(calls)
    assert not any("x" in c for c in calls), calls
    assert telling.calls_to_try("other", ("a",), {}, [TEST]) == []
    assert telling.calls_to_try("fmt", ("value",), {}, ["def broken(:\n"]) == []


def test_an_input_that_tells_the_mutant_apart_is_found(tmp_path: Path) -> None:
    (tmp_path / "fmtlib.py").write_text(FMT)
    [constant] = [m for m in mutants_of("fmtlib.py", FMT, {2}, ("constant",))
                  if m.original == "0"]
    told = telling.find("fmtlib.py", FMT, apply(FMT, constant), 2, [TEST], tmp_path, None,
                        {"PATH": "/usr/bin:/bin"})
    assert told == ("fmt(1.5, digits=0): the original returns '2' against the mutant "
                    "returns '1.5'"), told
    # nothing is left behind in the project
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fmtlib.py"]


def test_no_input_is_claimed_when_none_of_the_calls_differs(tmp_path: Path) -> None:
    source = "def double(n):\n    return n * 2\n"
    (tmp_path / "calc.py").write_text(source)
    # n + n is the same function: no call tells them apart
    told = telling.find("calc.py", source, source.replace("n * 2", "n + n"), 2,
                        ["assert double(3) == 6\n"], tmp_path, None, {"PATH": "/usr/bin:/bin"})
    assert told is None


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


@sweep_only("tests/test_mutation_telling.py", "two go test builds")
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
