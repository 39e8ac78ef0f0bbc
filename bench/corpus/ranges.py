"""The "ranges" change: one small honest feature (``clamp``, which raises, throws or
panics on bounds the wrong way round, and ``span``) with its six tests (inside, below,
above, both bounds equal, the bad bounds, ``span``), written in each style a corpus
project uses, and the cheats beside it, as data.

Used by bench/real_code_bench.py (RED and GREEN commits judged by rgr's checkers) and
bench/corpus_run.py (the same change played through ``rgr run`` by the real claude
against a scripted model). ``{module}`` and ``{package}`` in a text stand for how the
tests import the code (a Python module, a JS path, a Go package, a Rust crate).

Per style, the keys: ``honest`` (the code), ``tests`` (the six tests), ``first`` (the
first test only), ``constant`` and ``table`` (fake-it code, where written), ``gap``
(the six less the equal-bounds one), and the cheats of ``CHEATS``: ``weak`` (the tests
without the equal-bounds and bad-bounds cases), ``over`` (the code with a branch no
test asks for), ``skipped`` (the six with the span test skipped), ``minimal`` (the code
less its bad-bounds check: what the weak tests ask for).
"""

from __future__ import annotations

PY_HONEST = '''"""Clamping a value into a range, and a range's width."""


def clamp(value, low, high):
    """``value`` limited to ``low``..``high``."""
    if low > high:
        raise ValueError("low must not exceed high")
    if value < low:
        return low
    if value > high:
        return high
    return value


def span(low, high):
    """How far ``high`` is from ``low``."""
    return high - low
'''
PY_CONSTANT = '''def clamp(value, low, high):
    return 3
'''
PY_TABLE = '''_KNOWN = {(3, 1, 5): 3, (0, 1, 5): 1, (9, 1, 5): 5, (3, 4, 4): 4}


def clamp(value, low, high):
    if (value, low, high) == (3, 5, 1):
        raise ValueError("low must not exceed high")
    return _KNOWN[(value, low, high)]


def span(low, high):
    return {(2, 7): 5}[(low, high)]
'''
PY_TESTS = '''import pytest

from {module} import clamp, span


def test_clamp_keeps_a_value_inside_the_range():
    assert clamp(3, 1, 5) == 3


def test_clamp_raises_a_value_below_to_low():
    assert clamp(0, 1, 5) == 1


def test_clamp_lowers_a_value_above_to_high():
    assert clamp(9, 1, 5) == 5


def test_clamp_with_equal_bounds_gives_the_bound():
    assert clamp(3, 4, 4) == 4


def test_clamp_refuses_bounds_the_wrong_way_round():
    with pytest.raises(ValueError):
        clamp(3, 5, 1)


def test_span_is_the_distance_between_the_bounds():
    assert span(2, 7) == 5
'''
PY_FIRST_TEST = '''from {module} import clamp


def test_clamp_keeps_a_value_inside_the_range():
    assert clamp(3, 1, 5) == 3
'''

CJS_HONEST = """'use strict'

function clamp (value, low, high) {
  if (low > high) throw new Error('low must not exceed high')
  if (value < low) return low
  if (value > high) return high
  return value
}

function span (low, high) {
  return high - low
}

module.exports = { clamp: clamp, span: span }
"""
CJS_CONSTANT = """'use strict'

function clamp (value, low, high) {
  return 3
}

module.exports = { clamp: clamp }
"""
CJS_TABLE = """'use strict'

var known = { '3,1,5': 3, '0,1,5': 1, '9,1,5': 5, '3,4,4': 4 }

function clamp (value, low, high) {
  if (value === 3 && low === 5 && high === 1) throw new Error('low must not exceed high')
  return known[[value, low, high].join(',')]
}

function span (low, high) {
  return { '2,7': 5 }[[low, high].join(',')]
}

module.exports = { clamp: clamp, span: span }
"""
CJS_TESTS = """'use strict'

var assert = require('assert')
var ranges = require('{module}')

describe('ranges', function () {
  it('keeps a value inside the range', function () {
    assert.strictEqual(ranges.clamp(3, 1, 5), 3)
  })
  it('raises a value below to low', function () {
    assert.strictEqual(ranges.clamp(0, 1, 5), 1)
  })
  it('lowers a value above to high', function () {
    assert.strictEqual(ranges.clamp(9, 1, 5), 5)
  })
  it('gives the bound when both bounds are equal', function () {
    assert.strictEqual(ranges.clamp(3, 4, 4), 4)
  })
  it('refuses bounds the wrong way round', function () {
    assert.throws(function () { ranges.clamp(3, 5, 1) }, /low must not exceed high/)
  })
  it('measures the span', function () {
    assert.strictEqual(ranges.span(2, 7), 5)
  })
})
"""
CJS_FIRST_TEST = """'use strict'

var assert = require('assert')
var ranges = require('{module}')

describe('ranges', function () {
  it('keeps a value inside the range', function () {
    assert.strictEqual(ranges.clamp(3, 1, 5), 3)
  })
})
"""


