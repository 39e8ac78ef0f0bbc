"""What the mutation gate leaves alone (rgr.check.mutation.arid: error messages, log and
print calls, assert messages, directives) and the boundary mutants it decides
equivalent by rule (rgr.check.mutation.boundary): the real mutators on real source
text, then the gate on a real repository with real pytest, on the honest change that
showed the noise (``clamp`` and ``span``)."""

from __future__ import annotations

from pathlib import Path

from bench.corpus.ranges import PY_HONEST
from rgr.check.mutation import textual
from rgr.check.mutation.arid import ARID
from rgr.check.mutation.score import lines as score_lines
from rgr.check.mutation.score import score
from rgr.check.mutation.verdicts import violations_of
from rgr.ecosystems.mutant import Mutant
from rgr.ecosystems.python.mutants import mutants_of
from tests.check.mutation.test_mutation import gate
from tests.conftest import REPO_ROOT, make_repo

ALL = set(range(1, 80))


def kinds(found: list[Mutant]) -> set[tuple[str, str]]:
    return {(m.original, m.replacement) for m in found}


def decided(found: list[Mutant]) -> set[tuple[str, str]]:
    return {(m.original, m.replacement) for m in found if m.equivalent}


# ------------------------------------------------------------------------ noise, Python

NOISY_PY = '''"""A module."""
import logging

logger = logging.getLogger(__name__)


def check(value: int, limit: int) -> int:
    """Checks."""
    if value > limit:
        raise ValueError(f"value {value + 1} exceeds " + "the limit")
    if value < 0:
        raise ValueError("negative: %d" % (value * 2), 7)
    logger.warning("checking %s", value - 1)
    logging.info("done")
    self_log = print("value", value * 3)
    assert value != 3, "three is " + "odd"
    return value
'''


def test_python_error_messages_log_calls_and_assert_messages_are_not_mutated() -> None:
    found = mutants_of("check.py", NOISY_PY, ALL)
    texts = {m.original for m in found}
    # no string, nothing inside a message, a log or print call
    assert not [m for m in found if '"' in m.original and m.operator != "statement"], found
    assert not {"value + 1", "value * 2", "value - 1", "value * 3"} & texts
    # no `pass` for a statement that only logs
    assert not [m for m in found if m.original.startswith(("logger.", "logging.info"))]
    # what the message is attached to is still mutated: the raise, its condition, an
    # exception's non-message argument, the asserted condition, the return
    assert ('raise ValueError(f"value {value + 1} exceeds " + "the limit")', "pass") \
        in kinds(found)
    assert ("value > limit", "value <= limit") in kinds(found)
    assert ("7", "8") in kinds(found)
    assert ("value != 3", "value == 3") in kinds(found)
    assert ("return value", "return None") in kinds(found)
    # the same strings outside a message are still mutated
    plain = mutants_of("m.py", 'def f():\n    return "the limit"\n', {2})
    assert ('"the limit"', '""') in kinds(plain)


# ------------------------------------------------------------------- noise, token languages

NOISY_JS = """'use strict';
export function check(value, limit) {
  if (value > limit) throw new RangeError('value ' + (value + 1) + ' exceeds');
  console.log('checking', value - 1);
  logger.warn(`late ${value}`, value * 2);
  const label = 'a label';
  return value;
}
"""

NOISY_GO = """package check

func Check(value, limit int) (int, error) {
\tif value > limit {
\t\treturn 0, fmt.Errorf("value %d exceeds %d", value+1, limit)
\t}
\tif value < 0 {
\t\tpanic("negative")
\t}
\tlog.Printf("checking %d", value-1)
\tlabel := "a label"
\treturn value, errors.New("late")
}
"""

NOISY_RUST = """pub fn check(value: i64, limit: i64) -> Result<i64, String> {
    if value > limit {
        return Err("value exceeds".into());
    }
    assert!(value != 3, "three is odd");
    let got = lookup(value).expect("value is known");
    eprintln!("checking {}", value - 1);
    let label = "a label";
    Ok(value + got)
}
"""


