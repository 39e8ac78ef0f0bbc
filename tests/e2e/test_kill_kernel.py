"""Kill -9 inside the attempt kernel (rgr/loop/kernel.py) in its other two modes: a
refactor batch (`rgr refactor`, then `rgr resume`) and a merge fix (`rgr fix-merge`,
then `rgr fix-merge` again: the merge fixer's resume is a restart, as the daemon does
it). rgr kills itself at a crash point (RGR_FAILPOINT=<name>@<n>, rgr/base/failpoints.py);
the real claude binary talks to the scripted model on 127.0.0.1; git, pytest and the
sandbox are real. test_kill_anywhere.py sweeps the same points in TDD phases.

The refactor plans two agent batches; the first dedupe-pricing attempt breaks a test
(rejected and kept), so the rejection's points (attempt:kept, attempt:noted) are on the
way. Hits counted along a run: agent:spawned 1 planner, 2 dedupe a1, 3 dedupe a2,
4 simplify; phase:inflight-recorded / agent:returned / seal:imported 1 dedupe a1,
2 dedupe a2, 3 simplify; tests:spawned 1 baseline gate, 2 dedupe a1's gate, 3 dedupe
a2's gate; phase:noted / phase:accepted 1 dedupe, 2 simplify.

CI runs one point of each mode; the whole sweep is

    RGR_FULL_SWEEP=1 .venv/bin/python -m pytest tests/e2e/test_kill_kernel.py
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from harness import full_sweep, sweep
from kata import (
    NOTES,
    assert_suite_green,
    git,
    notes_on_branch,
    rgr,
    rgr_env,
    start_rgr,
)
from kernel_kata import (
    BATCH_IDS,
    GOAL,
    MERGED_ALPHA,
    RefactorModel,
    all_notes,
    assert_no_scratch,
    batch_notes,
    fix_merge_args,
    make_merge_job,
    merge_fix_notes,
    merge_fixer,
)
from messy import ORDERS_SIMPLE, PRICING_DRY, make_messy_project

from rgr.fake_model import FakeModelServer

pytestmark = pytest.mark.e2e

INFLIGHT = Path(".git") / "rgr" / "inflight.json"
WHERE = "tests/e2e/test_kill_kernel.py"


def points(kills: dict[str, list[str]], sample: str) -> list[object]:
    """The kill points as parameters; all but ``sample`` run only in the full sweep."""
    return sweep(list(kills), lambda p: full_sweep() or p == sample, WHERE, ids=list(kills))


#: point -> the batches noted on the branch when rgr died there
REFACTOR_KILLS = {
    "phase:inflight-recorded@1": [],  # dedupe a1 recorded, no agent yet
    "agent:spawned@3": [],  # dedupe a2's claude is running
    "agent:returned@2": [],  # dedupe a2's claude exited, nothing brought in
    "seal:imported@2": [],  # dedupe a2's commit is in the repository, unrecorded
    "tests:spawned@3": [],  # dedupe a2's gate is running
    "phase:noted@1": [],  # dedupe a2 noted, the branch not moved
    "phase:accepted@1": ["dedupe-pricing"],  # the branch moved, the record not cleared
    "attempt:kept@1": [],  # dedupe a1 (tests fail) has its ref, no note
    "attempt:noted@1": [],  # dedupe a1 noted, the record not cleared
}


@pytest.mark.parametrize("point", points(REFACTOR_KILLS, "phase:noted@1"))
def test_refactor_killed_in_a_batch_then_resume_applies_every_batch_once(
        tmp_path: Path, point: str) -> None:
    repo = make_messy_project(tmp_path / "shop")
    env = rgr_env(tmp_path / "home", "")
    with FakeModelServer(choose=RefactorModel()) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        proc = start_rgr(["refactor", "--yes", "--skip-preflight", GOAL], repo,
                         {**env, "RGR_FAILPOINT": point})
        output, _ = proc.communicate(timeout=400)
        assert proc.returncode == -9, f"{point} was never reached:\n{output}"
        # rgr died inside a batch attempt: its record says so
        assert (repo / INFLIGHT).exists(), output
        assert batch_notes(repo) == REFACTOR_KILLS[point], output
        kept_before = _kept(repo)
        if point.startswith("attempt:"):
            # the rejected attempt's ref comes first, its note second
            assert len(kept_before) == 1, kept_before
            noted = _note_of(repo, kept_before[0][1])
            assert (noted is not None) == (point == "attempt:noted@1"), noted
        verified = _verified_commits(repo)

        done = rgr(["resume", "--yes", "--skip-preflight"], repo, env)
        assert done.returncode == 0, f"{point}: {done.stdout}{done.stderr}\n--- " \
                                     f"first run:\n{output}"
        assert server.errors == [], server.errors

    # the refactor completed, every batch applied exactly once
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == ["PLAN", "REFACTOR", "REFACTOR", "COMPLETE"], \
        (point, done.stdout)
    assert batch_notes(repo) == BATCH_IDS
    assert notes[-1]["refactor"]["applied"] == BATCH_IDS  # type: ignore[index]
    subjects = git(repo, "log", "--format=%s", "main..HEAD").splitlines()
    for batch in BATCH_IDS:
        assert sum(s.startswith(f"refactor({batch})") for s in subjects) == 1, subjects
    # one accepted note per batch in the whole notes ref, even off the branch
    applied = [n["batch"]["id"] for n in all_notes(repo)  # type: ignore[index]
               if n.get("batch") and not n.get("error")]
    assert sorted(applied) == sorted(BATCH_IDS), applied
    # every commit on the branch is noted; nothing verified before the kill is lost
    assert set(git(repo, "rev-list", "main..HEAD").split()) == {n["commit"] for n in notes}
    for commit in verified:
        assert _is_ancestor(repo, commit, "HEAD"), f"{point}: lost {commit}"
    # every kept attempt still resolves and says why it was rejected
    kept = _kept(repo)
    for ref, commit in kept_before:
        assert (ref, commit) in kept, (point, ref)
    # one ref per rejected attempt, even when rgr died between its ref and its note
    assert len({commit for _, commit in kept}) == len(kept), (point, kept)
    for ref, commit in kept:
        note = _note_of(repo, commit)
        assert note is not None and note["error"], (ref, note)
        assert note["batch"]["status"] == "failed"  # type: ignore[index]
    assert (repo / "shop/pricing.py").read_text() == PRICING_DRY
    assert (repo / "shop/orders.py").read_text() == ORDERS_SIMPLE
    _assert_nothing_left_behind(repo)


#: point -> where the job branch is when rgr died there ("job": still at its tip)
MERGE_KILLS = {
    "phase:inflight-recorded@1": "job",  # recorded, no agent yet
    "agent:returned@1": "job",  # the fixer's claude exited, nothing brought in
    "phase:noted@1": "job",  # the merge is noted, the branch not moved
    "phase:accepted@1": "merge",  # the branch is at the merge, the record not cleared
}


@pytest.mark.parametrize("point", points(MERGE_KILLS, "phase:noted@1"))
def test_fix_merge_killed_then_run_again_lands_the_merge_once(
        tmp_path: Path, point: str) -> None:
    repo, base, job = make_merge_job(tmp_path / "kata")
    env = rgr_env(tmp_path / "home", "")
    with FakeModelServer(choose=merge_fixer()) as server:  # type: ignore[arg-type]
        env["ANTHROPIC_BASE_URL"] = server.url
        proc = start_rgr(fix_merge_args(base), repo, {**env, "RGR_FAILPOINT": point})
        output, _ = proc.communicate(timeout=300)
        assert proc.returncode == -9, f"{point} was never reached:\n{output}"
        assert (repo / INFLIGHT).exists(), output
        head = git(repo, "rev-parse", "HEAD").strip()
        assert (head == job) == (MERGE_KILLS[point] == "job"), (point, head)
        sessions = len(server.sessions)

        again = rgr(fix_merge_args(base), repo, env)
        assert again.returncode == 0, f"{point}: {again.stdout}{again.stderr}\n--- " \
                                      f"first run:\n{output}"
        assert server.errors == [], server.errors
        if point in ("phase:noted@1", "phase:accepted@1"):
            # the merge was verified before the kill: no agent is paid to redo it
            assert len(server.sessions) == sessions, again.stdout

    head = git(repo, "rev-parse", "HEAD").strip()
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "rgr/make-alpha"
    assert git(repo, "rev-list", "--parents", "-n", "1", "HEAD").split()[1:] == [base, job]
    # exactly one merge fix in the whole notes ref, on the branch's tip
    fixes = merge_fix_notes(repo)
    assert [f["commit"] for f in fixes] == [head], (point, fixes, again.stdout)
    assert fixes[0]["mergeFix"]["status"] == "resolved"  # type: ignore[index]
    assert fixes[0]["phase"] == "COMPLETE"
    merges = git(repo, "rev-list", "--merges", "--all").split()
    assert merges == [head], (point, merges)
    assert (repo / "alpha.py").read_text() == MERGED_ALPHA
    _assert_nothing_left_behind(repo)


def _kept(repo: Path) -> list[tuple[str, str]]:
    out = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/rgr/attempts/")
    return [tuple(line.split()) for line in out.splitlines()]  # type: ignore[misc]


def _note_of(repo: Path, commit: str) -> dict[str, object] | None:
    shown = subprocess.run(["git", "notes", f"--ref={NOTES}", "show", commit], cwd=repo,
                           capture_output=True, text=True)
    return json.loads(shown.stdout) if shown.returncode == 0 else None


def _is_ancestor(repo: Path, commit: str, rev: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", commit, rev],
                          cwd=repo).returncode == 0


def _verified_commits(repo: Path) -> set[str]:
    """Commits on any rgr branch that carry a handoff note without an error."""
    branches = git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/rgr/").split()
    out = git(repo, "log", f"--notes={NOTES}", "--format=%x1e%H%n%N", *branches)
    found = set()
    for record in out.split("\x1e")[1:]:
        commit, _, note = record.partition("\n")
        if note.strip() and not json.loads(note).get("error"):
            found.add(commit)
    return found


def _assert_nothing_left_behind(repo: Path) -> None:
    assert not (repo / INFLIGHT).exists(), (repo / INFLIGHT).read_text()
    assert not (repo / ".git" / "rgr" / "run.lock").exists()
    assert list((repo / ".git").rglob("*.lock")) == []
    assert git(repo, "status", "--porcelain") == ""
    subprocess.run(["git", "fsck", "--no-progress", "--no-dangling"], cwd=repo, check=True,
                   capture_output=True)
    assert_no_scratch(repo)
    assert_suite_green(repo)
