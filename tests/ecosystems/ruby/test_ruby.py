"""Ruby as a language of its own (rgr.ecosystems.ruby): its cheat idioms read on its
tokens (the issue's GREEN that patches RSpec's matcher in lib/calc.rb is named
patches-test-framework, as the Python equivalent is), honest RSpec and Minitest code let
through, the examiner shown the heads of what a spec loads with require_relative, and
the mutation gate measuring a Ruby change with the real rspec."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from toolchains import ensure_ruby_rspec

from rgr.base.config import AdequacyConfig
from rgr.check import cheats
from rgr.check.acceptance.interface import public_interface
from rgr.check.acceptance.placing import acceptance_path
from rgr.check.fakeit.facts import facts_of
from rgr.check.fakeit.tokens import token_cases
from rgr.check.mutation import textual
from rgr.ecosystems.fact import Fact
from tests.gate_helpers import committed, detected_command, measure_commits


def rules_in(path: str, source: str, is_test: bool = False) -> list[tuple[str, int]]:
    every_line = range(1, source.count("\n") + 2)
    return [(f.rule, f.line) for f in cheats.findings(path, source, every_line, is_test)]


PATCHED_MATCHER = ("class Calc\n  def add(a, b) = a * b\nend\n\n"
                   "RSpec::Matchers::BuiltIn::Eq.class_eval { def matches?(_actual) = true }\n")


def test_the_issues_green_patching_rspecs_matcher_is_named() -> None:
    assert cheats.judged("lib/calc.rb")
    assert rules_in("lib/calc.rb", PATCHED_MATCHER) == [("patches-test-framework", 5)]


@pytest.mark.parametrize(("source", "found"), [
    ("module Minitest\n  module Assertions\n    def assert_equal(*) = true\n  end\nend\n",
     [("patches-test-framework", 1)]),
    ("RSpec::Matchers.define :eq do |expected|\n  match { true }\nend\n",
     [("patches-test-framework", 1)]),
    ("Minitest::Test.send(:define_method, :assert_equal) { |*| true }\n",
     [("patches-test-framework", 1)]),
    ("def add(a, b)\n  return 5 if defined?(RSpec)\n  a + b\nend\n",
     [("detects-test-run", 2)]),
    ("def add(a, b)\n  exit(0) if a.zero?\n  a + b\nend\n", [("exits-with-success", 2)]),
])
def test_each_ruby_idiom_is_named(source: str, found: list[tuple[str, int]]) -> None:
    assert rules_in("lib/calc.rb", source) == found


def test_honest_specs_and_code_pass() -> None:
    spec = ("# RSpec::Matchers::BuiltIn::Eq.class_eval in a comment is no code\n"
            "require_relative '../lib/calc'\n\n"
            "RSpec.configure { |config| config.order = :random }\n"
            "RSpec::Matchers.define :be_even do\n  match { |n| n.even? }\nend\n\n"
            "RSpec.describe Calc do\n"
            "  it 'adds' do\n    expect(Calc.new.add(2, 3)).to eq(5)\n  end\n"
            "  it 'says' do\n    expect('RSpec.class_eval').to be_a(String)\n  end\nend\n")
    assert rules_in("spec/calc_spec.rb", spec, is_test=True) == []
    minitest = ("require 'minitest/autorun'\n\nclass CalcTest < Minitest::Test\n"
                "  def test_adds\n    assert_equal 5, Calc.new.add(2, 3)\n  end\nend\n")
    assert rules_in("test/calc_test.rb", minitest, is_test=True) == []
    assert rules_in("lib/calc.rb", "class Calc\n  def add(a, b) = a + b\nend\n") == []


def test_the_examiner_sees_the_heads_a_spec_loads_with_require_relative() -> None:
    files = {
        "spec/calc_spec.rb": ("require_relative '../lib/calc'\nrequire 'json'\n\n"
                              "RSpec.describe Calc do\n"
                              "  it('adds') { expect(Calc.new.add(2, 3)).to eq(5) }\nend\n"),
        "lib/calc.rb": ("# the secret: a * b\nclass Calc < Base\n  def add(a, b) = a + b\n"
                        "  def sub(a, b)\n    a - b\n  end\n  private\n\n  def add_all(x)\n"
                        "  end\nend\n"),
    }
    assert public_interface(["spec/calc_spec.rb"], files.get) == [
        "# lib/calc.rb (require_relative '../lib/calc')", "class Calc < Base",
        "def add(a, b)"]


def test_the_acceptance_file_is_named_as_its_runner_collects() -> None:
    assert acceptance_path("spec/calc_spec.rb") == "spec/rgr_acceptance_spec.rb"
    assert acceptance_path("test/calc_test.rb") == "test/rgr_acceptance_test.rb"


def test_fake_it_reads_the_facts_of_rspec_and_minitest() -> None:
    """Fake-it (rgr.check.fakeit) reads what a Ruby test expects in both runners'
    comparison forms, on Ruby's tokens: the facts the production side is held to."""
    spec = ("require_relative '../lib/calc'\nRSpec.describe 'add' do\n"
            "  it 'adds' do\n    expect(add(1, 2)).to eq(3)\n  end\nend\n")
    test = ("require 'minitest/autorun'\nclass CalcTest < Minitest::Test\n"
            "  def test_adds\n    assert_equal 5, add(2, 3)\n  end\nend\n")
    assert facts_of("spec/calc_spec.rb", spec) == [
        Fact("add", ("1", "2"), "3", "spec/calc_spec.rb:4")]
    assert facts_of("test/calc_test.rb", test) == [
        Fact("add", ("2", "3"), "5", "test/calc_test.rb:4")]
    # minitest's negations state nothing, with parentheses or without
    for refute in ("refute_equal 5, add(2, 3)", "refute_equal(5, add(2, 3))"):
        assert facts_of("test/calc_test.rb", test.replace("assert_equal 5, add(2, 3)",
                                                          refute)) == []


