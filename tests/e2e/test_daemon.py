"""`rgr daemon` end to end: the real claude and the scripted model server (serving the
workers' sessions at once), real git and pytest. Jobs are one-test katas
(daemon_kata.py): five agent sessions each.

Every test run proves what the fleet rests on (issue 47): two jobs on two workers,
two machines on one bare remote landing two jobs (a lost race included, every note
one record), three daemons on one host name in PID namespaces, a kill -9 while
landing, SIGTERM mid-phase (the phase finishes) and past --grace (handed back). The
full sweep adds every crash point, the restarts after a kill -9 elsewhere, a dead
machine's job taken over after its lease, local landings, the merge fixer, stop and
cancel, --integrate pr, the fleet's budget, four jobs on two workers, six on two
machines and the fleet at once (about fifteen minutes more on two cores):

    RGR_FULL_SWEEP=1 .venv/bin/python -m pytest tests/e2e/test_daemon.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from daemon_kata import MERGED_ALPHA, choose, merge_fix
from harness import full_sweep, sweep, sweep_only
from kata import (
    assert_suite_green,
    git,
    kill_tree,
    make_project,
    notes_on_branch,
    rgr,
    rgr_env,
    start_rgr,
)

from rgr.base.failpoints import DAEMON_POINTS, LAND_POINTS
from rgr.daemon.hub import LocalHub
from rgr.daemon.queue import Queue
from rgr.fake_model import FakeModelServer, RequestRecord, SessionScript, bash, structured, write
from rgr.store.gitcli import Git, git_env
from tests.conftest import gh_bin

pytestmark = pytest.mark.e2e

#: RGR_FULL_SWEEP=1: every crash point, 4 jobs on two workers, 6 on two machines and the
#: sampled-out tests (by default: the landing's land:pushed alone, 2 jobs, 2 jobs).
SWEEP = full_sweep()
WHERE = "tests/e2e/test_daemon.py"

#: One job's handoffs on its branch: the start marker, one cycle, the closing plan.
PHASES = ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE"]
SESSIONS_PER_JOB = 5
#: A short lease (a dead machine's job is taken over within seconds). The poll stays at a
#: second: a daemon looks at the queue every min(poll, 1 s) even while its workers are
#: busy (fetching first, on a remote), and idle workers look every poll too. At 0.3 s an
#: idle daemon spent 1.8 s of CPU in 10 s (2.6 s on a remote), at 1 s 1.0 (1.1), paid
#: by the CPU-bound default run (most in the PID-namespace test's two idle daemons); a
#: second costs a daemon at most 0.7 s more to notice that the queue is done.
FAST = ["--lease", "6", "--poll", "1"]


def queue_json(repo: Path, env: dict[str, str], *extra: str) -> list[dict[str, object]]:
    done = rgr(["queue", "--json", *extra], repo, env)
    assert done.returncode == 0, done.stderr
    jobs: list[dict[str, object]] = json.loads(done.stdout)
    return jobs


def states(jobs: list[dict[str, object]]) -> list[str]:
    return [j["state"]["state"] for j in jobs]  # type: ignore[index]


def add(repo: Path, env: dict[str, str], *names: str, extra: tuple[str, ...] = ()) -> None:
    for name in names:
        done = rgr(["queue", "add", f"make {name}", *extra], repo, env)
        assert done.returncode == 0, done.stdout + done.stderr


def assert_branch_done(repo: Path, branch: str, tmp: Path) -> None:
    """The branch's notes are one clean kata and its suite passes on a fresh checkout."""
    phases = [n["phase"] for n in notes_on_branch(repo, branch)
              if n.get("branch") == branch]
    assert phases == PHASES, (branch, phases)
    checkout = tmp / f"check-{branch.replace('/', '-')}"
    git(repo, "worktree", "add", "-q", "--detach", str(checkout), branch)
    try:
        assert_suite_green(checkout)
    finally:
        git(repo, "worktree", "remove", "--force", str(checkout))


def sessions_by_job(server: FakeModelServer) -> dict[str, int]:
    """How many agent sessions each job's feature got (redone phases count)."""
    counts: dict[str, int] = {}
    for index in server.sessions.values():
        name = server._state.scripts[index].name or "?"  # plan-alpha-1, red-alpha ...
        job = name.split("-")[1]
        counts[job] = counts.get(job, 0) + 1
    return counts


# Many workers on one queue run in every run: two daemons on one bare remote, and three in
# PID namespaces sharing a host name (neither runs a job twice).
@sweep_only(WHERE, "four jobs on two workers")
def test_four_jobs_two_workers(tmp_path: Path) -> None:
    """Two workers run jobs at once (two jobs in every test run, one for each worker;
    four in the full sweep, so that each worker claims again after a finish)."""
    repo = make_project(tmp_path / "kata")
    names = ("alpha", "beta", "gamma", "delta")[:4 if SWEEP else 2]
    with FakeModelServer(choose=choose) as server:
        env = rgr_env(tmp_path / "home", server.url)
        add(repo, env, *names)
        assert states(queue_json(repo, env)) == ["queued"] * len(names)
        daemon = start_rgr(["daemon", "--workers", "2", *FAST], repo, env)
        seen_running: set[int] = set()
        reader = Queue(Git(repo, git_env()), LocalHub(Git(repo, git_env())))
        while daemon.poll() is None:  # the queue (what `rgr queue` shows) at each step
            for job in reader.jobs():
                state = job.state.state
                assert state in ("queued", "running", "complete"), job
                if state == "running":
                    if job.claim is None:
                        # The state and the claims are two reads: the job may have
                        # finished (state, then claim released) in between.
                        job = reader.job(job.id)
                    assert job.claim is not None or job.state.state == "complete", job
                    seen_running.add(job.id)
            time.sleep(0.5)
        out = daemon.communicate()[0]
        assert daemon.returncode == 0, out
        assert server.errors == [], server.errors
    jobs = queue_json(repo, env)
    assert states(jobs) == ["complete"] * len(names), out
    assert all(j["claim"] is None for j in jobs)
    assert all(j["state"]["runs"] == 1 for j in jobs)  # type: ignore[index]
    assert len(seen_running) >= 2
    assert sessions_by_job(server) == dict.fromkeys(names, SESSIONS_PER_JOB)
    for job in jobs:
        assert_branch_done(repo, str(job["branch"]), tmp_path)
    # Two workers really ran at once: the plain log shows both claiming before a finish.
    lines = out.splitlines()
    first_done = next(i for i, line in enumerate(lines) if "complete:" in line)
    assert sum("claimed job" in line for line in lines[:first_done]) >= 2, out
    assert git(repo, "status", "--porcelain") == ""
    listing = rgr(["queue"], repo, env).stdout
    assert listing.count("complete") == len(names) and "COMPLETE/2" in listing
    # Each phase runs in a process of its own, from the commit the phase before it
    # verified: that tree's recorded report stands, it is not run again.
    for events in (tmp_path / "home").rglob("runs/*/events.jsonl"):
        kinds = [json.loads(line)["type"] for line in events.read_text().splitlines()]
        starts = [i for i, kind in enumerate(kinds) if kind == "invocation_started"]
        assert len(starts) == SESSIONS_PER_JOB, (events, kinds)
        for start in starts[1:]:
            assert "test_run" not in kinds[start:kinds.index("phase_started", start)], kinds
    # The jobs' clones filed each note's history row in this repository's cache too.
    cache = (repo / ".git" / "rgr" / "cache" / "history-rows").read_bytes().splitlines()
    listed = git(repo, "notes", "--ref=refs/notes/tdd-handoffs", "list").split()[0::2]
    assert len(listed) >= len(names) * len(PHASES)
    assert set(listed) <= {line.split()[1].decode() for line in cache[1:]}


