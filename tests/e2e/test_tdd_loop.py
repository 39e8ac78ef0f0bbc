"""`rgr run` / `rgr resume` end to end: the real rgr CLI, the real claude binary, real
git and real pytest; only the model is scripted (rgr.fake_model on 127.0.0.1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kata import (
    ASSERT_1,
    IMPL_1,
    NOTES,
    TEST_FILE_1,
    assert_suite_green,
    edit_past_the_hook,
    git,
    green,
    kept_attempts,
    kill_when_hanging,
    make_project,
    notes_on_branch,
    one_test_kata_tail,
    plan,
    red,
    rgr,
    rgr_env,
    start_rgr,
    text_only,
    two_test_kata,
)

from rgr.fake_model import FakeModelServer, HttpError, SessionScript, structured
from rgr.fake_model.server import credential_mark

pytestmark = pytest.mark.e2e

def test_two_test_kata_end_to_end(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    with FakeModelServer(two_test_kata()) as server:
        env = rgr_env(tmp_path / "home", server.url)
        done = rgr(["run", "--yes", "add a slugify function"], repo, env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
        assert server.remaining == 0
        # claude held a placeholder; every request reached the API with the real key,
        # put in by rgr's gateway outside the sandbox.
        assert {r.credential for r in server.requests if r.method == "POST"} == {
            credential_mark({"x-api-key": env["ANTHROPIC_API_KEY"]})}
        first_requests: dict[str, int] = {}
        for record in server.requests:
            if record.session_id and record.session_id not in first_requests and \
                    "StructuredOutput" in record.tools:
                first_requests[record.session_id] = record.body_bytes
    # Request footprint: the first model request of every phase is small.
    sizes = list(first_requests.values())
    print("first request per phase (bytes):", sizes)
    assert len(sizes) == 9 and max(sizes) <= 16 * 1024, sizes

    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "rgr/add-a-slugify-function"
    notes = notes_on_branch(repo)
    phases = [n["phase"] for n in notes]
    # the start marker (cycle 0), then 2 full cycles, then the closing plan
    assert phases == ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR",
                      "PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE"], phases
    assert [n["cycleNumber"] for n in notes] == [0, 1, 1, 1, 1, 2, 2, 2, 2, 3]
    # An honest run meets no rejection, and the mutation gate passed both GREENs having
    # tried at least one mutant each (test_referee_mutation.py's honest run, asserted on
    # this same run since 2026-12-03: the two played the same kata on the same CLI).
    assert ": rejected:" not in done.stdout and "0 rejected attempt(s)" in done.stdout, \
        done.stdout
    assert kept_attempts(repo) == []
    greens = [n for n in notes if n["phase"] == "GREEN"]
    assert [g["adequacy"]["decision"] for g in greens] == ["pass", "pass"]  # type: ignore[index]
    assert all(g["adequacy"]["tried"] >= 1 for g in greens)  # type: ignore[index]
    agent_commits = [c for c in git(repo, "log", "--format=%H", "main..HEAD").split()]
    noted = {n["commit"] for n in notes}
    # every commit on the branch carries a note (each phase made exactly one commit)
    assert set(agent_commits) == noted
    red_notes = [n for n in notes if n["phase"] == "RED"]
    assert all(n["testResult"] == "FAIL" for n in red_notes)
    assert all(n["agent"]["sessionId"] for n in notes[1:])  # type: ignore[index]
    assert len({n["agent"]["sessionId"] for n in notes[1:]}) == 9  # type: ignore[index]
    assert notes[-1]["completedTests"] == ["lowercases a single word", "joins words with dashes"]
    # the CLI audit trail
    shown = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", "HEAD"))
    assert shown["phase"] == "COMPLETE"
    # Each note's history row was filed as rgr wrote it: the first read validates none.
    cache = (repo / ".git" / "rgr" / "cache" / "history-rows").read_bytes().splitlines()
    listed = git(repo, "notes", f"--ref={NOTES}", "list").split()[0::2]
    assert set(listed) <= {line.split()[1].decode() for line in cache[1:]}
    history = rgr(["history", "--json"], repo, rgr_env(tmp_path / "home", "http://127.0.0.1:9"))
    rows = json.loads(history.stdout)
    assert [r["phase"] for r in rows] == phases
    status = rgr(["status", "--json"], repo, rgr_env(tmp_path / "home", "http://127.0.0.1:9"))
    assert json.loads(status.stdout)["resumable"] is False
    # Impact hints: cycle 2's GREEN is told which existing test runs slug.py (cycle 1's
    # mutation gate traced it); cycle 1's GREEN, with nothing traced yet, is told nothing.
    [run_dir] = (repo / ".git" / "rgr" / "runs").iterdir()
    prompts = {d.name.split("-", 1)[1]: (d / "prompt.md").read_text()
               for d in (run_dir / "attempts").iterdir()}
    assert "Existing tests that run" not in prompts["c1-GREEN-a1"]
    assert ("Existing tests that run `slug.py` (from rgr's coverage; run these first): "
            "`tests/test_slug.py::test_lowercases_a_single_word`") in prompts["c2-GREEN-a1"]
    assert_suite_green(repo)
    assert git(repo, "status", "--porcelain") == ""


def test_green_that_edits_the_test_is_rejected_and_retried(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    weakened = TEST_FILE_1.replace(ASSERT_1, "assert True")
    cheat = green(IMPL_1, first=True, extra=edit_past_the_hook("tests/test_slug.py", weakened))
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True),
               _with_read_first(cheat), *one_test_kata_tail()]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == []
    assert "green-touches-tests" in done.stdout
    assert "1 rejected attempt(s): green-touches-tests ×1" in done.stdout  # the final report
    # the original assertion survived
    assert ASSERT_1 in (repo / "tests" / "test_slug.py").read_text()
    assert_suite_green(repo)
    # the rejected attempt is kept, with a note saying why, and listed by history --all
    attempts = git(repo, "for-each-ref", "--format=%(refname)", "refs/rgr/attempts/").split()
    assert len(attempts) == 1
    note = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", attempts[0]))
    assert note["errorDetails"]["type"] == "green-touches-tests"
    rows = json.loads(rgr(["history", "--all", "--json"], repo,
                          rgr_env(tmp_path / "home", "http://127.0.0.1:9")).stdout)
    assert [r["reachable"] for r in rows].count(False) == 1
    green_note = next(n for n in notes_on_branch(repo) if n["phase"] == "GREEN")
    assert green_note["retryCount"] == 1
    report = json.loads(rgr(["report", "--json"], repo,
                            rgr_env(tmp_path / "home", "http://127.0.0.1:9")).stdout)
    assert report["retries"] == 1 and report["rejectionsByRule"] == {"green-touches-tests": 1}
    assert report["rejections"][0]["commit"] == git(repo, "rev-parse", attempts[0]).strip()
    costs = [n["agent"]["costUsd"] for n in notes_on_branch(repo)[1:]]  # type: ignore[index]
    assert note["agent"]["costUsd"] > 0
    assert report["rejectedCostUsd"] == pytest.approx(note["agent"]["costUsd"])
    assert report["costUsd"] == pytest.approx(sum(costs) + note["agent"]["costUsd"])


def _with_read_first(script: SessionScript) -> SessionScript:
    # Writing over the test file needs a Read of it first (claude's own rule).
    from rgr.fake_model import read

    steps = list(script.steps)
    steps.insert(1, read("tests/test_slug.py"))
    return SessionScript(steps, expect_system_contains=script.expect_system_contains)


def test_red_that_passes_or_does_not_load_is_rejected(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    passing = 'def test_lowercases_a_single_word():\n    assert "hello" == "hello"\n'
    broken = TEST_FILE_1.replace("def test_", "def test_(")
    scripts = [plan(0, first=True, total=1), red(passing, first=True),
               red(broken, first=True), red(TEST_FILE_1, first=True)]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "--max-phases", "2", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == []
    assert "red-passes" in done.stdout
    assert "tests-do-not-load" in done.stdout
    red_note = notes_on_branch(repo)[-1]
    assert red_note["phase"] == "RED" and red_note["retryCount"] == 2
    assert red_note["nextPhase"] == "GREEN"
    assert len(git(repo, "for-each-ref", "refs/rgr/attempts/").splitlines()) == 2


def test_no_commit_no_structured_output_and_529(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    no_commit = SessionScript([structured({"currentTest": None})], name="no-commit")
    overloaded = plan(0, first=True, total=1)
    overloaded = SessionScript([HttpError(529, "overloaded_error", "Overloaded"),
                                *overloaded.steps], name="529-then-ok")
    scripts = [no_commit, text_only(), overloaded]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "--max-phases", "1", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == []
    assert "no-commit" in done.stdout
    assert "agent-no_structured_output" in done.stdout
    last = notes_on_branch(repo)[-1]
    assert last["phase"] == "PLAN" and last["retryCount"] == 2
    # claude's own retry of the 529 is seen live (stream-json api_retry) and counted
    assert "cycle 1 PLAN: API 529, claude retries (1/1)" in done.stdout
    (run,) = (repo / ".git" / "rgr" / "runs").iterdir()
    totals = json.loads((run / "summary.json").read_text())["totals"]
    assert (totals["apiRetries"], totals["retries"], totals["guardRejections"],
            totals["failedAgentCalls"]) == (1, 2, 1, 1)


def test_retries_exhausted_records_the_error_and_exits_non_zero(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    (repo / "tdd.toml").write_text((repo / "tdd.toml").read_text().replace(
        "max_retries = 3", "max_retries = 1"))
    git(repo, "commit", "-qam", "one retry")
    scripts = [text_only(), text_only()]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
    assert done.returncode == 1
    assert "PLAN failed 2 time(s)" in done.stderr and "rgr resume" in done.stderr
    status = json.loads(rgr(["status", "--json"], repo,
                            rgr_env(tmp_path / "home", "http://127.0.0.1:9")).stdout)
    assert status["resumable"] is True
    assert status["state"]["error"].startswith("PLAN failed after 2 attempt(s)")
    assert status["state"]["retryCount"] == 1
    report = json.loads(rgr(["report", "--json"], repo,
                            rgr_env(tmp_path / "home", "http://127.0.0.1:9")).stdout)
    assert report["status"] == "failed" and report["nextPhase"] == "PLAN"
    assert report["retries"] == 2 and report["rejections"] == []  # no commits, no refs


def test_killed_mid_phase_then_resume_finishes(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    from rgr.fake_model import Hang

    env = rgr_env(tmp_path / "home", "")
    hang = SessionScript([Hang(120)], name="hang")
    with FakeModelServer([plan(0, first=True, total=1), red(TEST_FILE_1, first=True), hang]) \
            as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        proc = start_rgr(["run", "--yes", "--skip-preflight", "slugify"], repo, env)
        # the GREEN session is hanging inside claude when it is killed
        kill_when_hanging(proc, server, sessions=3, what="GREEN", settle=1.0)
        noted = notes_on_branch(repo)
        assert noted[-1]["phase"] == "RED"
        for script in one_test_kata_tail():
            server.add_script(script)
        done = rgr(["resume", "--yes", "--skip-preflight", "--integrate", "merge"], repo, env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == []
    # the completed run was reported and fast-forwarded into main, where it started
    assert "rgr report:" in done.stdout and "main fast-forwarded by 6 commit(s)" in done.stdout
    assert git(repo, "rev-parse", "main") == git(repo, "rev-parse", "rgr/slugify")
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "main"
    phases = [n["phase"] for n in notes_on_branch(repo)]
    assert phases == ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE"]
    # main moved only once the tree it holds passed again, as noted on it
    landing = notes_on_branch(repo)[-1]["landing"]
    assert landing["verdict"] == "pass" and landing["by"] == "run", landing  # type: ignore[index]
    assert landing["tip"] == git(repo, "rev-parse", "main").strip()  # type: ignore[index]
    assert_suite_green(repo)


def test_a_committed_prompt_override_reaches_the_sealed_agent(tmp_path: Path) -> None:
    """`.rgr/prompts/tester.md`, committed, is the system prompt the sandboxed claude
    sends (the run reads it from its configuration snapshot, shown read-only inside)."""
    from rgr.store.agents import packaged_dir

    repo = make_project(tmp_path / "kata")
    override = repo / ".rgr" / "prompts" / "tester.md"
    override.parent.mkdir(parents=True)
    override.write_text((packaged_dir("prompts") / "tester.md").read_text()
                        + "\nHouse rule: name tests after the behaviour (override marker).\n")
    git(repo, "add", ".rgr")
    git(repo, "commit", "-qm", "our tester prompt")
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True),
               *one_test_kata_tail()]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        systems = [r.system for r in server.requests if "You are the TESTER" in r.system]
    assert systems and all("(override marker)" in s for s in systems), systems[:1]
