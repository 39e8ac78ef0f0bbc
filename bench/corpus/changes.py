"""Three more changes beside ranges (issue 44, item 5), each of another shape and each in
the style of the corpus project it goes into, and the cheats of each, as data:

* ``duration``: parsing that raises on bad input (``"90s"``, ``"2m"``, ``"1h"`` to
  seconds; anything else refused with a message the tests match);
* ``percent``: formatting with options (a ratio as a percentage, ``digits`` after the
  point, ``sign`` for a ``+`` before a positive value);
* ``tally``: a class with state (counts of names that ``add`` raises, ``count`` reads,
  ``total`` sums; ``add`` refuses fewer than one).

A fourth, ``sizes`` (async code: a coroutine awaiting the caller's lookups
concurrently), is bench/corpus/changes_async.py's, in the Python and node:test styles
only (Go has goroutines, no async functions; Ruby has none; semver's Rust has no
async runtime to await with).

Styles: ``python`` (pytest and bare ``assert``, iniconfig's), ``node-test`` (node:test's
``t.assert`` and ``t.plan`` in CommonJS without semicolons, @fastify/error's, whose
``npm test`` is ``c8 --100 node --test`` and then a type test), ``go`` (table-driven
``if got != want`` tests, google/uuid's); ``rust``, ``minitest`` and ``junit4`` (semver's,
minitest's and json-simple's: changes_rust.py, changes_ruby.py, changes_java.py).

Per change and style the texts (``{module}`` and ``{package}`` as in ranges.py):
``honest`` and ``tests``; ``weak`` (the tests less the one that pins an argument's
effect: a line the tests run whose effect no test checks, RED's gap); ``over`` (the code
with a branch no test runs, GREEN's over-implementation); ``first`` and ``constant``
(the first test alone, and code returning its expected value: fake-it); ``table`` (code
answering each test's inputs from a table); ``always`` (Python only: a result whose
``__eq__`` ignores its operand; ``assert.equal`` and Go's ``!=`` on numbers and strings
cannot be fooled that way); ``skipped`` (the tests with one skipped, in the syntax of the
project's runner: node's ``{ skip: 'later' }`` option is no pattern rgr greps for, only
the runner's outcome tells).

``VARIANTS`` says, per variant, the texts it commits, the phase whose commit carries
the cheat, the rules that may catch it and the phase they blame.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.corpus.changes_async import ASYNC
from bench.corpus.changes_java import JSON_SIMPLE
from bench.corpus.changes_ruby import MINITEST
from bench.corpus.changes_rust import RUST


def _swap(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced once; a ValueError when ``old`` is not there (a
    variant derived from a text that changed must fail loudly, never silently equal)."""
    if old not in text:
        raise ValueError(f"{old!r} not in the text")
    return text.replace(old, new, 1)


def _drop(text: str, start: str, end: str) -> str:
    """``text`` less the part from ``start`` up to (not including) ``end``."""
    at, to = text.index(start), text.index(end)
    return text[:at] + text[to:]


# -- duration: parsing that raises --------------------------------------------------------

PY_DURATION = '''"""Durations written as a number and a unit."""

_UNITS = {"s": 1, "m": 60, "h": 3600}


def parse_duration(text):
    """The seconds in ``text``: ``90s``, ``2m``, ``1h``; a ValueError otherwise."""
    number, unit = text[:-1], text[-1:]
    if not number.isdigit() or unit not in _UNITS:
        raise ValueError(f"not a duration: {text!r}")
    return int(number) * _UNITS[unit]
'''
PY_DURATION_TESTS = '''import pytest

from {module} import parse_duration


def test_seconds():
    assert parse_duration("90s") == 90


def test_minutes():
    assert parse_duration("2m") == 120


def test_hours():
    assert parse_duration("1h") == 3600


def test_unknown_unit():
    with pytest.raises(ValueError, match="not a duration: '12x'"):
        parse_duration("12x")


def test_no_number():
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration("xs")
'''
PY_DURATION_CONSTANT = '''def parse_duration(text):
    return 90
'''
PY_DURATION_TABLE = '''_KNOWN = {"90s": 90, "2m": 120, "1h": 3600}


def parse_duration(text):
    if text in ("12x", "xs"):
        raise ValueError(f"not a duration: {text!r}")
    return _KNOWN[text]
'''
PY_DURATION_ALWAYS = '''class _Seconds(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def parse_duration(text):
    if not text[:-1].isdigit() or text[-1:] not in "smh":
        raise ValueError(f"not a duration: {text!r}")
    return _Seconds(0)
'''

