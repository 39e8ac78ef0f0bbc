"""rgr.observe.stream: one line of an agent's stream read once into types that the
views, the run folder and the summary match on; a line of the wrong shape is read
defensively, never trusted (an agent CLI prints it)."""

from __future__ import annotations

from rgr.observe.events import AgentStreamed, Where
from rgr.observe.stream import (
    ApiRetry,
    Other,
    SessionStarted,
    Text,
    ToolResult,
    ToolResults,
    ToolUse,
    Turn,
    Unparsed,
    parse,
    refused_edits,
    tool_calls,
)
from rgr.observe.view import NORMAL, VERBOSE, agent_lines

TURN = {"type": "assistant", "message": {"content": [
    {"type": "text", "text": "  let me\n look "},
    {"type": "tool_use", "name": "Bash", "input": {"command": "pytest -q\nmore"}},
    "not a block", {"type": "thinking", "thinking": "..."}]}}


def test_a_turn_is_its_text_and_tool_calls_in_order() -> None:
    line = parse(TURN)
    assert line == Turn((Text("  let me\n look "),
                         ToolUse("Bash", {"command": "pytest -q\nmore"})))
    assert tool_calls(line) == 1 and refused_edits(line) == 0
    assert agent_lines("cycle 1 RED", line, 3) == [
        (VERBOSE, "cycle 1 RED: turn 3 says: let me look"),
        (NORMAL, "cycle 1 RED: ▸ turn 3 Bash pytest -q")]


def test_tool_results_count_only_the_edit_hooks_refusals() -> None:
    refusal = "PreToolUse:Write hook error: rgr refuses this edit: conftest.py"
    line = parse({"type": "user", "message": {"content": [
        {"type": "tool_result", "is_error": True, "content": refusal},
        {"type": "tool_result", "is_error": True, "content": "echo rgr refuses this edit"},
        {"type": "tool_result", "content": [{"type": "text", "text": "ok"}]}]}})
    assert isinstance(line, ToolResults) and refused_edits(line) == 1
    assert line.results[2] == ToolResult(False, [{"type": "text", "text": "ok"}])
    assert [text for _, text in agent_lines("w", line, 1)] == [
        f"w: tool error: {refusal}", "w: tool error: echo rgr refuses this edit"]


def test_system_lines_unparsed_text_and_the_rest() -> None:
    retry = parse({"type": "system", "subtype": "api_retry", "attempt": 2, "max_retries": 10,
                   "error_status": 529, "retry_delay_ms": 1500})
    assert retry == ApiRetry(2, 10, 529, None, 1500, None)
    assert agent_lines("w", retry, 0) == [(NORMAL, "w: API 529, claude retries (2/10) in 1.5s")]
    assert parse({"type": "system", "subtype": "init", "model": "m", "backend": "codex"}) \
        == SessionStarted("m", "codex")
    assert parse({"type": "rgr_unparsed", "line": "npm WARN"}) == Unparsed("npm WARN")
    assert parse({"type": "result", "result": "done"}) == Other("result")


def test_a_line_of_the_wrong_shape_reads_as_nothing() -> None:
    for raw in ({"type": "assistant", "message": "text"},
                {"type": "assistant", "message": {"content": "text"}},
                {"type": "user"}, {}):
        line = parse(raw)
        assert tool_calls(line) == refused_edits(line) == 0
        assert agent_lines("w", line, 1) == []


def test_the_event_carries_its_raw_line_and_its_reading() -> None:
    where = Where(phase="RED", cycle=1, attempt=1, session_id="s")
    event = AgentStreamed(where=where, event=TURN)
    assert event.event is TURN and event.line == parse(TURN)
    assert event.line is event.line  # read once
