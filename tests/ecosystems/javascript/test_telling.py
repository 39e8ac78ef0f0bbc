"""The telling input of a JavaScript survivor (rgr.ecosystems.javascript.telling, the
language's part of the telling search of rgr.check.mutation.gate): the tests' own calls
of the mutant's function, one value varied, run against the original and the mutant in
a real child process of node."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rgr.ecosystems import registry
from rgr.ecosystems.javascript import telling as telling_js

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
