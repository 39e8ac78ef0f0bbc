"""``rgr history --json`` with its row cache (rgr.store.history.cache) gives the bytes the model
gives (rgr.store.history.rows.row over every note, oldest first), whatever the cache
holds: nothing, every row, rows of notes since changed or removed, damaged lines, rows
of another validator, or no cache directory at all."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic_core import to_json

from rgr.commands import history
from rgr.store.handoff import HandoffState, TestCase
from rgr.store.history import cache as history_cache
from rgr.store.history.rows import row
from rgr.store.workspace import open_workspace
from tests.conftest import NOTES_REF, Repo, clean_env, fast_commits, note_json
from tests.store.test_handoff_read import mutations, valid_notes


def finished(i: int) -> str:
    return note_json(["PLAN", "RED", "GREEN", "REFACTOR"][i % 4], cycleNumber=i,
                     finishedAt=f"2026-11-21T00:{i // 60 % 60:02d}:{i % 60:02d}Z")


def add_notes(repo: Repo, notes: dict[str, str]) -> None:
    """Note many commits at once (git fast-import, on top of the notes there are)."""
    parent = repo.git("rev-parse", "--verify", "-q", NOTES_REF, check=False)
    stream = [f"commit {NOTES_REF}\ncommitter T <t@example.com> 1700000000 +0000\n"
              "data 6\nnotes\n"]
    if parent:
        stream.append(f"from {parent}\n")
    for commit, text in notes.items():
        raw = text.encode()
        stream.append(f"N inline {commit}\ndata {len(raw)}\n{text}\n")
    repo.git("fast-import", "--quiet", input="".join(stream).encode())


def expected(repo: Repo) -> bytes:
    """What the model says: row over each note git has on the branch, oldest first."""
    listed = dict(reversed(pair) for pair in repo.notes_list())
    blobs = sorted(set(listed.values()))
    batch = subprocess.run(["git", "cat-file", "--batch"], cwd=repo.path, check=True,
                           input="".join(f"{b}\n" for b in blobs).encode(),
                           capture_output=True).stdout
    texts, at = {}, 0
    for blob in blobs:  # "<id> blob <size>\n<content>\n" each
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        texts[blob] = batch[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
    rows = []
    for line in repo.git("log", "--reverse", "--format=%H %ct").splitlines():
        commit, when = line.split()
        text = texts[listed[commit]].strip() if commit in listed else b""
        if text:
            rows.append(to_json(row(commit, int(when), text, True)))
    return b"[\n" + b",\n".join(rows) + (b"\n]\n" if rows else b"]\n")


def rgr_json(repo: Repo, tmp_path: Path) -> bytes:
    proc = subprocess.run([sys.executable, "-m", "rgr", "history", "--json"], cwd=repo.path,
                          env=clean_env(tmp_path / "home"), capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout


def cache_path(repo: Repo) -> Path:
    return history_cache.cache_file(repo.path / ".git")


def cached_lines(repo: Repo) -> list[bytes]:
    return cache_path(repo).read_bytes().splitlines()[1:]


def rows_of(repo: Repo) -> dict[bytes, bytes]:
    """The rows the cache holds (as it reads them), by blob id; marks left out."""
    key = cache_path(repo).read_bytes().split(b"\n", 1)[0].split()[1]
    lines = history_cache.RowCache.load(cache_path(repo), key).lines
    return {blob: bytes(line[history_cache.ROW_AT:]) for blob, line in lines.items()
            if len(line) > history_cache.ROW_AT}


def with_crc(blob: bytes, row: bytes) -> bytes:
    body = blob + b" " + row
    return b"%08x %s" % (zlib.crc32(body), body)


def rewrite_rows(repo: Repo, change: dict[bytes, bytes], key: bytes | None = None) -> None:
    """Put ``change`` (blob -> line) in place of those blobs' lines."""
    path = cache_path(repo)
    header, *lines = path.read_bytes().splitlines()
    if key is not None:
        header = b"rgr-history-rows " + key
    out = [change.get(line[9:49], line) for line in lines]
    path.write_bytes(b"\n".join([header, *out]) + b"\n")