# -- percent: formatting with options ---------------------------------------------------

PY_PERCENT = '''"""Ratios written as percentages."""


def percent(ratio, digits=0, sign=False):
    """``ratio`` as a percentage with ``digits`` after the point; ``sign``: a ``+``
    before a positive value."""
    text = f"{ratio * 100:.{digits}f}%"
    if sign and ratio > 0:
        return "+" + text
    return text
'''
PY_PERCENT_TESTS = '''from {module} import percent


def test_a_half():
    assert percent(0.5) == "50%"


def test_digits():
    assert percent(0.125, digits=1) == "12.5%"


def test_sign_on_a_gain():
    assert percent(0.05, sign=True) == "+5%"


def test_sign_on_a_loss():
    assert percent(-0.05, sign=True) == "-5%"


def test_no_sign_on_zero():
    assert percent(0, sign=True) == "0%"
'''
PY_PERCENT_CONSTANT = '''def percent(ratio, digits=0, sign=False):
    return "50%"
'''
PY_PERCENT_TABLE = '''_KNOWN = {(0.5, 0, False): "50%", (0.125, 1, False): "12.5%",
          (0.05, 0, True): "+5%", (-0.05, 0, True): "-5%", (0, 0, True): "0%"}


def percent(ratio, digits=0, sign=False):
    return _KNOWN[(ratio, digits, sign)]
'''
PY_PERCENT_ALWAYS = '''class _Text(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


def percent(ratio, digits=0, sign=False):
    return _Text("%")
'''

# -- tally: a class with state ----------------------------------------------------------

PY_TALLY = '''"""Counting names."""


class Tally:
    """How many times each name was added."""

    def __init__(self):
        self._counts = {}

    def add(self, name, times=1):
        """Count ``name`` ``times`` more times (at least once)."""
        if times < 1:
            raise ValueError("times must be at least 1")
        self._counts[name] = self._counts.get(name, 0) + times

    def count(self, name):
        """How many times ``name`` was added."""
        return self._counts.get(name, 0)

    def total(self):
        """How many times any name was added."""
        return sum(self._counts.values())
'''
PY_TALLY_TESTS = '''import pytest

from {module} import Tally


def test_a_name_added_once():
    tally = Tally()
    tally.add("a")
    assert tally.count("a") == 1


def test_a_name_added_again():
    tally = Tally()
    tally.add("a")
    tally.add("a", times=3)
    assert tally.count("a") == 4


def test_a_name_never_added():
    tally = Tally()
    tally.add("a", times=2)
    assert tally.count("b") == 0


def test_total():
    tally = Tally()
    tally.add("a", times=2)
    tally.add("b")
    assert tally.total() == 3


def test_adding_nothing_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        Tally().add("a", times=0)
'''
PY_TALLY_CONSTANT = '''class Tally:
    def add(self, name, times=1):
        pass

    def count(self, name):
        return 1
'''
PY_TALLY_TABLE = '''class Tally:
    def __init__(self):
        self._added = []

    def add(self, name, times=1):
        if times == 0:
            raise ValueError("times must be at least 1")
        self._added.append((name, times))

    def count(self, name):
        return {("a", 1): 1, ("a", 4): 4}.get((name, sum(t for _, t in self._added)), 0)

    def total(self):
        return {(2, 1): 3}[tuple(t for _, t in self._added)]
'''
PY_TALLY_ALWAYS = '''class _Count(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


class Tally:
    def add(self, name, times=1):
        if times < 1:
            raise ValueError("times must be at least 1")

    def count(self, name):
        return _Count(0)

    def total(self):
        return _Count(0)
'''

_PY_SKIP = ('import pytest\n\n', '@pytest.mark.skip(reason="later")\n')


