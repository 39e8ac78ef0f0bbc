"""The three changes of bench/corpus/changes.py (``duration``, ``percent``, ``tally``) and
their cheats in minitest's own style (the gem testing itself): methods defined
``def x args``, without parentheses, and a class, at the top level as the ranges change
(bench/corpus/ranges.py) has them (code reopening ``module Minitest`` is what rgr's
``patches-test-framework`` idiom refuses, rightly for any other project), its tests a
``Minitest::Test`` whose asserts are written ``assert_equal expected, call(args)`` with
no parentheses round the assert's arguments, errors checked
with ``assert_raises ArgumentError do ... end``, a test skipped by a plain ``skip``
call in its body (no marker a line pattern reads: only the runner's outcome says it).

``{module}``: what the test file requires (the code file's stem; ``-Ilib``). The keys are
those of changes.py; no ``always``: ``assert_equal`` calls ``expected == actual``, the
expected value's own ``==``.
"""

from __future__ import annotations


def _swap(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced once; a ValueError when ``old`` is not there."""
    if old not in text:
        raise ValueError(f"{old!r} not in the text")
    return text.replace(old, new, 1)


def _drop(text: str, start: str, end: str) -> str:
    """``text`` less the part from ``start`` up to (not including) ``end``."""
    at, to = text.index(start), text.index(end)
    return text[:at] + text[to:]


DURATION = """DURATION_UNITS = { "s" => 1, "m" => 60, "h" => 3600 } # :nodoc:

##
# The seconds in +text+ ("90s", "2m", "1h"); an ArgumentError otherwise.

def parse_duration text
  number, unit = text[0...-1], text[-1]
  if number.empty? or number.count("0-9") != number.size or
      not DURATION_UNITS.key? unit then
    raise ArgumentError, "not a duration: " + text.inspect
  end
  number.to_i * DURATION_UNITS[unit]
end
"""
DURATION_TESTS = """require "minitest/autorun"
require "{module}"

class TestMinitestDuration < Minitest::Test
  def test_seconds
    assert_equal 90, parse_duration("90s")
  end

  def test_minutes
    assert_equal 120, parse_duration("2m")
  end

  def test_hours
    assert_equal 3600, parse_duration("1h")
  end

  def test_unknown_unit
    e = assert_raises ArgumentError do
      parse_duration "12x"
    end

    assert_equal 'not a duration: "12x"', e.message
  end

  def test_no_number
    e = assert_raises ArgumentError do
      parse_duration "xs"
    end

    assert_equal 'not a duration: "xs"', e.message
  end
end
"""
DURATION_CONSTANT = """def parse_duration text
  90
end
"""
DURATION_TABLE = """KNOWN_DURATIONS = { "90s" => 90, "2m" => 120, "1h" => 3600 } # :nodoc:

def parse_duration text
  KNOWN_DURATIONS.fetch text do
    raise ArgumentError, "not a duration: " + text.inspect
  end
end
"""

PERCENT = """##
# +ratio+ as a percentage with +digits+ after the point; +sign+: a "+" before a
# positive value.

def percent ratio, digits = 0, sign = false
  text = format "%.*f%%", digits, ratio * 100
  return "+" + text if sign and ratio > 0
  text
end
"""
PERCENT_TESTS = """require "minitest/autorun"
require "{module}"

class TestMinitestPercent < Minitest::Test
  def test_a_half
    assert_equal "50%", percent(0.5)
  end

  def test_digits
    assert_equal "12.5%", percent(0.125, 1)
  end

  def test_sign_on_a_gain
    assert_equal "+5%", percent(0.05, 0, true)
  end

  def test_sign_on_a_loss
    assert_equal "-5%", percent(-0.05, 0, true)
  end

  def test_no_sign_on_zero
    assert_equal "0%", percent(0, 0, true)
  end
end
"""
PERCENT_CONSTANT = """def percent ratio, digits = 0, sign = false
  "50%"
end
"""
PERCENT_TABLE = """KNOWN_PERCENTS = { [0.5, 0, false] => "50%", # :nodoc:
                   [0.125, 1, false] => "12.5%", [0.05, 0, true] => "+5%",
                   [-0.05, 0, true] => "-5%", [0, 0, true] => "0%" }

def percent ratio, digits = 0, sign = false
  KNOWN_PERCENTS[[ratio, digits, sign]]
end
"""

TALLY = """##
# How many times each name was added.

class Tally
  def initialize # :nodoc:
    @counts = Hash.new 0
  end

  ##
  # Counts +name+ +times+ more times (at least once).

  def add name, times = 1
    raise ArgumentError, "times must be at least 1" if times < 1
    @counts[name] += times
  end

  ##
  # How many times +name+ was added.

  def count name
    @counts[name]
  end

  ##
  # How many times any name was added.

  def total
    @counts.values.sum
  end
end
"""
TALLY_TESTS = """require "minitest/autorun"
require "{module}"

class TestMinitestTally < Minitest::Test
  def setup
    super
    @tally = Tally.new
  end

  def test_a_name_added_once
    @tally.add "a"

    assert_equal 1, @tally.count("a")
  end

  def test_a_name_added_again
    @tally.add "a"
    @tally.add "a", 3

    assert_equal 4, @tally.count("a")
  end

  def test_a_name_never_added
    @tally.add "a", 2

    assert_equal 0, @tally.count("b")
  end

  def test_total
    @tally.add "a", 2
    @tally.add "b"

    assert_equal 3, @tally.total
  end

  def test_adding_nothing_is_refused
    e = assert_raises ArgumentError do
      @tally.add "a", 0
    end

    assert_equal "times must be at least 1", e.message
  end
end
"""
TALLY_CONSTANT = """class Tally
  def add name, times = 1
  end

  def count name
    1
  end
end
"""
TALLY_TABLE = """class Tally
  def initialize
    @added = []
  end

  def add name, times = 1
    raise ArgumentError, "times must be at least 1" if times == 0
    @added << times
  end

  def count name
    { ["a", [1]] => 1, ["a", [1, 3]] => 4 }.fetch [name, @added], 0
  end

  def total
    { [2, 1] => 3 }[@added]
  end
end
"""


def _minitest(honest: str, tests: str, weak: tuple[str, str], over: tuple[str, str],
              skip: str, first_end: str, constant: str, table: str) -> dict[str, str]:
    return {"honest": honest, "tests": tests, "weak": _drop(tests, *weak),
            "over": _swap(honest, over[0], over[1] + over[0]),
            "first": tests[:tests.index(first_end)].rstrip() + "\nend\n",
            "constant": constant, "table": table,
            "skipped": _swap(tests, f"  def {skip}\n", f"  def {skip}\n    skip \"later\"\n\n")}


MINITEST = {
    # weak: the hours test dropped (3600 runs, unchecked); over: a unit no test uses
    "duration": _minitest(DURATION, DURATION_TESTS, ("  def test_hours", "  def test_unknown"),
                          ("  number, unit =", '  return -1 if text == "forever"\n'),
                          "test_hours", "\n\n  def test_minutes", DURATION_CONSTANT,
                          DURATION_TABLE),
    # weak: zero with a sign left out (``ratio > 0`` runs; ``>=`` passes the rest)
    "percent": _minitest(PERCENT, PERCENT_TESTS, ("\n  def test_no_sign_on_zero",
                                                  "\n  def test_no_sign_on_zero"),
                         ("  text = ", '  return "" if digits < 0\n'),
                         "test_sign_on_a_loss", "\n\n  def test_digits", PERCENT_CONSTANT,
                         PERCENT_TABLE),
    "tally": _minitest(TALLY, TALLY_TESTS, ("  def test_a_name_never_added", "  def test_total"),
                       ("    raise ArgumentError", "    return if name.nil?\n"),
                       "test_total", "\n\n  def test_a_name_added_again", TALLY_CONSTANT,
                       TALLY_TABLE),
}
# percent's weak tests: the zero case cut by hand (the last test of the file)
MINITEST["percent"]["weak"] = PERCENT_TESTS[:PERCENT_TESTS.index(
    "\n\n  def test_no_sign_on_zero")] + "\nend\n"
