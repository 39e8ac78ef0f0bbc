"""What a run leaves for people to watch and audit: the plain-line log, the run folder
(events, prompts, streams, test output, summary.json) and the limits. The real rgr CLI,
the real claude binary, real git and pytest; only the model is scripted, and the
figures are checked against what the scripted server itself reported.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from kata import (
    TEST_FILE_1,
    assert_suite_green,
    commit,
    git,
    make_project,
    notes_on_branch,
    one_test_kata_tail,
    plan,
    rgr,
    rgr_env,
)

from rgr.fake_model import FakeModelServer, SessionScript, bash, structured, write

pytestmark = pytest.mark.e2e

#: What claude charges per token (input, output) for the model a request names, as
#: measured through the release that defaults to it: claude-opus-4-8 (2.1.197) $5 and
#: $25 per million, claude-opus-5-5 (2.1.330) $4 and $20. A release with another
#: default model fails here by name: measure its price and add it.
PRICES = {"claude-opus-4-8": (5e-6, 25e-6), "claude-opus-5-5": (4e-6, 20e-6)}

CANARY = "canary-7f3a9c2e51d84b6a"
TIMESTAMPED = re.compile(r"^\d\d:\d\d:\d\d \S")


def run_dir(repo: Path) -> Path:
    runs = list((repo / ".git" / "rgr" / "runs").iterdir())
    assert len(runs) == 1, runs
    return runs[0]


def events(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]


def summary(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "summary.json").read_text())
    return data


def server_costs(server: FakeModelServer) -> dict[str, float]:
    """Session id -> what claude should charge it: every answered request's tokens, as
    the server reported them (the requests ``server.usage`` sums), at the price of the
    model that request named."""
    costs: dict[str, float] = {}
    for record in server.requests:
        if record.session_id is None or record.status != 200:
            continue
        assert record.model in PRICES, f"no measured price for the model {record.model!r}"
        price_in, price_out = PRICES[record.model]
        costs[record.session_id] = costs.get(record.session_id, 0.0) + (
            record.input_tokens * price_in + record.output_tokens * price_out)
    return costs


def red_that_dumps_the_environment() -> SessionScript:
    """A RED agent whose failing test prints the whole environment, and which runs the
    test command itself: the secrets reach both the test output and the agent's stream."""
    dumping = TEST_FILE_1.replace(
        "    from slug import slugify\n",
        "    import os\n    print(dict(os.environ))\n    from slug import slugify\n", 1)
    return SessionScript(
        [write("tests/test_slug.py", dumping),
         bash(f"{sys.executable} -m pytest -q"),
         commit("test: add a failing test", "tests/test_slug.py"),
         structured({"summary": "added one failing test"})],
        expect_system_contains="You are the TESTER", name="red-env")