@pytest.fixture
def noted(repo: Repo) -> Repo:
    """Every valid, odd and invalid note of test_handoff_read, and as many more notes
    with finishedAt (so that most rows are cached), on a branch with unnoted commits."""
    texts = [*valid_notes(), *mutations(), *(finished(i) for i in range(1500))]
    texts += texts[-5:] + texts[:5]  # the same note on two commits: one blob, two rows
    commits = fast_commits(repo, len(texts) + 40)
    add_notes(repo, {c: t for c, t in zip(commits[::-1], texts, strict=False)})
    return repo


def test_warm_cold_and_uncached_output_are_the_models(noted: Repo, tmp_path: Path) -> None:
    want = expected(noted)
    assert want.count(b"\n") > 2900
    assert not cache_path(noted).exists()
    assert rgr_json(noted, tmp_path) == want  # cold: fills the cache
    assert len(rows_of(noted)) > 2000
    written = cache_path(noted).read_bytes()
    assert rgr_json(noted, tmp_path) == want  # warm
    assert cache_path(noted).read_bytes() == written  # nothing to add: every note known


def test_the_warm_path_serves_rows_from_the_cache(noted: Repo, tmp_path: Path) -> None:
    """A row put in the cache (with a good CRC) is what comes out: the warm path reads
    the cache rather than the notes (which is what makes the other tests mean something)."""
    rgr_json(noted, tmp_path)
    blob = subprocess.run(["git", "hash-object", "--stdin"], cwd=noted.path, check=True,
                          input=finished(700).encode(), capture_output=True).stdout.strip()
    forged = rows_of(noted)[blob].replace(b'"phase":', b'"forged":true,"phase":')
    rewrite_rows(noted, {blob: with_crc(blob, forged)})
    out = rgr_json(noted, tmp_path)
    assert out.count(b'"forged":true') == 1  # the row of that one note
    assert out != expected(noted)


def test_damaged_and_truncated_lines_are_never_served(noted: Repo, tmp_path: Path) -> None:
    want = expected(noted)
    rgr_json(noted, tmp_path)
    rows = list(rows_of(noted).items())
    (b1, r1), (b2, r2) = rows[0], rows[1]
    good = with_crc(b2, r2)
    rewrite_rows(noted, {
        b1: with_crc(b1, r1)[:9] + b1 + b" " + r1.replace(b'"phase":', b'"forged":1,"phase":'),
        b2: b"zzzzzzzz" + good[8:].replace(b'"phase":', b'"forged":2,"phase":'),
    })
    with cache_path(noted).open("ab") as file:  # a torn last line: a write cut short
        file.write(with_crc(b"0" * 40, b'"forged":3}')[:30])
    out = rgr_json(noted, tmp_path)
    assert b"forged" not in out
    assert out == want
    # the lost rows were computed again and are cached once more
    assert rows_of(noted)[b1] == r1 and rows_of(noted)[b2] == r2


def test_a_cache_of_another_validator_is_ignored_and_rewritten(
        noted: Repo, tmp_path: Path) -> None:
    rgr_json(noted, tmp_path)
    key = cache_path(noted).read_bytes().split(b"\n", 1)[0]
    blob, row = next(iter(rows_of(noted).items()))
    rewrite_rows(noted, {blob: with_crc(blob, row.replace(b'"phase":', b'"forged":1,"phase":'))},
                 key=b"0" * 32)
    assert rgr_json(noted, tmp_path) == expected(noted)
    assert cache_path(noted).read_bytes().split(b"\n", 1)[0] == key
    assert b"forged" not in cache_path(noted).read_bytes()


