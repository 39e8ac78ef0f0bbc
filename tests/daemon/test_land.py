"""Landing a finished job through a shared bare remote, without an agent: real git, a
real job clone (rgr.daemon.workcopy), the real full-suite verification (`rgr verify
--full`, sealed), and the faults a fleet meets: a lost race, a protected base branch, a
base deleted or force-moved by a person, an unreachable remote, a push whose answer was
lost. The remote's base branch is read back from the remote itself every time."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from rgr.daemon import land
from rgr.daemon.hub import RemoteUnreachable
from rgr.daemon.queue import JobSpec
from rgr.daemon.workcopy import WorkCopy
from rgr.store.gitcli import Git, git_env
from rgr.store.handoff import HandoffState, Phase
from rgr.store.handoff_read import records
from tests.conftest import git, make_repo

CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
MUL = "\n\ndef mul(a, b):\n    return a * b\n"
TEST_MUL = "\n\ndef test_mul():\n    from calc import mul\n    assert mul(2, 3) == 6\n"


class Fleet:
    """A bare remote ``hub``, the daemon's clone ``a`` of it, a job clone of job 1
    (branch rgr/mul) with one commit, and a person's clone to move main with."""

    def __init__(self, tmp: Path) -> None:
        origin = make_repo(tmp, commits=0, name="origin")
        origin.commit("base", {"calc.py": CALC, "tests/test_calc.py": TESTS, "tdd.toml":
                               f'test_command = "{sys.executable} -m pytest -q -p '
                               'no:cacheprovider"\n'})
        self.tmp = tmp
        self.bare = tmp / "hub.git"
        git(tmp, "clone", "-q", "--bare", str(origin.path), str(self.bare))
        self.a = tmp / "a"
        self.person = tmp / "person"
        for clone in (self.a, self.person):
            git(tmp, "clone", "-q", "-o", "hub", str(self.bare), str(clone))
            git(clone, "config", "user.name", clone.name)
            git(clone, "config", "user.email", f"{clone.name}@example.com")
        self.first = self.tip()
        env = {**git_env(), "RGR_JOBS_DIR": str(tmp / "jobs")}
        self.main = Git(self.a, env)
        self.target = land.Target(self.main, self.a, "hub")
        self.said: list[str] = []

    def tip(self, ref: str = "main") -> str | None:
        done = git(self.bare, "rev-parse", "-q", "--verify", ref, check=False).strip()
        return done or None

    def job(self) -> WorkCopy:
        spec = JobSpec(id=1, kind="run", feature="mul", base="main", branch="rgr/mul")
        wc = WorkCopy(self.main, self.a / ".git", spec, str(self.bare))
        wc.prepare()
        return wc

    def commit_job(self, wc: WorkCopy) -> str:
        (wc.root / "calc.py").write_text(CALC + MUL)
        (wc.root / "tests" / "test_calc.py").write_text(TESTS + TEST_MUL)
        wc.git.out("commit", "-q", "-am", "feat: mul")
        wc.publish()
        return wc.git.out("rev-parse", "HEAD").strip()

    def person_pushes(self, name: str, text: str, force_from: str | None = None) -> str:
        """A person lands a commit on the remote's main (on ``force_from``: forced)."""
        p = self.person
        git(p, "fetch", "-q", "hub")
        git(p, "reset", "-q", "--hard", force_from or "hub/main")
        (p / name).write_text(text)
        git(p, "add", name)
        git(p, "commit", "-q", "-m", f"person: {name}")
        git(p, "push", "-q", *(["--force"] if force_from else []), "hub", "HEAD:main")
        return git(p, "rev-parse", "HEAD").strip()

    def land(self, wc: WorkCopy) -> land.Landed:
        return land.land(wc, self.target, self.main.env, self.said.append, "merge")

    def main_subjects(self) -> list[str]:
        return git(self.bare, "log", "--format=%s", "main").splitlines()


@pytest.fixture
def fleet(tmp_path: Path) -> Fleet:
    return Fleet(tmp_path)


