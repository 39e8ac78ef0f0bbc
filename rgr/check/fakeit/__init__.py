"""Fake-it debt: production code whose result comes from the tests' own values.

Kent Beck's "fake it" (GREEN returns the constant the new test expects) is a legitimate
step; ending a feature on it is not TDD: ``def add(a, b): return 5`` passes
``assert add(2, 3) == 5`` and returns 5 for every input. rgr recognises such special
cases deterministically (``facts`` reads what the tests call and expect, ``tokens``
finds the special cases in the changed functions; a language rgr reads by its syntax
tree is read by its own reader, ``Language.fakeit_tree``: rgr.ecosystems.python.facts,
special_cases), notes them as debt (``ledger``) and settles it when a later test with
other values passes without them. The rules are here; a syntax tree's reading is the
language's.
"""
