"""What a Python test states (rgr.ecosystems.python.facts): a test's value counts when
the test compares it with the result of calling the code, whatever the comparison's form:
a bare call of the project's own helper (read from its name, or from its definition when
the name says nothing), a name bound to the call's result, ``pytest.approx``. A
comparison that is no equality states no fact."""

from __future__ import annotations

import pytest

from rgr.ecosystems.python.facts import facts_of


def facts(source: str) -> set[tuple[str, tuple[str, ...], str]]:
    return {(f.callee, f.args, f.expected) for f in facts_of("test_fmt.py", source)}


@pytest.mark.parametrize("test", [
    # the project's own helper, a bare function call (not unittest's method)
    "from helpers import assert_equal\n\ndef test_f():\n    assert_equal('1.50', fmt(1.5))\n",
    # a helper whose name says nothing, defined in the file: its body compares
    "def agrees(got, want):\n    assert got == want, got\n\n"
    "def test_f():\n    agrees(fmt(1.5), '1.50')\n",
    # the result bound to a name, the expectation too
    "def test_f():\n    got = fmt(1.5)\n    want = '1.50'\n    assert got == want\n",
    # a camelCase helper of the project's
    "def test_f(check):\n    check.expectEq(fmt(1.5), '1.50')\n",
])
def test_a_comparison_of_any_form_states_the_fact(test: str) -> None:
    assert facts(test) == {("fmt", ("1.5",), "'1.50'")}


def test_approx_compares_with_its_value() -> None:
    test = "import pytest\n\ndef test_a():\n    assert area(2) == pytest.approx(12.56)\n"
    assert facts(test) == {("area", ("2",), "12.56")}


@pytest.mark.parametrize("test", [
    "def test_f(self):\n    self.assertNotEqual(fmt(1.5), '1.50')\n",
    "def test_f(self):\n    self.assertIn(fmt(1.5), '1.50 2.50')\n",
    "def test_f():\n    assert_not_equal(fmt(1.5), '1.50')\n",
    "def test_f():\n    print(fmt(1.5), '1.50')\n",
    # a name bound twice holds what its line says: no one value
    "def test_f():\n    got = fmt(1.5)\n    got = fmt(2.5)\n    assert got == '1.50'\n",
])
def test_a_comparison_that_is_no_equality_states_nothing(test: str) -> None:
    assert facts(test) == set()

