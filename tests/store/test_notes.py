"""NotesStore against real repositories, cross-checked with the git CLI both ways:
what rgr writes git reads, what git writes (flat or fan-out) rgr reads."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pygit2
import pytest

from rgr.base.errors import NotesError
from rgr.store import notes as notes_module
from rgr.store.handoff import HandoffState, Phase, TestCase, parse_note
from rgr.store.notes import FLAT_MIGRATION_THRESHOLD, NotesStore
from tests.conftest import NOTES_REF, REPO_ROOT, Repo, clean_env, fast_commits, make_repo, note_json


def store_of(repo: Repo, ref: str = NOTES_REF) -> NotesStore:
    return NotesStore(pygit2.Repository(str(repo.path)), ref)


def state(phase: Phase = Phase.PLAN, cycle: int = 1, description: str = "adds") -> HandoffState:
    return HandoffState(
        phase=phase, cycle_number=cycle, current_test=TestCase(description=description),
        schema_version=1, run_id="run-1",
    )


def git_log_notes(repo: Repo, *revs: str) -> dict[str, str]:
    """commit -> note text for every noted commit ``git log --notes`` shows."""
    out = repo.git("log", f"--notes={NOTES_REF}", "--format=%x00%H%n%N", *revs)
    notes = {}
    for record in out.split("\x00"):
        head, _, body = record.partition("\n")
        if head and body.strip():
            notes[head] = body.strip()
    return notes


def load_bench_build() -> Callable[[Path, int], None]:
    """bench/make_repo.py's ``build``: N commits and N notes in git's own fan-out layout."""
    path = REPO_ROOT / "bench" / "make_repo.py"
    spec = importlib.util.spec_from_file_location("bench_make_repo", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    build: Callable[[Path, int], None] = module.build
    return build


def flat_notes(repo: Repo, notes: dict[str, str]) -> None:
    """Point the notes ref at one flat tree holding ``notes`` (as git lays out few notes,
    here at any size): blobs and tree made by git itself."""
    blob_dir = repo.path.parent / "blobs"
    blob_dir.mkdir()
    paths = []
    for commit, text in notes.items():
        path = blob_dir / commit
        path.write_text(text)
        paths.append(str(path))
    blobs = repo.git("hash-object", "-w", "--stdin-paths",
                     input="\n".join(paths).encode()).splitlines()
    listing = "".join(f"100644 blob {b}\t{c}\n" for b, c in zip(blobs, notes, strict=True))
    tree = repo.git("mktree", input=listing.encode())
    commit = repo.git("commit-tree", tree, "-m", "flat notes")
    repo.git("update-ref", NOTES_REF, commit)


# ---------------------------------------------------------------------- basics


def test_write_read_remove(repo: Repo) -> None:
    store = store_of(repo)
    head = repo.head()
    assert store.tip() is None
    assert store.read(head) is None
    assert store.all() == {}
    assert store.latest_reachable(head) is None

    store.write(head, state(Phase.RED, 2))
    record = store.read(head)
    assert record is not None and record.problem is None and record.state is not None
    assert record.state.phase is Phase.RED and record.state.cycle_number == 2

    store.write(head, state(Phase.GREEN, 2))  # replaces
    record = store.read(head)
    assert record is not None and record.state is not None
    assert record.state.phase is Phase.GREEN
    assert list(store.all()) == [head]

    assert store.remove(head, "drop it") is True
    assert store.read(head) is None
    assert store.remove(head, "again") is False
    assert repo.git("notes", f"--ref={NOTES_REF}", "list") == ""
    # nothing is lost: the removed note is still in the notes ref's own history
    assert "GREEN" in repo.git("show", f"{NOTES_REF}~1:{head[:2]}/{head[2:]}")


def test_write_refuses_an_abbreviated_commit_id(repo: Repo) -> None:
    with pytest.raises(NotesError, match="full commit id"):
        store_of(repo).write(repo.head()[:12], state())


def test_git_cli_reads_what_rgr_wrote(repo: Repo) -> None:
    store = store_of(repo)
    first, head = repo.rev("HEAD~2"), repo.head()
    store.write(first, state(Phase.PLAN))
    store.write(head, state(Phase.RED, description="it's \"quoted\" ünïcode"))

    shown = repo.show_note(head)
    assert parse_note(shown) == state(Phase.RED, description="it's \"quoted\" ünïcode")
    assert shown + "\n" == state(Phase.RED, description="it's \"quoted\" ünïcode").to_json()
    assert json.loads(shown)["currentTest"]["description"] == "it's \"quoted\" ünïcode"

    logged = git_log_notes(repo)
    assert set(logged) == {first, head}
    assert json.loads(logged[first])["phase"] == "PLAN"
    assert {c for _, c in repo.notes_list()} == {first, head}
    # the notes commit is an ordinary commit git can walk
    assert repo.git("rev-list", "--count", NOTES_REF) == "2"


def test_rgr_reads_flat_notes_written_by_the_git_cli(repo: Repo) -> None:
    commits = repo.git("rev-list", "HEAD").splitlines()
    texts = {c: note_json("PLAN", cycleNumber=i) for i, c in enumerate(commits)}
    for commit, text in texts.items():
        repo.note_cli(commit, text)
    assert all(kind == "blob" and len(name) == 40 for kind, name in repo.root_entries())

    store = store_of(repo)
    records = store.all()
    assert set(records) == set(commits)
    for i, commit in enumerate(commits):
        record = store.read(commit)
        assert record is not None and record.state is not None
        assert record.state.cycle_number == i
        assert records[commit].state == record.state


def test_rgr_overwrites_a_flat_git_note_in_place_and_git_agrees(repo: Repo) -> None:
    c0, c1, c2 = repo.git("rev-list", "--reverse", "HEAD").splitlines()
    repo.note_cli(c0, note_json("PLAN"))
    repo.note_cli(c1, note_json("RED"))
    store = store_of(repo)

    store.write(c0, state(Phase.GREEN))  # git wrote c0's note flat
    store.write(c2, state(Phase.REFACTOR))  # a new note next to the flat ones

    listed = [c for _, c in repo.notes_list()]
    assert sorted(listed) == sorted([c0, c1, c2])  # one line each: no duplicate for c0
    assert json.loads(repo.show_note(c0))["phase"] == "GREEN"
    assert json.loads(repo.show_note(c1))["phase"] == "RED"
    assert json.loads(repo.show_note(c2))["phase"] == "REFACTOR"
    assert set(git_log_notes(repo)) == {c0, c1, c2}

    # and git writing over rgr's note: still one entry, and rgr sees git's text
    repo.note_cli(c2, note_json("COMPLETE"))
    assert sorted(c for _, c in repo.notes_list()) == sorted([c0, c1, c2])
    record = store_of(repo).read(c2)
    assert record is not None and record.state is not None
    assert record.state.phase is Phase.COMPLETE


def test_rgr_reads_and_writes_gits_fan_out_layout(tmp_path: Path) -> None:
    path = tmp_path / "fanout"
    load_bench_build()(path, 320)
    repo = Repo(path)
    roots = repo.root_entries()
    assert roots and all(kind == "tree" and len(name) == 2 for kind, name in roots), roots

    listed = {c: blob for blob, c in repo.notes_list()}
    assert len(listed) == 320
    store = store_of(repo)
    records = store.all()
    assert set(records) == set(listed)
    assert all(r.state is not None for r in records.values())
    sample = sorted(listed)[:5]
    for commit in sample:
        record = store.read(commit)
        assert record is not None
        assert record.text.strip() == repo.show_note(commit)

    # rgr replaces one of git's fan-out notes and adds one on a new commit
    target = sample[0]
    store.write(target, state(Phase.COMPLETE, 99))
    repo.git("config", "user.name", "T")
    repo.git("config", "user.email", "t@example.com")
    new = repo.commit("after the bench")
    store.write(new, state(Phase.PLAN, 100))

    after = repo.notes_list()
    commits_listed = [c for _, c in after]
    assert len(commits_listed) == len(set(commits_listed)) == 321
    assert json.loads(repo.show_note(target))["cycleNumber"] == 99
    assert json.loads(repo.show_note(new))["cycleNumber"] == 100
    unchanged = {c: b for b, c in after if c not in (target, new)}
    assert unchanged == {c: b for c, b in listed.items() if c != target}


def test_a_big_flat_tree_is_migrated_to_fan_out_on_the_next_write(repo: Repo) -> None:
    count = FLAT_MIGRATION_THRESHOLD + 44
    commits = fast_commits(repo, count)
    texts = {c: note_json("RED", cycleNumber=i) for i, c in enumerate(commits)}
    flat_notes(repo, texts)
    assert len(repo.root_entries()) == count  # really flat
    assert len(repo.notes_list()) == count
    store = store_of(repo)
    assert {c: r.text for c, r in store.all().items()} == texts

    head = repo.head()
    before = store.tip()
    store.write(commits[0], state(Phase.GREEN, 7))
    extra = repo.rev("main~" + str(count))  # one of make_repo's own commits
    store.write(extra, state(Phase.PLAN, 8))
    assert before is not None

    roots = repo.root_entries()
    odd = [(kind, name) for kind, name in roots if kind != "tree" or len(name) != 2]
    assert odd == []
    listed = [c for _, c in repo.notes_list()]
    assert len(listed) == len(set(listed)) == count + 1
    logged = git_log_notes(repo, "main")
    assert set(logged) == set(texts) | {extra}
    for commit, text in texts.items():
        if commit != commits[0]:
            assert logged[commit] == text.strip()
    assert json.loads(logged[commits[0]])["cycleNumber"] == 7
    assert store.latest_reachable(head) is not None


def test_a_full_subtree_is_split_one_level_down_and_git_reads_it(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many notes under one prefix (ab/...) go one fan-out level further (ab/cd/...) once
    the subtree holds SUBTREE_SPLIT of them, so a write stays small at any count."""
    monkeypatch.setattr(notes_module, "SUBTREE_SPLIT", 4)  # the same path as 256, sooner
    store = store_of(repo)
    ids = [f"ab{n:02x}" + "0" * 34 + f"{n:02x}" for n in range(10)]  # notes need no object
    for n, object_id in enumerate(ids):
        store.write_text(object_id, note_json("RED", cycleNumber=n), f"note {n}")
    paths = repo.git("ls-tree", "-r", "--name-only", NOTES_REF).splitlines()
    assert sorted(paths) == sorted(f"{i[:2]}/{i[2:4]}/{i[4:]}" for i in ids)
    assert sorted(c for _, c in repo.notes_list()) == sorted(ids)  # git reads the layout
    for n, object_id in enumerate(ids):
        text = store.read_text(object_id)
        assert text is not None and json.loads(text)["cycleNumber"] == n
    assert store.remove(ids[3], "drop one")
    assert sorted(c for _, c in repo.notes_list()) == sorted(ids[:3] + ids[4:])
    store.write_text(ids[0], note_json("GREEN"), "replace one")
    assert json.loads(repo.git("cat-file", "-p", f"{NOTES_REF}:ab/00/{ids[0][4:]}")
                      )["phase"] == "GREEN"


