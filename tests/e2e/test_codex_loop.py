"""`rgr run` / `rgr resume` on the Codex backend end to end: the real rgr CLI, the real
codex binary, real git and real pytest; only the model is scripted (the Responses API
server of rgr.fake_model, playing the same kata scripts as the claude suite).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import full_sweep, sweep_only
from kata import (
    ASSERT_1,
    IMPL_1,
    TEST_FILE_1,
    assert_no_canary,
    assert_suite_green,
    git,
    green,
    kill_when_hanging,
    make_project,
    model_server,
    notes_on_branch,
    one_test_kata_tail,
    plan,
    red,
    rgr,
    rgr_env,
    start_rgr,
    two_test_kata,
    write,
)

from rgr.fake_model import FakeModelServer, Hang, HttpError, SessionScript
from rgr.fake_model.responses import FAKE_MODEL, ResponsesModelServer
from rgr.fake_model.server import credential_mark

pytestmark = pytest.mark.e2e

WHERE = "tests/e2e/test_codex_loop.py"

CODEX = "codex"


def test_two_test_kata_end_to_end_on_codex(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata", CODEX)
    home = tmp_path / "home"
    with ResponsesModelServer(two_test_kata()) as server:
        env = rgr_env(home, server.url, CODEX)
        done = rgr(["run", "--yes", "add a slugify function"], repo, env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
        assert server.remaining == 0
        # Inside the sandbox codex held a placeholder; rgr's gateway put the key in.
        key = env.get("CODEX_API_KEY") or env["OPENAI_API_KEY"]
        assert {r.credential for r in server.requests} == {
            credential_mark({"Authorization": f"Bearer {key}"})}
        usage = server.usage
        firsts: dict[str, int] = {}
        for record in server.requests:
            if record.session_id and "StructuredOutput" in record.tools:
                firsts.setdefault(record.session_id, record.body_bytes)
    assert "agent backend: codex codex-cli 0.169.0" in done.stdout
    sizes = list(firsts.values())
    print("first request per phase on codex (bytes):", sizes)
    assert len(sizes) == 9 and max(sizes) <= 12 * 1024, sizes  # one login check + 9 phases

    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR",
                                           "PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE"]
    agents = [n["agent"] for n in notes[1:]]
    assert all(a["backend"] == "codex" and a["model"] == FAKE_MODEL for a in agents)  # type: ignore[index]
    # codex reports tokens, not cost: the notes say "unknown", never a made-up $0
    assert all(a["costUsd"] is None and a["inputTokens"] > 0 for a in agents)  # type: ignore[index]
    assert len({a["sessionId"] for a in agents}) == 9  # type: ignore[index]
    assert notes[-1]["completedTests"] == ["lowercases a single word", "joins words with dashes"]

    env = rgr_env(home, "http://127.0.0.1:9", CODEX)
    shown = rgr(["show", "HEAD~1"], repo, env)
    assert "codex session" in shown.stdout and FAKE_MODEL in shown.stdout, shown.stdout
    assert "cost not reported" in shown.stdout
    history = rgr(["history"], repo, env)
    assert f"codex {FAKE_MODEL}" in history.stdout, history.stdout
    assert "n/a: codex reports tokens, not cost" in history.stdout
    (run,) = (repo / ".git" / "rgr" / "runs").iterdir()
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    calls = [e for e in events if e["type"] == "agent_call"]
    assert len(calls) == 9 and all(c["backend"] == "codex" and c["model"] == FAKE_MODEL
                                   for c in calls)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["backends"]["codex"]["sessions"] == 9
    assert summary["backends"]["codex"]["costReported"] is False
    assert {p["backend"] for p in summary["phases"]} == {"codex"}
    report = rgr(["report"], repo, env)
    assert "9 without a cost: codex reports tokens only" in report.stdout
    assert "without a cost: codex reports tokens only" in done.stdout  # the last line
    for call in calls:
        attempt = run / call["dir"]
        stream = [json.loads(x) for x in (attempt / "stream.jsonl").read_text().splitlines()]
        assert stream[0]["type"] == "system" and stream[0]["subtype"] == "init"
        assert stream[0]["codex"]["type"] == "thread.started"
        assert stream[-1]["type"] == "result" and stream[-1]["backend"] == "codex"
        assert json.loads((attempt / "result.json").read_text()) == stream[-1]
        assert call["toolCalls"] == sum(
            1 for e in stream if e["type"] == "assistant"
            for b in e["message"]["content"] if b["type"] == "tool_use")
        # the tokens are what the server itself reported to that codex thread
        reported = usage[stream[-1]["codex_thread_id"]]
        assert (call["inputTokens"], call["outputTokens"]) == (reported.input_tokens,
                                                               reported.output_tokens)
    assert_suite_green(repo)
    assert git(repo, "status", "--porcelain") == ""
    assert_no_canary(repo, home, done.stdout, done.stderr)


def _read_first(script: SessionScript, path: str) -> SessionScript:
    from rgr.fake_model import read

    steps = list(script.steps)
    steps.insert(1, read(path))
    return SessionScript(steps, expect_system_contains=script.expect_system_contains)


def test_cheating_phases_are_rejected_and_retried_on_codex(tmp_path: Path) -> None:
    """RED that passes at once, RED that skips its test, GREEN that edits the test: each
    rejected by the same guards as on claude, kept, and retried with the brief."""
    repo = make_project(tmp_path / "kata", CODEX)
    passing = 'def test_lowercases_a_single_word():\n    assert "hello" == "hello"\n'
    skipped = "import pytest\n\n\n@pytest.mark.skip\n" + TEST_FILE_1
    weakened = TEST_FILE_1.replace(ASSERT_1, "assert True")
    cheat = green(IMPL_1, first=True, extra=[write("tests/test_slug.py", weakened)])
    scripts = [plan(0, first=True, total=1), red(passing, first=True),
               red(skipped, first=True), red(TEST_FILE_1, first=True),
               _read_first(cheat, "tests/test_slug.py"), *one_test_kata_tail()]
    with ResponsesModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url, CODEX))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [] and server.remaining == 0
    for rule in ("red-passes", "skip-marker", "green-touches-tests"):
        assert rule in done.stdout, rule
    assert ASSERT_1 in (repo / "tests" / "test_slug.py").read_text()
    notes = notes_on_branch(repo)
    assert next(n for n in notes if n["phase"] == "RED")["retryCount"] == 2
    assert next(n for n in notes if n["phase"] == "GREEN")["retryCount"] == 1
    assert len(git(repo, "for-each-ref", "refs/rgr/attempts/").splitlines()) == 3
    assert_suite_green(repo)


def test_planner_on_claude_and_implementer_on_codex(tmp_path: Path) -> None:
    """The run's backend is claude; one agent file (committed under .rgr/agents) moves
    the implementer to codex. Each CLI talks to its own scripted server."""
    repo = make_project(tmp_path / "kata", "claude", codex=True)
    packaged = (Path(__file__).resolve().parents[2] / "agents" / "implementer.toml").read_text()
    override = repo / ".rgr" / "agents" / "implementer.toml"
    override.parent.mkdir(parents=True)
    override.write_text(packaged.replace('model = ""',
                                         f'model = "{FAKE_MODEL}"\nbackend = "codex"'))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the implementer runs on codex")
    claude_scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True)]
    tail = one_test_kata_tail()  # green (codex), refactor, plan (claude)
    with FakeModelServer([*claude_scripts, *tail[1:]]) as claude_server, \
            ResponsesModelServer([tail[0]]) as codex_server:
        done = rgr(["run", "--yes", "slugify"], repo,
                   rgr_env(tmp_path / "home", claude_server.url, codex_url=codex_server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert claude_server.errors == [] and codex_server.errors == []
        assert claude_server.remaining == 0 and codex_server.remaining == 0
    assert "agent backend: claude+codex" in done.stdout
    by_phase = {n["phase"]: n["agent"] for n in notes_on_branch(repo)[1:]}
    assert by_phase["GREEN"]["backend"] == "codex"  # type: ignore[index]
    assert by_phase["GREEN"]["model"] == FAKE_MODEL  # type: ignore[index]
    assert by_phase["GREEN"]["costUsd"] is None  # type: ignore[index]
    for phase in ("PLAN", "RED", "REFACTOR"):
        assert by_phase[phase]["backend"] == "claude"  # type: ignore[index]
        assert by_phase[phase]["costUsd"] > 0  # type: ignore[index]
    report = json.loads(rgr(["report", "--json"], repo,
                            rgr_env(tmp_path / "home", "http://127.0.0.1:9")).stdout)
    assert report["status"] == "complete"
    assert_suite_green(repo)


def test_killed_mid_codex_session_then_resume_finishes(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata", CODEX)
    env = rgr_env(tmp_path / "home", "", CODEX)
    hang = SessionScript([Hang(120)], name="hang")
    with ResponsesModelServer([plan(0, first=True, total=1), red(TEST_FILE_1, first=True),
                               hang]) as server:
        env["OPENAI_BASE_URL"] = server.url + "/v1"
        proc = start_rgr(["run", "--yes", "--skip-preflight", "slugify"], repo, env)
        # the GREEN session is waiting inside codex for its model when rgr is killed
        kill_when_hanging(proc, server, sessions=3, what="GREEN", settle=1.0)
        assert notes_on_branch(repo)[-1]["phase"] == "RED"
        for script in one_test_kata_tail():
            server.add_script(script)
        done = rgr(["resume", "--yes", "--skip-preflight"], repo, env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == []
    phases = [n["phase"] for n in notes_on_branch(repo)]
    assert phases == ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE"]
    assert_suite_green(repo)


@pytest.mark.parametrize(("step", "said"), [
    (HttpError(401, "invalid_api_key", "Incorrect API key provided"), "codex is not logged in"),
    (HttpError(400, "invalid_request_error", "bad schema"), "the model API refused"),
], ids=["401", "400"])
def test_failures_no_retry_can_fix_stop_resumably_on_codex(
        tmp_path: Path, step: HttpError, said: str) -> None:
    repo = make_project(tmp_path / "kata", CODEX)
    with model_server(CODEX)([SessionScript([step])]) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url, CODEX))
    assert done.returncode == 1, done.stdout + done.stderr
    assert said in done.stderr, done.stderr
    status = json.loads(rgr(["status", "--json"], repo,
                            rgr_env(tmp_path / "home", "http://127.0.0.1:9", CODEX)).stdout)
    assert status["resumable"] is True


def test_rate_limited_phase_is_retried_after_a_backoff_on_codex(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata", CODEX)
    limited = SessionScript([HttpError(429, "rate_limit_exceeded", "Rate limit reached")],
                            name="429")
    with ResponsesModelServer([limited, plan(0, first=True, total=1)]) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "--max-phases", "1", "slugify"],
                   repo, rgr_env(tmp_path / "home", server.url, CODEX))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == []
    assert "agent-api_error" in done.stdout and "429" in done.stdout
    last = notes_on_branch(repo)[-1]
    assert last["phase"] == "PLAN" and last["retryCount"] == 1


@sweep_only(WHERE, "the one-test kata per backend named in RGR_E2E_BACKENDS",
            run=full_sweep() or "RGR_E2E_BACKENDS" in os.environ)
def test_one_test_kata_on_each_backend(tmp_path: Path, agent_backend: str) -> None:
    """The backend point of the kata helpers: RGR_E2E_BACKENDS=claude,codex runs this
    (and any test that takes ``agent_backend``) once per CLI with the same scripts. Not
    in the default run, where it would be one more claude kata (test_tdd_loop.py's
    two-test kata is the default run's); it runs when RGR_E2E_BACKENDS names the CLIs."""
    repo = make_project(tmp_path / "kata", agent_backend)
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True),
               *one_test_kata_tail()]
    with model_server(agent_backend)(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url, agent_backend))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [] and server.remaining == 0
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR",
                                           "COMPLETE"]
    assert {n["agent"]["backend"] for n in notes[1:]} == {agent_backend}  # type: ignore[index]
    assert_suite_green(repo)