def test_the_remotes_base_moves_to_the_verified_commit_and_nothing_else_moves(
        fleet: Fleet) -> None:
    """The regression of issue 26: the job clone's own main (the old tip) was pushed,
    the lease held, and "main fast-forwarded" was said while nothing moved."""
    wc = fleet.job()
    head = fleet.commit_job(wc)
    landed = fleet.land(wc)
    assert landed.ok, (landed.message, fleet.said)
    assert fleet.tip() == head == landed.commit
    assert landed.message == f"main on the remote hub is now {head[:8]} (read back)"
    # Only the remote's main moved: not the daemon's clone's main (nor its files), not
    # the job clone's own main.
    assert git(fleet.a, "rev-parse", "main").strip() == fleet.first
    assert (fleet.a / "calc.py").read_text() == CALC
    assert wc.git.out("rev-parse", "refs/heads/main").strip() == fleet.first
    fresh = fleet.tmp / "fresh"
    git(fleet.tmp, "clone", "-q", str(fleet.bare), str(fresh))
    assert (fresh / "calc.py").read_text() == CALC + MUL


def test_a_lost_race_rebases_verifies_again_and_lands_once(fleet: Fleet) -> None:
    wc = fleet.job()
    fleet.commit_job(wc)
    moved: list[str] = []

    def say(message: str) -> None:
        fleet.said.append(message)
        if message.startswith("verifying") and not moved:
            # Another machine lands first, between this verification and its push.
            moved.append(fleet.person_pushes("NOTES.md", "landed first\n"))

    landed = land.land(wc, fleet.target, fleet.main.env, say, "merge")
    assert landed.ok, (landed.message, fleet.said)
    assert "main moved on the remote hub while rgr/mul was verified: again" in fleet.said
    assert sum(s.startswith("verifying") for s in fleet.said) == 2
    assert fleet.tip() == landed.commit
    assert git(fleet.bare, "rev-parse", "main~1").strip() == moved[0]
    assert fleet.main_subjects().count("feat: mul") == 1


def test_a_protected_base_needs_attention_with_the_remotes_words(fleet: Fleet) -> None:
    hook = fleet.bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nwhile read old new ref; do\n"
                    "  [ \"$ref\" = refs/heads/main ] && echo 'main is protected here' >&2 "
                    "&& exit 1\ndone\nexit 0\n")
    hook.chmod(0o755)
    wc = fleet.job()
    head = fleet.commit_job(wc)  # the job's own branch is not protected: it is pushed
    landed = fleet.land(wc)
    assert not landed.ok
    assert "the remote hub refuses to move main (a protected branch or a hook)" in \
        landed.message
    assert "main is protected here" in landed.message
    assert "main is unchanged" in landed.message and "rgr queue retry 1" in landed.message
    assert fleet.tip() == fleet.first
    assert fleet.tip("rgr/mul") == head  # verified, and kept on the remote


def test_a_base_deleted_mid_run_needs_attention_naming_the_fix(fleet: Fleet) -> None:
    wc = fleet.job()
    head = fleet.commit_job(wc)
    git(fleet.bare, "update-ref", "-d", "refs/heads/main")
    landed = fleet.land(wc)
    assert not landed.ok
    assert "its base branch main no longer exists in the remote hub" in landed.message
    assert "`git push hub <commit>:refs/heads/main`" in landed.message
    assert "rgr queue retry 1" in landed.message
    assert fleet.tip() is None and fleet.tip("rgr/mul") == head


def test_a_base_force_moved_gets_only_the_jobs_own_commits(fleet: Fleet) -> None:
    removed = fleet.person_pushes("REMOVED.md", "a person's mistake\n")
    wc = fleet.job()  # the job starts on top of the commit that is about to go
    fleet.commit_job(wc)
    rewritten = fleet.person_pushes("KEPT.md", "rewritten\n", force_from=fleet.first)
    landed = fleet.land(wc)
    assert landed.ok, (landed.message, fleet.said)
    assert any("was force-moved from" in s and "only rgr/mul's own commits" in s
               for s in fleet.said), fleet.said
    tip = fleet.tip()
    assert tip == landed.commit
    history = git(fleet.bare, "rev-list", "main").split()
    assert rewritten in history and removed not in history
    assert git(fleet.bare, "show", f"{tip}:calc.py") == (CALC + MUL).rstrip("\n")
    assert "REMOVED.md" not in git(fleet.bare, "ls-tree", "--name-only", "main")


