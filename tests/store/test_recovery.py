"""What `rgr run`/`rgr resume` clean up after a crash before doing anything else (stale
git locks, orphaned agent processes), and what a full disk does to a note write.

No agent is needed: the agent binary is missing on purpose, so each command stops at the
preflight, right after the recovery steps these tests look at.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rgr.base.failpoints import POINTS, _armed
from rgr.base.processes import REPO_MARK_VAR
from rgr.check import report_store
from rgr.check.verify import TestOutcome, TestReport
from rgr.store import inflight
from rgr.store.handoff import Phase
from rgr.store.inflight import Inflight
from rgr.tdd.engine import inside_repository
from tests.conftest import Repo, RunRgr, make_repo, note_json


def _resumable(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path)
    repo.commit("rgr settings", {"tdd.toml": textwrap.dedent(f"""\
        test_command = {json.dumps([sys.executable, "-c", ""])}
        agent_binary = "/nonexistent/claude"
        """)})
    repo.note_cli(repo.head(), note_json("REFACTOR", nextPhase="PLAN", cycleNumber=0,
                                         runId="run-1"))
    return repo


def test_a_stale_index_lock_is_removed_and_said(tmp_path: Path, run_rgr: RunRgr) -> None:
    repo = _resumable(tmp_path)
    lock = repo.path / ".git" / "index.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 60, time.time() - 60))
    code, out, err = run_rgr(["resume", "--yes"], repo.path)
    assert code == 1 and "cannot run claude" in err  # stopped at the preflight, after it
    assert "removed a stale git lock no process holds: index.lock" in out
    assert not lock.exists()
    repo.git("status")  # git works again


def test_an_index_lock_a_live_process_holds_is_left_alone(tmp_path: Path,
                                                         run_rgr: RunRgr) -> None:
    repo = _resumable(tmp_path)
    lock = repo.path / ".git" / "index.lock"
    holder = subprocess.Popen([sys.executable, "-c",
                               f"f = open({str(lock)!r}, 'a'); print('ok', flush=True); "
                               "import time; time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ok"
        os.utime(lock, (time.time() - 60, time.time() - 60))
        code, _, err = run_rgr(["resume", "--yes"], repo.path)
    finally:
        holder.kill()
        holder.wait()
    assert code == 1
    assert "index.lock is held by a running process" in err
    assert lock.exists()
    assert not (repo.path / ".git" / "rgr" / "run.lock").exists()  # released on the way out


def test_agent_processes_of_a_dead_run_are_stopped(tmp_path: Path, run_rgr: RunRgr) -> None:
    repo = _resumable(tmp_path)
    orphan = subprocess.Popen(["sleep", "60"], start_new_session=True,
                              env={**os.environ, REPO_MARK_VAR: str(repo.path)})
    bystander = subprocess.Popen(["sleep", "60"], start_new_session=True,
                                 env={**os.environ, REPO_MARK_VAR: str(tmp_path / "other")})
    try:
        code, out, _ = run_rgr(["resume", "--yes"], repo.path)
        assert code == 1
        assert "stopped 1 agent process(es) left running by an interrupted rgr" in out
        assert orphan.wait(timeout=10) != 0
        assert bystander.poll() is None  # another repository's agent is not ours to stop
    finally:
        for proc in (orphan, bystander):
            proc.kill()
            proc.wait()


def test_a_second_rgr_is_refused_by_a_lock_that_names_its_holder(
        tmp_path: Path, run_rgr: RunRgr) -> None:
    repo = _resumable(tmp_path)
    lock = repo.path / ".git" / "rgr" / "run.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps({"pid": os.getpid(), "host": os.uname().nodename,
                                "command": "rgr run", "started": time.time()}))
    code, _, err = run_rgr(["resume", "--yes"], repo.path)
    assert code == 1
    assert f"another rgr is working on this repository: pid {os.getpid()}" in err
    assert lock.exists()
    # the same lock from a process that is gone is taken over
    dead = subprocess.Popen(["true"])
    dead.wait()
    lock.write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename,
                                "command": "rgr run", "started": time.time()}))
    code, _, err = run_rgr(["resume", "--yes"], repo.path)
    assert code == 1 and "cannot run claude" in err
    assert not lock.exists()


def test_agent_paths_must_stay_inside_the_repository(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "sub").mkdir(parents=True)
    (root / "link").symlink_to(tmp_path)
    assert inside_repository(root, "tests/test_x.py")
    assert inside_repository(root, "sub/../x.py")
    for escape in ("../x.py", "/etc/passwd", "sub/../../x.py", "link/x.py", "", "a\0b"):
        assert not inside_repository(root, escape), escape


def test_crash_points_are_named_and_checked() -> None:
    assert _armed({}) is None
    assert _armed({"RGR_FAILPOINT": "agent:spawned@3"}) == ("agent:spawned", 3)
    assert _armed({"RGR_FAILPOINT": POINTS[0]}) == (POINTS[0], 1)
    with pytest.raises(ValueError, match="unknown crash point"):
        _armed({"RGR_FAILPOINT": "agent:spwaned"})


DISK_FULL_SCRIPT = """
import json, sys
from pathlib import Path
import pygit2
from rgr.base.errors import NotesError
from rgr.store.notes import NotesStore

