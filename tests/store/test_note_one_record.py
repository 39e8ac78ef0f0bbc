"""A handoff note is one JSON record, always: where two writers changed one commit's
note, the notes sync keeps one of the two (rgr.daemon.remote.one_record); a rebase that
carries a note onto a commit holding one leaves that one (rgr.daemon.workcopy); and a
note an older rgr let git join from several records is read as its last valid record,
said so by `rgr show`/`rgr status`, and kept alone by `rgr repair-notes --apply`.
Real git repositories (a bare hub and clones), no agent."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rgr.daemon import remote
from rgr.daemon.workcopy import notes_rewrite
from rgr.store.gitcli import Git, git_env
from rgr.store.handoff import HandoffState, InvalidNote, LandingNote, Phase, parse_note
from rgr.store.handoff_read import joined_note, read_plain, records
from rgr.store.handoff_state import read_state
from tests.conftest import Repo, RunRgr, git, make_repo

NOTES = "refs/notes/tdd-handoffs"


def note(phase: Phase, summary: str, **fields: object) -> str:
    return HandoffState(phase=phase, summary=summary, **fields).to_json()  # type: ignore[arg-type]


def landed(text: str, commit: str) -> str:
    """``text``'s handoff with the landing verdict added, as rgr.branches.landing writes it."""
    state = parse_note(text)
    return state.updated(landing=LandingNote(
        into="main", base_tip=commit, job_tip=commit, tip=commit,
        verified_at=state.finished_at)).to_json()


def phase_note(summary: str) -> str:
    return HandoffState(phase=Phase.GREEN, next_phase=Phase.REFACTOR, summary=summary,
                        branch="rgr/a", finished_at=datetime(2026, 12, 2, 1, 0, tzinfo=UTC)
                        ).to_json()


def test_a_note_git_joined_is_read_as_its_last_valid_record() -> None:
    first, second = note(Phase.PLAN, "first"), note(Phase.RED, "second")
    joined = first + "\n" + second  # notes.rewriteMode=concatenate's joint
    assert len(records(joined)) == 2
    assert parse_note(joined).summary == "second"
    plain = read_plain(joined)
    assert plain is not None and plain["summary"] == "second"
    state, problem = read_state(joined)
    assert problem is None and state is not None and state["phase"] == "RED"
    said = joined_note(joined)
    assert said is not None and "2 handoff records" in said and "repair-notes" in said
    # The last record not a handoff: the last one that is.
    assert parse_note(joined + '\n{"not": "a handoff"}\n').summary == "second"
    # One record, or no sequence of records at all (a note whose lines a merge sorted).
    assert joined_note(first) is None and records(first) == [json.loads(first)]
    scrambled = "\n".join(sorted(set(joined.splitlines())))
    assert records(scrambled) == [] and joined_note(scrambled) is None
    with pytest.raises(InvalidNote, match="not JSON"):
        parse_note(scrambled)
    with pytest.raises(InvalidNote, match="2 records joined in one note, none"):
        parse_note('{"a": 1}\n{"b": 2}\n')


def hub_and_clones(tmp_path: Path) -> tuple[Path, list[Git], str]:
    origin = make_repo(tmp_path, name="origin")
    bare = tmp_path / "hub.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin.path), str(bare))
    clones = []
    for name in ("a", "b"):
        git(tmp_path, "clone", "-q", "-o", "hub", str(bare), str(tmp_path / name))
        for key, value in (("user.name", name), ("user.email", f"{name}@example.com")):
            git(tmp_path / name, "config", key, value)
        clones.append(Git(tmp_path / name, git_env()))
    return bare, clones, git(bare, "rev-parse", "main").strip()