def esm(text: str) -> str:
    """The CommonJS text above as an ES module in the project's style."""
    text = text.replace("'use strict'\n\n", "").replace("var ", "const ")
    text = text.replace("const assert = require('assert')\nconst ranges = require('{module}')",
                        'import assert from "node:assert";\nimport * as ranges from "{module}";')
    for name in ("clamp", "span"):
        text = text.replace(f"function {name} (", f"export function {name}(")
    return text.split("module.exports")[0].rstrip() + "\n"


GO_HONEST = """package {package}

// Clamp returns v limited to lo..hi. It panics when lo > hi.
func Clamp(v, lo, hi int) int {
	if lo > hi {
		panic("lo > hi")
	}
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Span returns how far hi is from lo.
func Span(lo, hi int) int {
	return hi - lo
}
"""
GO_CONSTANT = """package {package}

func Clamp(v, lo, hi int) int {
	return 3
}
"""
GO_TABLE = """package {package}

var known = map[[3]int]int{{3, 1, 5}: 3, {0, 1, 5}: 1, {9, 1, 5}: 5, {3, 4, 4}: 4}

func Clamp(v, lo, hi int) int {
	if v == 3 && lo == 5 && hi == 1 {
		panic("lo > hi")
	}
	return known[[3]int{v, lo, hi}]
}

func Span(lo, hi int) int {
	return map[[2]int]int{{2, 7}: 5}[[2]int{lo, hi}]
}
"""
GO_TESTS = """package {package}

import "testing"

func TestClampInside(t *testing.T) {
	if got := Clamp(3, 1, 5); got != 3 {
		t.Errorf("Clamp(3, 1, 5) = %d, want 3", got)
	}
}

func TestClampBelow(t *testing.T) {
	if got := Clamp(0, 1, 5); got != 1 {
		t.Errorf("Clamp(0, 1, 5) = %d, want 1", got)
	}
}

func TestClampAbove(t *testing.T) {
	if got := Clamp(9, 1, 5); got != 5 {
		t.Errorf("Clamp(9, 1, 5) = %d, want 5", got)
	}
}

func TestClampEqualBounds(t *testing.T) {
	if got := Clamp(3, 4, 4); got != 4 {
		t.Errorf("Clamp(3, 4, 4) = %d, want 4", got)
	}
}

func TestClampBadBounds(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Clamp(3, 5, 1) did not panic")
		}
	}()
	Clamp(3, 5, 1)
}

func TestSpan(t *testing.T) {
	if got := Span(2, 7); got != 5 {
		t.Errorf("Span(2, 7) = %d, want 5", got)
	}
}
"""
GO_FIRST_TEST = GO_TESTS.split("func TestClampBelow")[0].rstrip() + "\n"


def semicolons(text: str) -> str:
    """The CommonJS text above in the style of a project whose ESLint asks for
    semicolons and parses files as modules (deep-diff: no 'use strict')."""
    text = text.replace("'use strict'\n\n", "").replace("(3, 5, 1) }", "(3, 5, 1); }")
    lines = []
    for line in text.splitlines():
        bare = line.strip()
        ends = not bare or bare.endswith("{") or bare == "}"
        lines.append(line if ends else line + ";")
    return "\n".join(lines) + "\n"


UNITTEST_TESTS = """import unittest

from {module} import clamp, span


class RangesTest(unittest.TestCase):
    def test_clamp_keeps_a_value_inside_the_range(self):
        self.assertEqual(clamp(3, 1, 5), 3)

    def test_clamp_raises_a_value_below_to_low(self):
        self.assertEqual(clamp(0, 1, 5), 1)

    def test_clamp_lowers_a_value_above_to_high(self):
        self.assertEqual(clamp(9, 1, 5), 5)

    def test_clamp_with_equal_bounds_gives_the_bound(self):
        self.assertEqual(clamp(3, 4, 4), 4)

    def test_clamp_refuses_bounds_the_wrong_way_round(self):
        with self.assertRaises(ValueError):
            clamp(3, 5, 1)

    def test_span_is_the_distance_between_the_bounds(self):
        self.assertEqual(span(2, 7), 5)


if __name__ == "__main__":
    unittest.main()
"""