def test_token_languages_leave_messages_log_calls_and_directives_alone() -> None:
    js = textual.mutants_of("check.js", NOISY_JS, ALL)
    assert {m.line for m in js if m.operator == "constant"} == {6}, js  # only 'a label'
    assert ("+", "-") not in kinds(js) and ("-", "+") not in kinds(js)
    assert (">", "<=") in kinds(js) and 1 not in {m.line for m in js}

    go = textual.mutants_of("check.go", NOISY_GO, ALL)
    assert {m.original for m in go if m.operator == "constant"} == {'"a label"', "0"}, go
    assert not [m for m in go if m.operator == "arithmetic"], go
    assert ("<", ">=") in kinds(go)

    rust = textual.mutants_of("check.rs", NOISY_RUST, ALL)
    # the asserted condition's 3 is behaviour, its message is not
    assert {m.original for m in rust if m.operator == "constant"} == {'"a label"', "3"}, rust
    assert [m.line for m in rust if m.operator == "arithmetic"] == [9], rust
    # the asserted condition is behaviour: still mutated
    assert ("!=", "==") in kinds(rust)


def test_with_noise_the_mutators_give_back_what_they_leave_out() -> None:
    """``noise=True`` (only for the gate's count of what it skipped): every mutant made
    without it, and the noise's own mutants besides."""
    for path, source, mutator in (("check.py", NOISY_PY, mutants_of),
                                  ("check.js", NOISY_JS, textual.mutants_of),
                                  ("check.go", NOISY_GO, textual.mutants_of),
                                  ("check.rs", NOISY_RUST, textual.mutants_of)):
        without, noisy = kinds(mutator(path, source, ALL)), \
            kinds(mutator(path, source, ALL, noise=True))
        assert without < noisy, path
    js_noise = kinds(textual.mutants_of("check.js", NOISY_JS, ALL, noise=True))
    assert ("'use strict'", "''") in js_noise  # the directive
    py_noise = kinds(mutants_of("check.py", NOISY_PY, ALL, noise=True)) \
        - kinds(mutants_of("check.py", NOISY_PY, ALL))
    assert ("value + 1", "value - 1") in py_noise  # inside an error's message
    assert ('logging.info("done")', "pass") in py_noise  # a log call's statement


def test_the_list_of_what_rgr_skips_is_written_down_in_the_manual() -> None:
    readme = " ".join((REPO_ROOT / "docs" / "referee.md").read_text(
        encoding="utf-8").split())
    assert "rgr/check/mutation/arid.py" in readme
    for kind in ARID:
        words = {"docstring": "docstrings", "annotation": "type annotations",
                 "directive": "'use strict'", "error-message": "error messages",
                 "log-call": "log and print calls", "assert-message": "assert messages"}
        assert words[kind] in readme, kind


# ------------------------------------------------------------------- equivalent boundaries

#: The corpus's honest clamp (bench/corpus/ranges.py), as bench/real_code_bench.py adds it.
CLAMP = PY_HONEST


def test_a_boundary_guarding_the_return_of_an_operand_is_decided_equivalent() -> None:
    found = mutants_of("bounds.py", CLAMP, ALL)
    assert decided(found) == {("value < low", "value <= low"),
                              ("value > high", "value >= high")}
    # at low == high one raises and the other does not: tried like any mutant
    assert ("low > high", "low >= high") in kinds(found) - decided(found)
    assert all("differ only when" in m.equivalent for m in found if m.equivalent)


def test_the_python_rule_takes_only_the_exact_shape() -> None:
    shapes = {
        "return a if a < b else b": True,
        "return b if a > b else a": True,
        "return a if a < b else 0": False,  # 0 is not an operand
        "return a if a < f(b) else b": False,  # an operand that runs code
        "return a if a < b and c else b": False,  # not the whole condition
    }
    for line, equivalent in shapes.items():
        source = f"def f(a, b, c):\n    {line}\n"
        swapped = {("a < b", "a <= b"), ("a > b", "a >= b")}
        assert bool(decided(mutants_of("f.py", source, {2})) & swapped) == equivalent, line
    guards = {
        "    if x > hi:\n        x = hi\n    return x\n": True,  # a no-op at equality
        "    if x > hi:\n        y = hi\n    return x\n": False,  # y unset at equality
        "    if x > hi:\n        print(x)\n        return hi\n    return x\n": False,
        "    if x < lo:\n        return lo\n    else:\n        return x\n": True,
        "    if x < lo:\n        return lo\n    else:\n        return 0\n": False,
        "    if x < lo:\n        y = lo\n    else:\n        y = x\n    return y\n": True,
        # at equality the original sets z and the mutant y: not the same
        "    if x < lo:\n        y = lo\n    else:\n        z = x\n    return y\n": False,
        "    if x < lo:\n        return lo\n    else:\n        y = x\n    return y\n": False,
        "    if self.x < lo:\n        return self.x\n    return lo\n": True,
    }
    for body, equivalent in guards.items():
        source = f"def f(self, x, lo, hi):\n{body}"
        assert bool(decided(mutants_of("f.py", source, {2}))) == equivalent, body


