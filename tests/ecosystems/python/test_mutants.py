"""What the mutation gate asks of Python's tree beside its mutants
(rgr.ecosystems.python.mutants): the functions that read what a module-level statement
binds. The mutator itself is pinned by feature in tests/check/mutation (test_mutation,
test_mutation_noise, test_mutation_styles)."""

from __future__ import annotations

from rgr.ecosystems.python.mutants import mutants_of, readers

UNITS = ('_UNITS = {"s": 1, "m": 60, "h": 3600}\nUNREAD = 7\n\n\n'
         "def parse(text):\n    return int(text[:-1]) * _UNITS[text[-1]]\n\n\n"
         "def twice(text):\n    n = parse(text)\n    return n + n\n")


def test_the_functions_that_read_a_module_level_binding_are_named_by_their_body() -> None:
    assert readers(UNITS, 1) == [(6,)]  # parse's body reads _UNITS
    assert readers(UNITS, 2) == []  # nothing reads UNREAD
    assert readers(UNITS, 5) == []  # a definition binds no plain name by assignment
    assert readers("def broken(:\n", 1) == []


def test_module_level_mutants_are_marked() -> None:
    found = mutants_of("units.py", UNITS, {1, 2, 6})
    assert {m.line for m in found if m.module_level} == {1, 2}
    assert found and all(not m.module_level for m in found if m.line == 6)