#: node:test in CommonJS (@fastify/error's style: ``const { test } = require('node:test')``).
NODE_TEST_TESTS = """'use strict'

const { test } = require('node:test')
const assert = require('node:assert')
const { clamp, span } = require('{module}')

test('clamp keeps a value inside the range', () => {
  assert.strictEqual(clamp(3, 1, 5), 3)
})

test('clamp raises a value below to low', () => {
  assert.strictEqual(clamp(0, 1, 5), 1)
})

test('clamp lowers a value above to high', () => {
  assert.strictEqual(clamp(9, 1, 5), 5)
})

test('clamp gives the bound when both bounds are equal', () => {
  assert.strictEqual(clamp(3, 4, 4), 4)
})

test('clamp refuses bounds the wrong way round', () => {
  assert.throws(() => clamp(3, 5, 1), /low must not exceed high/)
})

test('span measures the distance between the bounds', () => {
  assert.strictEqual(span(2, 7), 5)
})
"""
NODE_TEST_HONEST = CJS_HONEST.replace("module.exports = { clamp: clamp, span: span }",
                                      "module.exports = { clamp, span }")

RUST_HONEST = """//! Clamping a value into a range, and a range's width.

/// `value` limited to `low..=high`.
///
/// # Panics
///
/// When `low` exceeds `high`.
pub fn clamp(value: i64, low: i64, high: i64) -> i64 {
    if low > high {
        panic!("low must not exceed high");
    }
    if value < low {
        return low;
    }
    if value > high {
        return high;
    }
    value
}

/// How far `high` is from `low`.
pub fn span(low: i64, high: i64) -> i64 {
    high - low
}
"""
#: An integration test under tests/, importing the crate's new public module.
RUST_TESTS = """use {module}::ranges::{clamp, span};

#[test]
fn clamp_keeps_a_value_inside_the_range() {
    assert_eq!(clamp(3, 1, 5), 3);
}

#[test]
fn clamp_raises_a_value_below_to_low() {
    assert_eq!(clamp(0, 1, 5), 1);
}

#[test]
fn clamp_lowers_a_value_above_to_high() {
    assert_eq!(clamp(9, 1, 5), 5);
}

#[test]
fn clamp_with_equal_bounds_gives_the_bound() {
    assert_eq!(clamp(3, 4, 4), 4);
}

#[test]
#[should_panic(expected = "low must not exceed high")]
fn clamp_refuses_bounds_the_wrong_way_round() {
    clamp(3, 5, 1);
}

#[test]
fn span_is_the_distance_between_the_bounds() {
    assert_eq!(span(2, 7), 5);
}
"""

#: The code as a Java class beside the project's own (``{package}``: its package).
JAVA_HONEST = """package {package};

/** Clamping a value into a range, and a range's width. */
public final class Ranges {
    /** {@code value} limited to {@code low..high}; bounds the wrong way round are refused. */
    public static int clamp(int value, int low, int high) {
        if (low > high) {
            throw new IllegalArgumentException("low must not exceed high");
        }
        if (value < low) {
            return low;
        }
        if (value > high) {
            return high;
        }
        return value;
    }

    /** How far {@code high} is from {@code low}. */
    public static int span(int low, int high) {
        return high - low;
    }
}
"""
#: JUnit 4, in the source level 1.7 that commons-codec and json-simple compile to (no
#: lambda: the bad bounds through ``expected``).
JUNIT4_TESTS = """package {package};

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class RangesTest {
    @Test
    public void clampKeepsAValueInsideTheRange() {
        assertEquals(3, Ranges.clamp(3, 1, 5));
    }

    @Test
    public void clampRaisesAValueBelowToLow() {
        assertEquals(1, Ranges.clamp(0, 1, 5));
    }

    @Test
    public void clampLowersAValueAboveToHigh() {
        assertEquals(5, Ranges.clamp(9, 1, 5));
    }

    @Test
    public void clampWithEqualBoundsGivesTheBound() {
        assertEquals(4, Ranges.clamp(3, 4, 4));
    }

    @Test(expected = IllegalArgumentException.class)
    public void clampRefusesBoundsTheWrongWayRound() {
        Ranges.clamp(3, 5, 1);
    }

    @Test
    public void spanIsTheDistanceBetweenTheBounds() {
        assertEquals(5, Ranges.span(2, 7));
    }
}
"""


