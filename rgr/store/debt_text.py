"""Fake-it debt in words (rgr.check.fakeit records it; the note holds it as
``fakeItDebt``): one function for the model and for ``rgr show``'s fast path, which reads
the note's JSON without pydantic (its start-up budget, tests/test_startup.py)."""

from __future__ import annotations

from collections.abc import Mapping


def describe(debt: Mapping[str, object]) -> str:
    """Where the special case is and what it does: ``calc.py:2 add returns the constant 5
    (from tests/test_calc.py::test_adds)``."""
    value, kind = debt.get("value"), debt.get("kind")
    what = {"constant": f"returns the constant {value}",
            "input-table": f"looks its answer up in a table keyed by {value}",
            "input-branch": f"special-cases the inputs {value}"}.get(str(kind), str(kind))
    return f"{debt.get('path')}:{debt.get('line')} {debt.get('function')} {what} " \
           f"(from {debt.get('test')})"


def payment(debt: Mapping[str, object]) -> str:
    """What pays it: a test of the function with other values."""
    return f"a test of {debt.get('function')} with other values than {debt.get('inputs')}"


def line_of_account(debt: Mapping[str, object]) -> str:
    """One line of the debt's account: open and what pays it, or paid and by what."""
    if debt.get("status") == "paid":
        return f"paid: {describe(debt)}, by {debt.get('paidBy') or '-'}"
    return f"open: {describe(debt)}: needs {payment(debt)}"