def test_an_unreachable_remote_during_the_push_lands_once_it_answers(fleet: Fleet) -> None:
    wc = fleet.job()
    fleet.commit_job(wc)
    away = fleet.tmp / "hub-away.git"

    def say(message: str) -> None:
        fleet.said.append(message)
        if message.startswith("verifying") and not away.exists():
            fleet.bare.rename(away)  # the network goes between verifying and pushing

    with pytest.raises(RemoteUnreachable):
        land.land(wc, fleet.target, fleet.main.env, say, "merge")
    away.rename(fleet.bare)
    assert fleet.tip() == fleet.first
    landed = fleet.land(fleet.job())  # the next worker's landing, from the same clone
    assert landed.ok, landed.message
    assert fleet.main_subjects().count("feat: mul") == 1


def test_a_push_whose_answer_was_lost_is_found_landed_not_landed_twice(
        fleet: Fleet) -> None:
    wc = fleet.job()
    fleet.commit_job(wc)
    assert fleet.land(wc).ok
    landed_at = fleet.tip()
    # The daemon died before it recorded the landing; the job is landed again.
    again = fleet.land(fleet.job())
    assert again.ok and again.commit == landed_at
    assert again.message.startswith("already in main: the remote hub holds")
    assert "(read back)" in again.message
    assert fleet.tip() == landed_at and fleet.main_subjects().count("feat: mul") == 1


def test_a_dirty_checked_out_base_is_left_alone(tmp_path: Path) -> None:
    """Without --remote the hub is the daemon's own repository: its checked-out base
    moves with its files only when the tree is clean."""
    repo = make_repo(tmp_path, commits=0, name="main")
    repo.commit("base", {"calc.py": CALC, "tests/test_calc.py": TESTS, "tdd.toml":
                         f'test_command = "{sys.executable} -m pytest -q -p no:cacheprovider"\n'})
    env = {**git_env(), "RGR_JOBS_DIR": str(tmp_path / "jobs")}
    main = Git(repo.path, env)
    spec = JobSpec(id=3, kind="run", feature="mul", base="main", branch="rgr/mul")
    wc = WorkCopy(main, repo.path / ".git", spec, str(repo.path))
    wc.prepare()
    (wc.root / "calc.py").write_text(CALC + MUL)
    wc.git.out("commit", "-q", "-am", "feat: mul")
    before = repo.rev("main")
    (repo.path / "tests" / "test_calc.py").write_text(TESTS + "# my edit\n")
    target = land.Target(main, repo.path, None)
    landed = land.land(wc, target, env, lambda m: None, "merge")
    assert not landed.ok
    assert "main is checked out in" in landed.message and "uncommitted changes" in \
        landed.message and "rgr queue retry 3" in landed.message
    assert repo.rev("main") == before
    assert (repo.path / "tests" / "test_calc.py").read_text() == TESTS + "# my edit\n"
    repo.git("checkout", "--", "tests/test_calc.py")
    landed = land.land(wc, target, env, lambda m: None, "merge")
    assert landed.ok and repo.rev("main") == wc.git.rev("HEAD") == landed.commit
    assert (repo.path / "calc.py").read_text() == CALC + MUL


def test_the_test_list_lists_each_landed_item_once(fleet: Fleet) -> None:
    """git's union merge of test-list.md keeps both the open and the ticked line of an
    item the job ticked while main's list grew: the landed list keeps the ticked one."""
    wc = fleet.job()
    for mark in (" ", "x"):
        (wc.root / "test-list.md").write_text(f"# Test list\n\n- [{mark}] mul\n")
        wc.git.out("add", "test-list.md")
        wc.git.out("commit", "-q", "-m", f"plan: mul [{mark}]")
    fleet.commit_job(wc)
    fleet.person_pushes("test-list.md", "# Test list\n\n- [x] sub\n")
    landed = fleet.land(wc)
    assert landed.ok, (landed.message, fleet.said)
    listing = git(fleet.bare, "show", "main:test-list.md").splitlines()
    assert "- [x] mul" in listing and "- [x] sub" in listing, listing
    assert "- [ ] mul" not in listing, listing
    assert fleet.main_subjects()[0] == \
        "rgr: test-list.md after landing on main: each done item once"
    assert any("open line(s) of items done" in s for s in fleet.said), fleet.said


