"""Note updates are validated: ``CamelModel.updated`` / ``validated_update`` instead of
``model_copy(update=...)``, which takes a misspelt field or a wrong type silently."""

from __future__ import annotations

import ast
import json

import pydantic
import pytest

from rgr.store.handoff import (
    AgentSummary,
    ErrorDetails,
    HandoffState,
    Phase,
    parse_note,
    validated_update,
)
from rgr.store.inflight import Inflight
from tests.conftest import REPO_ROOT

RGR = REPO_ROOT / "rgr"

NOTE = {"phase": "GREEN", "nextPhase": "REFACTOR", "cycleNumber": 2,
        "agent": {"backend": "claude", "costUsd": 0.25, "futureFigure": 3},
        "fromANewerRgr": {"kept": True}}


def test_an_update_keeps_the_rest_of_the_note_byte_for_byte() -> None:
    state = parse_note(json.dumps(NOTE))
    changed = state.updated(error="boom", retry_count=1,
                            error_details=ErrorDetails(type="r", message="m"))
    expected = json.loads(state.to_json())
    expected.update(error="boom", retryCount=1, errorDetails={"type": "r", "message": "m"})
    assert changed.to_json() == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
    assert state.updated().to_json() == state.to_json()
    assert changed.model_extra == {"fromANewerRgr": {"kept": True}}


def test_an_update_is_validated() -> None:
    state = HandoffState(phase=Phase.PLAN)
    with pytest.raises(pydantic.ValidationError):
        state.updated(retry_count="twice")
    with pytest.raises(pydantic.ValidationError):
        state.updated(next_phase="SIDEWAYS")
    with pytest.raises(TypeError, match="no field retries"):
        state.updated(retries=2)  # a misspelling, not an extra key
    assert state.updated(next_phase="RED").next_phase is Phase.RED
    assert AgentSummary(cost_usd=0.1).updated(cost_usd=0.1 + 0.2).cost_usd == 0.3


def test_a_plain_model_updates_the_same_way() -> None:
    record = Inflight(run_id=None, phase=Phase.RED, cycle=1, attempt=1, base="b",
                      session_id="s", started_at="t")
    assert validated_update(record, tip="c").tip == "c"
    with pytest.raises(pydantic.ValidationError):
        validated_update(record, attempt="first")


def test_nothing_in_rgr_updates_a_model_unvalidated() -> None:
    found = []
    for path in sorted(RGR.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "model_copy" \
                    and any(k.arg == "update" for k in node.keywords):
                found.append(f"{path.relative_to(RGR.parent)}:{node.lineno}")
    assert found == []