# ---------------------------------------------------------------------- queries


def test_latest_reachable_finds_the_nearest_noted_ancestor_and_the_distance(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=5)
    c = repo.git("rev-list", "--reverse", "HEAD").splitlines()
    store = store_of(repo)
    store.write(c[0], state(Phase.PLAN, 1))
    store.write(c[1], state(Phase.RED, 1))

    found = store.latest_reachable(c[4])
    assert found is not None
    record, distance = found
    assert (record.commit, distance) == (c[1], 3)
    assert record.state is not None and record.state.phase is Phase.RED

    assert store.latest_reachable(c[1]) is not None
    assert store.latest_reachable(c[1])[1] == 0  # type: ignore[index]
    found = store.latest_reachable(c[0])
    assert found is not None and found[0].commit == c[0]

    # a note on a side branch is not an ancestor of main
    repo.git("switch", "-q", "-c", "side", c[2])
    side = repo.commit("side work")
    store.write(side, state(Phase.GREEN, 5))
    found = store.latest_reachable(c[4])
    assert found is not None and found[0].commit == c[1]

    # an invalid note is found too, and reported, not raised
    repo.note_cli(c[3], "hi")
    found = store.latest_reachable(c[4])
    assert found is not None
    assert found[0].commit == c[3] and found[1] == 1
    assert found[0].state is None and found[0].problem and "not JSON" in found[0].problem