def test_a_second_round_leaves_every_note_on_main_one_record(fleet: Fleet) -> None:
    """The note of two records the kube play of 2026-12-02 left on main: the first
    round rebases onto a main whose test list grew, tidies the list in a commit of
    rgr's own (noted with a copy of the job's handoff), and loses the race to another
    landing that adds a line to the list; the second round's rebase finds that tidy
    commit empty and drops it, and git hands its note to the commit before it, which
    has its own. git's default (notes.rewriteMode concatenate) joined the two."""
    wc = fleet.job()
    for mark, phase in ((" ", Phase.PLAN), ("x", Phase.COMPLETE)):
        (wc.root / "test-list.md").write_text(f"# Test list\n\n- [{mark}] mul\n")
        wc.git.out("add", "test-list.md")
        wc.git.out("commit", "-q", "-m", f"plan: mul [{mark}]")
        wc.git.out("notes", f"--ref={wc.notes_ref}", "add", "-m", HandoffState(
            phase=phase, branch="rgr/mul", summary=f"plan [{mark}]").to_json())
    wc.publish()
    fleet.person_pushes("test-list.md", "# Test list\n\n- [x] sub\n")
    moved: list[str] = []

    def say(message: str) -> None:
        fleet.said.append(message)
        if message.startswith("verifying") and not moved:
            moved.append(fleet.person_pushes("test-list.md",
                                             "# Test list\n\n- [x] sub\n- [x] div\n"))

    landed = land.land(wc, fleet.target, fleet.main.env, say, "merge")
    assert landed.ok, (landed.message, fleet.said)
    assert "main moved on the remote hub while rgr/mul was verified: again" in fleet.said
    assert sum("open line(s) of items done" in s for s in fleet.said) == 2, fleet.said
    wc.share_notes()
    listed = git(fleet.bare, "notes", "--ref=tdd-handoffs", "list").splitlines()
    on_main = set(git(fleet.bare, "rev-list", "main").split())
    texts = {c: git(fleet.bare, "notes", "--ref=tdd-handoffs", "show", c)
             for c in (line.split()[1] for line in listed) if c in on_main}
    assert len(texts) >= 3, texts  # the two plans and the landing's own note
    for commit, text in texts.items():
        assert len(records(text)) == 1, (commit, text)
    assert json.loads(texts[str(landed.commit)])["landing"]["verdict"] == "pass"


TRIPLE = "import calc\n\n\ndef triple(a):\n    return calc.add(calc.add(a, a), a)\n"
TEST_TRIPLE = "def test_triple():\n    from triple import triple\n    assert triple(2) == 6\n"
RENAMED = "def plus(a, b):\n    return a + b\n"
TESTS_RENAMED = "from calc import plus\n\n\ndef test_plus():\n    assert plus(1, 2) == 3\n"


def _landing(git_dir: Path, commit: str) -> dict[str, Any]:
    """The ``landing`` of ``commit``'s handoff note, read with the git CLI."""
    note = json.loads(git(git_dir, "notes", "--ref=tdd-handoffs", "show", commit))
    landing: dict[str, Any] = note["landing"]
    return landing