def test_the_key_changes_with_the_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    key = history_cache.validator_key()
    assert history_cache.validator_key() == key  # not per process: tests above rely on it
    monkeypatch.setattr(history_cache, "FORMAT", history_cache.FORMAT + 1)
    assert history_cache.validator_key() != key


def test_changed_removed_and_added_notes_show_their_new_content(
        noted: Repo, tmp_path: Path) -> None:
    rgr_json(noted, tmp_path)
    commits = noted.git("log", "--format=%H").splitlines()
    noted.note_cli(commits[0], finished(9999).replace('"cycleNumber": 9999', '"cycleNumber": 77'))
    noted.note_cli(commits[5], note_json("RED", retryCount=5))  # no finishedAt: not cached
    noted.git("notes", f"--ref={NOTES_REF}", "remove", commits[9])
    noted.note_cli(commits[-1], finished(4242))  # an unnoted commit gets a note
    new = noted.commit("after")
    noted.note_cli(new, finished(4343))
    want = expected(noted)
    assert b'"cycleNumber":77' in want and b'"retryCount":5' in want
    assert rgr_json(noted, tmp_path) == want
    assert rgr_json(noted, tmp_path) == want


def test_commit_time_rows_and_history_order_are_gits(repo: Repo, tmp_path: Path) -> None:
    """Merges and clock skew: the rows come in git log's order; rows without finishedAt
    take their commit's time every time."""
    base = repo.head()
    env = {"GIT_COMMITTER_DATE": "1800000000 +0000"}
    for i in range(3):
        repo.git("checkout", "-q", "-b", f"side{i}", base)
        repo.commit(f"side {i}")
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", f"future {i}"],
                       cwd=repo.path, env={**clean_env(tmp_path / "g"), **env}, check=True)
    repo.git("checkout", "-q", "main")
    for i in range(3):
        repo.git("merge", "-q", "--no-ff", "-m", f"merge {i}", f"side{i}")
        repo.commit(f"main {i}")
    commits = repo.git("log", "--format=%H").splitlines()
    add_notes(repo, {c: finished(i) if i % 3 else note_json("GREEN", cycleNumber=i)
                     for i, c in enumerate(commits)})
    want = expected(repo)
    assert rgr_json(repo, tmp_path) == want
    assert rgr_json(repo, tmp_path) == want
    order = [line.split(b'"', 4)[3].decode() for line in want.splitlines()[1:-1]]
    assert order == commits[::-1]


def test_no_cache_directory_is_no_cache(noted: Repo, tmp_path: Path) -> None:
    """A cache that cannot be written (here: a file where its directory goes) never
    fails the command."""
    (noted.path / ".git" / "rgr").write_text("not a directory")
    want = expected(noted)
    assert rgr_json(noted, tmp_path) == want
    assert rgr_json(noted, tmp_path) == want


def test_no_notes_and_a_cache_of_gone_notes(repo: Repo, tmp_path: Path) -> None:
    assert rgr_json(repo, tmp_path) == b"[\n]\n"
    commits = fast_commits(repo, 50)
    add_notes(repo, {c: finished(i) for i, c in enumerate(commits)})
    assert rgr_json(repo, tmp_path) == expected(repo)
    for commit in commits:
        repo.git("notes", f"--ref={NOTES_REF}", "remove", commit)
    add_notes(repo, {commits[0]: finished(1000)})
    assert rgr_json(repo, tmp_path) == expected(repo)
    # the rows of removed notes outnumbered the live ones: the file was compacted
    assert len(cached_lines(repo)) == 1


def _append(path: str, key: bytes, worker: int) -> None:
    cache = history_cache.RowCache.load(Path(path), key)
    for i in range(200):
        blob = b"%040x" % (worker * 1000 + i)
        # rows far longer than a pipe's atomic write, so interleaving would show
        cache.add(blob, b'{"w":%d,"i":%d,"pad":"%s"}' % (worker, i, b"x" * (5000 + i)))
    cache._append()  # what save() does with a current file of few dead lines