def _python(honest: str, tests: str, weak_drop: tuple[str, str], over: tuple[str, str],
            skip_before: str, first_end: str, constant: str, table: str,
            always: str) -> dict[str, str]:
    skipped = tests if tests.startswith("import pytest") else "import pytest\n\n" + tests
    return {
        "honest": honest, "tests": tests, "weak": _drop(tests, *weak_drop),
        "over": _swap(honest, over[0], over[1] + over[0]),
        "first": tests[:tests.index(first_end)].rstrip() + "\n",
        "constant": constant, "table": table, "always": always,
        "skipped": _swap(skipped, skip_before, _PY_SKIP[1] + skip_before)}


PYTHON = {
    # weak: the hours test dropped (3600 runs, unchecked); over: a unit no test uses
    "duration": _python(
        PY_DURATION, PY_DURATION_TESTS, ("def test_hours", "def test_unknown_unit"),
        ("    number, unit", '    if text == "forever":\n        return -1\n'),
        "def test_hours", "\n\ndef test_minutes", PY_DURATION_CONSTANT, PY_DURATION_TABLE,
        PY_DURATION_ALWAYS),
    # weak: zero with a sign left out (``ratio > 0`` runs; ``>=`` passes the rest)
    "percent": _python(
        PY_PERCENT, PY_PERCENT_TESTS, ("def test_no_sign_on_zero", "def test_no_sign_on_zero"),
        ("    text = ", "    if digits < 0:\n        return \"\"\n"),
        "def test_sign_on_a_loss", "\n\ndef test_digits", PY_PERCENT_CONSTANT,
        PY_PERCENT_TABLE, PY_PERCENT_ALWAYS),
    # weak: a name never added left out (count's default 0 runs in no assertion... the
    # add's ``get(name, 0)`` runs, checked; count's does not run): see ``_weak_tally``
    "tally": _python(
        PY_TALLY, PY_TALLY_TESTS, ("def test_a_name_never_added", "def test_total"),
        ("        if times < 1:", "        if name is None:\n            return\n"),
        "def test_total", "\n\ndef test_a_name_added_again", PY_TALLY_CONSTANT,
        PY_TALLY_TABLE, PY_TALLY_ALWAYS),
}
# percent's weak tests: the zero case cut by hand (it is the last test of the file)
PYTHON["percent"]["weak"] = PY_PERCENT_TESTS[:PY_PERCENT_TESTS.index(
    "\n\ndef test_no_sign_on_zero")] + "\n"

# -- node:test, @fastify/error's style --------------------------------------------------

JS_DURATION = """'use strict'

const units = { s: 1, m: 60, h: 3600 }

function parseDuration (text) {
  const number = text.slice(0, -1)
  const unit = text.slice(-1)
  if (!/^\\d+$/.test(number) || !(unit in units)) {
    throw new Error(`not a duration: ${text}`)
  }
  return Number(number) * units[unit]
}

module.exports = { parseDuration }
"""
JS_DURATION_TESTS = """'use strict'

const test = require('node:test')
const { parseDuration } = require('{module}')

test('seconds', (t) => {
  t.plan(1)
  t.assert.strictEqual(parseDuration('90s'), 90)
})

test('minutes', (t) => {
  t.plan(1)
  t.assert.strictEqual(parseDuration('2m'), 120)
})

test('hours', (t) => {
  t.plan(1)
  t.assert.strictEqual(parseDuration('1h'), 3600)
})

test('an unknown unit is refused', (t) => {
  t.plan(1)
  t.assert.throws(() => parseDuration('12x'), /not a duration: 12x/)
})

test('a missing number is refused', (t) => {
  t.plan(1)
  t.assert.throws(() => parseDuration('xs'), /not a duration: xs/)
})
"""
JS_DURATION_CONSTANT = """'use strict'

function parseDuration (text) {
  return 90
}

module.exports = { parseDuration }
"""
JS_DURATION_TABLE = """'use strict'

const known = { '90s': 90, '2m': 120, '1h': 3600 }

function parseDuration (text) {
  if (!(text in known)) throw new Error(`not a duration: ${text}`)
  return known[text]
}

module.exports = { parseDuration }
"""