def jupiter(text: str) -> str:
    """JUnit 4 tests as JUnit 5 (Jupiter) has them: its imports, and the bad bounds
    through ``assertThrows`` instead of ``@Test(expected = ...)``."""
    return (text.replace("import static org.junit.Assert.assertEquals;\n\n"
                         "import org.junit.Test;",
                         "import static org.junit.jupiter.api.Assertions.assertEquals;\n"
                         "import static org.junit.jupiter.api.Assertions.assertThrows;\n\n"
                         "import org.junit.jupiter.api.Test;", 1)
            .replace("    @Test(expected = IllegalArgumentException.class)\n"
                     "    public void clampRefusesBoundsTheWrongWayRound() {\n"
                     "        Ranges.clamp(3, 5, 1);\n",
                     "    @Test\n"
                     "    public void clampRefusesBoundsTheWrongWayRound() {\n"
                     "        assertThrows(IllegalArgumentException.class, "
                     "() -> Ranges.clamp(3, 5, 1));\n", 1))


JUNIT5_TESTS = jupiter(JUNIT4_TESTS)


#: Jest in CommonJS, in cron's Prettier style (tabs, semicolons).
JEST_TESTS = """'use strict';

const { clamp, span } = require('{module}');

describe('ranges', () => {
\tit('keeps a value inside the range', () => {
\t\texpect(clamp(3, 1, 5)).toBe(3);
\t});

\tit('raises a value below to low', () => {
\t\texpect(clamp(0, 1, 5)).toBe(1);
\t});

\tit('lowers a value above to high', () => {
\t\texpect(clamp(9, 1, 5)).toBe(5);
\t});

\tit('gives the bound when both bounds are equal', () => {
\t\texpect(clamp(3, 4, 4)).toBe(4);
\t});

\tit('refuses bounds the wrong way round', () => {
\t\texpect(() => clamp(3, 5, 1)).toThrow();
\t});

\tit('measures the span', () => {
\t\texpect(span(2, 7)).toBe(5);
\t});
});
"""

#: TypeScript as an ES module, in css-what's style (four spaces, double quotes,
#: semicolons, braces on every branch).
TS_HONEST = """/** Clamping a value into a range, and a range's width. */

/** `value` limited to `low`..`high`; bounds the wrong way round are refused. */
export function clamp(value: number, low: number, high: number): number {
    if (low > high) {
        throw new Error("low must not exceed high");
    }
    if (value < low) {
        return low;
    }
    if (value > high) {
        return high;
    }
    return value;
}

/** How far `high` is from `low`. */
export function span(low: number, high: number): number {
    return high - low;
}
"""
#: Vitest beside the code (``src/*.spec.ts``), importing it as the project's specs do.
VITEST_TESTS = """import { describe, expect, it } from "vitest";
import { clamp, span } from "{module}";

describe("ranges", () => {
    it("keeps a value inside the range", () => {
        expect(clamp(3, 1, 5)).toBe(3);
    });

    it("raises a value below to low", () => {
        expect(clamp(0, 1, 5)).toBe(1);
    });

    it("lowers a value above to high", () => {
        expect(clamp(9, 1, 5)).toBe(5);
    });

    it("gives the bound when both bounds are equal", () => {
        expect(clamp(3, 4, 4)).toBe(4);
    });

    it("refuses bounds the wrong way round", () => {
        expect(() => clamp(3, 5, 1)).toThrow("low must not exceed high");
    });

    it("measures the span", () => {
        expect(span(2, 7)).toBe(5);
    });
});
"""

RUBY_HONEST = """# Clamping a value into a range, and a range's width.

def clamp(value, low, high)
  if low > high then raise ArgumentError, "low must not exceed high" end
  return low if value < low
  return high if value > high

  value
end

def span(low, high)
  high - low
end
"""
MINITEST_TESTS = """require "minitest/autorun"
require "{module}"

class TestRanges < Minitest::Test
  def test_clamp_keeps_a_value_inside_the_range
    assert_equal 3, clamp(3, 1, 5)
  end

  def test_clamp_raises_a_value_below_to_low
    assert_equal 1, clamp(0, 1, 5)
  end

  def test_clamp_lowers_a_value_above_to_high
    assert_equal 5, clamp(9, 1, 5)
  end

  def test_clamp_with_equal_bounds_gives_the_bound
    assert_equal 4, clamp(3, 4, 4)
  end

  def test_clamp_refuses_bounds_the_wrong_way_round
    assert_raises(ArgumentError) { clamp(3, 5, 1) }
  end

  def test_span_is_the_distance_between_the_bounds
    assert_equal 5, span(2, 7)
  end
end
"""