def test_artifacts_summary_and_plain_lines(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    # The sandbox withholds rgr's environment from agents and tests; passing the
    # canary on on purpose shows that what does reach them is redacted in artifacts.
    with (repo / "tdd.toml").open("a") as toml:
        toml.write('\n[sandbox]\npass_env = ["RGR_TEST_CANARY_SECRET"]\n')
    git(repo, "commit", "-qam", "pass the canary into the sandbox")
    scripts = [plan(0, first=True, total=1), red_that_dumps_the_environment(),
               *one_test_kata_tail()]
    with FakeModelServer(scripts) as server:
        env = rgr_env(tmp_path / "home", server.url)
        env["RGR_TEST_CANARY_SECRET"] = CANARY
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo, env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == []
        usage, costs = server.usage, server_costs(server)
    notes = notes_on_branch(repo)
    assert notes[-1]["phase"] == "COMPLETE"

    # -- not a terminal: plain timestamped lines, no colour, no spinner ----------------
    out = done.stdout
    assert "\x1b[" not in out and "⠋" not in out
    # the run's log: every line timestamped (the final report after it is a table)
    log = out.split("one agent session per phase\n", 1)[1].split("\n\nrgr report:")[0]
    log = log.splitlines()
    assert log and all(TIMESTAMPED.match(line) for line in log), log
    assert any("cycle 1 RED: ▸ turn 1 Write tests/test_slug.py" in line for line in log)
    assert any(line.endswith("cycle 1 PLAN: ▸ turn 2 Bash git add test-list.md && git commit "
                             '-q -m "plan: 0 of 1 done"') for line in log), log

    # -- the run folder ------------------------------------------------------------------
    folder = run_dir(repo)
    assert folder.name == notes[0]["runId"]
    # invisible to git: neither untracked nor ignored (the agent's own pytest run left a
    # .pytest_cache, which is not rgr's)
    assert git(repo, "status", "--porcelain") == ""
    assert "rgr" not in git(repo, "status", "--porcelain", "--ignored")
    evs = events(folder)
    kinds = [e["type"] for e in evs]
    assert kinds[0] == "invocation_started" and kinds[-1] == "invocation_finished"
    assert evs[-1]["outcome"] == "complete"
    assert kinds.count("agent_call") == 5 and kinds.count("phase_done") == 5
    assert kinds.count("guard_verdict") == 5
    assert all(e["ok"] for e in evs if e["type"] == "guard_verdict")
    assert kinds.count("test_run") == 3  # baseline, RED, GREEN
    assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1))

    calls = [e for e in evs if e["type"] == "agent_call"]
    agent_notes = [n["agent"] for n in notes[1:]]
    assert [c["sessionId"] for c in calls] == [a["sessionId"] for a in agent_notes]
    for call, agent in zip(calls, agent_notes, strict=True):
        attempt = folder / call["dir"]
        request = json.loads((attempt / "request.json").read_text())
        assert request["promptVersion"] == agent["promptVersion"]
        assert f"prompt-version: {agent['promptVersion']}" in (
            attempt / "system-prompt.md").read_text()
        assert "slugify" in (attempt / "prompt.md").read_text()
        stream = [json.loads(x) for x in (attempt / "stream.jsonl").read_text().splitlines()]
        assert stream[0]["type"] == "system" and stream[0]["subtype"] == "init"
        assert stream[-1]["type"] == "result"
        result = json.loads((attempt / "result.json").read_text())
        assert result == stream[-1]
        assert result["session_id"] == agent["sessionId"]
        assert call["toolCalls"] == sum(
            1 for s in stream if s["type"] == "assistant"
            for b in s["message"]["content"] if b["type"] == "tool_use")
        # every figure equals what the server itself reported to that session
        reported = usage[agent["sessionId"]]
        assert (call["inputTokens"], call["outputTokens"]) == (
            reported.input_tokens, reported.output_tokens)
        assert call["costUsd"] == pytest.approx(costs[agent["sessionId"]], abs=1e-9)
    red_tests = folder / next(e for e in evs if e["type"] == "test_run"
                              and e["failed"] == 1)["outputFile"]
    assert "1 failed" in red_tests.read_text()

    # -- summary.json against the server's own counts ------------------------------------
    totals = summary(folder)["totals"]
    assert totals["inputTokens"] == sum(u.input_tokens for u in usage.values())
    assert totals["outputTokens"] == sum(u.output_tokens for u in usage.values())
    assert costs.keys() == usage.keys()
    assert totals["costUsd"] == pytest.approx(sum(costs.values()), abs=1e-6)
    assert totals["costUsd"] == pytest.approx(sum(a["costUsd"] for a in agent_notes), abs=1e-6)
    assert (totals["agentCalls"], totals["phasesVerified"], totals["retries"],
            totals["guardRejections"], totals["testRuns"]) == (5, 5, 0, 0, 3)
    data = summary(folder)
    assert data["status"] == "complete" and data["stopReason"] is None
    assert [(p["cycle"], p["phase"]) for p in data["phases"]] == [
        (1, "PLAN"), (1, "RED"), (1, "GREEN"), (1, "REFACTOR"), (2, "PLAN")]
    for phase, agent in zip(data["phases"], agent_notes, strict=True):
        reported = usage[agent["sessionId"]]
        assert (phase["inputTokens"], phase["outputTokens"]) == (
            reported.input_tokens, reported.output_tokens)
        assert phase["commit"] is not None and phase["durationS"] > 0

    # -- nothing secret on disk -----------------------------------------------------------
    files = [p for p in folder.rglob("*") if p.is_file()]
    texts = {p: p.read_text() for p in files}
    for path, text in texts.items():
        assert CANARY not in text, path
        assert "sk-ant-api03" not in text, path
    # the canary did reach the run (test output and the agent's own test run) and was
    # redacted there: this test would see a leak
    assert "RGR_TEST_CANARY_SECRET': '[redacted]'" in red_tests.read_text()
    red_stream = texts[folder / calls[1]["dir"] / "stream.jsonl"]
    assert "RGR_TEST_CANARY_SECRET" in red_stream and "[redacted]" in red_stream