def test_reading_in_blocks_keeps_every_good_line_whatever_its_length(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Blocks of 64 bytes (the same code as 4 MiB, sooner): lines across block edges,
    # lines longer than a block, a damaged CRC field and a torn last line.
    monkeypatch.setattr(history_cache, "_BLOCK", 64)
    key = b"k" * 32
    rows = {b"%040x" % n: b'{"n":%d,"pad":"%s"}' % (n, b"x" * (n * 37 % 300)) for n in range(40)}
    lines = [with_crc(blob, row) for blob, row in rows.items()]
    damaged = b"zzzzzzzz" + lines[7][8:]
    path = tmp_path / "rows"
    path.write_bytes(b"rgr-history-rows " + key + b"\n" + b"\n".join(lines[:7]) + b"\n"
                     + damaged + b"\n" + b"\n".join(lines[8:]) + b"\n" + lines[0][:30])
    cache = history_cache.RowCache.load(path, key)
    wanted = {blob: line for blob, line in zip(rows, lines, strict=True)}
    del wanted[b"%040x" % 7]
    assert {blob: bytes(line) for blob, line in cache.lines.items()} == wanted
    assert cache.on_disk == 41 and cache.torn  # 40 whole lines and the torn one
    cache.release()  # the pages go back; the lines still read the same
    assert bytes(cache.lines[b"%040x" % 39]) == wanted[b"%040x" % 39]


def test_concurrent_appends_never_give_a_wrong_row(tmp_path: Path) -> None:
    path = tmp_path / "rows"
    key = b"k" * 32
    path.write_bytes(b"rgr-history-rows " + key + b"\n")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_append, args=(str(path), key, w)) for w in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
        assert worker.exitcode == 0
    lines = history_cache.RowCache.load(path, key).lines
    assert len(lines) == 6 * 200
    for blob, line in lines.items():
        n = int(blob, 16)
        assert line[history_cache.ROW_AT:] == \
            b'{"w":%d,"i":%d,"pad":"%s"}' % (n // 1000, n % 1000, b"x" * (5000 + n % 1000))


@pytest.mark.parametrize("cold", [False, True])
def test_notes_changed_mid_read_give_one_consistent_read_and_no_wrong_row(
        cold: bool, noted: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Notes written between listing the notes and reading the missing ones: the
    output is one read of everything after the write (not cached rows of before mixed
    with texts of after), and no row is filed under a blob id that is not its note's
    (cold: the notes were listed before ``git log`` read them)."""
    from rgr.store.notes import NotesStore

    rgr_json(noted, tmp_path)
    commits = noted.git("log", "--format=%H").splitlines()
    x, y = commits[3], commits[4]  # x: a note the cache lacks; y: a cached one
    first = finished(5555)
    noted.note_cli(x, first)
    if cold:
        cache_path(noted).unlink()
    name = "reachable_batches" if cold else "texts_of"
    read = getattr(NotesStore, name)

    def write_meanwhile(self: NotesStore, *args: object) -> object:
        noted.note_cli(x, finished(6666))
        noted.note_cli(y, finished(7777))
        return read(self, *args)

    monkeypatch.setattr(NotesStore, name, write_meanwhile)
    monkeypatch.chdir(noted.path)
    chunks = history._json_chunks(open_workspace(noted.path))
    assert b"".join(chunks) == expected(noted)
    monkeypatch.undo()
    noted.note_cli(x, first)  # the first note's blob again: its own row, not 6666's
    assert rgr_json(noted, tmp_path) == expected(noted)


def order_path(repo: Repo) -> Path:
    return history_cache.order_file(repo.path / ".git")


def test_the_saved_walk_is_used_for_the_same_head_and_checked(
        noted: Repo, tmp_path: Path) -> None:
    """The walk saved by the last run is what orders the rows when HEAD is the same (a
    forged one shows), and a damaged one is not used."""
    want = expected(noted)
    rgr_json(noted, tmp_path)
    assert rgr_json(noted, tmp_path) == want
    head, count, _ = order_path(noted).read_bytes().split(b"\n", 1)[0].split()[1:]
    commits = order_path(noted).read_bytes().split(b"\n", 1)[1].split()
    assert head == noted.head().encode() and int(count) == len(commits)
    history_cache.save_order(order_path(noted), head, commits[::-1])  # forged, good CRC
    forged = rgr_json(noted, tmp_path)
    def rows(out: bytes) -> list[bytes]:
        return sorted(line.rstrip(b",") for line in out.splitlines())

    assert forged != want and rows(forged) == rows(want)
    data = bytearray(order_path(noted).read_bytes())
    data[-3:] = b"fff"  # damaged: its CRC no longer matches
    order_path(noted).write_bytes(bytes(data))
    assert rgr_json(noted, tmp_path) == want


def test_history_that_is_not_one_more_chain_is_walked_again(
        noted: Repo, tmp_path: Path) -> None:
    """After a merge, a reset, an amended commit or a replace ref the saved walk is not
    extended: the rows are in git's order every time."""
    rows_at_first = expected(noted).count(b"\n")
    rgr_json(noted, tmp_path)  # cold: fills the row cache
    rgr_json(noted, tmp_path)  # warm: saves the walk
    assert order_path(noted).exists()
    env = {**clean_env(tmp_path / "g"), "GIT_COMMITTER_DATE": "1900000000 +0000",
           "GIT_AUTHOR_DATE": "1900000000 +0000"}
    base = noted.git("log", "--format=%H").splitlines()[40]
    noted.git("checkout", "-q", "-b", "side", base)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "late side"],
                   cwd=noted.path, env=env, check=True)
    noted.note_cli(noted.head(), finished(8001))
    noted.git("checkout", "-q", "main")
    noted.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    noted.note_cli(noted.head(), finished(8002))
    assert rgr_json(noted, tmp_path) == expected(noted)
    noted.commit("one more")  # a chain of one on the merge: extended
    noted.note_cli(noted.head(), finished(8003))
    assert rgr_json(noted, tmp_path) == expected(noted)
    noted.git("commit", "-q", "--amend", "--allow-empty", "-m", "amended")
    noted.note_cli(noted.head(), finished(8004))
    assert rgr_json(noted, tmp_path) == expected(noted)
    noted.git("reset", "-q", "--hard", "HEAD~5")
    assert rgr_json(noted, tmp_path) == expected(noted)
    commits = noted.git("log", "--format=%H").splitlines()
    noted.git("replace", commits[10], commits[200])  # history seen through a replace ref
    want = expected(noted)
    # the replace ref hides most of the history (the count grows with the notes that
    # test_handoff_read's mutations() makes, so it is compared, not fixed)
    assert want.count(b"\n") < rows_at_first - 100
    assert rgr_json(noted, tmp_path) == want


