"""Mutation testing of each phase's diff: do the tests pin the lines the phase wrote?

``gate`` runs it (``textual``: the token mutator limited to changed lines; a language
read by its own syntax tree mutates itself, ``Language.tree_mutation``: Python's
rgr.ecosystems.python.mutants, its tests followed by rgr's line tracer,
rgr.ecosystems.python.lines), ``rule`` decides what survivors mean; the note keeps the
findings (``rgr.store.handoff.AdequacyNote``).
"""