def killer(server_box: list[FakeModelServer], daemon_box: list[subprocess.Popen[str]],
           when: str) -> object:
    """An on_request hook that SIGKILLs the daemon's whole tree once, at the first
    request of the session whose script is named ``when`` (during an agent session)."""
    fired = threading.Event()

    def hook(record: RequestRecord) -> None:
        if fired.is_set() or record.script_index is None:
            return
        name = server_box[0]._state.scripts[record.script_index].name
        if name == when and daemon_box:
            fired.set()
            kill_tree(daemon_box[0].pid)

    hook.fired = fired  # type: ignore[attr-defined]
    return hook


def run_killed_then_restarted(tmp_path: Path, point: str | None) -> None:
    repo = make_project(tmp_path / "kata")
    server_box: list[FakeModelServer] = []
    daemon_box: list[subprocess.Popen[str]] = []
    hook = killer(server_box, daemon_box, "green-alpha") if point is None else None
    with FakeModelServer(choose=choose, on_request=hook) as server:  # type: ignore[arg-type]
        server_box.append(server)
        env = rgr_env(tmp_path / "home", server.url)
        add(repo, env, "alpha", "beta")
        first_env = dict(env)
        if point is not None:
            first_env["RGR_FAILPOINT"] = point
        daemon = start_rgr(["daemon", "--workers", "2", *FAST], repo, first_env)
        daemon_box.append(daemon)
        out = daemon.communicate(timeout=300)[0]
        assert daemon.returncode == -9, out
        mid = queue_json(repo, env)
        # The dead daemon's claims are still there (its jobs queued or running).
        assert any(j["claim"] is not None for j in mid), mid
        assert set(states(mid)) <= {"queued", "running", "complete"}, mid
        again = start_rgr(["daemon", "--workers", "2", *FAST], repo, env)
        out2 = again.communicate(timeout=300)[0]
        assert again.returncode == 0, out + "\n---\n" + out2
        assert server.errors == [], server.errors
    jobs = queue_json(repo, env)
    assert states(jobs) == ["complete", "complete"], out2
    for job in jobs:
        assert_branch_done(repo, str(job["branch"]), tmp_path)
    counts = sessions_by_job(server)
    # Exactly once: a session is redone only when the kill cut it short.
    assert counts["beta"] in (SESSIONS_PER_JOB, SESSIONS_PER_JOB + 1), counts
    assert counts["alpha"] in (SESSIONS_PER_JOB, SESSIONS_PER_JOB + 1), counts
    assert "taken over" in out2 or "claimed job" in out2


#: A kill -9, then a restart in the same clone that takes the jobs back: in every run
#: while landing (test_kill_9_while_landing_on_a_remote_lands_exactly_once); a phase
#: cut off and played again on the restart: in every run after --grace
#: (test_sigterm_finishes_the_phase_within_grace_and_hands_it_back_past_it).
@sweep_only(WHERE, "kill -9 mid-session, restart")
def test_kill_9_mid_agent_session_then_restart(tmp_path: Path) -> None:
    run_killed_then_restarted(tmp_path, None)


#: None in every run (see test_kill_9_mid_agent_session_then_restart): the full sweep.
CI_POINTS: tuple[str, ...] = ()


@pytest.mark.parametrize("point", sweep(list(DAEMON_POINTS),
                                        lambda p: SWEEP or p in CI_POINTS, WHERE))
def test_kill_9_at_daemon_point_then_restart(tmp_path: Path, point: str) -> None:
    run_killed_then_restarted(tmp_path, point)


def two_clones(tmp_path: Path) -> tuple[Path, Path, Path]:
    bare, (a, b) = clones_of_a_hub(tmp_path, ("a", "b"))
    return bare, a, b


def clones_of_a_hub(tmp_path: Path, names: tuple[str, ...]) -> tuple[Path, list[Path]]:
    """A bare remote of the kata and one clone of it per name (a machine each)."""
    origin = make_project(tmp_path / "origin")
    bare = tmp_path / "hub.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin), str(bare))
    clones = []
    for name in names:
        clone = tmp_path / name
        git(tmp_path, "clone", "-q", "-o", "hub", str(bare), str(clone))
        for key, value in (("user.name", f"Machine {name}"),
                           ("user.email", f"{name}@example.com"),
                           ("commit.gpgsign", "false")):
            git(clone, "config", key, value)
        clones.append(clone)
    return bare, clones


def test_two_daemons_share_a_bare_remote(tmp_path: Path) -> None:
    """Two machines on one bare remote, `--integrate merge`, as the fleet runs: each job
    claimed once and landed once. The second landing rebases onto the first (and tidies
    its test list in a commit of rgr's own, noted with a copy of the job's handoff);
    while it is verified a person's push adds a line to main's test list, so it loses
    the race and rebases again: the tidy commit, now empty, is dropped, and git hands
    its note to the commit before it, which has its own (the two-record note the kube
    play of 2026-12-02 showed). Every note on main is one record."""
    bare, a, b = two_clones(tmp_path)
    names = ("alpha", "beta", "gamma", "delta", "eps", "zeta")[:6 if SWEEP else 2]
    half = len(names) // 2
    pushed: list[str] = []

    def watch(daemon: subprocess.Popen[str], lines: list[str]) -> None:
        # The daemon's lines as they come: a "verifying" right after a tidied test list
        # is a second landing's first round, which the person's push then outruns.
        assert daemon.stdout is not None
        for line in daemon.stdout:
            if not pushed and lines and "open line(s) of items done" in lines[-1] \
                    and "verifying rgr/make-" in line:
                pushed.append(person_pushes(bare, tmp_path, {}, "docs: a person's item",
                                            test_list="- [x] a person's item\n"))
            lines.append(line)

    with FakeModelServer(choose=choose) as server:
        env = rgr_env(tmp_path / "home", server.url)
        add(a, env, *names[:half], extra=("--remote", "hub"))
        add(b, env, *names[half:], extra=("--remote", "hub"))
        flags = ["daemon", "--remote", "hub", "--integrate", "merge", *FAST]
        daemons = [start_rgr(flags, clone, {**env, "RGR_DAEMON_HOST": host})
                   for clone, host in ((a, "machine-a"), (b, "machine-b"))]
        outs: list[list[str]] = [[], []]
        readers = [threading.Thread(target=watch, args=pair)
                   for pair in zip(daemons, outs, strict=True)]
        for reader in readers:
            reader.start()
        for daemon, reader in zip(daemons, readers, strict=True):
            daemon.wait(timeout=400)
            reader.join(timeout=30)
        out_a, out_b = ("".join(o) for o in outs)
        assert [d.returncode for d in daemons] == [0, 0], out_a + "\n---\n" + out_b
        assert server.errors == [], server.errors
    out = out_a + "\n---\n" + out_b
    # Each job exactly once: five sessions each, one claim each, all complete.
    assert sessions_by_job(server) == dict.fromkeys(names, SESSIONS_PER_JOB)
    jobs = queue_json(a, env, "--remote", "hub")
    assert states(jobs) == ["complete"] * len(names), out
    assert all(j["state"]["runs"] == 1 for j in jobs)  # type: ignore[index]
    assert "claimed job" in out_a and "claimed job" in out_b, out
    # The race this test is about happened: a tidied landing rebased again.
    assert pushed and "main moved on the remote hub while rgr/make-" in out, out
    fresh = fresh_notes(bare, fresh_clone(bare, tmp_path / "fresh"))
    subjects = git(fresh, "log", "--format=%s", "main").splitlines()
    for name in names:
        assert subjects.count(f"feat: {name}") == 1, subjects
    # Every note on main is one JSON record (notes_on_branch reads each as one), and
    # each job's handoffs there are one clean kata.
    notes = notes_on_branch(fresh, "main")
    for job in jobs:
        phases = [n["phase"] for n in notes if n.get("branch") == job["branch"]
                  and not (n.get("landing") or {}).get("copiedFrom")]  # type: ignore[attr-defined]
        assert phases == PHASES, (job["branch"], phases)
    assert_suite_green(fresh)