def test_a_merge_that_breaks_the_integrated_tree_does_not_land_and_names_the_test(
        fleet: Fleet) -> None:
    """Each side green, the union red: main renamed what the job's new code calls. The
    rebase is clean (no file in common); only running the integrated tree shows it."""
    wc = fleet.job()
    (wc.root / "triple.py").write_text(TRIPLE)
    (wc.root / "tests" / "test_triple.py").write_text(TEST_TRIPLE)
    wc.git.out("add", "-A")
    wc.git.out("commit", "-q", "-m", "feat: triple")
    wc.publish()
    job_tip = wc.git.rev("HEAD")
    person = fleet.person
    git(person, "fetch", "-q", "hub")
    (person / "calc.py").write_text(RENAMED)
    (person / "tests" / "test_calc.py").write_text(TESTS_RENAMED)
    git(person, "commit", "-q", "-am", "person: add is plus now")
    git(person, "push", "-q", "hub", "HEAD:main")
    moved = fleet.tip()
    landed = fleet.land(wc)
    assert not landed.ok
    assert moved is not None
    assert landed.message.startswith(
        f"the integrated tree (rgr/mul, rebase onto main at {moved[:8]}) does not pass; "
        "main is unchanged: failing on the integrated tree: tests/test_triple.py::test_triple")
    assert fleet.tip() == moved  # the base stayed where it was
    assert not any(s.startswith("main on") for s in fleet.said)
    # The verdict is noted on the integrated commit and published on the job's notes ref.
    head = wc.git.rev("HEAD")
    assert head is not None and head != job_tip
    landing = _landing(wc.root, head)
    assert landing["verdict"] == "fail" and landing["by"] == "daemon"
    assert landing["how"] == "rebase" and landing["baseTip"] == moved
    assert landing["jobTip"] == job_tip and landing["tip"] == head
    assert landing["tests"] == {**landing["tests"], "passed": 1, "failed": 1,
                                "failing": ["tests/test_triple.py::test_triple"]}
    assert git(fleet.bare, "rev-parse", wc.job_notes_ref).strip() == \
        wc.git.rev(wc.notes_ref)


def test_every_commit_rgr_adds_on_the_base_carries_a_landing_note(fleet: Fleet) -> None:
    """The job's branch lands with a commit of rgr's own on top (test-list.md tidied
    after the rebase): that commit, the one main ends on, has a handoff recording what
    was verified on it; the job's own noted commits keep theirs."""
    wc = fleet.job()
    (wc.root / "test-list.md").write_text("# Test list\n\n- [ ] mul\n")
    wc.git.out("add", "test-list.md")
    wc.git.out("commit", "-q", "-m", "plan: mul")
    fleet.commit_job(wc)
    (wc.root / "test-list.md").write_text("# Test list\n\n- [x] mul\n")
    wc.git.out("commit", "-q", "-am", "plan: done")
    done = wc.git.rev("HEAD")
    assert done is not None
    phase_note = {"phase": "COMPLETE", "nextPhase": None, "schemaVersion": 1,
                  "runId": "r-1", "completedTests": ["mul"],
                  "tests": {"passed": 2, "failed": 0}}
    wc.git.out("notes", "--ref=tdd-handoffs", "add", "-m", json.dumps(phase_note), done)
    wc.publish()
    base_tip = fleet.person_pushes("test-list.md", "# Test list\n\n- [x] sub\n")
    landed = fleet.land(wc)
    assert landed.ok, (landed.message, fleet.said)
    wc.share_notes()  # as the worker does once the job is landed
    tip = fleet.tip()
    assert tip == landed.commit
    added = git(fleet.bare, "log", "--format=%H %s", f"{base_tip}..main").splitlines()
    ours = [line.split()[0] for line in added if line.split()[1] == "rgr:"]
    assert ours == [tip], added  # the tidied test list, on top
    for commit in ours:
        landing = _landing(fleet.bare, commit)
        assert landing["verdict"] == "pass" and landing["tip"] == commit
        assert landing["into"] == "main" and landing["baseTip"] == base_tip
        assert landing["jobTip"] == done and landing["how"] == "rebase"
        assert landing["tests"]["passed"] == 2 and landing["tests"]["failing"] == []
        note = json.loads(git(fleet.bare, "notes", "--ref=tdd-handoffs", "show", commit))
        # rgr's own commit carries the job's handoff below it, not a phase's session.
        assert note["phase"] == "COMPLETE" and note["runId"] == "r-1" and note["agent"] is None
        assert landing["copiedFrom"] == git(fleet.bare, "rev-parse", "main~1").strip()
    # The job's own noted commit kept its note through the rebase (notes.rewriteRef).
    rebased_done = git(fleet.bare, "rev-parse", "main~1").strip()
    kept = json.loads(git(fleet.bare, "notes", "--ref=tdd-handoffs", "show", rebased_done))
    assert kept["completedTests"] == ["mul"] and kept.get("landing") is None
    assert "rgr: landing on main" in git(fleet.bare, "log", "--format=%B", "-1",
                                         "refs/notes/tdd-handoffs")
