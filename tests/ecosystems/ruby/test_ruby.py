"""Ruby as a language of its own (rgr.ecosystems.ruby): its cheat idioms read on its
tokens (the issue's GREEN that patches RSpec's matcher in lib/calc.rb is named
patches-test-framework, as the Python equivalent is), honest RSpec and Minitest code let
through, the examiner shown the heads of what a spec loads with require_relative, and
the mutation gate measuring a Ruby change with the real rspec."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolchains import ensure_ruby_rspec

from rgr.base.config import AdequacyConfig
from rgr.check import cheats
from rgr.check.acceptance.interface import public_interface
from rgr.check.acceptance.placing import acceptance_path
from rgr.check.fakeit.facts import Fact, facts_of
from rgr.check.mutation import textual
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