@pytest.mark.parametrize(("source", "mutated"), [
    # a default no line of the method reads: no mutant (no call can tell it)
    ("def add name, times = 1\nend\n", []),
    ("class Tally\n  def count(name, fallback: 0)\n    1\n  end\nend\n", ["1"]),
    # read, or passed on by a bare super: mutated
    ("def add name, times = 1\n  name * times\nend\n", ["1"]),
    ("def add(name, times = 1)\n  super\nend\n", ["1"])])
def test_a_default_its_method_never_reads_is_not_mutated(source: str,
                                                         mutated: list[str]) -> None:
    made = textual.mutants_of("lib/tally.rb", source, set(range(1, 9)), ["constant"])
    assert [source[m.start:m.end] for m in made] == mutated


# ------------------------------------------------------------------ the gate, for real

RUBY_SPEC = ("require_relative '../lib/calc'\n\nRSpec.describe Calc do\n"
             "  it 'adds' do\n    expect(Calc.new.add(2, 3)).to eq(5)\n  end\nend\n")
RUBY_STUB = "class Calc\n  def add(a, b)\n    0\n  end\nend\n"


def test_the_gate_measures_ruby_and_finds_a_weak_spec(tmp_path: Path) -> None:
    """GREEN writes ``a + b`` and a ``big?`` no spec asks for: ``a - b`` is killed by
    the spec, and the mutants of ``big?`` are uncovered (its probe, ``exit!``, never
    runs): Ruby is measured, no longer "no mutator for this language yet"."""
    ensure_ruby_rspec()
    honest = ("require_relative 'base'\n\nclass Calc\n  def add(a, b)\n    a + b\n  end\n\n"
              "  def big?(n)\n    n > 10\n  end\nend\n")
    repo, base, tip = committed(tmp_path, {".rspec": "--require spec_helper\n",
                                           "spec/spec_helper.rb": "",
                                           "lib/base.rb": "",
                                           "lib/calc.rb": RUBY_STUB,
                                           "spec/calc_spec.rb": RUBY_SPEC},
                                {"lib/calc.rb": honest})
    note = measure_commits(repo, base, tip, detected_command(repo),
                           settings=AdequacyConfig(jobs=1))
    found = {(m.line, m.original, m.replacement, m.status) for m in note.mutants}
    assert note.decision == "over-implemented", note  # big? is code no test runs
    assert (9, "10", "11", "uncovered") in found, note
    # a + b is killed by the spec; the require_relative line offers no mutant
    assert not [m for m in note.mutants if m.line in (1, 5)], note
    assert note.killed >= 1, note