def test_a_linked_worktree_shares_the_cache_of_the_repository(
        noted: Repo, tmp_path: Path) -> None:
    rgr_json(noted, tmp_path)
    before = cache_path(noted).stat().st_size
    noted.git("worktree", "add", "-q", "-b", "wt", str(tmp_path / "wt"), "HEAD~3")
    other = Repo(tmp_path / "wt")
    other.commit("in the worktree")
    other.note_cli(other.head(), finished(9001))
    assert rgr_json(other, tmp_path) == expected(other)
    assert cache_path(noted).stat().st_size > before  # the new row, in the main git dir
    assert not (noted.path / ".git" / "worktrees" / "wt" / "rgr").exists()


def seed_note(i: int) -> str:
    """A note in the seed's schema, as another tool writes it: no finishedAt, so its
    row's time is its commit's."""
    return json.dumps({"phase": ["PLAN", "RED", "GREEN", "REFACTOR"][i % 4],
                       "nextPhase": "GREEN", "cycleNumber": i % 7, "currentTest": None,
                       "completedTests": [], "pendingTests": ["a"], "testResult": None,
                       "error": None, "errorDetails": None, "retryCount": 0})


def test_notes_without_finished_at_are_served_from_the_cache(
        repo: Repo, tmp_path: Path) -> None:
    """Another tool's notes (the seed's schema, no finishedAt): the first read files
    their rows under the pair of commit and note, the next reads serve them from the
    cache (a forged one shows) with each commit's own time, also for one note on two
    commits of different times; through a replace ref (a commit id shown with another
    commit's time) they are not served."""
    commits = fast_commits(repo, 400)
    texts = [seed_note(i) for i in range(len(commits))]
    texts[7] = texts[300]  # one blob, two commits, two times
    add_notes(repo, dict(zip(commits, texts, strict=True)))
    want = expected(repo)
    assert want.count(b'"time":') == 400
    assert rgr_json(repo, tmp_path) == want  # cold: files them all
    rows = rows_of(repo)
    assert len(rows) == 400 and not set(rows) & {b for b, _ in repo.notes_list()}
    assert rgr_json(repo, tmp_path) == want  # warm
    # Served, not recomputed: a forged row (good CRC) under the pair key shows.
    blob = repo.git("notes", f"--ref={NOTES_REF}", "list", commits[7]).encode()
    key = history_cache.pair_key(commits[7].encode(), blob)
    other = history_cache.pair_key(commits[300].encode(), blob)
    assert rows[key] != rows[other]  # the same note, its commits' own times
    forged = rows[key].replace(b'"phase":', b'"forged":true,"phase":')
    rewrite_rows(repo, {key: with_crc(key, forged)})
    assert rgr_json(repo, tmp_path).count(b'"forged":true') == 1
    # Through a replace ref a commit id shows another commit's time: no pair row served.
    repo.git("replace", commits[7], commits[100])
    assert rgr_json(repo, tmp_path) == expected(repo)


