"""The two console views (rgr.observe.view): the plain one at each verbosity and the live
panel, picked by whether the output is a terminal."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from rgr.observe.events import (
    AgentCalled,
    AgentStreamed,
    AttemptStarted,
    GuardVerdict,
    PhaseDone,
    PhaseStarted,
    TestRun,
    Where,
)
from rgr.observe.view import NORMAL, QUIET, VERBOSE, LiveView, PlainView, make_view

# -- the console views ----------------------------------------------------------------------


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=terminal, width=120, highlight=False,
                   soft_wrap=True), buffer


STREAM = [
    PhaseStarted(phase="RED", cycle=1, agent="tester", current_test="lowercases"),
    AttemptStarted(where=Where("RED", 1, 1, "abc12345")),
    AgentStreamed(where=Where("RED", 1, 1, "abc12345"), event={
        "type": "assistant", "message": {"content": [
            {"type": "text", "text": "I will write the test."},
            {"type": "tool_use", "name": "Write", "input": {"file_path": "tests/test_a.py"}}]}}),
    AgentStreamed(where=Where("RED", 1, 1, "abc12345"), event={
        "type": "system", "subtype": "api_retry", "attempt": 1, "max_retries": 10,
        "retry_delay_ms": 500, "error_status": 529}),
    AgentCalled(where=Where("RED", 1, 1, "abc12345"), ok=True, cost_usd=0.05, num_turns=2,
                input_tokens=1200, output_tokens=30, duration_ms=900),
    GuardVerdict(where=Where("RED", 1, 1, "abc12345"), ok=False,
                 violations=[{"rule": "red-passes", "message": "the new test passes"}]),
    PhaseDone(phase="RED", cycle=1, attempts=1, commit="0123456789ab", duration_s=2.5,
              next_phase="GREEN", complete=False),
]


@pytest.mark.parametrize(("verbosity", "expected", "absent"), [
    (QUIET, ["rejected: red-passes",
             "cycle 1 RED: ✓ verified 01234567 in 2.5s, $0.0500, 2 turns (next: GREEN); so far"],
     ["▸", "API 529", "progress", "says:"]),
    (NORMAL, ["progress", "cycle 1 RED: ▸ turn 1 Write tests/test_a.py",
              "cycle 1 RED: API 529, claude retries (1/10) in 0.5s", "RED: ✓"],
     ["says:", "rejected:"]),
    (VERBOSE, ["says: I will write the test.", "session abc12345 done in 0.9s", "▸ turn 1"],
     []),
])
def test_plain_view_levels(verbosity: int, expected: list[str], absent: list[str]) -> None:
    console, buffer = _console(terminal=False)
    view = PlainView(verbosity, console)
    view("progress")
    for e in STREAM:
        view.emit(e)
    out = buffer.getvalue()
    for text in expected:
        assert text in out, out
    for text in absent:
        assert text not in out, out
    assert all(line[:9].count(":") == 2 for line in out.splitlines())  # HH:MM:SS first


def test_make_view_picks_live_only_on_a_terminal() -> None:
    assert type(make_view(NORMAL, console=_console(terminal=False)[0])) is PlainView
    assert type(make_view(NORMAL, console=_console(terminal=True)[0])) is LiveView


def test_live_view_panel_shows_phase_tools_cost_and_tests() -> None:
    console, buffer = _console(terminal=True)
    view = LiveView(NORMAL, console, title="rgr run: slugify", limits={"maxBudgetUsd": 2.0})
    for e in STREAM[:3]:
        view.emit(e)
    view.emit(TestRun(passed=1, failed=1, errors=0, duration_s=0.44))
    view.emit(STREAM[4])
    render, plain = _console(terminal=False)
    render.print(view._render())
    panel = plain.getvalue()
    assert "cycle 1 · RED" in panel and "tester  attempt 1" in panel
    assert "test: lowercases" in panel
    assert "cost $0.0500 of $2.00" in panel and "tokens 1.2k in / 30 out" in panel
    assert "turn 1  Write tests/test_a.py" in panel
    assert "1 passed, 1 failed, 0 errors (0.4s)" in panel
    # tool calls are in the panel, not in the scrolling log (unless -v)
    assert "▸" not in buffer.getvalue()
