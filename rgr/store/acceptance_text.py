"""The examiner's acceptance tests in words (rgr.tdd.examine records them; the note
holds them as ``acceptance``): one function for ``rgr show``'s fast path (no pydantic)
and for ``rgr report``."""

from __future__ import annotations

from collections.abc import Mapping


def summary(note: Mapping[str, object]) -> str:
    """``pass: 2 of 2 acceptance test(s) passed (round 2, 1 examiner session, $0.0020)``."""
    tests = note.get("tests")
    listed = tests if isinstance(tests, list) else []
    passed = sum(1 for t in listed if isinstance(t, Mapping) and t.get("outcome") == "passed")
    cost = note.get("costUsd")
    spent = f"${cost:.4f}" if isinstance(cost, int | float) else "cost not reported"
    reason = note.get("reason")
    return (f"{note.get('verdict')}: {passed} of {len(listed)} acceptance test(s) passed "
            f"(mode {note.get('mode', 'on')}, round {note.get('round', 1)}, "
            f"{note.get('sessions', 0)} examiner session(s), {spent})"
            + (f"; {reason}" if reason else ""))


def test_lines(note: Mapping[str, object]) -> list[str]:
    """One line per acceptance test: its outcome and the behaviour it checks."""
    tests = note.get("tests")
    return [f"{t.get('outcome')}: {t.get('name')}: {t.get('behaviour')}"
            for t in (tests if isinstance(tests, list) else []) if isinstance(t, Mapping)]


def stored_line(note: Mapping[str, object]) -> str:
    """Where the file is kept and what it hashes to (what an auditor compares)."""
    return (f"{note.get('file')} kept in rgr's state folder as {note.get('stored')} (sha256 "
            f"{str(note.get('sha256'))[:16]}), never in git")