JS_PERCENT = """'use strict'

function percent (ratio, { digits = 0, sign = false } = {}) {
  const text = `${(ratio * 100).toFixed(digits)}%`
  if (sign && ratio > 0) return `+${text}`
  return text
}

module.exports = { percent }
"""
JS_PERCENT_TESTS = """'use strict'

const test = require('node:test')
const { percent } = require('{module}')

test('a half', (t) => {
  t.plan(1)
  t.assert.strictEqual(percent(0.5), '50%')
})

test('digits', (t) => {
  t.plan(1)
  t.assert.strictEqual(percent(0.125, { digits: 1 }), '12.5%')
})

test('sign on a gain', (t) => {
  t.plan(1)
  t.assert.strictEqual(percent(0.05, { sign: true }), '+5%')
})

test('sign on a loss', (t) => {
  t.plan(1)
  t.assert.strictEqual(percent(-0.05, { sign: true }), '-5%')
})

test('no sign on zero', (t) => {
  t.plan(1)
  t.assert.strictEqual(percent(0, { sign: true }), '0%')
})
"""
JS_PERCENT_CONSTANT = """'use strict'

function percent (ratio) {
  return '50%'
}

module.exports = { percent }
"""
JS_PERCENT_TABLE = """'use strict'

const known = { '0.5,0,false': '50%', '0.125,1,false': '12.5%', '0.05,0,true': '+5%',
  '-0.05,0,true': '-5%', '0,0,true': '0%' }

function percent (ratio, { digits = 0, sign = false } = {}) {
  return known[[ratio, digits, sign].join(',')]
}

module.exports = { percent }
"""

JS_TALLY = """'use strict'

class Tally {
  constructor () {
    this.counts = new Map()
  }

  add (name, times = 1) {
    if (times < 1) throw new Error('times must be at least 1')
    this.counts.set(name, (this.counts.get(name) ?? 0) + times)
  }

  count (name) {
    return this.counts.get(name) ?? 0
  }

  total () {
    let sum = 0
    for (const times of this.counts.values()) sum += times
    return sum
  }
}

module.exports = { Tally }
"""
JS_TALLY_TESTS = """'use strict'

const test = require('node:test')
const { Tally } = require('{module}')

test('a name added once', (t) => {
  t.plan(1)
  const tally = new Tally()
  tally.add('a')
  t.assert.strictEqual(tally.count('a'), 1)
})

test('a name added again', (t) => {
  t.plan(1)
  const tally = new Tally()
  tally.add('a')
  tally.add('a', 3)
  t.assert.strictEqual(tally.count('a'), 4)
})

test('a name never added', (t) => {
  t.plan(1)
  const tally = new Tally()
  tally.add('a', 2)
  t.assert.strictEqual(tally.count('b'), 0)
})

test('total', (t) => {
  t.plan(1)
  const tally = new Tally()
  tally.add('a', 2)
  tally.add('b')
  t.assert.strictEqual(tally.total(), 3)
})

test('adding nothing is refused', (t) => {
  t.plan(1)
  t.assert.throws(() => new Tally().add('a', 0), /at least 1/)
})
"""
JS_TALLY_CONSTANT = """'use strict'

class Tally {
  add (name) {}

  count (name) {
    return 1
  }
}

module.exports = { Tally }
"""
JS_TALLY_TABLE = """'use strict'

class Tally {
  constructor () {
    this.added = []
  }

  add (name, times = 1) {
    if (times === 0) throw new Error('times must be at least 1')
    this.added.push(times)
  }

  count (name) {
    const known = { 'a,1': 1, 'a,1,3': 4, 'b,2': 0 }
    return known[[name, ...this.added].join(',')]
  }

  total () {
    return { '2,1': 3 }[this.added.join(',')]
  }
}

module.exports = { Tally }
"""


def _node(honest: str, tests: str, weak: tuple[str, str], over: tuple[str, str],
          skip: str, constant: str, table: str) -> dict[str, str]:
    first_end = tests.index("\ntest(", tests.index("test(") + 1)
    return {"honest": honest, "tests": tests, "weak": _drop(tests, *weak),
            "over": _swap(honest, over[0], over[1] + over[0]),
            "first": tests[:first_end].rstrip() + "\n", "constant": constant,
            "table": table,
            # node's option object: no pattern of rgr's matches it, the runner's
            # outcome (skipped) does
            "skipped": _swap(tests, f"test('{skip}', (t)",
                             f"test('{skip}', {{ skip: 'later' }}, (t)")}


