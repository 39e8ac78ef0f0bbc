"""A mutant as every mutator makes it and the gate runs it (rgr.ecosystems.mutant): the
text it replaces, by character offsets, and how it is named."""

from __future__ import annotations

from rgr.ecosystems.mutant import Mutant, apply

SOURCE = "def add(a, b):\n    return a + b\n"


def test_a_mutant_replaces_its_text_and_nothing_else() -> None:
    start = SOURCE.index("a + b")
    minus = Mutant("calc.py", 2, 12, "arithmetic", "a + b", "a - b", start, start + 5, 2)
    assert apply(SOURCE, minus) == "def add(a, b):\n    return a - b\n"
    inserted = Mutant("calc.py", 2, 1, "probe", "", "    stop()\n", 15, 15, 2)
    assert apply(SOURCE, inserted) == "def add(a, b):\n    stop()\n    return a + b\n"


def test_a_mutant_is_named_by_its_place_operator_and_replacement() -> None:
    minus = Mutant("calc.py", 2, 12, "arithmetic", "a + b", "a - b", 26, 31, 2)
    assert minus.id == "calc.py:2:12:arithmetic:a - b"
    assert minus.describe() == "calc.py:2: 'a + b' -> 'a - b' (arithmetic)"
    assert not minus.equivalent and not minus.module_level
