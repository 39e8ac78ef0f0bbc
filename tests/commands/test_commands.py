"""status, history, rollback and repair-notes, run as the real `rgr` subprocess on real
repositories. Notes are set up with the git CLI (as any writer could) and results are
checked with git."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import NOTES_REF, Repo, RunRgr, make_repo, note_json

ATTIC = NOTES_REF + "-attic"


def commits_of(repo: Repo, rev: str = "HEAD") -> list[str]:
    return repo.git("rev-list", "--reverse", rev).splitlines()


def status_json(run_rgr: RunRgr, repo: Repo) -> dict[str, object]:
    code, out, err = run_rgr(["status", "--json"], repo.path)
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def history_json(run_rgr: RunRgr, repo: Repo, *args: str) -> list[dict[str, object]]:
    code, out, err = run_rgr(["history", "--json", *args], repo.path)
    assert code == 0, err
    rows = json.loads(out)
    assert isinstance(rows, list)
    return rows


def drop_object(repo: Repo, oid: str) -> None:
    """Make an object vanish, as a bad gc or a lost file would (it must be loose)."""
    path = repo.path / ".git" / "objects" / oid[:2] / oid[2:]
    assert path.exists(), f"{oid} is not a loose object"
    path.chmod(0o644)
    path.unlink()


# ----------------------------------------------------------------------- status


def test_status_without_notes(run_rgr: RunRgr, repo: Repo) -> None:
    code, out, err = run_rgr(["status"], repo.path)
    assert code == 0, err
    assert "main" in out and repo.head()[:8] in out
    assert "rgr run" in out  # tells how to start
    data = status_json(run_rgr, repo)
    assert data["handoffCommit"] is None and data["state"] is None
    assert data["resumable"] is False


def test_status_with_a_note_at_head(run_rgr: RunRgr, repo: Repo) -> None:
    repo.note_cli(repo.head(), note_json("RED", cycleNumber=2, feature="a calculator"))
    data = status_json(run_rgr, repo)
    assert set(data) >= {"branch", "head", "notesRef", "handoffCommit", "commitsSinceHandoff",
                         "testList", "state", "problem", "resumable", "advice"}
    assert data["branch"] == "main"
    assert data["head"] == repo.head() == data["handoffCommit"]
    assert data["notesRef"] == NOTES_REF
    assert data["commitsSinceHandoff"] == 0
    assert data["problem"] is None
    assert data["resumable"] is True
    state = data["state"]
    assert isinstance(state, dict)
    assert state["phase"] == "RED" and state["nextPhase"] == "GREEN"
    assert state["cycleNumber"] == 2 and state["feature"] == "a calculator"
    assert "GREEN" in str(data["advice"])

    code, out, err = run_rgr(["status"], repo.path)
    assert code == 0, err
    for expected in ("a calculator", "RED", "GREEN", "adds two numbers", "rgr resume"):
        assert expected in out, expected


def test_status_counts_commits_after_the_note_and_the_test_list(
    run_rgr: RunRgr, repo: Repo
) -> None:
    noted = repo.head()
    repo.note_cli(noted, note_json("GREEN", error="tests failed", retryCount=2))
    repo.commit("work 1", {"test-list.md": "- [x] adds\n- [ ] subtracts\n- [ ] divides\n"})
    repo.commit("work 2")
    data = status_json(run_rgr, repo)
    assert data["handoffCommit"] == noted
    assert data["commitsSinceHandoff"] == 2
    assert data["testList"] == {"done": 1, "total": 3}
    assert "2 commit(s)" in str(data["advice"])

    code, out, _ = run_rgr(["status"], repo.path)
    assert code == 0
    assert "2 commit(s) before HEAD" in out
    assert "1/3 done" in out
    assert "tests failed" in out and "retries: 2" in out


def test_status_of_a_completed_run_is_not_resumable(run_rgr: RunRgr, repo: Repo) -> None:
    repo.note_cli(repo.head(), note_json("COMPLETE"))
    data = status_json(run_rgr, repo)
    assert data["resumable"] is False
    assert "complete" in str(data["advice"])


def test_status_reports_an_invalid_note_at_head(run_rgr: RunRgr, repo: Repo) -> None:
    repo.git("notes", f"--ref={NOTES_REF}", "add", "-m", "hi")
    data = status_json(run_rgr, repo)
    assert data["handoffCommit"] == repo.head()
    assert data["state"] is None and data["resumable"] is False
    assert "not JSON" in str(data["problem"])
    assert "repair-notes" in str(data["advice"])
    code, out, err = run_rgr(["status"], repo.path)
    assert code == 0, err
    assert "not a handoff" in out and "repair-notes" in out


# ----------------------------------------------------------------------- history


@pytest.fixture
def noted(tmp_path: Path) -> Repo:
    """Five commits; notes on the first four, PLAN RED GREEN REFACTOR in order."""
    repo = make_repo(tmp_path, commits=5)
    for i, (commit, phase) in enumerate(
        zip(commits_of(repo), ["PLAN", "RED", "GREEN", "REFACTOR"], strict=False)
    ):
        repo.note_cli(commit, note_json(phase, cycleNumber=1, retryCount=i))
    return repo


def test_history_lists_oldest_to_newest(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    rows = history_json(run_rgr, noted)
    assert [r["commit"] for r in rows] == c[:4]
    assert [r["phase"] for r in rows] == ["PLAN", "RED", "GREEN", "REFACTOR"]
    assert [r["retryCount"] for r in rows] == [0, 1, 2, 3]
    assert all(r["reachable"] is True and "problem" not in r for r in rows)
    assert rows[1]["testResult"] == "FAIL" and rows[1]["nextPhase"] == "GREEN"
    assert rows[0]["currentTest"]["description"] == "adds two numbers"  # type: ignore[index]

    code, out, err = run_rgr(["history"], noted.path)
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.strip()]
    order = [next(i for i, line in enumerate(lines) if c[n][:8] in line) for n in range(4)]
    assert order == sorted(order)
    for phase in ("PLAN", "RED", "GREEN", "REFACTOR", "adds two numbers"):
        assert phase in out


def test_history_limit_keeps_the_newest(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    rows = history_json(run_rgr, noted, "--limit", "2")
    assert [r["commit"] for r in rows] == c[2:4]
    code, out, _ = run_rgr(["history", "--limit", "1"], noted.path)
    assert code == 0
    assert c[3][:8] in out and c[2][:8] not in out
    assert "the newest 1 handoff(s) shown" in out  # the older ones are not even read


def test_history_all_adds_notes_off_the_branch(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    noted.git("switch", "-q", "-c", "attempt", c[1])
    failed = noted.commit("a failed attempt")
    noted.note_cli(failed, note_json("GREEN", error="tests still fail"))
    noted.git("switch", "-q", "main")

    assert failed not in {r["commit"] for r in history_json(run_rgr, noted)}
    rows = history_json(run_rgr, noted, "--all")
    by_commit = {r["commit"]: r for r in rows}
    assert set(by_commit) == set(c[:4]) | {failed}
    assert by_commit[failed]["reachable"] is False
    assert by_commit[failed]["error"] == "tests still fail"
    assert all(by_commit[x]["reachable"] is True for x in c[:4])

    code, out, _ = run_rgr(["history", "--all"], noted.path)
    assert code == 0
    assert failed[:8] in out and "tests still fail" in out


def test_history_shows_an_invalid_note_as_a_problem_row(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    noted.git("notes", f"--ref={NOTES_REF}", "add", "-m", "hi", c[4])
    noted.note_cli(c[2], '{"phase": "SNACK"}')
    rows = history_json(run_rgr, noted)
    assert len(rows) == 5
    by_commit = {r["commit"]: r for r in rows}
    assert "not JSON" in str(by_commit[c[4]]["problem"])
    assert "phase" in str(by_commit[c[2]]["problem"])
    assert by_commit[c[3]]["phase"] == "REFACTOR"  # neighbours unaffected

    code, out, err = run_rgr(["history"], noted.path)
    assert code == 0, err
    assert out.count("invalid note") == 2


def test_history_without_notes(run_rgr: RunRgr, repo: Repo) -> None:
    assert history_json(run_rgr, repo) == []
    code, out, _ = run_rgr(["history"], repo.path)
    assert code == 0 and "no handoffs" in out


# ----------------------------------------------------------------------- rollback


def test_rollback_refuses_a_commit_without_a_note(run_rgr: RunRgr, noted: Repo) -> None:
    head = noted.head()
    code, _, err = run_rgr(["rollback", "HEAD", "--yes"], noted.path)
    assert code == 1
    assert "no rgr handoff note" in err and "rgr history" in err
    assert noted.head() == head


def test_rollback_refuses_an_unknown_revision(run_rgr: RunRgr, noted: Repo) -> None:
    code, _, err = run_rgr(["rollback", "no-such-thing", "--yes"], noted.path)
    assert code == 1
    assert "unknown revision" in err and "fix:" in err


def test_rollback_refuses_a_commit_off_the_branch(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    noted.git("switch", "-q", "-c", "other", c[1])
    other = noted.commit("elsewhere")
    noted.note_cli(other, note_json("RED"))
    noted.git("switch", "-q", "main")
    code, _, err = run_rgr(["rollback", other, "--yes"], noted.path)
    assert code == 1
    assert "not in the history of main" in err
    assert noted.head() == c[4]


def test_rollback_refuses_uncommitted_changes_without_force(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    (noted.path / "README.md").write_text("edited\n")
    code, _, err = run_rgr(["rollback", c[1], "--yes"], noted.path)
    assert code == 1
    assert "uncommitted changes" in err and "README.md" in err and "--force" in err
    assert noted.head() == c[4]
    assert (noted.path / "README.md").read_text() == "edited\n"


def test_rollback_without_a_terminal_needs_yes(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    code, out, err = run_rgr(["rollback", c[1]], noted.path)
    assert code == 1
    assert "--yes" in err
    assert c[2][:8] in out  # it still showed what would be undone
    assert noted.head() == c[4]
    assert noted.git("for-each-ref", "refs/rgr/") == ""


def test_rollback_moves_the_branch_and_keeps_a_backup(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    code, out, err = run_rgr(["rollback", c[1], "--yes"], noted.path)
    assert code == 0, err
    assert noted.rev("main") == noted.head() == c[1]
    assert noted.git("symbolic-ref", "HEAD") == "refs/heads/main"
    assert noted.git("status", "--porcelain") == ""
    for undone in c[2:]:
        assert undone[:8] in out
    backups = re.findall(r"refs/rgr/backups/[\w.-]+", out)
    assert backups, out
    assert noted.rev(backups[0]) == c[4]  # the rollback can be undone
    assert noted.git("for-each-ref", "--format=%(refname)", "refs/rgr/backups/") == backups[0]


def test_rollback_force_stashes_uncommitted_work(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    (noted.path / "README.md").write_text("edited\n")
    (noted.path / "new.txt").write_text("untracked\n")
    code, out, err = run_rgr(["rollback", c[2], "--yes", "--force"], noted.path)
    assert code == 0, err
    assert noted.head() == c[2]
    assert noted.git("status", "--porcelain") == ""
    assert not (noted.path / "new.txt").exists()
    assert len(noted.git("stash", "list").splitlines()) == 1
    assert noted.git("show", "stash@{0}:README.md") == "edited"
    assert noted.git("show", "stash@{0}^3:new.txt") == "untracked"  # untracked parent
    assert "stash" in out


# ----------------------------------------------------------------------- repair-notes


def test_repair_notes_on_a_healthy_repository(run_rgr: RunRgr, noted: Repo) -> None:
    code, out, err = run_rgr(["repair-notes"], noted.path)
    assert code == 0, err
    assert "no problems" in out


def test_repair_notes_sets_an_invalid_note_aside(run_rgr: RunRgr, noted: Repo) -> None:
    c = commits_of(noted)
    noted.git("notes", f"--ref={NOTES_REF}", "add", "-m", "hi", c[4])
    before = noted.notes_list()

    code, out, _ = run_rgr(["repair-notes"], noted.path)
    assert code == 1
    assert "invalid" in out and c[4][:8] in out and "--apply" in out
    assert noted.notes_list() == before  # only reported

    code, out, err = run_rgr(["repair-notes", "--json"], noted.path)
    assert code == 1
    findings = json.loads(out)["findings"]
    assert [(f["kind"], f["subject"], f["fixed"]) for f in findings] == [("invalid", c[4], False)]

    code, out, err = run_rgr(["repair-notes", "--apply"], noted.path)
    assert code == 0, err
    assert ATTIC in out
    assert noted.show_note(c[4], ref=ATTIC) == "hi"
    assert noted.git("notes", f"--ref={NOTES_REF}", "show", c[4], check=False) == ""
    assert sorted(x for _, x in noted.notes_list()) == sorted(c[:4])  # valid ones stay


def test_repair_notes_moves_a_note_on_a_vanished_commit(run_rgr: RunRgr, noted: Repo) -> None:
    tree = noted.rev("HEAD^{tree}")
    dangling = noted.git("commit-tree", tree, "-p", "HEAD", "-m", "never on a branch")
    text = note_json("GREEN", error="kept for audit")
    noted.note_cli(dangling, text)
    drop_object(noted, dangling)
    assert noted.git("cat-file", "-e", dangling, check=False) == ""
    assert len(noted.notes_list()) == 5

    rows = history_json(run_rgr, noted, "--all")  # shown, never a crash
    gone = [r for r in rows if r["commit"] == dangling]
    assert len(gone) == 1 and gone[0]["reachable"] is False
    assert "no longer exists" in str(gone[0]["problem"])

    code, out, _ = run_rgr(["repair-notes"], noted.path)
    assert code == 1
    assert "orphaned" in out and dangling[:8] in out

    code, out, err = run_rgr(["repair-notes", "--apply"], noted.path)
    assert code == 0, err
    assert dangling not in {x for _, x in noted.notes_list()}
    assert noted.show_note(dangling, ref=ATTIC) == text.strip()
    assert len(noted.notes_list()) == 4


def test_repair_notes_restores_a_broken_ref_from_the_reflog(
    run_rgr: RunRgr, noted: Repo
) -> None:
    c = commits_of(noted)
    good_tip = noted.rev(NOTES_REF)
    noted.note_cli(c[4], note_json("PLAN", cycleNumber=2))
    broken_tip = noted.rev(NOTES_REF)
    drop_object(noted, broken_tip)

    code, _, err = run_rgr(["status"], noted.path)
    assert code == 1
    assert broken_tip in err and "repair-notes" in err

    code, out, _ = run_rgr(["repair-notes"], noted.path)
    assert code == 1
    assert "broken-ref" in out
    assert noted.path.joinpath(".git", *NOTES_REF.split("/")).read_text().strip() == broken_tip

    code, out, err = run_rgr(["repair-notes", "--apply"], noted.path)
    assert code == 0, err
    assert "restored" in out
    assert noted.rev(NOTES_REF) == good_tip
    assert sorted(x for _, x in noted.notes_list()) == sorted(c[:4])
    code, _, err = run_rgr(["status"], noted.path)
    assert code == 0, err


def _age(path: Path, seconds: float = 60) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_repair_notes_removes_only_locks_no_process_holds(
    run_rgr: RunRgr, noted: Repo, tmp_path: Path
) -> None:
    lock = noted.path / ".git" / "refs" / "notes" / "tdd-handoffs.lock"
    lock.write_text("")
    _age(lock)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; f = open(sys.argv[1]); print('ready', flush=True); time.sleep(120)",
         str(lock)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        code, out, err = run_rgr(["repair-notes", "--apply"], noted.path)
        assert code == 0, err
        assert "in use, left alone" in out
        assert lock.exists()
    finally:
        holder.kill()
        holder.wait()

    code, out, _ = run_rgr(["repair-notes"], noted.path)
    assert code == 1
    assert "stale-lock" in out and lock.exists()
    code, out, err = run_rgr(["repair-notes", "--apply"], noted.path)
    assert code == 0, err
    assert "removed" in out
    assert not lock.exists()
    # and the notes ref is writable again
    noted.note_cli(noted.head(), note_json("PLAN", cycleNumber=2))


def test_repair_notes_removes_the_run_lock_of_a_dead_process(run_rgr: RunRgr, noted: Repo) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock = noted.path / ".git" / "rgr" / "run.lock"
    lock.parent.mkdir()
    lock.write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname(),
                                "command": "rgr run x", "started": time.time() - 100}))
    live = noted.path / ".git" / "rgr"
    code, out, _ = run_rgr(["repair-notes"], noted.path)
    assert code == 1 and "stale-lock" in out and f"pid {dead.pid}" in out
    code, out, err = run_rgr(["repair-notes", "--apply"], noted.path)
    assert code == 0, err
    assert not lock.exists() and live.is_dir()