def test_demo_replays_the_kata_through_codex(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from harness import ensure_codex

    home = tmp_path / "user-home"  # stands for the user's real HOME and ~/.codex
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text('model = "the-users-own"\n')
    user_key = "sk-proj-THE-USERS-REAL-KEY-must-never-leave"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TDD_", "GIT_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), COLUMNS="200",
               CODEX_API_KEY=user_key, OPENAI_API_KEY=user_key, PYTHONDONTWRITEBYTECODE="1")
    root = tmp_path / "throwaway"
    done = subprocess.run([sys.executable, "-m", "rgr", "demo", "--backend", "codex",
                           "--codex", str(ensure_codex()), "--dir", str(root)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The model is a REPLAY" in done.stdout and "codex-cli 0.169.0" in done.stdout
    assert "status      complete after 3 cycle(s)" in done.stdout
    assert f"codex {FAKE_MODEL}" in done.stdout  # the history table
    notes = notes_on_branch(root / "kata")
    assert {n["agent"]["backend"] for n in notes[1:]} == {"codex"}  # type: ignore[index]
    assert (home / ".codex" / "config.toml").read_text() == 'model = "the-users-own"\n'
    for path in (root / "kata" / ".git" / "rgr").rglob("*"):
        if path.is_file():
            assert user_key.encode() not in path.read_bytes(), path
