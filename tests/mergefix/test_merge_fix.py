"""The daemon's merge fix without an agent: the conflicted merge state a fixer session
starts from (a real scratch copy), the checks that judge a fix (real commits made with
the git CLI, as a fixer's `git commit` makes them), and the integration that calls the
fixer (a real job clone; the fixer, an agent session, replaced by a stand-in)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pygit2
import pytest

from rgr.base.config import load_config
from rgr.base.proc import Completed
from rgr.check.gate import CommandResult, GateResult
from rgr.check.mergefix_checks import check_merge_commits, check_merge_scope, check_merge_tests
from rgr.check.verify import TestOutcome, TestReport
from rgr.daemon import land
from rgr.daemon.queue import JobSpec
from rgr.daemon.workcopy import WorkCopy
from rgr.store import git as rgit
from rgr.store import merging, scratch
from rgr.store.gitcli import Git, git_env
from rgr.store.handoff import HandoffState, MergeFixNote, Phase
from rgr.store.notes import NotesStore
from tests.conftest import Repo, RunRgr, git, make_repo

CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
SUB = "\n\ndef sub(a, b):\n    return a - b\n"
MUL = "\n\ndef mul(a, b):\n    return a * b\n"
TEST_SUB = "\n\ndef test_sub():\n    from calc import sub\n    assert sub(3, 1) == 2\n"
TEST_MUL = "\n\ndef test_mul():\n    from calc import mul\n    assert mul(2, 3) == 6\n"
#: The honest resolution of both conflicts: both sides' functions and tests.
RESOLVED = {"calc.py": CALC + SUB + MUL, "tests/test_calc.py": TESTS + TEST_SUB + TEST_MUL}


def conflicting(tmp_path: Path) -> tuple[Repo, str, str]:
    """main and job both append to calc.py and tests/test_calc.py: (repo, base tip, job
    tip), main checked out."""
    repo = make_repo(tmp_path, commits=0)
    repo.commit("base", {"calc.py": CALC, "tests/test_calc.py": TESTS,
                         "test-list.md": "# Test list\n"})
    repo.git("checkout", "-q", "-b", "job")
    job = repo.commit("feat: mul", {"calc.py": CALC + MUL, "tests/test_calc.py": TESTS + TEST_MUL,
                                    "test-list.md": "# Test list\n- [x] mul\n"})
    repo.git("checkout", "-q", "main")
    base = repo.commit("feat: sub", {"calc.py": CALC + SUB,
                                     "tests/test_calc.py": TESTS + TEST_SUB,
                                     "test-list.md": "# Test list\n- [x] sub\n"})
    (repo.path / ".git" / "info" / "attributes").write_text("/test-list.md merge=union\n")
    return repo, base, job


def merge_commit(repo: Repo, job: str, files: dict[str, str], message: str = "merge-fix: x",
                 remove: tuple[str, ...] = ()) -> str:
    """What a fixer's session leaves: git's merge of the job, resolved with ``files``."""
    repo.git("merge", "--no-commit", "-q", job, check=False)
    for name, text in files.items():
        (repo.path / name).parent.mkdir(parents=True, exist_ok=True)
        (repo.path / name).write_text(text)
        repo.git("add", name)
    for name in remove:
        repo.git("rm", "-q", "-f", name)
    repo.git("commit", "-q", "-m", message)
    return repo.head()


def oid(text: str) -> pygit2.Oid:
    return pygit2.Oid(hex=text)


def scope(repo: Repo, base: str, job: str, head: str) -> list[str]:
    pyrepo = pygit2.Repository(str(repo.path))
    merged = merging.auto_merge(pyrepo, oid(base), oid(job))
    config = load_config(repo.path, env={})
    return [v.rule for v in check_merge_scope(pyrepo, config, oid(base), oid(job), oid(head),
                                              merged)]


def test_auto_merge_names_the_conflicts_and_unions_the_test_list(tmp_path: Path) -> None:
    repo, base, job = conflicting(tmp_path)
    merged = merging.auto_merge(pygit2.Repository(str(repo.path)), oid(base), oid(job))
    assert merged.conflicts == ("calc.py", "tests/test_calc.py")
    assert "test-list.md" in merged.blobs  # rgr's union driver merged it


def test_a_fixer_starts_from_the_conflicted_merge_and_its_commit_is_a_merge(
        tmp_path: Path) -> None:
    repo, base, job = conflicting(tmp_path)
    pyrepo = pygit2.Repository(str(repo.path))
    made = scratch.make_scratch(pyrepo, pyrepo[oid(base)].peel(pygit2.Commit), "main",
                                tmp_path / "scratch", rgit.signature(pyrepo))
    merging.prepare_merge(made, pyrepo, oid(job), "merge-fix: merge job into main\n")
    calc = (made.work / "calc.py").read_text()
    assert "<<<<<<<" in calc and "def sub" in calc and "def mul" in calc
    assert (made.work / "test-list.md").read_text().count("- [x]") == 2
    assert (made.git_dir / "MERGE_HEAD").read_text().strip() == job
    # The agent resolves, adds and commits; its commit merges both parents.
    for name, text in RESOLVED.items():
        (made.work / name).write_text(text)
    git(made.work, "add", "-A")
    git(made.work, "commit", "-q", "--no-edit")
    head = scratch.import_branch(pyrepo, made, oid(base))
    assert [str(p) for p in pyrepo[head].peel(pygit2.Commit).parent_ids] == [base, job]
    assert check_merge_commits(pyrepo, oid(base), oid(job), head, ["merge-fix:"]) == []
    assert scope(repo, base, job, str(head)) == []


def test_commits_must_merge_the_job_onto_the_base_tip_with_the_prefix(tmp_path: Path) -> None:
    repo, base, job = conflicting(tmp_path)
    pyrepo = pygit2.Repository(str(repo.path))

    def rules(head: str) -> list[str]:
        return [v.rule for v in check_merge_commits(pyrepo, oid(base), oid(job), oid(head),
                                                    ["merge-fix:"])]

    assert rules(base) == ["no-commit"]
    # Only the job's change copied onto the base, not merged: the job's history is lost.
    repo.git("checkout", "-q", "-b", "copy", base)
    copied = repo.commit("merge-fix: copied", RESOLVED)
    assert rules(copied) == ["job-not-merged"]
    repo.git("checkout", "-q", "-b", "rewritten", job)
    assert rules(repo.commit("merge-fix: on the job only", {"x.py": "x = 1\n"})) == \
        ["history-rewritten"]
    repo.git("checkout", "-q", "main")
    assert rules(merge_commit(repo, job, RESOLVED, message="wip")) == ["commit-prefix"]


@pytest.mark.parametrize(("files", "remove", "expected"), [
    (RESOLVED, (), []),
    # The base's new test dropped from the merged file.
    ({**RESOLVED, "tests/test_calc.py": TESTS + TEST_MUL}, (), ["test-weakened"]),
    # An assertion of the job's test cut.
    ({**RESOLVED, "tests/test_calc.py": TESTS + TEST_SUB + TEST_MUL.replace(
        "    assert mul(2, 3) == 6\n", "")}, (), ["test-weakened"]),
    ({**RESOLVED, "tests/test_calc.py": TESTS + TEST_SUB + "\n\n@pytest.mark.skip\n"
      + TEST_MUL.strip() + "\n"}, (), ["skip-marker"]),
    ({**RESOLVED, "conftest.py": "collect_ignore = ['tests']\n"}, (), ["test-infra-changed"]),
    ({**RESOLVED, "tdd.toml": "max_retries = 9\n"}, (), ["protected-file"]),
    ({**RESOLVED, ".gitignore": "tdd.toml\n"}, (), ["hides-configuration"]),
    ({**RESOLVED, "calc.py": CALC + SUB + MUL + "import atexit\n"}, (),
     ["hooks-test-framework"]),
    (RESOLVED, ("tests/test_calc.py",), ["test-file-removed"]),
])
def test_what_the_fixer_wrote_is_judged_by_the_phase_rules(
        tmp_path: Path, files: dict[str, str], remove: tuple[str, ...],
        expected: list[str]) -> None:
    repo, base, job = conflicting(tmp_path)
    head = merge_commit(repo, job, files, remove=remove)
    assert scope(repo, base, job, head) == expected


def test_a_line_one_side_removed_may_go(tmp_path: Path) -> None:
    """Merged, not frozen: the job deleted test_add's assertion line on purpose and
    main appended a test; the merge may leave the deleted line out."""
    repo = make_repo(tmp_path, commits=0)
    repo.commit("base", {"calc.py": CALC, "tests/test_calc.py": TESTS})
    repo.git("checkout", "-q", "-b", "job")
    changed = TESTS.replace("add(1, 2) == 3", "add(2, 2) == 4")
    job = repo.commit("feat", {"tests/test_calc.py": changed + TEST_MUL,
                               "calc.py": CALC + MUL})
    repo.git("checkout", "-q", "main")
    base = repo.commit("feat", {"tests/test_calc.py": TESTS + TEST_SUB, "calc.py": CALC + SUB})
    head = merge_commit(repo, job, {"calc.py": CALC + SUB + MUL,
                                    "tests/test_calc.py": changed + TEST_SUB + TEST_MUL})
    assert scope(repo, base, job, head) == []


def report(**statuses: str) -> TestReport:
    outcomes = {i: TestOutcome(i, None, s, "") for i, s in statuses.items()}  # type: ignore[arg-type]
    failed = any(s in ("failed", "error") for s in statuses.values())
    return TestReport(("pytest",), 1 if failed else 0, 0.1, False, outcomes, (), False, "")


def test_every_test_that_passed_on_either_side_still_passes() -> None:
    base = report(t_add="passed", t_sub="passed")
    job = report(t_add="passed", t_mul="passed", t_flaky="failed")
    rules = lambda after: [v.rule for v in check_merge_tests(  # noqa: E731
        base, job, GateResult("full", after))]
    assert rules(report(t_add="passed", t_sub="passed", t_mul="passed")) == []
    assert rules(report(t_add="passed", t_sub="passed")) == ["test-removed"]
    assert rules(report(t_add="passed", t_sub="skipped", t_mul="passed")) == ["test-weakened"]
    assert rules(report(t_add="passed", t_sub="failed", t_mul="passed")) == ["tests-fail"]
    lint = CommandResult("ruff check .", 1, 0.1, False, "E501 line too long")
    failed = check_merge_tests(base, job, GateResult(
        "full", report(t_add="passed", t_sub="passed", t_mul="passed"), [lint]))
    assert [v.rule for v in failed] == ["gate-command-failed"] and "E501" in failed[0].message


# -------------------------------------------------------------- the integration --


def job_clone(tmp_path: Path) -> tuple[Repo, WorkCopy, Git]:
    """A job whose branch conflicts with a commit that landed on main meanwhile."""
    repo = make_repo(tmp_path, commits=0, name="main")
    repo.commit("base", {"calc.py": CALC, "tests/test_calc.py": TESTS, "tdd.toml":
                         f'test_command = "{sys.executable} -m pytest -q -p no:cacheprovider"\n'})
    env = {**git_env(), "RGR_JOBS_DIR": str(tmp_path / "jobs")}
    main = Git(repo.path, env)
    spec = JobSpec(id=1, kind="run", feature="mul", base="main", branch="rgr/mul")
    wc = WorkCopy(main, repo.path / ".git", spec, str(repo.path))
    wc.prepare()
    (wc.root / "calc.py").write_text(CALC + MUL)
    wc.git.out("commit", "-q", "-am", "feat: mul")
    repo.commit("feat: sub", {"calc.py": CALC + SUB})
    return repo, wc, main


def test_a_conflict_without_fixer_tries_needs_attention(tmp_path: Path) -> None:
    repo, wc, main = job_clone(tmp_path)
    before = repo.rev("main")
    called: list[list[str]] = []

    def never(argv: list[str]) -> Completed:
        called.append(argv)
        raise AssertionError("no fixer with 0 tries")

    landed = land.land(wc, land.Target(main, repo.path, None), main.env, lambda m: None, "merge",
                       fixer=land.Fixer(0, never))
    assert not landed.ok and called == []
    assert "conflicts in calc.py; main is unchanged" in landed.message
    assert repo.rev("main") == before


def test_a_failed_fix_names_the_conflict_and_leaves_the_base(tmp_path: Path) -> None:
    repo, wc, main = job_clone(tmp_path)
    before, job_tip = repo.rev("main"), wc.git.rev("HEAD")
    called: list[list[str]] = []

    def failing(argv: list[str]) -> Completed:
        called.append(argv)
        return Completed(tuple(argv), 1, "", "rgr: error: the merge-fixer could not merge "
                         "rgr/mul onto main", 0.1)

    landed = land.land(wc, land.Target(main, repo.path, None), main.env, lambda m: None, "merge",
                       fixer=land.Fixer(3, failing))
    assert not landed.ok
    assert called == [["fix-merge", "--onto", before, "--into", "main", "--tries", "3"]]
    assert "conflicts in calc.py; main is unchanged" in landed.message
    assert "the merge-fixer could not merge" in landed.message
    assert repo.rev("main") == before
    # The job's clone is back on its own tip, no rebase or merge in progress.
    assert wc.git.rev("HEAD") == job_tip and wc.git.out("status", "--porcelain") == ""


def test_show_and_history_read_a_merge_fix_note(tmp_path: Path, run_rgr: RunRgr) -> None:
    repo, base, job = conflicting(tmp_path)
    head = merge_commit(repo, job, RESOLVED)
    note = HandoffState(
        phase=Phase.COMPLETE, cycle_number=2, run_id="r1", feature="mul", branch="job",
        summary="merge fix: kept both", merge_fix=MergeFixNote(
            into="main", base_tip=base, job_tip=job, conflicts=["calc.py"], attempt=2,
            tries=2))
    NotesStore(pygit2.Repository(str(repo.path))).write(head, note)
    code, out, err = run_rgr(["show"], repo.path)
    assert code == 0, err
    assert f"resolved: onto main at {base[:8]}, conflicts in calc.py (attempt 2 of 2)" in out
    code, out, err = run_rgr(["history", "--json"], repo.path)
    assert code == 0, err
    assert [h["commit"] for h in json.loads(out)] == [head]


def test_fix_merge_bad_input(tmp_path: Path, run_rgr: RunRgr) -> None:
    repo, base, job = conflicting(tmp_path)
    repo.git("checkout", "-q", "job")
    code, _, err = run_rgr(["fix-merge", "--onto", "nowhere", "--into", "main"], repo.path)
    assert code == 1 and "nowhere" in err, err
    code, _, err = run_rgr(["fix-merge", "--onto", base, "--into", "main"], repo.path)
    assert code == 1 and "job has no valid handoff note" in err, err
    code, out, err = run_rgr(["fix-merge", "--onto", job, "--into", "main"], repo.path)
    assert code == 0 and "nothing to fix" in out, out + err
    (repo.path / "calc.py").write_text("dirty\n")
    code, _, err = run_rgr(["fix-merge", "--onto", base, "--into", "main"], repo.path)
    assert code == 1 and "uncommitted changes" in err, err
    assert repo.rev("job") == job and repo.rev("main") == base


def test_a_fixed_job_lands_and_a_base_that_moves_again_is_merged_in(tmp_path: Path) -> None:
    repo, wc, main = job_clone(tmp_path)
    said: list[str] = []

    def fixer(argv: list[str]) -> Completed:
        # Stand-in for the agent's session: what an accepted fix leaves in the clone (the
        # job's branch moved to a merge onto the base tip) ...
        onto = argv[argv.index("--onto") + 1]
        wc.git.run("merge", "--no-commit", "-q", onto)
        (wc.root / "calc.py").write_text(CALC + SUB + MUL)
        wc.git.out("commit", "-q", "-am", "merge-fix: both")
        # ... while someone lands unrelated work on main.
        repo.commit("docs", {"NOTES.md": "more\n"})
        return Completed(tuple(argv), 0, "", "", 0.1)

    landed = land.land(wc, land.Target(main, repo.path, None), main.env, said.append, "merge",
                       fixer=land.Fixer(2, fixer))
    assert landed.ok, (landed.message, said)
    assert any(s.startswith("merging rgr/mul onto main") for s in said), said
    tip = repo.rev("main")
    assert tip == wc.git.rev("HEAD") == landed.commit
    assert landed.message == f"main on this repository is now {tip[:8]} (read back)"
    # Both merges are on main: the fix and the base that moved again, nothing flattened.
    # (Read through the tip's parents: `git log` orders by commit time, and these commits
    # can share one second.)
    parents = repo.git("rev-list", "--parents", "-n", "1", "main").split()[1:]
    assert {repo.git("log", "-1", "--format=%s", p).strip() for p in parents} == {
        "merge-fix: both", "docs"}
    assert "feat: mul" in repo.git("log", "--format=%s", "main").splitlines()
    assert (repo.path / "calc.py").read_text() == CALC + SUB + MUL


def test_a_fix_a_killed_daemon_had_not_pushed_lands_after_a_restart(tmp_path: Path) -> None:
    repo, wc, main = job_clone(tmp_path)
    # The fix was accepted in the job's clone, then the daemon died before pushing it.
    wc.git.out("fetch", "-q", "origin", "+refs/heads/main:refs/remotes/origin/main")
    wc.git.run("merge", "--no-commit", "-q", "origin/main")
    (wc.root / "calc.py").write_text(CALC + SUB + MUL)
    wc.git.out("commit", "-q", "-am", "merge-fix: both")
    fixed = wc.git.rev("HEAD")
    again = WorkCopy(main, repo.path / ".git", wc.spec, str(repo.path))
    again.prepare()  # the restarted worker's view of the same clone
    landed = land.land(again, land.Target(main, repo.path, None), main.env, lambda m: None, "merge")
    assert landed.ok, landed.message
    assert repo.rev("main") == fixed