@pytest.mark.parametrize("landing_side", [0, 1])
def test_two_writers_changing_one_commits_note_leave_one_record(
        tmp_path: Path, landing_side: int) -> None:
    """Both clones have the commit's phase note from the hub; one adds its landing
    verdict, the other writes another version (a later finish): whichever side syncs
    second, the hub ends with one record, the landed one."""
    bare, clones, commit = hub_and_clones(tmp_path)
    first = phase_note("the phase")
    clones[0].out("notes", f"--ref={NOTES}", "add", "-m", first, commit)
    remote.sync_notes(clones[0], "hub")
    remote.sync_notes(clones[1], "hub")
    versions = [landed(first, commit),
                first.replace("2026-12-02T01:00:00Z", "2026-12-02T01:05:00Z")]
    if landing_side:
        versions.reverse()
    for clone, text in zip(clones, versions, strict=True):
        clone.out("notes", f"--ref={NOTES}", "add", "-f", "-m", text, commit)
    remote.sync_notes(clones[0], "hub")
    remote.sync_notes(clones[1], "hub")  # both changed it since the merge base: a conflict
    for where in (bare, clones[0].cwd, clones[1].cwd):
        if where != bare:
            remote.sync_notes(Git(where, git_env()), "hub")
        text = git(where, "notes", f"--ref={NOTES}", "show", commit)
        assert len(records(text)) == 1, text
        assert json.loads(text)["landing"]["verdict"] == "pass"
    left = clones[1].cwd / ".git" / "NOTES_MERGE_WORKTREE"  # (git leaves it, empty)
    assert not (left.exists() and any(left.iterdir()))
    assert not (clones[1].cwd / ".git" / "NOTES_MERGE_PARTIAL").exists()


def test_a_rebase_dropping_a_commit_leaves_the_note_before_it_one_record(
        tmp_path: Path) -> None:
    """The job's last commit is already on the base (its change landed by another
    way): the rebase drops it, and git hands its note to the commit before it, which
    keeps its own."""
    repo = make_repo(tmp_path)
    g = Git(repo.path, git_env())
    for key, value in notes_rewrite(NOTES):
        g.out("config", key, value)
    repo.git("checkout", "-q", "-b", "job")
    kept = repo.commit("feat: g", {"g.py": "g = 1\n"})
    repo.git("notes", f"--ref={NOTES}", "add", "-m", note(Phase.GREEN, "green"), kept)
    dropped = repo.commit("refactor: h", {"h.py": "h = 1\n"})
    repo.git("notes", f"--ref={NOTES}", "add", "-m", note(Phase.REFACTOR, "refactor"), dropped)
    repo.git("checkout", "-q", "main")
    repo.commit("feat: h and i", {"h.py": "h = 1\n", "i.py": "i = 1\n"})
    repo.git("checkout", "-q", "job")
    repo.git("rebase", "-q", "main")
    assert repo.git("log", "--format=%s", "main..job").splitlines() == ["feat: g"]
    text = repo.git("notes", f"--ref={NOTES}", "show", "job")
    assert len(records(text)) == 1 and json.loads(text)["summary"] == "green"


def joined_repo(tmp_path: Path) -> tuple[Repo, str]:
    repo = make_repo(tmp_path)
    head = repo.git("rev-parse", "HEAD").strip()
    text = note(Phase.PLAN, "first", next_phase=Phase.RED) + "\n" + \
        note(Phase.RED, "second", next_phase=Phase.GREEN)
    repo.git("notes", f"--ref={NOTES}", "add", "-m", text, head)
    return repo, head


def test_show_status_and_repair_notes_on_a_joined_note(tmp_path: Path,
                                                       run_rgr: RunRgr) -> None:
    repo, head = joined_repo(tmp_path)
    code, out, err = run_rgr(["show"], repo.path)
    assert code == 0, err
    assert "second" in out and "first" not in out
    assert "2 handoff records" in out and "the last valid one is read" in out
    code, out, err = run_rgr(["show", "--json"], repo.path)
    assert code == 0 and json.loads(out)["summary"] == "second", err
    code, out, err = run_rgr(["status"], repo.path)
    assert code == 0 and "2 handoff records" in out, out + err
    code, out, err = run_rgr(["history"], repo.path)
    assert code == 0, err
    code, out, err = run_rgr(["repair-notes"], repo.path)
    assert code == 1 and "joined" in out, out + err
    code, out, err = run_rgr(["repair-notes", "--apply"], repo.path)
    assert code == 0 and "[fixed] joined" in out, out + err
    text = repo.git("notes", f"--ref={NOTES}", "show", head)
    assert len(records(text)) == 1 and json.loads(text)["summary"] == "second"
    whole = repo.git("notes", f"--ref={NOTES}-attic", "show", head)
    assert len(records(whole)) == 2
    code, out, err = run_rgr(["repair-notes"], repo.path)
    assert code == 0 and "no problems found" in out, out + err
