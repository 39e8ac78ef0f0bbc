"""The telling input of a survivor (rgr.check.mutation.telling, and
rgr.ecosystems.javascript.telling for JavaScript): the tests' own calls of the mutant's
function, one argument varied, run against the original and the mutant in a real child
process of Python (of node)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rgr.check.mutation import telling
from rgr.check.mutation.mutants import apply, mutants_of
from rgr.ecosystems import registry
from rgr.ecosystems.javascript import telling as telling_js

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


PERCENT_JS = ("'use strict'\n\nfunction percent (ratio, { digits = 0, sign = false } = {}) {\n"
              "  const text = `${(ratio * 100).toFixed(digits)}%`\n"
              "  if (sign && ratio > 0) return `+${text}`\n  return text\n}\n\n"
              "module.exports = { percent }\n")
PERCENT_TEST = ("const { percent } = require('../percent')\n"
                "test('a half', (t) => t.assert.strictEqual(percent(0.5), '50%'))\n"
                "test('a gain', (t) => {\n"
                "  t.assert.strictEqual(percent(0.05, { sign: true }), '+5%')\n})\n"
                "test('not literal', (t) => t.assert.ok(percent(x)))\n")


def test_javascript_calls_tried_are_the_tests_own_then_one_value_varied() -> None:
    """An options object's fields are varied one at a time, like the arguments."""
    assert telling_js.enclosing_function(PERCENT_JS, 5) == ("percent", 3)
    assert telling_js.enclosing_function("class A {\n  m () {\n    return 1\n  }\n}\n",
                                         3) is None  # a method: its object's state unknown
    assert telling_js.enclosing_function("const f = async (a) => {\n  return a\n}\n",
                                         2) == ("f", 1)
    calls = telling_js.calls_to_try("percent", [PERCENT_TEST])
    assert calls[0] == "0.5"
    assert {"0.05, {\"sign\": true}", "0, {\"sign\": true}", "0.05, {\"sign\": false}",
            "-0.5", "1.5"} <= set(calls), calls
    assert not any("x" in c for c in calls), calls


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_javascript_input_that_tells_the_mutant_apart_is_found(tmp_path: Path) -> None:
    """``ratio > 0`` -> ``ratio >= 0`` survives tests that never pass zero with a sign:
    varying the gain's ratio to 0 tells it apart, run by node in a child process; the
    mutant file is removed after."""
    (tmp_path / "test").mkdir()
    (tmp_path / "percent.js").write_text(PERCENT_JS)
    (tmp_path / "test" / "percent.test.js").write_text(PERCENT_TEST)
    env = {"PATH": os.environ["PATH"]}
    mutated = PERCENT_JS.replace("ratio > 0", "ratio >= 0")
    sources = telling_js.test_sources(tmp_path, "percent")
    assert any("sign: true" in text for text in sources)
    told = telling_js.find("percent.js", PERCENT_JS, mutated, 5, [], tmp_path, None, env)
    assert told == ('percent(0, {"sign": true}): the original returns "0%" against the '
                    'mutant returns "+0%"'), told
    assert sorted(p.name for p in tmp_path.iterdir()) == ["percent.js", "test"]
    # the same function twice: no call differs, no input is claimed
    assert telling_js.find("percent.js", PERCENT_JS, PERCENT_JS.replace("ratio * 100",
                           "100 * ratio"), 4, [], tmp_path, None, env) is None
    # the registry hands it to the gate for every JavaScript/TypeScript file
    assert {s.language: s.telling for s in registry.mutation_syntax()}["js"] \
        is telling_js.find