NODE_TEST = {
    "duration": _node(JS_DURATION, JS_DURATION_TESTS,
                      ("test('hours'", "test('an unknown unit"),
                      ("  const number", "  if (text === 'forever') return -1\n"),
                      "hours", JS_DURATION_CONSTANT, JS_DURATION_TABLE),
    "percent": _node(JS_PERCENT, JS_PERCENT_TESTS, ("\ntest('no sign on zero'", "\n"),
                     ("  const text", "  if (digits < 0) return ''\n"),
                     "sign on a loss", JS_PERCENT_CONSTANT, JS_PERCENT_TABLE),
    "tally": _node(JS_TALLY, JS_TALLY_TESTS, ("test('a name never added'", "test('total'"),
                   ("    if (times < 1)", "    if (name === undefined) return\n"),
                   "total", JS_TALLY_CONSTANT, JS_TALLY_TABLE),
}
NODE_TEST["percent"]["weak"] = JS_PERCENT_TESTS[:JS_PERCENT_TESTS.index(
    "\ntest('no sign on zero'")]

# -- Go, google/uuid's style ------------------------------------------------------------

GO_DURATION = """package {package}

import (
	"fmt"
	"strconv"
)

var durationUnits = map[byte]int{'s': 1, 'm': 60, 'h': 3600}

// ParseDuration returns the seconds in s ("90s", "2m", "1h"), or an error.
func ParseDuration(s string) (int, error) {
	if len(s) < 2 {
		return 0, fmt.Errorf("not a duration: %q", s)
	}
	unit, ok := durationUnits[s[len(s)-1]]
	n, err := strconv.Atoi(s[:len(s)-1])
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("not a duration: %q", s)
	}
	return n * unit, nil
}
"""
GO_DURATION_TESTS = """package {package}

import "testing"

func TestParseDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"0s", 0},
		{"90s", 90},
		{"2m", 120},
		{"1h", 3600},
	} {
		got, err := ParseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseDurationRefuses(t *testing.T) {
	for _, in := range []string{"12x", "xs", "s", "-5s"} {
		if got, err := ParseDuration(in); err == nil || got != 0 {
			t.Errorf("ParseDuration(%q) = %d, %v, want 0 and an error", in, got, err)
		}
	}
}
"""
GO_DURATION_CONSTANT = """package {package}

func ParseDuration(s string) (int, error) {
	return 90, nil
}
"""
GO_DURATION_TABLE = """package {package}

import "fmt"

var knownDurations = map[string]int{"0s": 0, "90s": 90, "2m": 120, "1h": 3600}

func ParseDuration(s string) (int, error) {
	if n, ok := knownDurations[s]; ok {
		return n, nil
	}
	return 0, fmt.Errorf("not a duration: %q", s)
}
"""

GO_PERCENT = """package {package}

import "strconv"

// Percent returns ratio as a percentage with digits after the point; sign puts a "+"
// before a positive value.
func Percent(ratio float64, digits int, sign bool) string {
	text := strconv.FormatFloat(ratio*100, 'f', digits, 64) + "%"
	if sign && ratio > 0 {
		return "+" + text
	}
	return text
}
"""
GO_PERCENT_TESTS = """package {package}

import "testing"

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		ratio  float64
		digits int
		sign   bool
		want   string
	}{
		{0.5, 0, false, "50%"},
		{0.125, 1, false, "12.5%"},
		{0.05, 0, true, "+5%"},
		{-0.05, 0, true, "-5%"},
		{0, 0, true, "0%"},
	} {
		if got := Percent(tt.ratio, tt.digits, tt.sign); got != tt.want {
			t.Errorf("Percent(%v, %d, %v) = %q, want %q",
				tt.ratio, tt.digits, tt.sign, got, tt.want)
		}
	}
}
"""
GO_PERCENT_CONSTANT = """package {package}

func Percent(ratio float64, digits int, sign bool) string {
	return "50%"
}
"""
GO_PERCENT_TABLE = """package {package}

import "fmt"

var knownPercents = map[string]string{"0.5 0 false": "50%", "0.125 1 false": "12.5%",
	"0.05 0 true": "+5%", "-0.05 0 true": "-5%", "0 0 true": "0%"}

func Percent(ratio float64, digits int, sign bool) string {
	return knownPercents[fmt.Sprint(ratio, digits, sign)]
}
"""

