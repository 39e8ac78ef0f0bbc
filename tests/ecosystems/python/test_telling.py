"""The telling input of a survivor (rgr.ecosystems.python.telling): the tests' own calls of
the mutant's function, one argument varied, run against the original and the mutant in a
real child process of Python (JavaScript's: tests/ecosystems/javascript/test_telling.py,
Go's: tests/ecosystems/go/test_telling.py)."""

from __future__ import annotations

from pathlib import Path

from rgr.ecosystems.mutant import apply
from rgr.ecosystems.python import telling
from rgr.ecosystems.python.mutants import mutants_of

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