def test_reachable_texts_matches_git_log(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=6)
    c = repo.git("rev-list", "--reverse", "HEAD").splitlines()
    store = store_of(repo)
    for i in (0, 2, 3, 5):
        store.write(c[i], state(Phase.PLAN, i))
    repo.note_cli(c[4], "foreign note")
    repo.git("switch", "-q", "-c", "side", c[1])
    side = repo.commit("side")
    store.write(side, state(Phase.RED, 9))

    got = list(store.reachable_texts(c[5]))
    assert [commit for commit, _, _ in got] == [c[5], c[4], c[3], c[2], c[0]]  # newest first
    assert {commit: text.decode() for commit, _, text in got} == git_log_notes(repo, c[5])
    times = dict(line.split() for line in repo.git("log", "--format=%H %ct", c[5]).splitlines())
    assert all(when == int(times[commit]) for commit, when, _ in got)
    assert side not in {commit for commit, _, _ in got}


def test_reachable_texts_without_a_notes_ref_is_empty(repo: Repo) -> None:
    assert list(store_of(repo).reachable_texts(repo.head())) == []


def test_a_notes_ref_pointing_at_a_missing_object_names_repair_notes(repo: Repo) -> None:
    store = store_of(repo)
    store.write(repo.head(), state())
    missing = "0123456789abcdef0123456789abcdef01234567"
    ref_file = repo.path / ".git" / "refs" / "notes" / "tdd-handoffs"
    ref_file.write_text(missing + "\n")
    assert repo.git("rev-parse", NOTES_REF, check=False)  # git sees the dangling value

    fresh = store_of(repo)
    for action in (
        lambda: fresh.read(repo.head()),
        fresh.all,
        lambda: list(fresh.reachable_texts(repo.head())),
        lambda: fresh.latest_reachable(repo.head()),
        lambda: fresh.write(repo.head(), state(Phase.RED)),
    ):
        with pytest.raises(NotesError) as caught:
            action()
        assert missing in caught.value.message
        assert caught.value.hint is not None and "repair-notes" in caught.value.hint