GO_TALLY = """package {package}

import "errors"

// Tally counts how many times each name was added.
type Tally struct {
	counts map[string]int
}

// Add counts name times more times; times must be at least 1.
func (t *Tally) Add(name string, times int) error {
	if times < 1 {
		return errors.New("times must be at least 1")
	}
	if t.counts == nil {
		t.counts = map[string]int{}
	}
	t.counts[name] += times
	return nil
}

// Count returns how many times name was added.
func (t *Tally) Count(name string) int {
	return t.counts[name]
}

// Total returns how many times any name was added.
func (t *Tally) Total() int {
	sum := 0
	for _, n := range t.counts {
		sum += n
	}
	return sum
}
"""
GO_TALLY_TESTS = """package {package}

import "testing"

func TestTallyCount(t *testing.T) {
	var tally Tally
	tally.Add("a", 1)
	tally.Add("a", 3)
	tally.Add("b", 2)
	if got := tally.Count("a"); got != 4 {
		t.Errorf("Count(a) = %d, want 4", got)
	}
	if got := tally.Count("c"); got != 0 {
		t.Errorf("Count(c) = %d, want 0", got)
	}
}

func TestTallyTotal(t *testing.T) {
	var tally Tally
	tally.Add("a", 2)
	tally.Add("b", 1)
	if got := tally.Total(); got != 3 {
		t.Errorf("Total() = %d, want 3", got)
	}
}

func TestTallyRefusesNothing(t *testing.T) {
	var tally Tally
	if err := tally.Add("a", 0); err == nil {
		t.Error("Add(a, 0) gave no error")
	}
	if err := tally.Add("a", 1); err != nil {
		t.Errorf("Add(a, 1) = %v", err)
	}
}
"""
GO_TALLY_CONSTANT = """package {package}

type Tally struct{}

func (t *Tally) Add(name string, times int) error {
	return nil
}

func (t *Tally) Count(name string) int {
	return 4
}
"""
GO_TALLY_TABLE = """package {package}

import "errors"

type Tally struct {
	added []int
}

func (t *Tally) Add(name string, times int) error {
	if times == 0 {
		return errors.New("times must be at least 1")
	}
	t.added = append(t.added, times)
	return nil
}

func (t *Tally) Count(name string) int {
	return map[string]int{"a": 4, "c": 0}[name]
}

func (t *Tally) Total() int {
	return 3
}
"""


def _go(honest: str, tests: str, weak: tuple[str, str], over: tuple[str, str],
        skip: str, first_end: str, constant: str, table: str) -> dict[str, str]:
    return {"honest": honest, "tests": tests, "weak": _swap(tests, *weak),
            "over": _swap(honest, over[0], over[1] + over[0]),
            "first": tests[:tests.index(first_end)].rstrip() + "\n",
            "constant": constant, "table": table,
            "skipped": _swap(tests, skip, skip + '\n\tt.Skip("later")')}


GO = {
    # weak: the hours case gone (the unit table's 3600 unchecked)
    "duration": _go(GO_DURATION, GO_DURATION_TESTS, ('\t\t{"1h", 3600},\n', ""),
                    ("\tunit, ok :=", '\tif s == "forever" {\n\t\treturn -1, nil\n\t}\n'),
                    "func TestParseDurationRefuses(t *testing.T) {",
                    "func TestParseDurationRefuses", GO_DURATION_CONSTANT, GO_DURATION_TABLE),
    # weak: zero with a sign gone (``ratio > 0`` against ``>=``)
    "percent": _go(GO_PERCENT, GO_PERCENT_TESTS, ('\t\t{0, 0, true, "0%"},\n', ""),
                   ("\ttext :=", '\tif digits < 0 {\n\t\treturn ""\n\t}\n'),
                   "func TestPercent(t *testing.T) {", "\t\t{0.125, 1",
                   GO_PERCENT_CONSTANT, GO_PERCENT_TABLE),
    # weak: a name never added gone from the count test
    "tally": _go(GO_TALLY, GO_TALLY_TESTS,
                 ('\tif got := tally.Count("c"); got != 0 {\n'
                  '\t\tt.Errorf("Count(c) = %d, want 0", got)\n\t}\n', ""),
                 ("\tif times < 1 {", '\tif name == "" {\n\t\treturn nil\n\t}\n'),
                 "func TestTallyTotal(t *testing.T) {", "func TestTallyTotal",
                 GO_TALLY_CONSTANT, GO_TALLY_TABLE),
}
# Go's first tests: the first table with one row, the constant's value (the rows after it
# and the refusals are later tests)
GO["duration"]["first"] = (
    GO_DURATION_TESTS[:GO_DURATION_TESTS.index('\t\t{"0s", 0},')]
    + '\t\t{"90s", 90},\n'
    + GO_DURATION_TESTS[GO_DURATION_TESTS.index("\t} {"):GO_DURATION_TESTS.index(
        "func TestParseDurationRefuses")].rstrip() + "\n")