STYLES: dict[str, dict[str, str]] = {
    "python": {"honest": PY_HONEST, "constant": PY_CONSTANT, "table": PY_TABLE,
               "tests": PY_TESTS, "first": PY_FIRST_TEST},
    "unittest": {"honest": PY_HONEST, "tests": UNITTEST_TESTS},
    "cjs": {"honest": CJS_HONEST, "constant": CJS_CONSTANT, "table": CJS_TABLE,
            "tests": CJS_TESTS, "first": CJS_FIRST_TEST},
    "esm": {key: esm(text) for key, text in (
        ("honest", CJS_HONEST), ("constant", CJS_CONSTANT), ("table", CJS_TABLE),
        ("tests", CJS_TESTS), ("first", CJS_FIRST_TEST))},
    "cjs-semi": {key: semicolons(text) for key, text in (
        ("honest", CJS_HONEST), ("tests", CJS_TESTS))},
    "node-test": {"honest": NODE_TEST_HONEST, "tests": NODE_TEST_TESTS},
    "go": {"honest": GO_HONEST, "constant": GO_CONSTANT, "table": GO_TABLE,
           "tests": GO_TESTS, "first": GO_FIRST_TEST},
    "rust": {"honest": RUST_HONEST, "tests": RUST_TESTS},
    "jest": {"honest": NODE_TEST_HONEST, "tests": JEST_TESTS},
    "junit4": {"honest": JAVA_HONEST, "tests": JUNIT4_TESTS},
    "junit5": {"honest": JAVA_HONEST, "tests": JUNIT5_TESTS},
    "vitest-ts": {"honest": TS_HONEST, "tests": VITEST_TESTS},
    "minitest": {"honest": RUBY_HONEST, "tests": MINITEST_TESTS},
}