def test_the_token_rule_takes_the_same_shapes_in_javascript_go_and_rust() -> None:
    cases = [
        ("f.js", "function f(v, lo) {\n  if (v < lo) return lo;\n  return v;\n}\n", True),
        ("f.js", "function f(v, lo) {\n  if (v < lo) {\n    return v;\n  }\n  return lo;\n}\n",
         True),
        ("f.js", "const m = (a, b) => {\n  return a < b ? a : b;\n};\n", True),
        ("f.js", "function f(v, lo) {\n  if (v < lo) throw new Error('low');\n}\n", False),
        ("f.js", "function f(v, lo) {\n  if (v < lo) return 0;\n  return v;\n}\n", False),
        ("f.js", "function f(v, lo) {\n  if (v < lo) return g(lo);\n  return v;\n}\n", False),
        ("f.go", "func F(v, lo int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\treturn v\n}\n",
         True),
        ("f.go", "func F(v, lo int) int {\n\tif v < lo {\n\t\tv = lo\n\t}\n\treturn v\n}\n",
         True),
        ("f.go", "func F(v, lo int) int {\n\tif v < lo {\n\t\tw = lo\n\t}\n\treturn v\n}\n",
         False),
        ("f.go", "func F(v, lo int) int {\n\tif v < lo {\n\t\tpanic(\"low\")\n\t}\n"
         "\treturn v\n}\n", False),
        ("f.rs", "fn f(a: i64, b: i64) -> i64 {\n    if a < b { a } else { b }\n}\n", True),
        ("f.rs", "fn f(a: i64, b: i64) -> i64 {\n    if a < b { a } else { 0 }\n}\n", False),
        ("f.rs", "fn f(a: i64, b: i64) -> i64 {\n    if a < b && ok() { a } else { b }\n}\n",
         False),
    ]
    for path, source, equivalent in cases:
        found = textual.mutants_of(path, source, {2, 3})
        twins = [m for m in found if (m.original, m.replacement) in {("<", "<="), (">", ">=")}]
        assert twins, (path, source)
        assert all(bool(m.equivalent) == equivalent for m in twins), (path, source, twins)
        # the other comparison mutant (< -> >=) is never decided
        assert not [m for m in found if m.equivalent and m not in twins]


# ----------------------------------------------------------------- the gate, real pytest

STUB = "def clamp(value, low, high):\n    raise NotImplementedError\n\n\n" \
    "def span(low, high):\n    raise NotImplementedError\n"
TESTS = """import pytest

from bounds import clamp, span


def test_inside():
    assert clamp(3, 1, 5) == 3


def test_below():
    assert clamp(0, 1, 5) == 1


def test_above():
    assert clamp(9, 1, 5) == 5


def test_bad_bounds():
    with pytest.raises(ValueError):
        clamp(3, 5, 1)


def test_span():
    assert span(2, 7) == 5
"""
BOTH_BOUNDS = """

def test_both_bounds_equal():
    assert clamp(3, 4, 4) == 4
"""


def clamp_project(tmp_path: Path, tests: str) -> tuple[object, str, str]:
    repo = make_repo(tmp_path)
    base = repo.commit("test: clamp", {"bounds.py": STUB, "tests/test_bounds.py": tests,
                                       "pytest.ini": "[pytest]\npythonpath = .\n"})
    tip = repo.commit("feat: clamp", {"bounds.py": CLAMP})
    return repo, base, tip


