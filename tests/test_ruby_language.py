"""Ruby as a language of its own (rgr.ecosystems.ruby): its cheat idioms read on its
tokens (the issue's GREEN that patches RSpec's matcher in lib/calc.rb is named
patches-test-framework, as the Python equivalent is), honest RSpec and Minitest code let
through, and the examiner shown the heads of what a spec loads with require_relative."""

from __future__ import annotations

import pytest

from rgr.check import cheats
from rgr.check.acceptance.interface import public_interface
from rgr.check.acceptance.placing import acceptance_path


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