def handoff(i: int, finished_at: bool = True) -> HandoffState:
    return HandoffState(phase=["PLAN", "RED", "GREEN", "REFACTOR"][i % 4], cycle_number=i,
                        run_id="run-1", current_test=TestCase(description=f"test {i}"),
                        finished_at=datetime(2026, 11, 23, 0, i // 60 % 60, i % 60, tzinfo=UTC)
                        if finished_at else None)


def test_each_note_rgr_writes_files_the_row_a_read_would(repo: Repo, tmp_path: Path) -> None:
    """The row filed as rgr writes a note (rgr.store.history.cache.add_written) is the row a
    cold read computes, and the first read after the writes takes it from the cache."""
    commits = fast_commits(repo, 30)
    ws = open_workspace(repo.path)
    for i, commit in enumerate(commits):
        # every 5th without finishedAt: filed under the pair's key (the commit's time)
        ws.notes.write(commit, handoff(i, finished_at=i % 5 != 0))
    ws.notes.write(commits[3], handoff(103))  # a replaced note: its first row is dead
    filed = cached_lines(repo)
    assert len(filed) == 31
    assert not any(len(line) == history_cache.ROW_AT for line in filed)  # no marks
    rows = rows_of(repo)
    assert len(rows) == 31
    # The same rows as a cold read files for these notes (the dead row aside).
    cache_path(repo).unlink()
    assert rgr_json(repo, tmp_path) == expected(repo)
    assert {key: row for key, row in rows.items() if key in rows_of(repo)} == rows_of(repo)
    assert len(rows_of(repo)) == 30
    # Filed rows are served: a forged one (good CRC) shows on the next read.
    ws.notes.write(commits[0], handoff(777))
    ws.notes.write(commits[-1], handoff(778))
    blob = repo.git("notes", f"--ref={NOTES_REF}", "list", commits[-1]).encode()
    forged = rows_of(repo)[blob].replace(b'"phase":', b'"forged":true,"phase":')
    rewrite_rows(repo, {blob: with_crc(blob, forged)})
    out = rgr_json(repo, tmp_path)
    assert out.count(b'"forged":true') == 1


def test_filing_a_written_row_respects_the_file_and_never_fails(
        repo: Repo, tmp_path: Path) -> None:
    commits = fast_commits(repo, 4)
    ws = open_workspace(repo.path)
    path = cache_path(repo)
    # Another validator's file: left as it is, for the next read to rewrite.
    path.parent.mkdir(parents=True)
    path.write_bytes(b"rgr-history-rows " + b"0" * 32 + b"\n")
    ws.notes.write(commits[0], handoff(1))
    assert path.read_bytes() == b"rgr-history-rows " + b"0" * 32 + b"\n"
    # A torn last line (a write cut short): the filed row starts on a line of its own.
    path.write_bytes(b"rgr-history-rows " + history_cache.validator_key() + b"\n"
                     + with_crc(b"1" * 40, b'"x":1}')[:30])
    ws.notes.write(commits[1], handoff(2))
    assert len(rows_of(repo)) == 1
    # No cache file possible (a directory in its place): the note is written all the same.
    path.unlink()
    path.mkdir()
    ws.notes.write(commits[2], handoff(3))
    assert repo.git("notes", f"--ref={NOTES_REF}", "show", commits[2])
    path.rmdir()
    # A file where the cache directory goes (permissions would not stop root): the same.
    path.parent.rmdir()
    path.parent.write_bytes(b"")
    ws.notes.write(commits[3], handoff(4))
    assert repo.git("notes", f"--ref={NOTES_REF}", "show", commits[3])
    path.parent.unlink()
    assert rgr_json(repo, tmp_path) == expected(repo)


@pytest.mark.parametrize("rewrite", ["dead lines", "rows missing"])
def test_a_rewritten_file_holds_its_rows_in_the_order_reads_use_them(
        noted: Repo, tmp_path: Path, rewrite: str) -> None:
    """When a read rewrites the file, the rows go in the order of the walk, newest
    first, then those of notes off the branch, whatever order the old file had: a read
    then goes through the mapped file front to back, not all over it (memory). Two
    rewrites: more dead lines than live ones (the cached read), and a third of the rows
    missing (the full read, which keeps the old lines as it meets their notes)."""
    import random

    main = noted.head()
    noted.git("checkout", "-q", "-b", "side")
    side = noted.commit("off the branch")
    noted.note_cli(side, finished(5001))
    noted.git("checkout", "-q", "main")
    assert noted.head() == main
    rgr_json(noted, tmp_path)
    path = cache_path(noted)
    header, *lines = path.read_bytes().splitlines()
    random.Random(7).shuffle(lines)  # any order
    if rewrite == "dead lines":  # each line twice more
        lines = [*lines, *lines, *lines]
    else:
        del lines[:len(lines) // 3]
    path.write_bytes(b"\n".join([header, *lines]) + b"\n")
    assert rgr_json(noted, tmp_path) == expected(noted)
    blob_of = {commit.encode(): blob.encode() for blob, commit in noted.notes_list()}
    walk = [c for c in noted.git("rev-list", "HEAD").encode().split() if c in blob_of]
    # A row is filed under its blob id, or, when it takes its commit's time, the pair's.
    filed = list(dict.fromkeys(line[9:49] for line in cached_lines(noted)))
    keys = [blob_of[c] if blob_of[c] in filed else history_cache.pair_key(c, blob_of[c])
            for c in [*walk, side.encode()]]
    # (a note on two commits may be filed twice by a full read: the second is dead;
    # an empty note has no line: git log shows none, so no read files one)
    want = [key for key in dict.fromkeys(keys) if key in filed]
    assert len(want) > 1500 and filed == want


@pytest.mark.parametrize("count", [0, 1, 3, 6, 10])
def test_a_walk_saved_in_pieces_reads_back_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    monkeypatch.setattr(history_cache, "_ORDER_PIECE", 3)
    commits = [b"%040x" % i for i in range(count)]
    path = tmp_path / "history-order"
    history_cache.save_order(path, b"f" * 40, commits)
    assert history_cache.load_order(path) == (b"f" * 40, commits)
    data = path.read_bytes()
    header, _, body = data.partition(b"\n")
    assert body == b"\n".join(commits)  # the same bytes as one join
    path.write_bytes(data[:-1] + b"x" if count else header[:-1] + b"1\n")  # damaged
    assert history_cache.load_order(path) is None


def test_filing_a_row_never_replaces_a_cache_file_put_in_place_meanwhile(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first row filed where there is no file yet creates it, unless a read put one
    in place meanwhile: that file (a whole cache) stays as it is."""
    common = tmp_path / "git"
    path = history_cache.cache_file(common)
    history_cache.add_written([common], "a" * 40, "b" * 40, finished(1), 0)
    assert len(path.read_bytes().splitlines()) == 2  # created: header and row

    path.unlink()
    real_open = history_cache.os.open

    def a_read_renames_its_file_in(name: object, flags: int, *args: int) -> int:
        if name == path and not path.exists():
            path.write_bytes(b"a whole cache\n")  # as if a read put it in place here
            raise FileNotFoundError(name)
        return real_open(name, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(history_cache.os, "open", a_read_renames_its_file_in)
    history_cache.add_written([common], "a" * 40, "c" * 40, finished(2), 0)
    assert path.read_bytes() == b"a whole cache\n"
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left


def test_a_job_clone_files_its_rows_in_the_daemons_cache_too(
        repo: Repo, tmp_path: Path) -> None:
    """rgr run by a daemon in a job's clone (ROWS_ALSO_IN: the daemon's git dir) files
    each row in both caches; a variable naming no directory, or a relative one, is
    ignored and creates nothing."""
    from rgr.store.history import ROWS_ALSO_IN

    commits = fast_commits(repo, 3)
    daemon = tmp_path / "daemon.git"
    daemon.mkdir()
    ws = open_workspace(repo.path, env={ROWS_ALSO_IN: str(daemon)})
    ws.notes.write(commits[0], handoff(1))
    assert cache_path(repo).read_bytes() == history_cache.cache_file(daemon).read_bytes()
    assert len(rows_of(repo)) == 1
    for bad in (str(tmp_path / "nowhere"), "daemon.git"):
        ws = open_workspace(repo.path, env={ROWS_ALSO_IN: bad})
        ws.notes.write(commits[1], handoff(2))
    assert not (tmp_path / "nowhere").exists() and not (repo.path / "daemon.git").exists()
    assert len(rows_of(repo)) == 2


@pytest.mark.parametrize("code", ["as loaded", "changed on disk", "gone"])
def test_a_process_older_than_its_code_on_disk_files_no_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    """rgr upgraded under a running rgr: the key names the code on disk, not the code
    that process runs, so it files nothing (the next read validates those notes). No
    clock decides it: the files' size and mtime as the process loaded them do."""
    from rgr.store import handoff

    loaded = list(handoff.LOADED_CODE)
    path, size, mtime = loaded[0]
    if code == "changed on disk":
        loaded[0] = (path, size + 1, mtime)  # as if the file was rewritten since
    elif code == "gone":
        loaded[0] = (str(tmp_path / "no-such-file.py"), size, mtime)
    monkeypatch.setattr(handoff, "LOADED_CODE", tuple(loaded))
    monkeypatch.setattr(history_cache, "_written_key", None)  # as in a new process
    common = tmp_path / "git"
    history_cache.add_written([common], "a" * 40, "b" * 40, finished(1), 0)
    filed = history_cache.cache_file(common).exists()
    assert filed == (code == "as loaded")