def test_the_honest_clamp_meets_no_blocking_verdict(tmp_path: Path) -> None:
    repo, base, tip = clamp_project(tmp_path, TESTS + BOTH_BOUNDS)
    note = gate(repo, base, tip)  # type: ignore[arg-type]
    assert note.decision == "pass", note
    assert note.survivors == [] and note.survived == 0 and note.uncovered == 0
    assert note.equivalent_by_rule == 2 and note.killed == note.tried, note
    # the error's message (emptied, or changed) and the two docstrings: not tried, counted
    assert note.noise_skipped == len(mutants_of("bounds.py", CLAMP, ALL, noise=True)) \
        - len(mutants_of("bounds.py", CLAMP, ALL)) > 0, note
    listed = {(m.original, m.replacement, m.status) for m in note.mutants}
    assert listed == {("value < low", "value <= low", "equivalent-by-rule"),
                      ("value > high", "value >= high", "equivalent-by-rule")}
    dumped = note.model_dump(mode="json", by_alias=True)
    assert score(dumped) == f"{note.tried}/{note.tried} killed (2 equivalent (by rule))"
    assert "differ only when" in score_lines(dumped)[1]


def test_without_the_low_equals_high_test_that_boundary_still_survives(
        tmp_path: Path) -> None:
    repo, base, tip = clamp_project(tmp_path, TESTS)
    note = gate(repo, base, tip)  # type: ignore[arg-type]
    survivors = {(m.original, m.replacement) for m in note.survivors}
    assert survivors == {("low > high", "low >= high")}, note
    assert note.decision == "test-too-weak"
    assert note.equivalent_by_rule == 2


# ------------------------------------------------------- module-level lines, real pytest

GEO_STUB = "def area(r):\n    raise NotImplementedError\n"
GEO = "PRECISION = 2\nUNUSED = 7\n\n\ndef area(r):\n    return round(3.0 * r * r, PRECISION)\n"
GEO_TEST = "from geo import area\n\n\ndef test_area():\n    assert area(1.1111) == 3.7\n"


def test_module_level_statements_are_marked_and_definitions_are_not() -> None:
    found = mutants_of("geo.py", GEO, ALL)
    assert {m.line for m in found if m.module_level} == {1, 2}
    assert not [m for m in found if m.line == 6 and m.module_level]


def test_a_module_level_survivor_is_over_implementation_and_a_read_one_is_killed(
        tmp_path: Path) -> None:
    """``PRECISION = 2`` runs only at import, never under a test: its mutants run against
    the tests that use the module (and die: ``area`` reads it); ``UNUSED = 7``'s survive,
    which is code no test asks for, GREEN's, never RED's weakness."""
    repo = make_repo(tmp_path)
    base = repo.commit("test: area", {"geo.py": GEO_STUB, "tests/test_geo.py": GEO_TEST,
                                      "pytest.ini": "[pytest]\npythonpath = .\n"})
    tip = repo.commit("feat: area", {"geo.py": GEO})
    for env in (None, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}):  # traced; whole suite
        note = gate(repo, base, tip, env=env)  # type: ignore[arg-type]
        assert {m.line for m in note.survivors} == {2}, (env, note)
        assert all(m.status == "uncovered" for m in note.survivors)
        assert note.decision == "over-implemented", note
        texts = [v.message for v in violations_of(note)]
        assert texts and all("geo.py:2" in t for t in texts)
        if env is None:
            assert all("runs only when the module loads" in t for t in texts), texts


def test_the_default_of_a_parameter_never_read_is_equivalent_by_rule() -> None:
    """``def add(self, name, times=1): pass``: no call can tell ``times=2`` apart (a
    caller passing it overrides it; nothing reads it otherwise). Equivalent by rule, not
    a survivor blamed on RED; a default the body reads, or reads through ``locals()``,
    is mutated as ever."""
    source = ("class Tally:\n    def add(self, name, times=1):\n        pass\n\n"
              "    def count(self, name, *, base=0):\n        return base\n\n"
              "    def seen(self, name, k=3):\n        return locals()\n")
    found = {(m.line, m.original): m.equivalent for m in mutants_of("t.py", source, ALL)
             if m.operator == "constant"}
    assert "times" in found[(2, "1")] and "never reads" in found[(2, "1")]
    assert found[(5, "0")] == "" and found[(8, "3")] == ""
