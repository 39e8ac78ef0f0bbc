"""The parts of watching a run that need no agent: line streaming, limits, redaction,
the summary reducer and the two console views."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from rgr.base.proc import run_lines
from rgr.observe.artifacts import REDACTED, Redactor, RunArtifacts
from rgr.observe.events import (
    AgentCalled,
    AgentStreamed,
    AttemptStarted,
    GuardVerdict,
    InvocationStarted,
    PhaseDone,
    PhaseStarted,
    Record,
    TestRun,
    Where,
    from_json,
    utc_now,
)
from rgr.observe.limits import Limits, usd
from rgr.observe.summary import summarize
from rgr.observe.view import NORMAL, QUIET, VERBOSE, LiveView, PlainView, make_view

# -- proc.run_lines ------------------------------------------------------------------------


def test_run_lines_delivers_each_line_while_the_program_runs(tmp_path: Path) -> None:
    program = ("import sys, time\nprint('one', flush=True)\ntime.sleep(1.0)\n"
               "print('two', flush=True)\nsys.stderr.write('err')\n")
    seen: list[tuple[float, str]] = []
    done = run_lines([sys.executable, "-c", program], cwd=tmp_path, timeout=30,
                     on_line=lambda line: seen.append((time.monotonic(), line)))
    ended = time.monotonic()
    assert [line for _, line in seen] == ["one", "two"]
    assert ended - seen[0][0] >= 0.9  # "one" arrived a second before the end
    assert done.stdout == "one\ntwo\n" and done.stderr == "err" and done.returncode == 0


def test_run_lines_reraises_a_failing_handler_after_the_program_ends(tmp_path: Path) -> None:
    marker = tmp_path / "finished"
    program = f"print('a', flush=True)\nprint('b', flush=True)\nopen({str(marker)!r}, 'w')\n"
    calls: list[str] = []

    def handler(line: str) -> None:
        calls.append(line)
        raise ValueError("display broke")

    with pytest.raises(ValueError, match="display broke"):
        run_lines([sys.executable, "-c", program], cwd=tmp_path, timeout=30, on_line=handler)
    assert calls == ["a"] and marker.exists()


def test_run_lines_timeout_kills_the_program(tmp_path: Path) -> None:
    program = "import time\nprint('started', flush=True)\ntime.sleep(60)\n"
    seen: list[str] = []
    done = run_lines([sys.executable, "-c", program], cwd=tmp_path, timeout=1,
                     on_line=seen.append)
    assert done.timed_out and seen == ["started"]


# -- limits ---------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_budget_limit_counts_every_agent_call() -> None:
    limits = Limits(max_budget_usd=0.1)
    assert limits.remaining_budget_usd() == 0.1
    where = Where("RED", 1, 1, "s1")
    limits.emit(AgentCalled(where=where, cost_usd=0.06, ok=False))
    assert limits.before_attempt(False) is None
    assert limits.remaining_budget_usd() == pytest.approx(0.04)
    limits.emit(AgentCalled(where=where, cost_usd=0.05, ok=True))
    limits.emit(AgentCalled(where=where, cost_usd=None, ok=True))  # codex: no cost
    hit = limits.before_attempt(False)
    assert hit is not None and hit.limit == "max-budget-usd"
    assert "$0.1 is spent ($0.1100 so far)" in hit.message
    assert limits.remaining_budget_usd() == 0.0


def test_cycle_and_time_limits() -> None:
    clock = Clock()
    limits = Limits(max_cycles=2, max_minutes=1.5, clock=clock)
    assert limits.before_attempt(True) is None  # cycle 1
    assert limits.before_attempt(False) is None  # RED, GREEN ... of cycle 1
    assert limits.before_attempt(True) is None  # cycle 2
    hit = limits.before_attempt(True)
    assert hit is not None and hit.limit == "max-cycles"
    clock.now += 89
    assert limits.before_attempt(False) is None
    clock.now += 1
    hit = limits.before_attempt(False)
    assert hit is not None and hit.limit == "max-minutes"
    assert Limits().before_attempt(True) is None and not Limits().active


def test_usd_keeps_the_precision_given() -> None:
    assert [usd(5), usd(2.5), usd(0.005), usd(0.12345)] == ["$5", "$2.5", "$0.005", "$0.1235"]


# -- redaction and the run folder -----------------------------------------------------------


def test_redactor_hides_secret_variables_and_key_shaped_strings() -> None:
    redact = Redactor({"MY_API_KEY": "abcdefgh12345", "GITHUB_TOKEN": "tok-0123456789",
                       "HOME": "/home/someone", "SHORT_SECRET": "x"})
    text = ("key abcdefgh12345 token tok-0123456789 home /home/someone x "
            "sk-ant-api03-AAAABBBBCCCC ghp_" + "a" * 36)
    assert redact.text(text) == (f"key {REDACTED} token {REDACTED} home /home/someone x "
                                 f"{REDACTED} {REDACTED}")
    assert redact.data({"a": ["tok-0123456789", 3]}) == {"a": [REDACTED, 3]}


def test_artifacts_write_files_and_redact(tmp_path: Path) -> None:
    secret = 's3cr3t"value\\42'  # JSON escapes it: redaction must come first
    system = tmp_path / "tester.md"
    system.write_text("<!-- prompt-version: tester/1 -->\nYou are the TESTER")
    arts = RunArtifacts(tmp_path / "git", "run-1", {"DEPLOY_TOKEN": secret})
    where = Where("RED", 1, 1, "s1")
    arts.emit(InvocationStarted(command="run", run_id="run-1"))
    arts.emit(AttemptStarted(where=where, prompt=f"use {secret}",
                             system_prompt_file=str(system), prompt_version="tester/1"))
    arts.emit(AgentStreamed(where=where, event={"type": "system", "subtype": "api_retry",
                                                "attempt": 1, "error_status": 529}))
    arts.emit(AgentStreamed(where=where, event={
        "type": "assistant", "message": {"content": [
            {"type": "tool_use", "name": "Bash", "input": {"command": f"echo {secret}"}}]}}))
    arts.emit(AgentCalled(where=where, ok=True, cost_usd=0.5, input_tokens=10,
                          output_tokens=2, duration_api_ms=7,
                          result={"type": "result", "echo": secret}))
    arts.emit(TestRun(passed=1, failed=0, output=f"printed {secret}"))
    arts.close()
    folder = tmp_path / "git" / "rgr" / "runs" / "run-1"
    files = {p.relative_to(folder).as_posix(): p.read_text()
             for p in folder.rglob("*") if p.is_file()}
    assert set(files) == {"events.jsonl", "summary.json", "tests/005.txt",
                          "attempts/002-c1-RED-a1/prompt.md",
                          "attempts/002-c1-RED-a1/system-prompt.md",
                          "attempts/002-c1-RED-a1/request.json",
                          "attempts/002-c1-RED-a1/stream.jsonl",
                          "attempts/002-c1-RED-a1/result.json"}
    escaped = json.dumps(secret)[1:-1]
    assert all(secret not in text and escaped not in text for text in files.values())
    assert files["attempts/002-c1-RED-a1/prompt.md"] == f"use {REDACTED}"
    assert "prompt-version: tester/1" in files["attempts/002-c1-RED-a1/system-prompt.md"]
    records = [json.loads(x) for x in files["events.jsonl"].splitlines()]
    assert [r["type"] for r in records] == ["invocation_started", "attempt_started", "retry",
                                            "agent_call", "test_run"]
    # the agent_call line, field by field and in order, as rgr has always written it
    call = records[3]
    assert list(call) == [
        "type", "ts", "phase", "cycle", "attempt", "sessionId", "ok", "backend", "model",
        "errorKind", "error", "numTurns", "costUsd", "durationMs", "inputTokens",
        "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens",
        "permissionDenials", "toolCalls", "refusedEdits", "durationApiMs", "dir", "seq"]
    assert (call["costUsd"], call["durationApiMs"], call["toolCalls"]) == (0.5, 7, 1)
    assert json.loads(files["attempts/002-c1-RED-a1/result.json"])["echo"] == REDACTED
    assert list(records[4]) == ["type", "ts", "command", "exitCode", "durationS", "passed",
                                "failed", "errors", "skipped", "timedOut", "outputFile",
                                "seq"]
    totals = json.loads(files["summary.json"])["totals"]
    assert (totals["apiRetries"], totals["toolCalls"], totals["costUsd"]) == (1, 1, 0.5)
    # a second invocation of the same run appends to the same folder
    again = RunArtifacts(tmp_path / "git", "run-1", {})
    again.emit(InvocationStarted(command="resume", run_id="run-1"))
    assert len(again.events) == 6


# -- the summary reducer --------------------------------------------------------------------


def event(kind: str, **fields: Any) -> Record:
    """A line of events.jsonl, as the summary reads it back."""
    return {"type": kind, "ts": utc_now(), **fields}


def test_summary_per_phase_and_stop_reason() -> None:
    red = {"phase": "RED", "cycle": 1}
    evs: list[dict[str, Any]] = [
        event("invocation_started", command="run", runId="r", feature="f", branch="b"),
        event("test_run", durationS=0.5),  # the baseline: no phase
        event("phase_started", **red, agent="tester"),
        event("attempt_started", **red, attempt=1),
        event("agent_call", **red, attempt=1, ok=True, costUsd=0.25, inputTokens=100,
              outputTokens=10, numTurns=3),
        event("guard_verdict", **red, attempt=1, ok=False, violations=[{"rule": "red-passes"}]),
        event("test_run", durationS=0.5),
        event("retry", **red, attempt=2),
        event("attempt_started", **red, attempt=2),
        event("agent_call", **red, attempt=2, ok=False, errorKind="max_budget", costUsd=0.5,
              inputTokens=50, outputTokens=5),
        event("limit_reached", limit="max-budget-usd", message="spent", **red),
        event("invocation_finished", outcome="stopped", message="spent"),
    ]
    data = summarize([from_json(e) for e in evs])
    assert data["status"] == "stopped" and data["stopReason"]["limit"] == "max-budget-usd"
    totals = data["totals"]
    assert (totals["agentCalls"], totals["failedAgentCalls"], totals["costUsd"],
            totals["inputTokens"], totals["retries"], totals["guardRejections"],
            totals["testRuns"], totals["phasesVerified"]) == (2, 1, 0.75, 150, 1, 1, 2, 0)
    (phase,) = data["phases"]
    assert (phase["phase"], phase["attempts"], phase["outcome"], phase["testRuns"],
            phase["costUsd"]) == ("RED", 2, "stopped", 1, 0.75)
    resumed = summarize([from_json(e) for e in [*evs, event("invocation_started",
                                                                 command="resume")]])
    assert resumed["stopReason"] is None and resumed["status"] == "running"


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


def test_summary_splits_session_wall_time_into_model_and_the_rest() -> None:
    """Each session's wall (attempt_started to agent_call) = the model's time as the
    agent reports it + the rest, or unsplit when the agent reports no model time; with
    the test runs and rgr's own time, they add up to the run's wall time."""
    red = {"phase": "RED", "cycle": 1}

    def at(second: float, kind: str, **fields: Any) -> dict[str, Any]:
        return {**event(kind, **fields), "ts": f"2026-11-23T10:00:{second:05.2f}Z"}

    evs = [
        at(0, "invocation_started", command="run", runId="r"),
        at(1, "test_run", durationS=1.5),
        at(3, "phase_started", **red, agent="tester"),
        at(3, "attempt_started", **red, attempt=1),
        at(7.5, "agent_call", **red, attempt=1, ok=True, durationMs=3200, durationApiMs=2000),
        at(8, "test_run", durationS=0.5),
        at(9, "attempt_started", **red, attempt=2),
        at(10, "agent_call", **red, attempt=2, ok=True, durationMs=900),  # no API figure
        at(12, "invocation_finished", outcome="paused"),
    ]
    data = summarize([from_json(e) for e in evs])
    totals, split = data["totals"], data["timeSplit"]
    # the session without an API figure is not split: its second is neither called the
    # model's nor the tools'
    assert (totals["agentWallS"], totals["agentModelS"], totals["agentOtherS"],
            totals["agentUnsplitS"]) == (5.5, 2.0, 2.5, 1.0)
    assert totals["agentDurationS"] == 4.1  # the agents' own figure, unchanged
    assert split == {"wallS": 12.0, "agentModelS": 2.0, "agentOtherS": 2.5,
                     "agentUnsplitS": 1.0, "testsS": 2.0, "rgrS": 4.5}
    assert data["backends"]["claude"]["modelTimeReported"] is False
    assert data["phases"][0]["agentWallS"] == 5.5


# -- the typed events and their one encoding ------------------------------------------------


def test_each_event_class_has_its_own_kind_and_encodes_in_field_order() -> None:
    from rgr.observe import events

    classes = [c for c in vars(events).values()
               if isinstance(c, type) and issubclass(c, events.Event)
               and c not in (events.Event, events.UnknownEvent)]
    kinds = [c.kind for c in classes]
    assert len(kinds) == len(set(kinds)) == 14
    batch = Where("REFACTOR", 0, 2, "s9", batch="b-1")
    started = events.to_json(AttemptStarted(where=batch, max_turns=5, ts="T"))
    assert list(started)[:8] == ["type", "ts", "phase", "cycle", "attempt", "sessionId",
                                 "batch", "agent"]
    assert started["maxTurns"] == 5 and started["type"] == "attempt_started"
    # the fields for observers only never reach a line; a sandbox note is flattened
    call = events.to_json(AgentCalled(where=batch, ok=True, duration_api_ms=5,
                                      result={"secret": "kept apart"}))
    assert "result" not in call and "durationApiMs" not in call
    assert events.to_json(events.SandboxShown(note={"tools": ["git"]}, ts="T")) == {
        "type": "sandbox", "ts": "T", "tools": ["git"]}
