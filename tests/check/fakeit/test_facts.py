"""What the tests state, asked of the language (rgr.check.fakeit.facts): a language
read by its syntax tree is read by its own reader (``Language.fakeit_tree``, Python's:
tests/ecosystems/python/test_facts.py), the others on their tokens
(tests/check/fakeit/test_token_flow.py); a file of no language rgr reads states
nothing."""

from __future__ import annotations

from rgr.check.fakeit.facts import facts_of
from rgr.check.fakeit.ledger import cases_in

PY_ASSERT = "def test_adds():\n    assert add(2, 3) == 5\n"


def test_the_language_reads_its_test_files_and_a_file_of_no_language_states_nothing() -> None:
    assert [(f.callee, f.args, f.expected) for f in facts_of("test_add.py", PY_ASSERT)] == [
        ("add", ("2", "3"), "5")]
    assert facts_of("test_add.txt", PY_ASSERT) == []


def test_a_constant_answering_a_helpers_expectation_is_fake_it() -> None:
    """GREEN returns the first test's expected value; the tests assert through the
    project's own helper: the constant is named with its file and line."""
    test = ("from tests.helpers import assert_equal\n\n"
            "def test_formats():\n    assert_equal('1.50', fmt(1.5, 2))\n")
    production = "def fmt(value, digits):\n    return '1.50'\n"
    cases = cases_in("fmt.py", production, None, facts_of("tests/test_fmt.py", test))
    assert [(c.kind, c.line, c.value) for c in cases] == [("constant", 2, "'1.50'")]
