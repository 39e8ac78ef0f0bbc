"""The note schema: what older and newer writers produce must read, anything else must be
reported as an InvalidNote with a reason, never raise something else."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rgr.store.handoff import (
    SCHEMA_VERSION,
    AgentSummary,
    HandoffState,
    InvalidNote,
    Phase,
    TestCase,
    TestResult,
    parse_note,
)

SEED_ONLY: dict[str, Any] = {
    "phase": "RED",
    "nextPhase": "GREEN",
    "cycleNumber": 2,
    "currentTest": {"description": "adds", "testFile": "t.py", "implFile": "a.py"},
    "completedTests": ["starts empty"],
    "pendingTests": ["subtracts"],
    "testResult": "FAIL",
    "error": None,
    "errorDetails": None,
    "retryCount": 1,
}


def test_a_seed_only_note_parses_with_defaults_for_rgr_fields() -> None:
    state = parse_note(json.dumps(SEED_ONLY))
    assert state.phase is Phase.RED
    assert state.next_phase is Phase.GREEN
    assert state.cycle_number == 2
    assert state.current_test == TestCase(description="adds", test_file="t.py", impl_file="a.py")
    assert state.completed_tests == ["starts empty"]
    assert state.test_result is TestResult.FAIL
    assert state.retry_count == 1
    # the fields rgr added default to "not recorded"
    assert state.schema_version == 0
    assert state.run_id is None and state.agent is None and state.started_at is None


def test_a_note_with_only_phase_parses_and_resumes_with_the_next_phase() -> None:
    state = parse_note('{"phase": "GREEN"}')
    assert state.next_phase is None
    assert state.resume_phase is Phase.REFACTOR


def test_unknown_fields_survive_a_round_trip() -> None:
    data = dict(SEED_ONLY, futureField={"nested": [1, 2]}, anotherOne="x")
    data["currentTest"] = dict(SEED_ONLY["currentTest"], coverage=0.5)
    state = parse_note(json.dumps(data))
    again = json.loads(state.to_json())
    assert again["futureField"] == {"nested": [1, 2]}
    assert again["anotherOne"] == "x"
    assert again["currentTest"]["coverage"] == 0.5
    assert parse_note(state.to_json()) == state


def test_to_json_uses_camel_case_names_and_ends_with_a_newline() -> None:
    state = HandoffState(
        phase=Phase.PLAN, next_phase=Phase.RED, cycle_number=1,
        current_test=TestCase(description="d", test_file="t.py", impl_file="i.py"),
        retry_count=0, schema_version=SCHEMA_VERSION, run_id="r1",
        agent=AgentSummary(session_id="s", cost_usd=0.1),
    )
    text = state.to_json()
    assert text.endswith("\n")
    data = json.loads(text)
    for key in ("phase", "nextPhase", "cycleNumber", "currentTest", "completedTests",
                "pendingTests", "testResult", "error", "errorDetails", "retryCount",
                "schemaVersion", "runId"):
        assert key in data, key
    assert data["currentTest"] == {"description": "d", "testFile": "t.py", "implFile": "i.py"}
    assert data["agent"]["sessionId"] == "s" and data["agent"]["costUsd"] == 0.1
    snake = [k for k in data if "_" in k] + [k for k in data["agent"] if "_" in k]
    assert snake == []


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("hi\n", "not JSON"),  # what `git notes add -m hi` stores
        ("", "not JSON"),
        ("[1, 2]", "expected an object"),
        ('"PLAN"', "expected an object"),
        ('{"nextPhase": "RED"}', "phase"),  # phase is required
        ('{"phase": "LUNCH"}', "phase"),
        ('{"phase": "RED", "cycleNumber": "two"}', "cycleNumber"),
        (b"\xff\xfe{", "not JSON"),
    ],
)
def test_text_that_is_not_a_handoff_is_an_invalid_note_with_a_reason(
    text: str | bytes, reason: str
) -> None:
    with pytest.raises(InvalidNote) as caught:
        parse_note(text)
    message = str(caught.value)
    assert reason in message
    assert "\n" not in message  # one line, fit for a table row


def test_invalid_note_is_a_value_error_not_a_pydantic_error() -> None:
    from pydantic import ValidationError

    with pytest.raises(InvalidNote) as caught:
        parse_note('{"phase": 3}')
    assert not isinstance(caught.value, ValidationError)