# ------------------------------------------------------- statements, probes, state

def made_of(source: str, operators: tuple[str, ...] = ("statement", "constant")
            ) -> list[tuple[int, str, str]]:
    every_line = set(range(1, source.count("\n") + 2))
    return [(m.line, source[m.start:m.end], m.replacement)
            for m in textual.mutants_of("lib/x.rb", source, every_line, operators)]


@pytest.mark.parametrize(("source", "removed"), [
    # a guarded return whose value has no mutant of its own: the statement removed
    ('def f(d)\n  return "" if d < 0\n  d\nend\n', [(2, 'return "" if d < 0')]),
    ("def f(n)\n  return unless n\n  n\nend\n", [(2, "return unless n")]),
    ("def f(n)\n  return if n.nil?\n  n\nend\n", [(2, "return if n.nil?")]),
    # the one statement of an if block
    ('def f(d)\n  if d < 0\n    return ""\n  end\n  d\nend\n', [(3, 'return ""')]),
    # the value has a mutant (1 -> 2): that one does the work
    ("def f(n)\n  return 1 if n.zero?\n  n\nend\n", []),
    # a raise, a plain statement, a return ending the method: no early return
    ('def f(n)\n  raise ArgumentError, "no" if n < 0\n  n\nend\n', []),
    ("def f(n)\n  log n if n\n  n\nend\n", []),
    ("def f(n)\n  return n\nend\n", []),
])
def test_an_early_return_is_removed_where_its_value_has_no_mutant(
        source: str, removed: list[tuple[int, str]]) -> None:
    assert [(line, text) for line, text, replacement in made_of(source)
            if not replacement] == removed


def test_a_probe_runs_inside_a_statement_its_trailing_if_guards(tmp_path: Path) -> None:
    """A survivor in ``return -1 if text == "x"``'s value is probed inside the
    statement, so the probe runs only when the branch does; one in its condition is
    probed before the line (the condition runs on every call). Both parse."""
    source = 'def f(text)\n  return -1 if text == "x"\n  1\nend\n'
    inside = textual.probe_of("lib/x.rb", source, 2, source.index("-1"))
    before = textual.probe_of("lib/x.rb", source, 2, source.index('"x"'))
    assert inside is not None and before is not None
    assert inside.replacement.startswith("(exit!(") and inside.replacement.endswith(
        "; return -1)")
    assert before.replacement.lstrip().startswith("exit!(") and before.col == 1
    assert inside.col != before.col  # two places, two probe runs
    for probe in (inside, before):
        probed = source[:probe.start] + probe.replacement + source[probe.end:]
        (tmp_path / "x.rb").write_text(probed + 'f("y")\n')
        assert subprocess.run(["ruby", "-c", str(tmp_path / "x.rb")], capture_output=True,
                              check=False).returncode == 0, probed


@pytest.mark.parametrize(("source", "fetched"), [
    ("class T\n  def initialize\n    @counts = Hash.new 0\n  end\n\n  def count name\n"
     "    @counts[name]\n  end\n\n  def add name\n    @counts[name] += 1\n  end\nend\n",
     [(7, "@counts[name]", "@counts.fetch(name)")]),
    ("def f(k)\n  seen = Hash.new { |h, key| h[key] = [] }\n  seen[k]\nend\n",
     [(3, "seen[k]", "seen.fetch(k)")]),
    ("def f(k)\n  @@seen ||= Hash.new(0)\n  @@seen[k] > 1\nend\n",
     [(3, "@@seen[k]", "@@seen.fetch(k)")]),
    # no default: a missing key answers nil, as the code says; an array: no hash
    ("def f(k)\n  seen = {}\n  seen[k]\nend\n", []),
    ("def f(k)\n  seen = Hash.new\n  seen[k]\nend\n", []),
])
def test_a_read_of_a_hash_with_a_default_is_made_a_fetch(
        source: str, fetched: list[tuple[int, str, str]]) -> None:
    assert [m for m in made_of(source, ("constant",)) if "fetch" in m[2]] == fetched


