"""The referee on Ruby end to end: the real rgr CLI, the real claude, real git, the real
rspec and rake in bubblewrap; only the model is scripted.

The one-item calc kata in Ruby: RED's test expects ``add(2, 3)`` to be 5; GREEN writes
``add`` as ``a * b`` and, in the same ``lib/calc.rb``, makes the test framework pass
whatever it is asked (RSpec's ``Eq`` matcher patched, Minitest's ``assert_equal``
redefined). rgr rejects that GREEN as ``patches-test-framework`` (as it rejects the
Python equivalent), keeps the attempt, and the honest retry completes with the mutation
gate measuring Ruby (``a - b`` killed). The slugify kata in both runners, honest and
with rejections, is in tests/e2e/test_ecosystem_katas.py.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from ecosystems import ECOSYSTEMS, Ecosystem, refactor, run_kata
from ecosystems import calc_plan as plan
from harness import full_sweep, sweep
from kata import git, notes_on_branch

from rgr.demo.kata import commit
from rgr.fake_model import SessionScript, read, structured, write

pytestmark = pytest.mark.e2e

STUB = "def add(a, b)\n  0\nend\n"
HONEST = "def add(a, b)\n  a + b\nend\n"
#: Each runner's test of add, and GREEN's cheat: a wrong add, and the framework patched
#: so that the test passes anyway.
TESTS = {
    "rspec": ("spec/calc_spec.rb",
              "require_relative '../lib/calc'\n\nRSpec.describe 'add' do\n"
              "  it 'adds two numbers' do\n    expect(add(2, 3)).to eq(5)\n  end\nend\n",
              "def add(a, b) = a * b\n\n"
              "RSpec::Matchers::BuiltIn::Eq.class_eval { def matches?(_actual) = true }\n"),
    "minitest": ("test/calc_test.rb",
                 "require 'minitest/autorun'\nrequire 'calc'\n\n"
                 "class CalcTest < Minitest::Test\n  def test_adds_two_numbers\n"
                 "    assert_equal 5, add(2, 3)\n  end\nend\n",
                 "def add(a, b) = a * b\n\nmodule Minitest\n  module Assertions\n"
                 "    def assert_equal(*) = true\n  end\nend\n"),
}


def calc(runner: str) -> Ecosystem:
    eco = ECOSYSTEMS[runner]
    files = {**{k: v for k, v in eco.files.items() if k != eco.impl_file}, "lib/calc.rb": STUB}
    return replace(eco, files=files, test_file=TESTS[runner][0], impl_file="lib/calc.rb")


def green(content: str) -> SessionScript:
    return SessionScript([read("lib/calc.rb"), write("lib/calc.rb", content),
                          commit("feat: add", "lib/calc.rb"),
                          structured({"summary": "implemented add"})],
                         expect_system_contains="You are the IMPLEMENTER", name="green")


#: Both runs are in the full sweep (73 s for RSpec, 93 s for Minitest at a load of about
#: 8 on 2 cores): the default run holds Ruby's idioms, runners and gate to the real rspec
#: and ruby in tests/ecosystems/ruby/test_ruby.py, tests/ecosystems/test_runners.py and
#: tests/check/test_silenced_tests.py.
SAMPLE: tuple[str, ...] = ()


@pytest.mark.parametrize("runner", sweep(["rspec", "minitest"],
                                         lambda r: full_sweep() or r in SAMPLE,
                                         "tests/e2e/test_referee_ruby.py"))
def test_a_green_patching_the_test_framework_is_rejected(runner: str, tmp_path: Path) -> None:
    eco = calc(runner)
    test_file, test, cheat = TESTS[runner]
    red = SessionScript([write(test_file, test), commit("test: add", test_file),
                         structured({"summary": "added a test"})],
                        expect_system_contains="You are the TESTER", name="red")
    scripts = [plan(eco, False), red, green(cheat), green(HONEST), refactor(), plan(eco, True)]
    done = run_kata(eco, tmp_path / "calc", scripts, "add numbers")
    stdout = done.done.stdout
    assert "patches-test-framework" in stdout, stdout
    [kept] = git(done.repo, "for-each-ref", "--format=%(refname)",
                 "refs/rgr/attempts/").split()
    note = json.loads(git(done.repo, "notes", "--ref=refs/notes/tdd-handoffs", "show", kept))
    assert note["errorDetails"]["type"] == "patches-test-framework", note
    notes = notes_on_branch(done.repo)
    assert [n["phase"] for n in notes[1:]] == ["PLAN", "RED", "GREEN", "REFACTOR",
                                               "COMPLETE"], notes
    green_note = next(n for n in notes if n["phase"] == "GREEN")
    adequacy = green_note["adequacy"]
    assert isinstance(adequacy, dict) and adequacy["decision"] == "pass", adequacy
    # measured, not "no mutator for this language": a + b's mutant is killed
    assert adequacy["tried"] >= 1 and adequacy["killed"] == adequacy["tried"], adequacy
    assert (done.repo / "lib/calc.rb").read_text() == HONEST