mount = Path(sys.argv[1])
repo = pygit2.init_repository(str(mount / "repo"), initial_head="main")
who = pygit2.Signature("t", "t@example.com")
commit = str(repo.create_commit("HEAD", who, who, "init", repo.TreeBuilder().write(), []))
store = NotesStore(repo, "refs/notes/tdd-handoffs")
store.write_text(commit, '{"n": 1}', "first")
before = str(repo.references["refs/notes/tdd-handoffs"].target)
filler = mount / "filler"
with open(filler, "wb") as handle:
    try:
        while True:
            handle.write(b"x" * 65536)
    except OSError:
        pass
result = {}
try:
    store.write_text(commit, json.dumps({"n": 2, "pad": "y" * 100000}), "second")
    result["error"] = None
except NotesError as exc:
    result["error"] = str(exc)
    result["hint"] = exc.hint
result["unchanged"] = str(repo.references["refs/notes/tdd-handoffs"].target) == before
result["note"] = store.read_text(commit)
filler.unlink()
store.write_text(commit, '{"n": 3}', "third")
result["after"] = store.read_text(commit)
print(json.dumps(result))
"""


def test_a_full_disk_during_a_note_write_changes_nothing(tmp_path: Path) -> None:
    mount = tmp_path / "small-disk"
    mount.mkdir()
    script = tmp_path / "disk_full.py"
    script.write_text(DISK_FULL_SCRIPT)
    # A private mount namespace: a 1 MiB tmpfs only this process tree sees.
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", 'mount -t tmpfs -o size=1m tmpfs "$1" && '
         'exec "$2" "$3" "$1"', "sh", str(mount), sys.executable, str(script)],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["error"] and "is full" in result["error"], result
    assert "rgr resume" in result["hint"]
    assert result["unchanged"] is True
    assert json.loads(result["note"]) == {"n": 1}
    assert json.loads(result["after"]) == {"n": 3}


def test_reports_and_in_flight_records_round_trip(tmp_path: Path) -> None:
    report = TestReport(argv=("pytest", "-q"), exit_code=1, duration_s=0.5, timed_out=False,
                        outcomes={"t.py::a": TestOutcome("t.py::a", "t.py", "failed", "boom")},
                        collection_errors=("x.py",), no_tests_collected=False,
                        output_excerpt="1 failed", report_error=None)
    report_store.save(tmp_path, "abc", report)
    assert report_store.load(tmp_path, "abc") == report
    assert report_store.load(tmp_path, "missing") is None
    (tmp_path / "rgr" / "reports" / "bad.json").write_text("{")
    assert report_store.load(tmp_path, "bad") is None

    assert inflight.read(tmp_path) is None
    record = Inflight(run_id="r", phase=Phase.GREEN, cycle=2, attempt=1, base="0" * 40,
                      session_id="s", started_at="2026-11-22T00:00:00+00:00",
                      output={"summary": "done"})
    inflight.write(tmp_path, record)
    assert inflight.read(tmp_path) == record
    inflight.path(tmp_path).write_text("{not json")
    assert inflight.read(tmp_path) is None  # unreadable: treated as absent
    inflight.clear(tmp_path)
    inflight.clear(tmp_path)  # clearing twice is fine
    assert not inflight.path(tmp_path).exists()


def test_a_zombie_holds_no_lock() -> None:
    """A process killed but not yet reaped (a zombie) is dead for the run lock: after a
    kill -9 of a whole process tree the orphan may wait long for its reaper."""
    import signal
    import subprocess as sp
    import time

    from rgr.store.locks import pid_alive

    child = sp.Popen(["sleep", "30"])
    assert pid_alive(child.pid)
    os.kill(child.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child.pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert not pid_alive(child.pid)  # not reaped yet: still in the process table
    child.wait()
    assert not pid_alive(child.pid)
