"""rgr.store.handoff_read (one note, no pydantic) against the model it stands in for: where it
answers, the model accepts the note with the same values; where the model says no, it
never answers; and it knows every field the model has."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from pydantic import BaseModel

from rgr.store import handoff
from rgr.store.handoff import (
    AcceptanceNote,
    AdequacyNote,
    AgentSummary,
    BatchNote,
    ErrorDetails,
    FakeItDebt,
    HandoffState,
    InvalidNote,
    LandingNote,
    MergeFixNote,
    Phase,
    RefactorProgress,
    SandboxNote,
    TestCase,
    TestRunSummary,
    parse_note,
)
from rgr.store.handoff_read import FOLLOWS, HANDOFF, NESTED, read_plain, resume_phase
from rgr.store.handoff_state import read_state
from tests.conftest import REPO_ROOT, note_json

sys.path.insert(0, str(REPO_ROOT / "bench"))
from make_repo import note_for


def aliases(model: type[BaseModel]) -> set[str]:
    return {info.alias or name for name, info in model.model_fields.items()}


def test_every_field_of_the_model_is_known() -> None:
    assert set(HANDOFF) == aliases(HandoffState)
    models = {"currentTest": TestCase, "errorDetails": ErrorDetails, "agent": AgentSummary,
              "tests": TestRunSummary, "batch": BatchNote, "refactor": RefactorProgress,
              "mergeFix": MergeFixNote, "sandbox": SandboxNote, "adequacy": AdequacyNote,
              "fakeItDebt": FakeItDebt, "landing": LandingNote, "acceptance": AcceptanceNote}
    assert set(NESTED) == set(models)
    for name, model in models.items():
        assert set(NESTED[name]) == aliases(model), name


def test_the_cycle_is_the_models() -> None:
    assert {str(k): str(v) for k, v in handoff.FOLLOWS.items()} == dict(FOLLOWS)


def full_state() -> HandoffState:
    return HandoffState.model_validate({
        "phase": "GREEN", "nextPhase": "REFACTOR", "cycleNumber": 3,
        "currentTest": {"description": "adds", "testFile": "t.py", "implFile": "a.py"},
        "completedTests": ["one"], "pendingTests": ["two"], "testResult": "PASS",
        "error": "boom", "errorDetails": {"type": "guard", "message": "no"}, "retryCount": 2,
        "schemaVersion": 1, "mode": "refactor", "runId": "r", "feature": "f",
        "branch": "b", "startBranch": "main", "baseCommit": "a" * 40,
        "startedAt": "2026-11-21T00:00:00Z", "finishedAt": "2026-11-21T00:01:02.123456Z",
        "agent": {"backend": "claude", "sessionId": "s", "model": "m", "numTurns": 4,
                  "costUsd": 0.25, "durationMs": 1200, "inputTokens": 10, "outputTokens": 20,
                  "permissionDenials": 1, "promptVersion": "p1"},
        "tests": {"command": ["pytest"], "exitCode": 0, "durationS": 1.5, "passed": 3,
                  "failed": 0, "errors": 0, "skipped": 1, "failing": []},
        "rgrVersion": "0.1.0", "summary": "did it",
        "batch": {"id": "b1", "goal": "g", "index": 0, "total": 2, "operations": ["x"],
                  "scope": ["a.py"], "status": "applied", "diffLines": 5, "gate": "fast",
                  "gateCommands": ["ruff"], "by": "rope"},
        "refactor": {"goal": "g", "plan": [{"id": "b1"}], "nextBatch": 1,
                     "applied": ["b1"], "failed": [], "sourceBranch": "main",
                     "startCommit": "b" * 40},
        "mergeFix": {"into": "main", "baseTip": "c" * 40, "jobTip": "d" * 40,
                     "conflicts": ["a.py"], "attempt": 2, "tries": 2, "status": "resolved"},
        "adequacy": {"phase": "GREEN", "mode": "reject", "tried": 3, "killed": 2,
                     "survived": 0, "uncovered": 1, "equivalent": 0, "notRun": 0,
                     "decision": "over-implemented", "remark": None, "durationS": 1.25,
                     "mutants": [{"path": "calc.py", "line": 3, "col": 9,
                                  "operator": "return", "original": "return 0",
                                  "replacement": "return None", "status": "uncovered",
                                  "tests": [], "reason": None}]},
        "fakeItDebt": [{"path": "calc.py", "line": 2, "function": "add", "kind": "constant",
                        "value": "5", "test": "t.py::test_adds", "inputs": "(2, 3)",
                        "status": "paid", "paidBy": "GREEN cycle 2 (abcdef12)"}],
        "someFutureField": {"kept": True},
    })


def valid_notes() -> list[str]:
    minimal = HandoffState(phase=Phase.PLAN)
    return [full_state().to_json(), minimal.to_json(), note_json("RED"), note_json("COMPLETE"),
            *(note_for(i) for i in range(4)), '{"phase": "PLAN"}']


#: Values that are wrong, or right only after pydantic converts them.
ODD_VALUES: list[Any] = [None, True, 0, 1.0, 1.5, -1, "x", "3", "", [], ["x"], [1], {},
                         {"x": 1}, "2026-11-21T00:00:00Z", "2026-11-21 00:00:00",
                         "2026-13-01T00:00:00Z", 1_700_000_000]


def mutations() -> list[str]:
    """The full note with one field (top-level or nested) set to each odd value."""
    base = json.loads(full_state().to_json())
    out = []
    for key, value in base.items():
        for odd in ODD_VALUES:
            out.append(json.dumps({**base, key: odd}))
        if isinstance(value, dict):
            for inner in value:
                for odd in ODD_VALUES:
                    out.append(json.dumps({**base, key: {**value, inner: odd}}))
    out += [json.dumps({k: v for k, v in base.items() if k != "phase"}),
            json.dumps({**base, "cycle_number": 7}),  # the Python name populates the field
            json.dumps({**base, "currentTest": {"testFile": "t.py"}}),
            "not json", "[]", '"PLAN"', "", "{}"]
    return out


def contained(plain: Any, dumped: Any) -> bool:
    """Every value ``plain`` has is the model's (the model adds defaults)."""
    if isinstance(plain, dict) and isinstance(dumped, dict):
        return all(k in dumped and contained(v, dumped[k]) for k, v in plain.items())
    return bool(plain == dumped and type(plain) in (type(dumped), int))