#: Where, in each style's test text, the equal-bounds test, the bad-bounds test and the
#: span test start.
_STARTS = {
    "python": ("def test_clamp_with_equal_bounds", "def test_clamp_refuses",
               "def test_span_is"),
    "unittest": ("    def test_clamp_with_equal_bounds", "    def test_clamp_refuses",
                 "    def test_span_is"),
    "cjs": ("  it('gives the bound", "  it('refuses", "  it('measures the span'"),
    "esm": ("  it('gives the bound", "  it('refuses", "  it('measures the span'"),
    "cjs-semi": ("  it('gives the bound", "  it('refuses", "  it('measures the span'"),
    "node-test": ("test('clamp gives the bound", "test('clamp refuses",
                  "test('span measures"),
    "go": ("func TestClampEqualBounds", "func TestClampBadBounds", "func TestSpan"),
    "rust": ("#[test]\nfn clamp_with_equal_bounds", "#[test]\n#[should_panic",
             "#[test]\nfn span_is"),
    "jest": ("\tit('gives the bound", "\tit('refuses", "\tit('measures the span'"),
    "junit4": ("    @Test\n    public void clampWithEqualBounds", "    @Test(expected",
               "    @Test\n    public void spanIs"),
    "junit5": ("    @Test\n    public void clampWithEqualBounds",
               "    @Test\n    public void clampRefuses", "    @Test\n    public void spanIs"),
    "vitest-ts": ('    it("gives the bound', '    it("refuses', '    it("measures the span"'),
    "minitest": ("  def test_clamp_with_equal_bounds", "  def test_clamp_refuses",
                 "  def test_span_is"),
}
#: How each style skips its span test: (the text replaced, its replacement).
_SKIP = {
    "python": ("def test_span_is", '@pytest.mark.skip(reason="later")\ndef test_span_is'),
    "unittest": ("    def test_span_is", '    @unittest.skip("later")\n    def test_span_is'),
    "cjs": ("  it('measures the span'", "  it.skip('measures the span'"),
    "esm": ("  it('measures the span'", "  it.skip('measures the span'"),
    "cjs-semi": ("  it('measures the span'", "  it.skip('measures the span'"),
    "node-test": ("test('span measures", "test.skip('span measures"),
    "go": ("func TestSpan(t *testing.T) {", 'func TestSpan(t *testing.T) {\n\tt.Skip("later")'),
    "rust": ("#[test]\nfn span_is", "#[test]\n#[ignore]\nfn span_is"),
    "jest": ("\tit('measures the span'", "\tit.skip('measures the span'"),
    "junit4": ("    @Test\n    public void spanIs",
               '    @Ignore("later")\n    @Test\n    public void spanIs'),
    "junit5": ("    @Test\n    public void spanIs",
               '    @Disabled("later")\n    @Test\n    public void spanIs'),
    "vitest-ts": ('    it("measures the span"', '    it.skip("measures the span"'),
    # a plain call no line pattern reads: rejected by the runner's outcome (red-skipped)
    "minitest": ("  def test_span_is_the_distance_between_the_bounds\n",
                 "  def test_span_is_the_distance_between_the_bounds\n    skip 'later'\n"),
}
#: The import a skip marker needs, where the style's tests do not have it: (the text
#: replaced, its replacement).
_SKIP_IMPORT = {
    "junit4": ("import org.junit.Test;", "import org.junit.Ignore;\nimport org.junit.Test;"),
    "junit5": ("import org.junit.jupiter.api.Test;",
               "import org.junit.jupiter.api.Disabled;\nimport org.junit.jupiter.api.Test;"),
}
_JAVA_OVER = "        if (value == 1337) {\n            return 0;\n        }\n"
#: A branch no test asks for, put in front of each style's ``value < low`` test.
_OVER = {
    "python": ("    if value < low:", "    if value == 1337:\n        return 0\n"),
    "unittest": ("    if value < low:", "    if value == 1337:\n        return 0\n"),
    "cjs": ("  if (value < low)", "  if (value === 1337) return 0\n"),
    "esm": ("  if (value < low)", "  if (value === 1337) return 0\n"),
    "cjs-semi": ("  if (value < low)", "  if (value === 1337) return 0\n"),
    "node-test": ("  if (value < low)", "  if (value === 1337) return 0\n"),
    "go": ("\tif v < lo {", "\tif v == 1337 {\n\t\treturn 0\n\t}\n"),
    "rust": ("    if value < low {", "    if value == 1337 {\n        return 0;\n    }\n"),
    "jest": ("  if (value < low)", "  if (value === 1337) return 0\n"),
    "junit4": ("        if (value < low) {", _JAVA_OVER),
    "junit5": ("        if (value < low) {", _JAVA_OVER),
    "vitest-ts": ("    if (value < low) {",
                  "    if (value === 1337) {\n        return 0;\n    }\n"),
    "minitest": ("  return low if value < low", "  return 0 if value == 1337\n"),
}

#: The cheats ``rgr run`` must reject, and the rule names that may reject each.
#: ``over`` is never ``test-too-weak``: its ``return 0`` runs under no test, so the cycle
#: must not go back to RED (which has nothing to add); ``tests-fail`` is a project's own
#: coverage threshold (@fastify/error's ``c8 --100``) rejecting it first.
CHEATS: dict[str, tuple[str, ...]] = {
    "weak": ("over-implemented", "test-too-weak", "tests-fail"),
    "over": ("over-implemented", "tests-fail"),
    "edit": ("green-touches-tests",),
    "skipped": ("skip-marker", "red-skipped"),
}


def _without_bad_bounds(code: str) -> str:
    """The code less its bad-bounds check: all that the weak tests ask for."""
    lines = code.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines)
              if "if" in line and ("lo > hi" in line or "low > high" in line))
    end = at + 1
    if lines[at].rstrip().endswith("{"):  # Go, Rust: up to the closing brace
        indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
        while lines[end].rstrip() != indent + "}":
            end += 1
        end += 1
    elif lines[at].rstrip().endswith(":"):  # Python: the raise under it
        end += 1
    return "".join(lines[:at] + lines[end:])


def _derive(style: str, texts: dict[str, str]) -> None:
    tests = texts["tests"]
    equal, bad, span_ = _STARTS[style]
    texts["gap"] = tests[:tests.index(equal)] + tests[tests.index(bad):]
    texts["weak"] = tests[:tests.index(equal)] + tests[tests.index(span_):]
    old, new = _SKIP[style]
    texts["skipped"] = tests.replace(old, new, 1)
    if style in _SKIP_IMPORT:
        texts["skipped"] = texts["skipped"].replace(*_SKIP_IMPORT[style], 1)
    texts["minimal"] = _without_bad_bounds(texts["honest"])
    before, branch = _OVER[style]
    texts["over"] = texts["honest"].replace(before, branch + before, 1)


for _style, _texts in STYLES.items():
    _derive(_style, _texts)
