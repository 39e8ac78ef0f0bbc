"""Refactor mode: behaviour-preserving refactors in small, verified, noted batches.

index.py  what the repository holds (files, hashes, Python symbols, imports, fan-in)
plan.py   the planner's answer (seed 000 §15.1) and its deterministic validator
gate.py   ``[gate]``: the test run plus the fast/full commands (``rgr verify``)
api.py    the public API snapshot of Python modules
checks.py the per-batch rules on base..HEAD (scope, budget, binaries, tests, API)
rename.py rope-based renames (a batch carried out by a library, not an agent)
engine.py the batch loop: plan, batch, check, gate, note; retries and resume
"""