@pytest.mark.parametrize("text", valid_notes())
def test_rgrs_own_notes_are_read_without_the_model(text: str) -> None:
    plain = read_plain(text)
    assert plain is not None
    assert contained(plain, parse_note(text).model_dump(mode="json", by_alias=True))


def test_it_answers_only_where_the_model_agrees() -> None:
    answered = refused = 0
    for text in mutations():
        plain = read_plain(text)
        try:
            dumped: dict[str, Any] | None = parse_note(text).model_dump(
                mode="json", by_alias=True)
        except InvalidNote:
            dumped = None
        if plain is not None:
            answered += 1
            assert dumped is not None, text
            assert contained(plain, dumped), text
        elif dumped is None:
            refused += 1
        state, problem = read_state(text)
        assert (state is None) == (dumped is None) and (problem is None) == (state is not None)
        if state is not None and plain is None:
            assert state == dumped
        assert read_state(text, full=True)[0] == dumped  # what --json prints
    assert answered > 50 and refused > 50  # the corpus exercises both sides


def test_resume_phase_follows_the_cycle_when_next_phase_is_missing() -> None:
    assert resume_phase({"phase": "REFACTOR"}) == "PLAN"
    assert resume_phase({"phase": "RED", "nextPhase": "COMPLETE"}) == "COMPLETE"