def test_a_stale_ref_lock_fails_the_write_clearly_instead_of_hanging(repo: Repo) -> None:
    store = store_of(repo)
    store.write(repo.rev("HEAD~1"), state())
    lock = repo.path / ".git" / "refs" / "notes" / "tdd-handoffs.lock"
    lock.write_text("")
    started = time.monotonic()
    with pytest.raises(NotesError) as caught:
        store.write(repo.head(), state(Phase.RED))
    assert time.monotonic() - started < 20
    assert "locked" in caught.value.message
    assert caught.value.hint is not None and "repair-notes" in caught.value.hint
    lock.unlink()
    # nothing half-written: the old note is intact and the new one absent
    assert [c for _, c in repo.notes_list()] == [repo.rev("HEAD~1")]
    store.write(repo.head(), state(Phase.RED))
    assert len(repo.notes_list()) == 2


# ---------------------------------------------------------------------- concurrency

WRITER = textwrap.dedent(
    """
    import sys, time, pygit2
    from rgr.store.handoff import HandoffState, TestCase
    from rgr.store.notes import NotesStore

    path, start, worker, todo = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
    commits = open(todo).read().split()
    store = NotesStore(pygit2.Repository(path))
    while time.time() < start:
        time.sleep(0.005)
    for n, commit in enumerate(commits):
        state = HandoffState(phase="RED", cycle_number=n, run_id=worker,
                             current_test=TestCase(description=commit))
        store.write(commit, state)
    """
)


def test_concurrent_writers_never_lose_a_note(tmp_path: Path) -> None:
    workers, per_worker = 4, 80
    repo = make_repo(tmp_path, commits=1)
    commits = fast_commits(repo, workers * per_worker)
    start = time.time() + 1.5  # every writer imported and waiting: they really overlap
    procs = []
    for w in range(workers):
        mine = commits[w::workers]
        todo = tmp_path / f"todo-{w}"
        todo.write_text("\n".join(mine))
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(repo.path), str(start), f"w{w}", str(todo)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=clean_env(tmp_path / "home"),
        )
        procs.append((proc, mine))
    for proc, _ in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()

    records = store_of(repo).all()
    assert set(records) == set(commits)
    for w, (_, mine) in enumerate(procs):
        for n, commit in enumerate(mine):
            s = records[commit].state
            assert s is not None and s.run_id == f"w{w}" and s.cycle_number == n
            assert s.current_test is not None and s.current_test.description == commit
    listed = [c for _, c in repo.notes_list()]
    assert len(listed) == len(set(listed)) == workers * per_worker
    # every write is its own notes commit: nothing was merged away or lost
    assert int(repo.git("rev-list", "--count", NOTES_REF)) == workers * per_worker
    assert repo.git("fsck", "--no-dangling", check=False) == ""