#: PID 1 of a PID namespace, as tini is in a container: burns ``argv[1]`` pids first
#: (so that each namespace's daemon has another pid, dead in the other namespaces), then
#: runs the rest of argv and hands it SIGTERM.
PID_ONE = """
import signal, subprocess, sys
for _ in range(int(sys.argv[1])):
    subprocess.run(["true"])
child = subprocess.Popen(sys.argv[2:])
signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
sys.exit(child.wait())
"""


def pid_namespace() -> list[str]:
    """How to start a process in a PID namespace of its own here (with its own /proc),
    or pytest.skip saying why there is none."""
    for how in (["unshare", "--pid", "--fork", "--mount-proc"],
                ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc"]):
        try:
            done = subprocess.run([*how, "true"], capture_output=True, text=True, timeout=30)
        except FileNotFoundError:
            pytest.skip("no unshare (util-linux) here: PID namespaces cannot be made")
        if done.returncode == 0:
            return how
    pytest.skip(f"unshare cannot make a PID namespace here: {done.stderr.strip()}")


def test_workers_sharing_a_host_name_in_separate_pid_namespaces_never_take_a_live_job(
        tmp_path: Path) -> None:
    """Containers on the host network: three daemons on one host name (no
    RGR_DAEMON_HOST), each in a PID namespace of its own, where the others' pids name
    no process. One job, so two idle daemons keep reading the busy one's claim for the
    whole run: the job runs once (claimed once, five sessions), never taken over."""
    how = pid_namespace()
    bare, clones = clones_of_a_hub(tmp_path, ("a", "b", "c"))
    names = ("alpha",)
    with FakeModelServer(choose=choose) as server:
        env = rgr_env(tmp_path / "home", server.url)
        env.pop("RGR_DAEMON_HOST", None)
        add(clones[0], env, *names, extra=("--remote", "hub"))
        daemons = [subprocess.Popen(
            [*how, sys.executable, "-c", PID_ONE, str(3 * i), sys.executable, "-m", "rgr",
             "daemon", "--remote", "hub", *FAST], cwd=clone, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True) for i, clone in enumerate(clones)]
        outs = [d.communicate(timeout=400)[0] for d in daemons]
        everything = "\n---\n".join(outs)
        assert [d.returncode for d in daemons] == [0, 0, 0], everything
        assert server.errors == [], server.errors
    assert "taken over" not in everything, everything
    assert sessions_by_job(server) == dict.fromkeys(names, SESSIONS_PER_JOB)
    jobs = queue_json(clones[0], env, "--remote", "hub")
    assert states(jobs) == ["complete"] * len(names)
    assert all(j["state"]["runs"] == 1 for j in jobs), jobs  # type: ignore[index]
    # The claims were written from other namespaces, with other pids, on one host name.
    claimed = [line for out in outs for line in out.splitlines() if "claimed job" in line]
    assert len(claimed) == len(names), everything
    for job in jobs:
        assert_branch_done(bare, str(job["branch"]), tmp_path)


#: A claim judged by its lease alone, taken once the lease ran out by the reader's
#: clock: tests/daemon/test_queue.py, its lease tests; a live claim never taken: the
#: PID-namespace test above, in every run.
@sweep_only(WHERE, "a dead machine's job taken over after its lease")
def test_lease_expiry_hands_a_dead_machines_job_to_the_other(tmp_path: Path) -> None:
    bare, a, b = two_clones(tmp_path)
    server_box: list[FakeModelServer] = []
    daemon_box: list[subprocess.Popen[str]] = []
    hook = killer(server_box, daemon_box, "red-alpha")
    with FakeModelServer(choose=choose, on_request=hook) as server:  # type: ignore[arg-type]
        server_box.append(server)
        env = rgr_env(tmp_path / "home", server.url)
        add(a, env, "alpha", extra=("--remote", "hub"))
        one = start_rgr(["daemon", "--remote", "hub", *FAST],
                        a, {**env, "RGR_DAEMON_HOST": "machine-a"})
        daemon_box.append(one)
        one.communicate(timeout=300)
        assert one.returncode == -9
        killed_at = time.monotonic()
        two = start_rgr(["daemon", "--remote", "hub", *FAST],
                        b, {**env, "RGR_DAEMON_HOST": "machine-b"})
        out_b = two.communicate(timeout=300)[0]
        assert two.returncode == 0, out_b
        assert server.errors == [], server.errors
    assert "taken over from machine-a" in out_b, out_b
    claimed = next(line for line in out_b.splitlines() if "claimed job 1" in line)
    assert claimed
    assert time.monotonic() - killed_at >= 6  # not before the lease ran out
    jobs = queue_json(b, env, "--remote", "hub")
    assert states(jobs) == ["complete"] and jobs[0]["state"]["runs"] == 2  # type: ignore[index]
    assert_branch_done(bare, "rgr/make-alpha", tmp_path)
    # PLAN was published by machine a: machine b did not redo it.
    assert sessions_by_job(server)["alpha"] in (SESSIONS_PER_JOB, SESSIONS_PER_JOB + 1)


#: Jobs rebased onto a moving main, their test lists tidied, in every run through a
#: remote (test_two_daemons_share_a_bare_remote); a conflict named without an agent
#: (tests/daemon/test_land.py) and with one (the merge fixer's test, full sweep).
@sweep_only(WHERE, "landing locally onto a moved main, a conflict named")
def test_integrate_merge_lands_parallel_jobs_and_names_a_conflict(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    moved = threading.Event()

    def move_base(record: RequestRecord) -> None:
        # While the first sessions run, someone else lands a commit on main.
        if not moved.is_set():
            moved.set()
            (repo / "CHANGELOG.md").write_text("unrelated work\n")
            git(repo, "add", "CHANGELOG.md")
            git(repo, "commit", "-q", "-m", "docs: changelog")

    with FakeModelServer(choose=choose, on_request=move_base) as server:
        env = rgr_env(tmp_path / "home", server.url)
        # The second "make alpha" writes its own alpha.py: a real conflict (and no
        # merge-fixer: tests below give it one).
        add(repo, env, "alpha", "beta", "alpha")
        done = rgr(["daemon", "--workers", "3", "--integrate", "merge", "--merge-fix-tries",
                    "0", *FAST], repo, env, timeout=500)
        assert server.errors == [], server.errors
    jobs = queue_json(repo, env)
    by_state: dict[str, list[dict[str, object]]] = {}
    for job in jobs:
        by_state.setdefault(str(job["state"]["state"]), []).append(job)  # type: ignore[index]
    assert sorted(by_state) == ["complete", "needs-attention"], done.stdout
    assert len(by_state["complete"]) == 2 and done.returncode == 1, done.stdout
    landed = [str(j["branch"]) for j in by_state["complete"]]
    assert "rgr/make-beta" in landed
    # All started from the old main: each landed job was rebased onto the moving main,
    # verified, and main fast-forwarded to it, notes and all (notes.rewriteRef).
    for branch in landed:
        assert f"rebasing {branch} onto main" in done.stdout, done.stdout
        # (A commit rgr made while landing carries the job's handoff: not a phase.)
        phases = [n["phase"] for n in notes_on_branch(repo, "main")
                  if n.get("branch") == branch
                  and not (n.get("landing") or {}).get("copiedFrom")]  # type: ignore[attr-defined]
        assert phases == PHASES, (branch, phases)
    assert git(repo, "rev-parse", "main").strip() in {
        git(repo, "rev-parse", b).strip() for b in landed}
    assert (repo / "CHANGELOG.md").exists() and (repo / "beta.py").exists()
    # Both test lists survive the union merge of rgr's bookkeeping file.
    listing = (repo / "test-list.md").read_text()
    assert "alpha value is one" in listing and "beta value is one" in listing
    assert_suite_green(repo)
    # Every commit rgr added on main has a handoff note, and the commit main ends on
    # says what was verified on it before main moved there (rgr.branches.landing).
    changelog = git(repo, "log", "--format=%H", "--grep=docs: changelog", "main").strip()
    added = git(repo, "log", "--format=%H %s", f"{changelog}..main").splitlines()
    ours = [line.split()[0] for line in added if line.split()[1] == "rgr:"]
    assert ours, added
    # (the test list tidied after the second job's union merge is one of them)
    assert any("test-list.md after landing on main" in line for line in added), added
    for commit in ours:
        assert git(repo, "notes", "--ref=tdd-handoffs", "show", commit).strip(), commit
    tip_note = json.loads(git(repo, "notes", "--ref=tdd-handoffs", "show", "main"))
    assert tip_note["landing"]["verdict"] == "pass", tip_note
    assert tip_note["landing"]["by"] == "daemon" and tip_note["landing"]["into"] == "main"
    assert tip_note["landing"]["tests"]["passed"] >= 2 and \
        tip_note["landing"]["tests"]["failing"] == []
    # The other alpha conflicts in real code: named, main untouched.
    message = str(by_state["needs-attention"][0]["state"]["message"])  # type: ignore[index]
    assert "conflicts in alpha.py" in message and "main is unchanged" in message, message
    assert git(repo, "status", "--porcelain") == ""


@sweep_only(WHERE, "a clean merge that breaks the integrated tree")
def test_a_clean_merge_that_breaks_the_integrated_tree_does_not_land_and_says_why(
        tmp_path: Path) -> None:
    """Each side green, the union red, no file in common: while the job runs, a person
    lands on main a test of the project's policy (every top-level module is listed) that
    the job's new module breaks. The rebase is clean; only running the integrated tree
    shows it: the job does not land, says which test failed there, and main stays the
    person's. (The landing's parts without an agent: tests/daemon/test_land.py.)"""
    repo = make_project(tmp_path / "kata")
    moved = threading.Event()
    listed = sorted(p.stem for p in repo.glob("*.py"))
    policy = ("import pathlib\n\nMODULES = " + repr(listed) + "\n\n\n"
              "def test_every_module_is_listed():\n"
              "    root = pathlib.Path(__file__).resolve().parent.parent\n"
              "    assert sorted(p.stem for p in root.glob('*.py')) == MODULES\n")

    def person_lands_a_policy(record: RequestRecord) -> None:
        if not moved.is_set():
            moved.set()
            (repo / "tests").mkdir(exist_ok=True)
            (repo / "tests" / "test_modules.py").write_text(policy)
            git(repo, "add", "tests/test_modules.py")
            git(repo, "commit", "-q", "-m", "tests: every module is listed")

    with FakeModelServer(choose=choose, on_request=person_lands_a_policy) as server:
        env = rgr_env(tmp_path / "home", server.url)
        add(repo, env, "alpha")
        done = rgr(["daemon", "--workers", "1", "--integrate", "merge", "--merge-fix-tries",
                    "0", *FAST], repo, env, timeout=400)
        assert server.errors == [], server.errors
    [job] = queue_json(repo, env)
    state = job["state"]
    assert isinstance(state, dict)
    message = " ".join(str(state["message"]).split())
    assert state["state"] == "needs-attention" and done.returncode == 1, done.stdout
    assert "the integrated tree (rgr/make-alpha" in message, message
    assert "does not pass; main is unchanged" in message, message
    assert "tests/test_modules.py::test_every_module_is_listed" in message, message
    # main is the person's commit; the job's branch and its handoffs are kept
    assert git(repo, "log", "-1", "--format=%s", "main").strip() == \
        "tests: every module is listed"
    assert not (repo / "alpha.py").exists()
    assert notes_on_branch(repo, "rgr/make-alpha")[-1]["phase"] == "COMPLETE"


#: The job's alpha.py in the acceptance landing case: ``double`` reads the base's
#: config.py, which only the examiner's hidden test covers.
ALPHA_WITH_DOUBLE = ("from config import FACTOR\n\n\ndef value():\n    return 1\n\n\n"
                     "def double():\n    return 2 * FACTOR\n")
DOUBLED = "alpha's double is two"


def choose_examined(system: str, prompt: str) -> SessionScript:
    """daemon_kata's job, with an examiner whose hidden test covers ``double`` too."""
    if "You are the EXAMINER" in system:
        return SessionScript([
            write("test_rgr_acceptance.py", "from alpha import double, value\n\n\n"
                  "def test_value():\n    assert value() == 1\n\n\n"
                  "def test_double():\n    assert double() == 2\n"),
            structured({"tests": [{"name": "test_value", "behaviour": "alpha's value is one"},
                                  {"name": "test_double", "behaviour": DOUBLED}]})],
            expect_system_contains="You are the EXAMINER", name="examiner-alpha")
    if "You are the IMPLEMENTER" in system:
        return SessionScript([write("alpha.py", ALPHA_WITH_DOUBLE),
                              bash("git add -A && git commit -q -m 'feat: alpha'"),
                              structured({"summary": "implemented"})],
                             expect_system_contains="You are the IMPLEMENTER",
                             name="green-alpha")
    return choose(system, prompt)


@sweep_only(WHERE, "a landing the acceptance tests stop")
def test_a_landing_whose_suite_passes_but_loses_a_behaviour_does_not_land(
        tmp_path: Path) -> None:
    """The examiner on, as for any user: the job's hidden acceptance tests pass on its
    branch. While it runs, a person changes the base's config.py (no file in common
    with the job, every test of both sides still green), which breaks a behaviour only
    the acceptance tests cover: the integrated tree's suite passes, its acceptance tests
    do not, and nothing lands; the job names the missing behaviour in words."""
    repo = make_project(tmp_path / "kata", extra_config='[adequacy]\nmode = "off"\n')
    (repo / "config.py").write_text("FACTOR = 1\n")
    git(repo, "add", "config.py")
    git(repo, "commit", "-q", "-m", "config")
    moved = threading.Event()

    def person_changes_the_factor(record: RequestRecord) -> None:
        if not moved.is_set():
            moved.set()
            (repo / "config.py").write_text("FACTOR = 3\n")
            git(repo, "commit", "-q", "-am", "config: a factor of three")

    with FakeModelServer(choose=choose_examined,
                         on_request=person_changes_the_factor) as server:
        env = rgr_env(tmp_path / "home", server.url)
        del env["TDD_ACCEPTANCE_MODE"]  # on, as for any user
        add(repo, env, "alpha")
        done = rgr(["daemon", "--workers", "1", "--integrate", "merge", "--merge-fix-tries",
                    "0", *FAST], repo, env, timeout=400)
        assert server.errors == [], server.errors
    [job] = queue_json(repo, env)
    state = job["state"]
    assert isinstance(state, dict)
    message = " ".join(str(state["message"]).split())
    assert state["state"] == "needs-attention" and done.returncode == 1, done.stdout
    assert "does not pass; main is unchanged" in message, message
    assert f"the run's acceptance tests fail on the integrated tree: missing {DOUBLED}" \
        in message, message
    assert "failed 0" in message or "0 failed" in message, message  # the suite was green
    # the job's branch passed its examination; main is the person's
    final = notes_on_branch(repo, "rgr/make-alpha")[-1]
    assert final["phase"] == "COMPLETE" and final["acceptance"]["verdict"] == "pass", final
    assert git(repo, "log", "-1", "--format=%s", "main").strip() == "config: a factor of three"
    assert "double" not in git(repo, "log", "-p", "main")


#: The fixer's judgement on real merges without an agent: tests/mergefix/test_merge_fix.py.
@sweep_only(WHERE, "the merge fixer, honest and cheating")
def test_merge_fixer_lands_a_conflicting_job_and_a_cheat_needs_attention(
        tmp_path: Path) -> None:
    """Three jobs write their own alpha.py: the first lands as it is, the second
    through a merge-fixer session, the third's fixer weakens a test and is rejected."""
    repo = make_project(tmp_path / "kata")
    fixers: list[str] = []
    lock = threading.Lock()

    def scripts(system: str, prompt: str) -> object:
        if "MERGE-FIXER" not in system:
            return choose(system, prompt)
        with lock:  # integrations are one at a time: the first fix is honest
            fixers.append(prompt)
            return merge_fix(cheat=len(fixers) > 1)

    with FakeModelServer(choose=scripts) as server:  # type: ignore[arg-type]
        env = rgr_env(tmp_path / "home", server.url)
        add(repo, env, "alpha", "alpha", "alpha")
        done = rgr(["daemon", "--workers", "3", "--integrate", "merge", "--merge-fix-tries",
                    "1", *FAST], repo, env, timeout=500)
        assert server.errors == [], server.errors
    assert done.returncode == 1, done.stdout + done.stderr
    jobs = queue_json(repo, env)
    assert sorted(states(jobs)) == ["complete", "complete", "needs-attention"], done.stdout
    assert done.stdout.count("merge-fixer sessions (1 at most) resolve it") == 2, done.stdout
    assert sessions_by_job(server) == {"alpha": 3 * SESSIONS_PER_JOB + 2}
    assert all("alpha.py" in prompt and "MERGE_HEAD" in prompt for prompt in fixers)
    # The honest fix: its merge judged and noted, main fast-forwarded to it (its first
    # parent the base tip it merged onto); both landed jobs' handoffs are on main.
    notes = notes_on_branch(repo, "main")
    fixes = [n for n in notes if n.get("mergeFix")]
    assert len(fixes) == 1, notes
    fix = fixes[0]
    assert fix["commit"] == git(repo, "rev-parse", "main").strip()
    assert fix["mergeFix"]["status"] == "resolved"  # type: ignore[index]
    assert fix["mergeFix"]["conflicts"] == ["alpha.py"]  # type: ignore[index]
    assert fix["phase"] == "COMPLETE" and fix["agent"]["sessionId"]  # type: ignore[index]
    assert git(repo, "rev-parse", "main^1").strip() == fix["mergeFix"]["baseTip"]  # type: ignore[index]
    # ...and the landing judged that merge on main, noted on it before main moved.
    assert fix["landing"]["verdict"] == "pass" and fix["landing"]["how"] == "merge"  # type: ignore[index]
    assert fix["landing"]["tip"] == fix["commit"] and fix["landing"]["copiedFrom"] is None  # type: ignore[index]
    landed = [j for j in jobs if j["state"]["state"] == "complete"]  # type: ignore[index]
    for job in landed:
        phases = [n["phase"] for n in notes if n.get("branch") == job["branch"]
                  and not n.get("mergeFix")
                  and not (n.get("landing") or {}).get("copiedFrom")]  # type: ignore[attr-defined]
        assert phases == PHASES, (job["branch"], phases)
    assert (repo / "alpha.py").read_text() == MERGED_ALPHA
    assert_suite_green(repo)
    assert git(repo, "status", "--porcelain") == ""
    shown = rgr(["show", fix["commit"]], repo, env)  # type: ignore[list-item]
    assert shown.returncode == 0 and "resolved: onto main" in shown.stdout, shown.stdout
    # The cheat: rejected, named, kept with a note saying why; main stays at the fix.
    stuck = next(j for j in jobs if j["state"]["state"] == "needs-attention")  # type: ignore[index]
    message = str(stuck["state"]["message"])  # type: ignore[index]
    assert "conflicts in alpha.py" in message and "main is unchanged" in message, message
    assert "test-weakened" in message and "tests/test_alpha.py" in message, message
    kept = [n for n in (json.loads(git(repo, "cat-file", "-p", line.split()[0])) for line in
                        git(repo, "notes", "--ref=refs/notes/tdd-handoffs", "list").splitlines())
            if (n.get("mergeFix") or {}).get("status") == "rejected"]
    assert len(kept) == 1 and kept[0]["error"].startswith("test-weakened"), kept
    # The fixers ran as `rgr fix-merge` in the jobs' clones, sealed like every phase.
    logs = "".join(p.read_text() for p in (repo / ".git" / "rgr" / "jobs").glob("*.log"))
    fixer_log = logs[logs.index("fix-merge --onto"):]
    assert "agents reach only the model API" in fixer_log, fixer_log
    assert "merge fix: ▸ turn 1 Read alpha.py" in fixer_log, fixer_log


#: A stop at the next phase boundary and the restart that completes the job run in
#: every run (SIGTERM:
#: test_sigterm_finishes_the_phase_within_grace_and_hands_it_back_past_it); cancel's answers:
#: tests/daemon/test_queue.py.
@sweep_only(WHERE, "rgr daemon stop and rgr queue cancel mid-run")
def test_stop_and_cancel_at_phase_boundaries(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    asked = threading.Event()
    answers: list[subprocess.CompletedProcess[str]] = []

    with FakeModelServer(choose=choose) as server:
        env = rgr_env(tmp_path / "home", server.url)

        def stop_and_cancel(record: RequestRecord) -> None:
            if record.script_index is None or asked.is_set():
                return
            if server._state.scripts[record.script_index].name == "red-alpha":
                asked.set()
                answers.append(rgr(["queue", "cancel", "2"], repo, env))
                answers.append(rgr(["daemon", "stop"], repo, env))

        server._state.on_request = stop_and_cancel
        add(repo, env, "alpha", "beta")
        first = rgr(["daemon", "--workers", "2", *FAST], repo, env, timeout=400)
        assert first.returncode == 0, first.stdout + first.stderr
        assert [a.returncode for a in answers] == [0, 0], answers
        assert "stop at the next phase boundary" in answers[1].stdout
        jobs = queue_json(repo, env)
        assert states(jobs) == ["stopped", "cancelled"], first.stdout
        assert "resumable" in str(jobs[0]["state"]["message"])  # type: ignore[index]
        # The running RED finished and was noted before the stop.
        assert [n["phase"] for n in notes_on_branch(repo, "rgr/make-alpha")] == \
            ["REFACTOR", "PLAN", "RED"]
        second = rgr(["daemon", "--workers", "2", *FAST], repo, env, timeout=400)
        assert second.returncode == 0, second.stdout
        assert server.errors == [], server.errors
    assert states(queue_json(repo, env)) == ["complete", "cancelled"]
    assert_branch_done(repo, "rgr/make-alpha", tmp_path)
    counts = sessions_by_job(server)
    assert counts["alpha"] == SESSIONS_PER_JOB  # nothing redone after the stop
    assert counts["beta"] < SESSIONS_PER_JOB  # cancelled before its end


#: The landing's verification in every run (test_two_daemons_share_a_bare_remote); the
#: pull request of a run: tests/commands/test_report.py.
@sweep_only(WHERE, "--integrate pr")
def test_integrate_pr_opens_a_pull_request_for_the_verified_branch(tmp_path: Path) -> None:
    """`--integrate pr`: the job's branch, rebased and verified, goes to the hub with its
    notes and `gh pr create` is called for it; the base branch does not move."""
    repo = make_project(tmp_path / "kata")
    base = git(repo, "rev-parse", "main").strip()
    log = tmp_path / "gh.log"
    with FakeModelServer(choose=choose) as server:
        env = rgr_env(tmp_path / "home", server.url)
        env.update(PATH=f"{gh_bin(tmp_path)}{os.pathsep}{env['PATH']}", GH_LOG=str(log))
        add(repo, env, "alpha")
        done = rgr(["daemon", "--workers", "1", "--integrate", "pr", *FAST], repo, env,
                   timeout=300)
        assert server.errors == [], server.errors
    assert done.returncode == 0, done.stdout + done.stderr
    [job] = queue_json(repo, env)
    assert job["state"]["state"] == "complete", job  # type: ignore[index]
    assert "https://github.com/example/kata/pull/7" in str(job["state"]["message"]), job  # type: ignore[index]
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    create = next(c for c in calls if c[:2] == ["pr", "create"])
    assert create[2:4] == ["--head", "rgr/make-alpha"] and create[-2:] == ["--base", "main"]
    assert git(repo, "rev-parse", "main").strip() == base  # a pull request merges nothing
    assert_branch_done(repo, "rgr/make-alpha", tmp_path)  # pushed here, notes and all
    # The branch proposed was judged once, by the landing, and says so in its note; the
    # pull request's own check found that verdict on the same commit and reused it.
    tip_note = json.loads(git(repo, "notes", "--ref=tdd-handoffs", "show", "rgr/make-alpha"))
    assert tip_note["landing"]["verdict"] == "pass" and tip_note["landing"]["by"] == "daemon"
    assert "(verified before, noted on this commit)" in str(job["state"]["message"]), job  # type: ignore[index]


# ------------------------------------------------- a fleet landing on one remote --


def person_pushes(bare: Path, tmp: Path, files: dict[str, str], message: str,
                  test_list: str = "") -> str:
    """Someone else lands a commit on the remote's main (from a clone of their own);
    ``test_list``: lines they add at the end of its test-list.md."""
    person = tmp / "person"
    if not person.exists():
        git(tmp, "clone", "-q", str(bare), str(person))
        git(person, "config", "user.name", "A Person")
        git(person, "config", "user.email", "person@example.com")
    git(person, "pull", "-q", "--ff-only", "origin", "main")
    for name, text in files.items():
        (person / name).write_text(text)
    if test_list:
        with (person / "test-list.md").open("a") as listed:
            listed.write(test_list)
        files = {**files, "test-list.md": ""}
    git(person, "add", *files)
    git(person, "commit", "-q", "-m", message)
    git(person, "push", "-q", "origin", "HEAD:main")
    return git(person, "rev-parse", "HEAD").strip()


def fresh_clone(bare: Path, where: Path) -> Path:
    git(where.parent, "clone", "-q", "--branch", "main", str(bare), str(where))
    return where


def job_clones_main(clone: Path) -> set[str]:
    """The local main of every job clone of ``clone`` (the daemon leaves them alone)."""
    env_home = clone.parent / "home"
    found = set()
    for head in (env_home / "cache" / "rgr" / "jobs").glob(f"{clone.name}-*/*/.git"):
        found.add(git(head.parent, "rev-parse", "refs/heads/main").strip())
    return found


#: Its parts: two machines landing on one remote (every run:
#: test_two_daemons_share_a_bare_remote); landing there exactly once through a kill -9
#: (every run: test_kill_9_while_landing_on_a_remote_lands_exactly_once); a conflicting
#: job fixed and a cheat stopped (full sweep:
#: test_merge_fixer_lands_a_conflicting_job_and_a_cheat_needs_attention); all of them at
#: once, the daemon suite's longest test, only in the full sweep.
@sweep_only(WHERE, "the fleet, all at once")
def test_a_fleet_lands_on_the_remote_exactly_once_and_a_fresh_clone_has_it_all(
        tmp_path: Path) -> None:
    """Two clones of one bare remote, --integrate merge: jobs on separate files (two by
    default, four in the full sweep) land; a person lands their own alpha.py on the
    remote meanwhile, so both alpha jobs conflict: the first fixer's merge lands, the
    second weakens a test and that job needs attention. The remote's main, read by a
    fresh clone, holds every landed job once, its suite passes, and the remote's notes
    hold every handoff; nobody's checked-out main moved."""
    bare, a, b = two_clones(tmp_path)
    first = git(bare, "rev-parse", "main").strip()
    # One job on separate files per machine by default (each machine still runs a
    # conflicting alpha and a clean job); the full sweep gives each machine two.
    on_a, on_b = (("beta", "gamma"), ("delta", "eps")) if SWEEP else (("beta",), ("delta",))
    clean = (*on_a, *on_b)
    fixers: list[str] = []
    lock = threading.Lock()
    pushed: list[str] = []

    def scripts(system: str, prompt: str) -> object:
        if "MERGE-FIXER" not in system:
            return choose(system, prompt)
        with lock:
            fixers.append(prompt)
            return merge_fix(cheat=len(fixers) > 1)

    def lands_meanwhile(record: RequestRecord) -> None:
        # Once both alpha jobs are under way (their GREEN: both started from the old
        # main), so that both conflict with it.
        if record.script_index is None or \
                server._state.scripts[record.script_index].name != "green-alpha":
            return
        with lock:
            if pushed:
                return
            pushed.append(person_pushes(bare, tmp_path, {
                "alpha.py": "# a person's alpha\ndef value():\n    return 1\n"},
                "feat: a person's alpha"))

    with FakeModelServer(choose=scripts, on_request=lands_meanwhile) as server:  # type: ignore[arg-type]
        env = rgr_env(tmp_path / "home", server.url)
        # The two alpha jobs first: one machine claims each at once.
        add(a, env, "alpha", extra=("--remote", "hub"))
        add(b, env, "alpha", extra=("--remote", "hub"))
        add(a, env, *on_a, extra=("--remote", "hub"))
        add(b, env, *on_b, extra=("--remote", "hub"))
        flags = ["daemon", "--remote", "hub", "--integrate", "merge", "--merge-fix-tries", "1",
                 *FAST]
        one = start_rgr(flags, a, {**env, "RGR_DAEMON_HOST": "machine-a"})
        two = start_rgr(flags, b, {**env, "RGR_DAEMON_HOST": "machine-b"})
        out_a = one.communicate(timeout=900)[0]
        out_b = two.communicate(timeout=900)[0]
        assert server.errors == [], server.errors
    out = out_a + "\n---\n" + out_b
    assert {one.returncode, two.returncode} <= {0, 1} and 1 in (one.returncode, two.returncode), out
    jobs = queue_json(a, env, "--remote", "hub")
    by_state: dict[str, list[dict[str, object]]] = {}
    for job in jobs:
        by_state.setdefault(str(job["state"]["state"]), []).append(job)  # type: ignore[index]
    assert sorted(by_state) == ["complete", "needs-attention"], out
    assert len(by_state["complete"]) == 1 + len(clean), out
    assert sessions_by_job(server) == {"alpha": 2 * SESSIONS_PER_JOB + 2,
                                       **dict.fromkeys(clean, SESSIONS_PER_JOB)}
    # What the remote holds, read by someone who was never part of the fleet.
    fresh = fresh_clone(bare, tmp_path / "fresh")
    tip = git(fresh, "rev-parse", "HEAD").strip()
    for name in clean:
        assert (fresh / f"{name}.py").exists() and (fresh / "tests" / f"test_{name}.py").exists()
    assert (fresh / "alpha.py").read_text() == MERGED_ALPHA
    assert_suite_green(fresh)
    subjects = git(fresh, "log", "--format=%s", "main").splitlines()
    for name in ("alpha", *clean):
        assert subjects.count(f"feat: {name}") == 1, subjects  # landed once, not twice
    assert pushed[0] in git(fresh, "rev-list", "main").split()
    # Each complete job says what the remote held when it landed (read back), and the
    # commit it landed is in the remote's main.
    history = set(git(fresh, "rev-list", "main").split())
    for job in by_state["complete"]:
        state = job["state"]
        assert "(read back)" in str(state["message"]), state  # type: ignore[index]
        assert state["tip"] in history, state  # type: ignore[index]
    assert "fast-forwarded" not in out  # the old wording that was not read back
    # The remote's notes: every landed job's handoffs on main, the fix's note, and the
    # job that needs attention keeps its own on its branch.
    notes = notes_on_branch(fresh_notes(bare, fresh), "main")
    for job in by_state["complete"]:
        phases = [n["phase"] for n in notes if n.get("branch") == job["branch"]
                  and not n.get("mergeFix")
                  and not (n.get("landing") or {}).get("copiedFrom")]  # type: ignore[attr-defined]
        assert phases == PHASES, (job["branch"], phases)
    fixes = [n for n in notes if (n.get("mergeFix") or {}).get("status") == "resolved"]
    assert len(fixes) == 1 and fixes[0]["mergeFix"]["conflicts"] == ["alpha.py"]  # type: ignore[index]
    stuck = by_state["needs-attention"][0]
    message = str(stuck["state"]["message"])  # type: ignore[index]
    assert "conflicts in alpha.py" in message and "test-weakened" in message, message
    stuck_notes = [n["phase"] for n in notes_on_branch(fresh, f"origin/{stuck['branch']}")
                   if n.get("branch") == stuck["branch"]]
    assert stuck_notes == PHASES, stuck_notes
    # Nobody's checked-out main moved: the two machines' clones, and the job clones.
    for clone in (a, b):
        assert git(clone, "rev-parse", "main").strip() == first
        assert git(clone, "status", "--porcelain") == ""
        assert job_clones_main(clone) <= {first}
    assert tip != first


def fresh_notes(bare: Path, fresh: Path) -> Path:
    """``fresh`` with the remote's handoff notes fetched (plain clones bring none)."""
    git(fresh, "fetch", "-q", str(bare), "+refs/notes/tdd-handoffs:refs/notes/tdd-handoffs")
    git(fresh, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
    return fresh


LAND_CI_POINTS = ("land:pushed",)


@pytest.mark.parametrize("point", sweep(list(LAND_POINTS),
                                        lambda p: SWEEP or p in LAND_CI_POINTS, WHERE))
def test_kill_9_while_landing_on_a_remote_lands_exactly_once(tmp_path: Path,
                                                              point: str) -> None:
    """kill -9 between the verification and the push, during the push, and after the
    push before anything was read back or recorded: the restarted daemon lands the job
    (or finds it landed), once."""
    bare, a, _b = two_clones(tmp_path)
    first = git(bare, "rev-parse", "main").strip()
    with FakeModelServer(choose=choose) as server:
        env = rgr_env(tmp_path / "home", server.url)
        add(a, env, "alpha", extra=("--remote", "hub"))
        flags = ["daemon", "--remote", "hub", "--integrate", "merge", *FAST]
        killed = start_rgr(flags, a, {**env, "RGR_FAILPOINT": point})
        out = killed.communicate(timeout=400)[0]
        assert killed.returncode == -9, out
        mid = queue_json(a, env, "--remote", "hub")
        assert states(mid) == ["running"], mid
        again = start_rgr(flags, a, env)
        out2 = again.communicate(timeout=400)[0]
        assert again.returncode == 0, out + "\n---\n" + out2
        assert server.errors == [], server.errors
    [job] = queue_json(a, env, "--remote", "hub")
    assert job["state"]["state"] == "complete", out2  # type: ignore[index]
    assert "(read back)" in str(job["state"]["message"]), job  # type: ignore[index]
    fresh = fresh_clone(bare, tmp_path / "fresh")
    subjects = git(fresh, "log", "--format=%s", "main").splitlines()
    assert subjects.count("feat: alpha") == 1 and subjects.count("test: alpha") == 1, subjects
    assert (fresh / "alpha.py").exists()
    assert_suite_green(fresh)
    assert git(a, "rev-parse", "main").strip() == first  # the clone's own main: untouched
    assert sessions_by_job(server)["alpha"] == SESSIONS_PER_JOB  # no phase redone


def test_sigterm_finishes_the_phase_within_grace_and_hands_it_back_past_it(
        tmp_path: Path) -> None:
    """SIGTERM twice to one job, then a restart: one job and its setup serve both
    stops (each of which once had a job of its own, five sessions more).

    Within --grace (RED under way): the phase finishes and is noted, the job stops at
    the boundary (resumable), the daemon exits 0. Past --grace (the model does not
    answer the next daemon's GREEN): the daemon cuts GREEN off once the grace period
    is over, hands the job back at its last phase boundary (stopped, no claim left,
    GREEN not noted), says so, and exits within the period and the few seconds handing
    back takes. The restart resumes from RED's handoff and completes, GREEN played
    again and nothing else redone."""
    repo = make_project(tmp_path / "kata")
    daemon_box: list[subprocess.Popen[str]] = []
    sent_mid = threading.Event()
    sent_past = threading.Event()
    released = threading.Event()
    termed_at: list[float] = []
    grace = 2.0
    with FakeModelServer(choose=choose) as server:
        env = rgr_env(tmp_path / "home", server.url)

        def term(record: RequestRecord) -> None:
            if record.script_index is None or released.is_set() or not daemon_box:
                return
            name = server._state.scripts[record.script_index].name
            if name == "red-alpha" and not sent_mid.is_set():
                sent_mid.set()
                daemon_box[0].terminate()  # SIGTERM, as docker stop or systemd send it
            elif name == "green-alpha" and len(daemon_box) == 2:
                if not sent_past.is_set():
                    sent_past.set()
                    termed_at.append(time.monotonic())
                    daemon_box[1].terminate()  # SIGTERM, as an engine's stop sends it
                released.wait(120)  # a phase far longer than the grace period

        server._state.on_request = term
        add(repo, env, "alpha")
        # A grace period far longer than any phase here: the phase finishes.
        first = start_rgr(["daemon", *FAST, "--grace", "600"], repo, env)
        daemon_box.append(first)
        out = first.communicate(timeout=400)[0]
        assert first.returncode == 0 and sent_mid.is_set(), out
        assert "job 1: finished phase RED; stopped before GREEN" in out, out
        [job] = queue_json(repo, env)
        assert job["state"]["state"] == "stopped", out  # type: ignore[index]
        message = str(job["state"]["message"])  # type: ignore[index]
        assert "SIGTERM" in message and "resumable" in message, message
        # The RED under way when the signal came finished and was noted.
        assert [n["phase"] for n in notes_on_branch(repo, "rgr/make-alpha")] == \
            ["REFACTOR", "PLAN", "RED"]

        second = start_rgr(["daemon", *FAST, "--grace", f"{grace:g}"], repo, env)
        daemon_box.append(second)
        try:
            out = second.communicate(timeout=400)[0]
        finally:
            released.set()
        assert sent_past.is_set(), out
        took = time.monotonic() - termed_at[0]
        print(f"\nSIGTERM to the daemon's exit: {took:.1f} s (--grace {grace:g})")
        assert second.returncode == 0, out
        # Within the grace period and the hand-back (a state CAS, a claim release),
        # far below the 120 s the phase would have taken.
        assert grace <= took < grace + 30, (took, out)
        assert "handed back job 1 at phase boundary: its GREEN was cut off" in out, out
        assert "finished phase" not in out, out
        [job] = queue_json(repo, env)
        assert job["state"]["state"] == "stopped" and job["claim"] is None, job  # type: ignore[index]
        message = str(job["state"]["message"])  # type: ignore[index]
        assert "SIGTERM" in message and "handed back" in message, message
        assert [n["phase"] for n in notes_on_branch(repo, "rgr/make-alpha")] == \
            ["REFACTOR", "PLAN", "RED"]

        third = rgr(["daemon", *FAST], repo, env, timeout=400)
        assert third.returncode == 0, third.stdout
        assert server.errors == [], server.errors
    [job] = queue_json(repo, env)
    assert job["state"]["state"] == "complete" and job["state"]["runs"] == 3, job  # type: ignore[index]
    assert_branch_done(repo, "rgr/make-alpha", tmp_path)
    # The cut-off GREEN was played again by the restart; every other session once.
    assert sessions_by_job(server)["alpha"] == SESSIONS_PER_JOB + 1


#: One budget for the whole queue, whoever spends it: tests/daemon/test_queue.py
#: (test_the_budget_is_the_queues_whole_spending).
@sweep_only(WHERE, "two machines, one budget")
def test_one_budget_for_the_fleet(tmp_path: Path) -> None:
    """Two daemons on two machines, each told --max-budget-usd X: together they stop
    near X (the phases running when the sum crossed it finish), not at 2 X."""
    _bare, a, b = two_clones(tmp_path)
    limit = 0.3  # about five sessions of the scripted model, as claude prices them
    with FakeModelServer(choose=choose) as server:
        env = rgr_env(tmp_path / "home", server.url)
        add(a, env, "alpha", "beta", extra=("--remote", "hub"))
        add(b, env, "gamma", "delta", extra=("--remote", "hub"))
        flags = ["daemon", "--remote", "hub", "--max-budget-usd", str(limit), *FAST]
        one = start_rgr(flags, a, {**env, "RGR_DAEMON_HOST": "machine-a"})
        two = start_rgr(flags, b, {**env, "RGR_DAEMON_HOST": "machine-b"})
        out = one.communicate(timeout=600)[0] + "\n---\n" + two.communicate(timeout=600)[0]
        assert one.returncode == 0 and two.returncode == 0, out
        assert server.errors == [], server.errors
    jobs = queue_json(a, env, "--remote", "hub")
    spent = sum(float(j["state"]["cost_usd"]) for j in jobs)  # type: ignore[index]
    sessions = len(server.sessions)
    per_session = spent / sessions
    # It got to the limit, and past it by at most the two phases (one per machine)
    # that were running when the sum crossed it.
    assert limit <= spent <= limit + 2 * per_session * 1.5, (spent, sessions, out)
    assert sessions < 2 * limit / per_session, (spent, sessions)  # not a budget each
    stopped = [j for j in jobs if j["state"]["state"] == "stopped"]  # type: ignore[index]
    assert stopped, out
    for job in stopped:
        message = str(job["state"]["message"])  # type: ignore[index]
        assert "the fleet's --max-budget-usd $0.3 is spent" in message, message
    assert out.count("the fleet's --max-budget-usd $0.3 is spent") >= 2, out
