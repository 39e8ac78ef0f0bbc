"""TDD mode: PLAN → RED → GREEN → REFACTOR, one sealed, checked, noted phase at a time.

engine.py   the phase state machine: each phase a ``Work`` the attempt kernel runs
examine.py  the examiner before COMPLETE: acceptance tests nobody implementing sees
"""