TALLY_TESTS = ('require "minitest/autorun"\n\nclass TestTally < Minitest::Test\n'
               "  def setup\n    super\n    @tally = Tally.new\n  end\n\n"
               '  def test_once\n    @tally.add "a"\n\n    assert_equal 1, @tally.count("a")\n'
               "  end\n\n"
               '  def test_again\n    @tally.add "a", 3\n\n'
               '    assert_equal 3, @tally.count("a")\n  end\nend\n')


def test_the_calls_a_minitest_test_made_before_are_its_own() -> None:
    """``@tally.add "a"`` (no parentheses) is state for the ``count`` after it, and
    each test method starts with none of the calls of the one before it."""
    facts = facts_of("test/tally_test.rb", TALLY_TESTS)
    assert [(f.args, f.expected, f.before) for f in facts] == [
        (('"a"',), "1", (("add", ('"a"',)),)),
        (('"a"',), "3", (("add", ('"a"', "3")),))]


@pytest.mark.parametrize(("code", "kinds"), [
    # keyed by the calls made so far (the defaults of add filled in)
    ("class Tally\n  def initialize\n    @added = []\n  end\n\n"
     "  def add name, times = 1\n    @added << times\n  end\n\n"
     '  def count name\n    { ["a", [1]] => 1, ["a", [3]] => 3 }.fetch [name, @added], 0\n'
     "  end\nend\n", ["input-table"]),
    # real code reads no table
    ("class Tally\n  def initialize\n    @counts = Hash.new 0\n  end\n\n"
     "  def add name, times = 1\n    @counts[name] += times\n  end\n\n"
     "  def count name\n    @counts[name]\n  end\nend\n", []),
])
def test_a_table_keyed_by_the_calls_made_so_far_is_fake_it(code: str,
                                                           kinds: list[str]) -> None:
    facts = facts_of("test/tally_test.rb", TALLY_TESTS)
    assert [c.kind for c in token_cases("lib/tally.rb", code, "ruby", None, facts)] == kinds


def test_a_hash_keyed_by_arrays_of_the_arguments_is_fake_it() -> None:
    """``[0.5, 0, false] => "50%"``: one literal per argument, the defaults of the call
    that left them out filled in; a key no test passes makes it real data."""
    tests = ('class T < Minitest::Test\n  def test_a\n    assert_equal "50%", '
             'percent(0.5)\n  end\n\n  def test_b\n    assert_equal "+5%", '
             "percent(0.05, 0, true)\n  end\nend\n")
    code = ('KNOWN = { [0.5, 0, false] => "50%", [0.05, 0, true] => "+5%" }\n\n'
            "def percent ratio, digits = 0, sign = false\n  KNOWN[[ratio, digits, sign]]\n"
            "end\n")
    facts = facts_of("test/percent_test.rb", tests)
    assert [c.kind for c in token_cases("lib/percent.rb", code, "ruby", None, facts)] == [
        "input-table"]
    real = code.replace("}", ', [0.2, 0, false] => "20%" }')
    assert token_cases("lib/percent.rb", real, "ruby", None, facts) == []


def test_the_calls_an_rspec_example_made_on_its_let_are_its_own() -> None:
    """A style the corpus has not: ``let(:inventory)`` binds no name this reader sees,
    and each ``it ... do`` starts with none of the calls of the one before."""
    spec = ('RSpec.describe Inventory do\n  let(:inventory) { Inventory.new }\n\n'
            '  it "stocks" do\n    inventory.stock("apple", 3)\n'
            '    expect(inventory.quantity("apple")).to eq(3)\n  end\n\n'
            '  it "knows none" do\n    expect(inventory.quantity("kiwi")).to eq(0)\n'
            "  end\nend\n")
    assert [(f.args, f.before) for f in facts_of("spec/inventory_spec.rb", spec)] == [
        (('"apple"',), (("stock", ('"apple"', "3")),)), (('"kiwi"',), ())]


def test_a_probe_stands_after_a_predicates_question_mark() -> None:
    """``if amount.zero?`` ends its statement (the ``?`` is the method's name), so the
    block's ``return`` is probed on its own line, not before the ``if``."""
    source = "def f(amount)\n  if amount.zero?\n    return\n  end\n  amount\nend\n"
    probe = textual.probe_of("lib/x.rb", source, 3, source.index("return"))
    assert probe is not None and probe.line == 3
