"""A special case found in production code: what it is, where, and which test's values
it answers (made by the readers of the code: rgr.check.fakeit.tokens, tables, and a
language's own, rgr.ecosystems.python.special_cases)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rgr.ecosystems.fact import Fact

Kind = Literal["constant", "input-table", "input-branch"]


@dataclass(frozen=True)
class SpecialCase:
    path: str
    function: str
    line: int
    #: ``constant``: the function returns the test's expected value whatever its input;
    #: ``input-table``: a table (dict, object, map, switch) keyed only by the tests'
    #: inputs; ``input-branch``: a branch on exactly a test's inputs returning its
    #: expected value, in a function with no general path.
    kind: Kind
    value: str
    fact: Fact