# Go's first test of tally: the count test without the name never added
GO["tally"]["first"] = GO["tally"]["weak"][:GO["tally"]["weak"].index(
    "func TestTallyTotal")].rstrip() + "\n"
# Go's first test of percent: the table with its first row only, closed again
GO["percent"]["first"] = GO_PERCENT_TESTS.replace(
    GO_PERCENT_TESTS[GO_PERCENT_TESTS.index("\t\t{0.125, 1"):GO_PERCENT_TESTS.index("\t} {")],
    "")

#: change -> style -> key -> text.
TEXTS: dict[str, dict[str, dict[str, str]]] = {
    change: {"python": PYTHON[change], "node-test": NODE_TEST[change], "go": GO[change],
             "rust": RUST[change], "minitest": MINITEST[change],
             "junit4": JSON_SIMPLE[change]}
    for change in ("duration", "percent", "tally")}
#: async code, in the styles whose language has it (bench/corpus/changes_async.py)
TEXTS["sizes"] = ASYNC


@dataclass(frozen=True)
class Variant:
    """One way of playing a change: RED's tests and GREEN's code (keys of the texts),
    the phase whose commit carries the cheat, the rules that may catch it and the phase
    their verdict blames (``""``: the honest play, which nothing may reject)."""

    tests: str
    code: str
    cheat_in: str = ""
    rules: tuple[str, ...] = ()
    blamed: str = ""
    #: GREEN also writes the weak tests over RED's (a test edited).
    edits_tests: bool = False
    #: What the verdict must name: a ``line`` (``file:line``), or the ``file`` (a test
    #: file GREEN changed is wrong as a whole, at no line of its own).
    located: str = "line"


VARIANTS: dict[str, Variant] = {
    "honest": Variant("tests", "honest"),
    # RED's tests leave an effect unchecked on a line they run: RED's gap
    "weak": Variant("weak", "honest", "RED", ("test-too-weak",), "RED"),
    # a branch no test runs: GREEN's (``tests-fail``: a project's own coverage
    # threshold, @fastify/error's ``c8 --100``, failing GREEN's run first)
    "over": Variant("tests", "over", "GREEN", ("over-implemented", "tests-fail"), "GREEN"),
    # fake-it: GREEN answers the first test's value, or each test's inputs from a table
    "constant": Variant("first", "constant", "GREEN", ("fake-it",), "GREEN"),
    "table": Variant("tests", "table", "GREEN", ("fake-it", "over-implemented",
                                                 "test-too-weak"), "GREEN"),
    "always": Variant("tests", "always", "GREEN", ("always-equal",), "GREEN"),
    "skipped": Variant("skipped", "honest", "RED", ("red-skipped", "skip-marker"), "RED"),
    "edit": Variant("tests", "honest", "GREEN", ("green-touches-tests",), "GREEN",
                    edits_tests=True, located="file"),
}


def variants_of(change: str, style: str) -> list[str]:
    """The variants ``style`` has the texts of, for ``change``."""
    texts = TEXTS[change].get(style, {})
    return [name for name, v in VARIANTS.items() if v.tests in texts and v.code in texts
            and (not v.edits_tests or "weak" in texts)]


def placed(path: str, change: str) -> str:
    """A ranges placement's path or module (bench/corpus/placements.py) for ``change``:
    the same folder and naming, the change's own stem (a Java class's capitalised:
    ``Ranges.java`` -> ``Duration.java``)."""
    return path.replace("ranges", change).replace("Ranges", change.capitalize())
