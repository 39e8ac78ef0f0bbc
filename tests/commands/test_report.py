"""`rgr report`, `rgr show` and `--integrate merge|pr` on runs whose notes are written
with the git CLI, in real repositories (a real bare remote for the pull request; only
`gh` is a script, the one boundary nothing real can stand in for)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import Repo, RunRgr, gh_bin, make_repo, note_json

RUN_ID = "11111111-2222-3333-4444-555555555555"
TDD_TOML = f'test_command = "{sys.executable} -m pytest -q -p no:cacheprovider"\n'
TEST_ONE = "def test_one():\n    from one import x\n    assert x == 1\n"


def _agent(cost: float, tokens_in: int, tokens_out: int) -> dict[str, object]:
    return {"backend": "claude", "sessionId": f"s-{cost}", "numTurns": 3, "costUsd": cost,
            "durationMs": 900, "inputTokens": tokens_in, "outputTokens": tokens_out,
            "permissionDenials": 1, "promptVersion": "tester/1"}


def make_run(tmp_path: Path, complete: bool = True) -> tuple[Repo, dict[str, str]]:
    """main with one commit, then branch rgr/slug: a start marker and four phases
    (one with a retry), plus one rejected attempt kept under refs/rgr/attempts/."""
    repo = make_repo(tmp_path, commits=1)
    base = repo.head()
    repo.git("switch", "-q", "-c", "rgr/slug")
    common = {"runId": RUN_ID, "feature": "slugify", "branch": "rgr/slug", "schemaVersion": 1}
    ids: dict[str, str] = {"base": base}
    ids["marker"] = repo.commit("rgr: start slugify")
    repo.note_cli(ids["marker"], note_json(
        "REFACTOR", cycleNumber=0, currentTest=None, pendingTests=[], startBranch="main",
        baseCommit=base, startedAt="2026-11-21T10:00:00Z", finishedAt="2026-11-21T10:00:00Z",
        **common))
    # A real test command: integrating a complete run judges its tree again.
    ids["plan"] = repo.commit("plan: one", {"test-list.md": "- [ ] one\n", "tdd.toml": TDD_TOML})
    repo.note_cli(ids["plan"], note_json(
        "PLAN", startedAt="2026-11-21T10:00:00Z", finishedAt="2026-11-21T10:00:10Z",
        agent=_agent(0.25, 1000, 10), **common))
    ids["red"] = repo.commit("test: one", {"tests/test_one.py": TEST_ONE})
    repo.note_cli(ids["red"], note_json(
        "RED", startedAt="2026-11-21T10:00:10Z", finishedAt="2026-11-21T10:01:40Z",
        retryCount=1, agent=_agent(0.5, 2000, 20), **common))
    # the rejected first RED attempt, kept off the branch with its error note
    attempt = repo.git("commit-tree", "-p", ids["plan"], "-m", "test: cheat",
                       repo.git("rev-parse", f"{ids['plan']}^{{tree}}"))
    repo.git("update-ref", f"refs/rgr/attempts/{RUN_ID}/RED-c1-a1-1700000000", attempt)
    repo.note_cli(attempt, note_json(
        "RED", error="red-passes: the new test passes", retryCount=0,
        errorDetails={"type": "red-passes", "message": "the new test passes"},
        agent=_agent(0.125, 500, 5), **common))
    ids["attempt"] = attempt
    ids["green"] = repo.commit("feat: one", {"one.py": "x = 1\n"})
    repo.note_cli(ids["green"], note_json(
        "GREEN", startedAt="2026-11-21T10:01:40Z", finishedAt="2026-11-21T10:02:00Z",
        agent=_agent(0.375, 3000, 30), **common))
    if complete:
        ids["done"] = repo.commit("plan: done", {"test-list.md": "- [x] one\n"})
        repo.note_cli(ids["done"], note_json(
            "COMPLETE", nextPhase=None, cycleNumber=2, currentTest=None,
            completedTests=["one"], pendingTests=[], startedAt="2026-11-21T10:02:00Z",
            finishedAt="2026-11-21T10:02:05Z", agent=_agent(0.0625, 400, 4), **common))
    return repo, ids


def report_json(run_rgr: RunRgr, repo: Repo, *args: str) -> dict[str, object]:
    code, out, err = run_rgr(["report", "--json", *args], repo.path)
    assert code == 0, err
    data: dict[str, object] = json.loads(out)
    return data


# ------------------------------------------------------------------------- report


def test_report_figures_come_from_the_notes_and_the_attempt_refs(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path)
    data = report_json(run_rgr, repo)
    assert data["status"] == "complete" and data["nextPhase"] is None
    assert data["runId"] == RUN_ID and data["startBranch"] == "main"
    assert data["marker"] == ids["marker"] and data["baseCommit"] == ids["base"]
    assert data["testsDone"] == ["one"] and data["testsPending"] == []
    assert data["commits"] == 5 and data["phases"] == 4
    assert data["elapsedS"] == 125.0  # 10:00:00 → 10:02:05
    assert data["phaseTimeS"] == 10 + 90 + 20 + 5
    # 0.25 + 0.5 + 0.375 + 0.0625 verified, 0.125 in the kept rejected attempt
    assert data["costUsd"] == pytest.approx(1.3125)
    assert data["rejectedCostUsd"] == pytest.approx(0.125)
    assert data["inputTokens"] == 1000 + 2000 + 3000 + 400 + 500
    assert data["agentSessions"] == 5 and data["permissionDenials"] == 5
    assert data["retries"] == 1
    assert data["rejectionsByRule"] == {"red-passes": 1}
    rejection = data["rejections"][0]  # type: ignore[index]
    assert rejection["commit"] == ids["attempt"] and rejection["phase"] == "RED"
    code, out, err = run_rgr(["report"], repo.path)
    assert code == 0, err
    assert "complete after 2 cycle(s)" in out and "1 of 1: one" in out
    assert "$1.31 over 5 agent session(s), of which $0.1250 on rejected attempts" in out
    assert "1 rejected attempt(s): red-passes ×1" in out
    assert "2m 05s" in out
    assert "rgr report --integrate merge" in out and f"rgr rollback {ids['marker'][:8]}" in out


def test_report_splits_the_run_time_when_its_events_are_here(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, _ = make_run(tmp_path)
    assert report_json(run_rgr, repo)["timeSplit"] is None  # no artifacts: no guess
    events = [
        {"type": "invocation_started", "ts": "2026-11-23T10:00:00Z", "command": "run"},
        {"type": "attempt_started", "ts": "2026-11-23T10:00:01Z", "phase": "RED", "cycle": 1,
         "attempt": 1},
        {"type": "agent_call", "ts": "2026-11-23T10:00:05Z", "phase": "RED", "cycle": 1,
         "attempt": 1, "ok": True, "durationMs": 3500, "durationApiMs": 2500},
        {"type": "test_run", "ts": "2026-11-23T10:00:07Z", "durationS": 1.5},
        {"type": "invocation_finished", "ts": "2026-11-23T10:00:10Z", "outcome": "complete"},
    ]
    folder = repo.path / ".git" / "rgr" / "runs" / RUN_ID
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    split = report_json(run_rgr, repo)["timeSplit"]
    assert split == {"wallS": 10.0, "agentModelS": 2.5, "agentOtherS": 1.5,
                     "agentUnsplitS": 0.0, "testsS": 1.5, "rgrS": 4.5}
    code, out, err = run_rgr(["report"], repo.path)
    assert code == 0, err
    assert ("10s of rgr runs: 2.5s model (as the agents report it), 1.5s agent start-up "
            "and tools, 1.5s test runs, 4.5s rgr and git") in out


def test_report_of_a_paused_run_names_the_next_phase(run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, _ = make_run(tmp_path, complete=False)
    data = report_json(run_rgr, repo)
    assert data["status"] == "paused" and data["nextPhase"] == "REFACTOR"
    code, out, _ = run_rgr(["report"], repo.path)
    assert code == 0 and "paused before REFACTOR" in out and "--integrate" not in out


def test_report_without_notes_says_how_to_start(run_rgr: RunRgr, repo: Repo) -> None:
    code, _, err = run_rgr(["report"], repo.path)
    assert code == 1 and "nothing to report" in err and "rgr run" in err


# --------------------------------------------------------------------------- show


def test_show_prints_the_agent_summary_and_the_error(run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path)
    code, out, err = run_rgr(["show", ids["red"]], repo.path)
    assert code == 0, err
    for expected in (ids["red"], "RED (cycle 1), next GREEN", "session s-0.5", "turns", "$0.5000",
                     "2,000 in, 20 out", "denials       1", "tester/1", "1 retry",
                     "(1m 30s)"):
        assert expected in out, (expected, out)
    code, out, _ = run_rgr(["show", f"refs/rgr/attempts/{RUN_ID}/RED-c1-a1-1700000000"],
                           repo.path)
    assert code == 0 and "red-passes: the new test passes" in out and "error type" in out
    code, out, _ = run_rgr(["show", "--json", ids["green"]], repo.path)
    shown = json.loads(out)
    assert shown.pop("commit") == ids["green"] and shown.pop("commitsAfter") == 0
    note = json.loads(repo.show_note(ids["green"]))
    for key, value in note.items():  # every field of the note, unchanged
        if isinstance(value, dict):
            assert shown[key] | value == shown[key], key
        else:
            assert shown[key] == value, key


def test_show_defaults_to_the_latest_handoff_and_refuses_unnoted_commits(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path)
    extra = repo.commit("wip")
    code, out, _ = run_rgr(["show", "--json"], repo.path)
    data = json.loads(out)
    assert data["commit"] == ids["done"] and data["commitsAfter"] == 1
    code, _, err = run_rgr(["show", extra], repo.path)
    assert code == 1 and "has no rgr handoff note" in err


# ------------------------------------------------------------------ merge (ff)


def test_merge_fast_forwards_the_start_branch(run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path)
    code, out, err = run_rgr(["report", "--integrate", "merge"], repo.path)
    assert code == 0, err
    assert "main fast-forwarded by 5 commit(s)" in out
    assert repo.rev("main") == ids["done"] == repo.rev("rgr/slug")
    assert repo.git("symbolic-ref", "--short", "HEAD") == "main"
    assert repo.git("status", "--porcelain") == ""
    assert "rgr: fast-forward to rgr/slug" in repo.git("reflog", "show", "main")
    # The commit main ends on says what was verified on it before main moved: its own
    # phase note, kept, with the landing added.
    assert f"the integrated tree {ids['done'][:8]} (fast-forward" in out and "passes" in out
    note = json.loads(repo.show_note(repo.rev("main")))
    assert note["phase"] == "COMPLETE" and note["completedTests"] == ["one"]
    landing = note["landing"]
    assert landing["verdict"] == "pass" and landing["by"] == "run"
    assert landing["into"] == "main" and landing["how"] == "fast-forward"
    assert landing["baseTip"] == ids["base"] and landing["jobTip"] == ids["done"]
    assert landing["tip"] == ids["done"] and landing["failedCommand"] is None
    assert landing["copiedFrom"] is None and landing["notLoaded"] == []
    assert landing["tests"]["passed"] == 1 and landing["tests"]["failed"] == 0
    assert landing["tests"]["failing"] == [] and landing["verifiedAt"]


def test_merge_of_a_red_tree_moves_nothing_and_names_the_failing_test(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    """Notes that say complete are not enough: the tree main would hold is run again,
    and a red one is not merged (whatever the notes say, whoever wrote them)."""
    repo, ids = make_run(tmp_path)
    red = repo.commit("feat: one, broken after its phase ran", {"one.py": "x = 2\n"})
    repo.note_cli(red, repo.show_note(ids["done"]))
    code, out, err = run_rgr(["report", "--integrate", "merge"], repo.path)
    assert code == 1, out + err
    assert "failing on the integrated tree: tests/test_one.py::test_one" in err
    assert "main is unchanged" in err and "rgr verify --full" in err
    assert repo.rev("main") == ids["base"] and repo.rev("rgr/slug") == red
    assert repo.git("symbolic-ref", "--short", "HEAD") == "rgr/slug"
    landing = json.loads(repo.show_note(red))["landing"]
    assert landing["verdict"] == "fail" and landing["tip"] == red
    assert landing["tests"]["failing"] == ["tests/test_one.py::test_one"]
    # A pull request is not proposed either, and nothing is pushed.
    remote = _with_remote(tmp_path, repo)
    log = tmp_path / "gh.log"
    env = {"PATH": f"{gh_bin(tmp_path)}{os.pathsep}{os.environ['PATH']}", "GH_LOG": str(log)}
    code, _, err = run_rgr(["report", "--integrate", "pr"], repo.path, env)
    assert code == 1 and "tests/test_one.py::test_one" in err
    assert "nothing was pushed and no pull request opened" in err
    assert Repo(remote).git("for-each-ref") == ""
    assert log.read_text().splitlines() == ['["auth", "status"]']


def test_merge_names_a_test_file_that_does_not_load_on_the_integrated_tree(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path)
    broken = repo.commit("feat: one renamed", {"one.py": "y = 1\n",
                                               "tests/test_top.py": "from one import x\n"})
    repo.note_cli(broken, repo.show_note(ids["done"]))
    code, out, err = run_rgr(["report", "--integrate", "merge"], repo.path)
    assert code == 1, out + err
    assert "tests/test_top.py" in err and "main is unchanged" in err, err
    assert repo.rev("main") == ids["base"]
    landing = json.loads(repo.show_note(broken))["landing"]
    assert landing["verdict"] == "fail" and "tests/test_top.py" in landing["notLoaded"]


def test_merge_of_a_tree_whose_tests_are_all_skipped_moves_nothing(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    """Green by exit code with nothing run ("Tests: Skipped") while the run's own last
    run passed tests: not a landing."""
    repo, ids = make_run(tmp_path)
    skipped = repo.commit("test: skip it", {"tests/test_one.py": "import pytest\n\n"
                                            "pytestmark = pytest.mark.skip\n\n" + TEST_ONE})
    done = json.loads(repo.show_note(ids["done"]))
    repo.note_cli(skipped, json.dumps({**done, "tests": {"passed": 1, "failed": 0}}))
    code, out, err = run_rgr(["report", "--integrate", "merge"], repo.path)
    assert code == 1, out + err
    assert "no test ran on the integrated tree (0 passed, 0 failed, 0 errors, 1 skipped" in err
    assert repo.rev("main") == ids["base"]
    assert json.loads(repo.show_note(skipped))["landing"]["verdict"] == "fail"


def test_merge_refuses_a_dirty_tree(run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path)
    (repo.path / "one.py").write_text("x = 2\n")
    code, _, err = run_rgr(["report", "--integrate", "merge"], repo.path)
    assert code == 1 and "uncommitted changes (one.py)" in err and "git stash" in err
    assert repo.rev("main") == ids["base"]


def test_merge_refuses_when_the_start_branch_moved_on(run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path)
    repo.git("switch", "-q", "main")
    moved = repo.commit("meanwhile on main", {"other.txt": "x\n"})
    repo.git("switch", "-q", "rgr/slug")
    code, _, err = run_rgr(["report", "--integrate", "merge"], repo.path)
    assert code == 1
    assert "main has 1 commit(s) that rgr/slug does not" in err and "git merge rgr/slug" in err
    assert repo.rev("main") == moved and repo.rev("rgr/slug") == ids["done"]


def test_merge_refuses_an_incomplete_run_and_names_the_target_when_unknown(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path, complete=False)
    code, _, err = run_rgr(["report", "--integrate", "merge"], repo.path)
    assert code == 1 and "the run is paused" in err and "rgr resume" in err
    assert repo.rev("main") == ids["base"]
    code, _, err = run_rgr(["report", "--integrate", "pr"], repo.path)
    assert code == 1 and "the run is paused" in err


def test_merge_falls_back_to_the_branch_at_the_base_commit_for_older_notes(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path)
    marker = json.loads(repo.show_note(ids["marker"]))
    del marker["startBranch"]
    repo.note_cli(ids["marker"], json.dumps(marker))
    assert report_json(run_rgr, repo)["startBranch"] == "main"
    repo.git("branch", "also-at-base", ids["base"])  # now ambiguous
    code, _, err = run_rgr(["report", "--integrate", "merge"], repo.path)
    assert code == 1 and "--into" in err
    code, out, err = run_rgr(["report", "--integrate", "merge", "--into", "also-at-base"],
                             repo.path)
    assert code == 0, err
    assert "also-at-base fast-forwarded by 5 commit(s)" in out
    assert repo.rev("also-at-base") == ids["done"] and repo.rev("main") == ids["base"]


# ------------------------------------------------------------------- pull request


def _with_remote(tmp_path: Path, repo: Repo) -> Path:
    remote = tmp_path / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    return remote


def test_pr_pushes_the_branch_and_notes_and_calls_gh(run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, ids = make_run(tmp_path)
    remote = _with_remote(tmp_path, repo)
    log = tmp_path / "gh.log"
    env = {"PATH": f"{gh_bin(tmp_path)}{os.pathsep}{os.environ['PATH']}", "GH_LOG": str(log)}
    code, out, err = run_rgr(["report", "--integrate", "pr"], repo.path, env)
    assert code == 0, err
    assert "pull request: https://github.com/example/kata/pull/7" in out
    pushed = Repo(remote)
    assert pushed.rev("refs/heads/rgr/slug") == ids["done"]
    pushed_note = json.loads(pushed.show_note(ids["done"]))
    assert pushed_note["phase"] == "COMPLETE"
    assert pushed_note["landing"]["verdict"] == "pass"  # judged before it was proposed
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls[0] == ["auth", "status"]
    create = calls[1]
    assert create[:6] == ["pr", "create", "--head", "rgr/slug", "--title", "rgr: slugify"]
    assert create[6] == "--body" and create[8:] == ["--base", "main"]
    assert "red-passes ×1" in create[7] and "1 of 1: one" in create[7]
    assert repo.rev("main") == ids["base"]  # a PR merges nothing locally


def test_pr_says_how_to_log_in_or_install_gh(run_rgr: RunRgr, tmp_path: Path) -> None:
    repo, _ = make_run(tmp_path)
    _with_remote(tmp_path, repo)
    log = tmp_path / "gh.log"
    env = {"PATH": f"{gh_bin(tmp_path)}{os.pathsep}{os.environ['PATH']}", "GH_LOG": str(log),
           "GH_LOGGED_OUT": "1"}
    code, _, err = run_rgr(["report", "--integrate", "pr"], repo.path, env)
    assert code == 1 and "`gh` is not logged in" in err and "gh auth login" in err
    assert log.read_text().splitlines() == ['["auth", "status"]']  # nothing pushed, no PR
    no_gh = tmp_path / "no-gh-bin"  # git, but no gh
    no_gh.mkdir()
    (no_gh / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    code, _, err = run_rgr(["report", "--integrate", "pr"], repo.path, {"PATH": str(no_gh)})
    assert code == 1 and "not installed" in err and "https://cli.github.com" in err


def test_run_with_integrate_pr_fails_before_any_phase_without_gh(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    repo.commit("config", {"tdd.toml": 'test_command = "true"\n'})
    no_gh = tmp_path / "no-gh-bin"
    no_gh.mkdir()
    (no_gh / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    code, out, err = run_rgr(["run", "--yes", "--integrate", "pr", "slugify"], repo.path,
                             {"PATH": str(no_gh)})
    assert code == 1 and "`gh` (the GitHub CLI) is not installed" in err, out + err
    assert "agent backend" not in out  # stopped before the preflight and any phase
    assert repo.git("branch", "--list", "rgr/*") == ""