def test_max_cycles_stops_resumably_and_budget_reaches_each_phase(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    home = tmp_path / "home"
    # a one-test list: cycle 1, then cycle 2's PLAN finds the list done
    scripts = [plan(0, first=True, total=1), red_one(), *one_test_kata_tail()]
    with FakeModelServer(scripts) as server:
        env = rgr_env(home, server.url)
        done = rgr(["run", "--yes", "--skip-preflight", "--max-cycles", "1",
                    "--max-budget-usd", "5", "slugify"], repo, env)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "stopped before PLAN (cycle 2)" in done.stderr
        assert "rgr resume" in done.stderr
        notes = notes_on_branch(repo)
        assert [n["phase"] for n in notes] == ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR"]
        assert notes[-1]["errorDetails"]["type"] == "limit-max-cycles"
        assert notes[-1]["nextPhase"] == "PLAN"
        status = json.loads(rgr(["status", "--json"], repo, env).stdout)
        assert status["resumable"] is True
        folder = run_dir(repo)
        data = summary(folder)
        assert data["status"] == "stopped"
        assert data["stopReason"]["limit"] == "max-cycles"
        # each phase got what was left of the budget through claude's --max-budget-usd
        spent = 0.0
        for ev in events(folder):
            if ev["type"] == "attempt_started":
                assert ev["maxBudgetUsd"] == pytest.approx(5 - spent, abs=1e-9)
            if ev["type"] == "agent_call":
                spent += ev["costUsd"]
        assert data["totals"]["costUsd"] == pytest.approx(spent, abs=1e-6)

        resumed = rgr(["resume", "--yes", "--skip-preflight"], repo, env)
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert server.errors == [] and server.remaining == 0
        usage = server.usage
    assert notes_on_branch(repo)[-1]["phase"] == "COMPLETE"
    data = summary(run_dir(repo))  # the same run: the same folder
    assert data["status"] == "complete" and data["stopReason"] is None
    assert [i["outcome"] for i in data["invocations"]] == ["stopped", "complete"]
    assert data["totals"]["agentCalls"] == 5
    assert data["totals"]["inputTokens"] == sum(u.input_tokens for u in usage.values())
    assert_suite_green(repo)


def test_budget_stops_a_phase_and_resume_finishes(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    home = tmp_path / "home"
    # The first model call of a phase costs about $0.01: a $0.005 budget stops PLAN there.
    with FakeModelServer([plan(0, first=True, total=1)]) as server:
        env = rgr_env(home, server.url)
        done = rgr(["run", "--yes", "--skip-preflight", "--max-budget-usd", "0.005",
                    "slugify"], repo, env)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "the budget of $0.005 is spent" in done.stderr
        assert "stopped before PLAN (cycle 1)" in done.stderr
        costs = server_costs(server)
    notes = notes_on_branch(repo)
    assert len(notes) == 1 and notes[0]["errorDetails"]["type"] == "limit-max-budget-usd"
    folder = run_dir(repo)
    data = summary(folder)
    assert data["stopReason"]["limit"] == "max-budget-usd"
    calls = [e for e in events(folder) if e["type"] == "agent_call"]
    assert [c["errorKind"] for c in calls] == ["max_budget"]
    assert calls[0]["costUsd"] >= 0.005
    assert data["totals"]["costUsd"] == pytest.approx(sum(costs.values()), abs=1e-6)
    assert git(repo, "status", "--porcelain") == ""

    # resume goes on (one phase is enough to show it; the max-cycles test runs to the end)
    with FakeModelServer([plan(0, first=True, total=1)]) as server:
        resumed = rgr(["resume", "--yes", "--skip-preflight", "--max-phases", "1"], repo,
                      rgr_env(home, server.url))
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert server.errors == [] and server.remaining == 0
    last = notes_on_branch(repo)[-1]
    assert (last["phase"], last["error"]) == ("PLAN", None)
    data = summary(folder)
    assert data["status"] == "paused" and data["stopReason"] is None
    assert [i["outcome"] for i in data["invocations"]] == ["stopped", "paused"]


def test_time_limit_stops_before_the_next_phase_and_resume_finishes(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    home = tmp_path / "home"
    scripts = [plan(0, first=True, total=1), red_one()]
    with FakeModelServer(scripts) as server:
        env = rgr_env(home, server.url)
        # 0.001 minutes: the baseline test run alone takes longer.
        done = rgr(["run", "--yes", "--skip-preflight", "-q", "--max-minutes", "0.001",
                    "slugify"], repo, env)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "time limit of 0.001 minute(s)" in done.stderr
        assert "limit reached" in done.stdout  # -q still says why it stopped
        assert server.sessions == {}
        assert summary(run_dir(repo))["stopReason"]["limit"] == "max-minutes"
        resumed = rgr(["resume", "--yes", "--skip-preflight", "-q", "--max-phases", "2"],
                      repo, env)
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert server.remaining == 0 and server.errors == []
    # -q: phase results and the end, no progress chatter
    assert "▸" not in resumed.stdout and "running tests" not in resumed.stdout
    assert "cycle 1 PLAN: ✓" in resumed.stdout and "cycle 1 RED: ✓" in resumed.stdout
    assert "paused before GREEN" in resumed.stdout
    assert [n["phase"] for n in notes_on_branch(repo)] == ["REFACTOR", "PLAN", "RED"]


def test_time_limit_cuts_a_running_session_short(tmp_path: Path) -> None:
    from rgr.fake_model import Hang

    repo = make_project(tmp_path / "kata")
    with FakeModelServer([SessionScript([Hang(120)], name="hang")]) as server:
        started = time.monotonic()
        done = rgr(["run", "--yes", "--skip-preflight", "--max-minutes", "0.1", "slugify"],
                   repo, rgr_env(tmp_path / "home", server.url))
        took = time.monotonic() - started
    assert done.returncode == 1, done.stdout + done.stderr
    assert "time limit of 0.1 minute(s)" in done.stderr
    # the agent's timeout was what was left of the 6 s, not agent_timeout (120 s)
    assert took < 30, took
    folder = run_dir(repo)
    calls = [e for e in events(folder) if e["type"] == "agent_call"]
    assert [c["errorKind"] for c in calls] == ["timeout"]
    assert summary(folder)["stopReason"]["limit"] == "max-minutes"
    assert notes_on_branch(repo)[-1]["errorDetails"]["type"] == "limit-max-minutes"
    assert git(repo, "status", "--porcelain") == ""


def test_live_view_on_a_terminal(tmp_path: Path) -> None:
    """On a real terminal (a pty) the live panel is drawn and the run still works."""
    import os
    import pty
    import subprocess

    repo = make_project(tmp_path / "kata")
    with FakeModelServer([plan(0, first=True, total=1)], latency_s=0.3) as server:
        env = rgr_env(tmp_path / "home", server.url)
        env.update(TERM="xterm-256color", COLUMNS="120", LINES="40")
        leader, follower = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "rgr", "run", "--yes", "--skip-preflight",
                                 "--max-phases", "1", "slugify"], cwd=repo, env=env,
                                stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the pty closes when rgr exits
                break
            if not data:
                break
            chunks.append(data)
        os.close(leader)
        assert proc.wait(timeout=120) == 0
    screen = b"".join(chunks).decode("utf-8", "replace")
    assert "\x1b[" in screen  # cursor movement and colour: the live panel
    assert "cycle 1 · PLAN" in screen and "planner  attempt 1" in screen
    assert "turn 1  Write test-list.md" in screen  # a tool call, in the panel
    assert "cycle 1 PLAN: ✓ verified" in screen
    assert "paused before RED" in screen


def red_one() -> SessionScript:
    from kata import red

    return red(TEST_FILE_1, first=True)
