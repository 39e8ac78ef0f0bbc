"""Equivalent boundary mutants, decided by rule: ``<`` ↔ ``<=`` and ``>`` ↔ ``>=`` where
the comparison only picks which of its own two operands is returned or assigned.

``a < b`` and ``a <= b`` differ only when ``a == b``. When the branch the comparison
guards does nothing but return (or assign) ``a`` or ``b``, both branches give the same
value there, so no test can tell the mutant apart: ``if value < low: return low``,
``if x > high: return high``, ``return a if a < b else b``, ``x = high if x > high``.
Measured on honest work in real projects, these were the commonest survivors; sending
GREEN back for them asks for a test that cannot exist.

The rule is narrow on purpose: both operands are plain names, attributes or numbers
(nothing that runs code), the comparison is the whole condition, and the branch is a
single ``return``/assignment of one of the operands (with an ``else`` doing the same).
A guard without ``else`` assumes what follows it gives the other operand at equality
(true of a clamp, whose next lines return the value itself); a guard that raises
(``if low > high: raise ValueError(...)``) is never equivalent: at equality one raises
and the other does not. Decided mutants are not run; the note counts them
``equivalentByRule`` and lists each one, never as killed and never as a survivor.

Here the rule on tokens (JavaScript/TypeScript, Go, Rust: ``token_guard``); a language
read by its own syntax tree reads it there (Python's: rgr.ecosystems.python.boundary).
"""

from __future__ import annotations

from collections.abc import Sequence

from rgr.ecosystems.mutant import TWINS, boundary_reason

__all__ = ["token_guard"]


def token_guard(texts: Sequence[str], index: int) -> str | None:
    """Why the comparison token ``texts[index]`` (in JavaScript/TypeScript, Go or Rust
    source, as token texts) is an equivalent boundary when swapped for its twin, or
    None. Shapes: ``if (a < b) return b;``, ``if (a < b) { return a; }``, ``if a < b {
    return b }``, ``if a < b { a } else { b }``, ``a < b ? a : b``, ``if x > hi { x = hi
    }``; an ``else`` branch must pick an operand too."""
    op = texts[index]
    if op not in TWINS:
        return None
    left_start = _operand_start(texts, index - 1)
    right_end = _operand_end(texts, index + 1)
    if left_start is None or right_end is None:
        return None
    left = "".join(texts[left_start:index])
    right = "".join(texts[index + 1:right_end])
    operands = (left, right)
    before = texts[left_start - 1] if left_start > 0 else ""
    after = texts[right_end] if right_end < len(texts) else ""
    if before == "(" and left_start > 1 and texts[left_start - 2] == "if" and after == ")":
        picked = _token_branch(texts, right_end + 1, operands)  # JavaScript
    elif before == "if" and after == "{":
        picked = _token_branch(texts, right_end, operands)  # Go, Rust
    elif after == "?" and before in ("return", "=", "(", ",", "=>", ":"):
        picked = _ternary(texts, right_end + 1, operands)
    else:
        picked = False
    return boundary_reason(left, op, right) if picked else None


def _operand_start(texts: Sequence[str], last: int) -> int | None:
    """The first index of the plain operand (``x``, ``self.x``, ``this.lo``, ``2``)
    ending at ``last``."""
    position = last
    if position < 0 or not _word(texts[position]):
        return None
    while position >= 2 and texts[position - 1] == "." and _word(texts[position - 2]):
        position -= 2
    return position


def _operand_end(texts: Sequence[str], first: int) -> int | None:
    """One past the plain operand starting at ``first``."""
    position = first
    if position >= len(texts) or not _word(texts[position]):
        return None
    while position + 2 < len(texts) and texts[position + 1] == "." \
            and _word(texts[position + 2]):
        position += 2
    return position + 1


def _word(text: str) -> bool:
    return bool(text) and (text[0].isalnum() or text[0] in "_$") and text not in (
        "if", "return", "else", "true", "false", "null", "undefined", "nil", "None")


def _token_branch(texts: Sequence[str], start: int, operands: tuple[str, str]) -> bool:
    """The branch at ``start`` (braced or not) picks an operand, and so does its ``else``
    if it has one; an assignment guard without ``else`` assigns an operand to itself."""
    end, target = _picks(texts, start, operands)
    if end is None:
        return False
    if end < len(texts) and texts[end] == "else":
        other_end, other_target = _picks(texts, end + 1, operands)
        return other_end is not None and other_target == target
    return target is None or target in operands


def _picks(texts: Sequence[str], start: int, operands: tuple[str, str]
           ) -> tuple[int | None, str | None]:
    """(one past the branch, the assigned target or None) when the branch at ``start``
    is ``return x;``, ``t = x;`` or (braced) a bare ``x`` (a Rust block's value), ``x``
    an operand; (None, None) when it is anything else."""
    braced = start < len(texts) and texts[start] == "{"
    position = start + 1 if braced else start
    target = None
    if position < len(texts) and texts[position] == "return":
        position += 1
    elif position + 1 < len(texts) and texts[position + 1] == "=" and _word(texts[position]):
        target = texts[position]
        position += 2
    elif not braced:
        return None, None
    end = _operand_end(texts, position)
    if end is None or "".join(texts[position:end]) not in operands:
        return None, None
    if end < len(texts) and texts[end] == ";":
        end += 1
    if braced:
        if end >= len(texts) or texts[end] != "}":
            return None, None
        end += 1
    return end, target


def _ternary(texts: Sequence[str], start: int, operands: tuple[str, str]) -> bool:
    """``x : y`` at ``start``, both operands, then the expression ends."""
    first_end = _operand_end(texts, start)
    if first_end is None or first_end >= len(texts) or texts[first_end] != ":":
        return False
    second_end = _operand_end(texts, first_end + 1)
    if second_end is None:
        return False
    ends = second_end >= len(texts) or texts[second_end] in (";", ")", ",", "}", "]")
    return ends and "".join(texts[start:first_end]) in operands \
        and "".join(texts[first_end + 1:second_end]) in operands
