"""Mutation testing of each phase's diff: do the tests pin the lines the phase wrote?

``gate`` runs it (``mutants``: the Python AST mutator limited to changed lines; ``lines``:
the changed lines and which test runs each; ``pytest_lines``: rgr's line tracer),
``rule`` decides what survivors mean; the note keeps the findings
(``rgr.store.handoff.AdequacyNote``).
"""
