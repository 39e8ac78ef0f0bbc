"""The daemon's queue, claims and notes sync on real repositories (no agent): the
commands' answers to bad input, the claim race (8 processes, exactly one winner per
round, locally and through a bare remote), and notes written on two clones at once."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from rgr.daemon import cron, remote
from rgr.daemon.hub import LocalHub, RefUpdate, RemoteHub, lost_race
from rgr.daemon.queue import Claim, JobSpec, JobState, Queue, QueueError
from rgr.store.gitcli import Git, git_env
from tests.conftest import Repo, RunRgr, git, make_repo
from tests.daemon_race import race

#: The claim race's rounds in CI; RGR_CLAIM_RACE_ROUNDS=500 for the long sweep. Each
#: round is 8 claims at one instant; a claim written without its expected old value (the
#: lost update this race is for) gave 8 winners in every local round and 2 in 13 of 15
#: rounds through a remote (2026-12-02), so 5 rounds catch it; each round costs ~0.3-0.8 s.
ROUNDS = int(os.environ.get("RGR_CLAIM_RACE_ROUNDS", "5"))


def add_job(repo: Path, feature: str) -> int:
    git_ = Git(repo, git_env())
    queue = Queue(git_, LocalHub(git_))
    spec = JobSpec(id=0, kind="run", feature=feature, base="main", branch=f"rgr/{feature}")
    return queue.add(spec, JobState("queued"))


def test_queue_add_list_cancel(repo: Repo, run_rgr: RunRgr) -> None:
    code, out, err = run_rgr(["queue", "add", "slugify: lowercase"], repo.path)
    assert code == 0, err
    assert "job 1 queued" in out and "rgr/slugify-lowercase" in out
    code, out, err = run_rgr(["queue", "add", "parse durations", "--after", "1"], repo.path)
    assert code == 0, err
    code, out, _ = run_rgr(["queue", "add", "--refactor", "split config"], repo.path)
    assert code == 0 and "job 3" in out and "rgr/refactor-split-config" in out
    code, out, err = run_rgr(["queue", "add", "nightly", "--refactor", "--every",
                              "0 2 * * *"], repo.path)
    assert code == 0 and "schedule 4" in out and "next at" in out, out + err
    # The refs are the queue: the spec, the state, no claim yet.
    refs = repo.git("for-each-ref", "--format=%(refname)", "refs/rgr").split()
    assert refs == [f"refs/rgr/{kind}/{n}" for kind in ("queue", "state") for n in (1, 2, 3, 4)]
    code, out, _ = run_rgr(["queue"], repo.path)
    lines = out.splitlines()
    assert lines[0].split() == ["id", "kind", "feature", "state", "worker", "phase/cycle",
                                "cost", "branch"]
    assert "waits for 1" in lines[2] and "scheduled (0 2 * * *)" in lines[4]
    code, out, _ = run_rgr(["queue", "cancel", "2"], repo.path)
    assert code == 0 and "cancelled" in out
    code, out, err = run_rgr(["queue", "cancel", "2"], repo.path)
    assert code == 1 and "already cancelled" in err
    code, out, _ = run_rgr(["queue", "--json"], repo.path)
    jobs = json.loads(out)
    assert [j["state"]["state"] for j in jobs] == ["queued", "cancelled", "queued", "scheduled"]
    assert jobs[1]["after"] == [1] and jobs[1]["blockedBy"] == [1]


def test_queue_json_rows_are_the_records_whole(repo: Repo, run_rgr: RunRgr) -> None:
    """``--json`` writes one compact row per job (json's C encoder, fast at 10,000 jobs):
    still one JSON array, each row the job's full records, and ``[]`` when empty."""
    code, out, _ = run_rgr(["queue", "--json"], repo.path)
    assert code == 0 and json.loads(out) == []
    assert run_rgr(["queue", "add", "ünïcode feature"], repo.path)[0] == 0
    g = Git(repo.path, git_env())
    claimed = Claim("h:1:0", "h", 1, 5.0, 6.0, 30.0)
    g.out("update-ref", "refs/rgr/claims/1", g.write_blob(claimed.to_json()))
    code, out, _ = run_rgr(["queue", "--json"], repo.path)
    lines = out.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == 3
    [row] = json.loads(out)
    [job] = Queue(g, LocalHub(g)).jobs()
    assert row == {**dataclasses.asdict(job.spec), "after": [],
                   "state": dataclasses.asdict(job.state),
                   "claim": dataclasses.asdict(claimed), "blockedBy": []}
    assert row["feature"] == "ünïcode feature"


@pytest.mark.parametrize(("args", "code", "message"), [
    (["queue", "add", "  "], 2, "the feature description is empty"),
    (["queue", "add", "x", "--after", "7"], 1, "there is no job 7"),
    (["queue", "add", "x", "--every", "61 * * * *"], 1, "out of range for the minute"),
    (["queue", "add", "x", "--every", "daily"], 1, "a cron expression has 5 fields"),
    (["queue", "cancel", "9"], 1, "there is no job 9"),
    (["daemon", "stop"], 1, "no rgr daemon is running"),
    (["queue", "--remote", "nowhere"], 1, "nowhere"),
])
def test_bad_input(repo: Repo, run_rgr: RunRgr, args: list[str], code: int,
                   message: str) -> None:
    got, out, err = run_rgr(args, repo.path)
    assert got == code, out + err
    assert message in err, err
    assert repo.git("status", "--porcelain") == ""


def test_after_cycle_is_refused(repo: Repo) -> None:
    one = add_job(repo.path, "one")
    two = add_job(repo.path, "two")
    # A cycle can only exist in refs edited by hand: 1 after 2 while 2 is after 1.
    g = Git(repo.path, git_env())
    for ident, after in ((one, [two]), (two, [one])):
        spec = JobSpec(id=ident, kind="run", feature=f"j{ident}", base="main",
                       branch=f"rgr/j{ident}", after=tuple(after))
        g.out("update-ref", f"refs/rgr/queue/{ident}", g.write_blob(spec.to_json()))
    queue = Queue(g, LocalHub(g))
    with pytest.raises(QueueError, match=r"form a cycle \((1 -> 2 -> 1|2 -> 1 -> 2)\)"):
        queue.add(JobSpec(0, "run", "three", "main", "rgr/three", after=(one,)),
                  JobState("queued"))


def test_cron_next_firing() -> None:
    nightly = cron.parse("0 2 * * *")
    assert nightly.next_after(datetime(2026, 11, 23, 5, 0)) == datetime(2026, 11, 24, 2, 0)
    assert nightly.next_after(datetime(2026, 11, 23, 1, 59)) == datetime(2026, 11, 23, 2, 0)
    every15 = cron.parse("*/15 9-17 * * 1-5")
    # Saturday 2026-11-28 -> Monday 09:00
    assert every15.next_after(datetime(2026, 11, 27, 17, 50)) == datetime(2026, 11, 30, 9, 0)
    assert cron.parse("30 4 1,15 * *").next_after(datetime(2026, 11, 2)) == \
        datetime(2026, 11, 15, 4, 30)


def test_lost_race_recognised_in_every_wording() -> None:
    for text in ("! [rejected] main -> main (non-fast-forward)",
                 "! [rejected] refs/notes/x -> refs/notes/x (fetch first)",
                 "error: cannot lock ref 'refs/rgr/claims/1': is at 1234 but expected 5678",
                 "!\trefs/rgr/claims/1\t[rejected] (stale info)",
                 "! [remote rejected] refs/rgr/claims/1 (failed to update ref)",
                 "fatal: cannot lock ref 'refs/x': reference already exists",
                 "error: atomic push failed for ref refs/rgr/claims/1. status: 7"):
        assert lost_race(text), text
    assert not lost_race("! [remote rejected] main -> main (pre-receive hook declined)")


def test_local_cas_create_only_and_expected_old(repo: Repo) -> None:
    g = Git(repo.path, git_env())
    hub = LocalHub(g)
    a, b = g.write_blob("a"), g.write_blob("b")
    assert hub.cas([RefUpdate("refs/rgr/claims/1", a, None)])
    assert not hub.cas([RefUpdate("refs/rgr/claims/1", b, None)])  # exists
    assert not hub.cas([RefUpdate("refs/rgr/claims/1", b, b)])  # wrong expected
    assert hub.cas([RefUpdate("refs/rgr/claims/1", b, a)])
    assert g.rev("refs/rgr/claims/1") == b


def test_claim_race_locally(repo: Repo) -> None:
    add_job(repo.path, "contested")
    winners = race([repo.path] * 8, None, ROUNDS)
    assert winners == [1] * ROUNDS


def bare_with_clones(tmp_path: Path, count: int) -> tuple[Path, list[Path]]:
    origin = make_repo(tmp_path, name="origin")
    bare = tmp_path / "hub.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin.path), str(bare))
    add_job_remote = Git(origin.path, git_env())
    add_job_remote.out("remote", "add", "hub", str(bare))
    queue = Queue(add_job_remote, RemoteHub(add_job_remote, "hub"))
    queue.add(JobSpec(0, "run", "contested", "main", "rgr/contested"), JobState("queued"))
    clones = []
    for i in range(count):
        clone = tmp_path / f"clone{i}"
        # The clone's identity set by the clone itself (-c): two git processes fewer each.
        git(tmp_path, "clone", "-q", "-o", "hub", "-c", f"user.name=Clone {i}",
            "-c", f"user.email=c{i}@example.com", str(bare), str(clone))
        clones.append(clone)
    return bare, clones


def test_claim_race_through_a_bare_remote(tmp_path: Path) -> None:
    _bare, clones = bare_with_clones(tmp_path, 8)
    rounds = max(ROUNDS // 2, 5)  # 5 in CI (a remote round costs more)
    winners = race(clones, "hub", rounds)
    assert winners == [1] * rounds


def test_notes_from_two_clones_at_once_none_lost(tmp_path: Path) -> None:
    bare, clones = bare_with_clones(tmp_path, 2)
    # 5 notes each: the two writers start together and race from their first sync (3-4
    # pushes lost and retried in each of 9 trials); a forced push, the loss this test is
    # for, lost half the notes at 4 each. 12 each took 2.5x as long, 2/5 of it backoff.
    per_clone = 5
    wrote: dict[int, list[str]] = {0: [], 1: []}
    lost: list[int] = []
    start = threading.Barrier(2, timeout=60)

    def writer(i: int) -> None:
        g = Git(clones[i], git_env())
        start.wait()
        for n in range(per_clone):
            g.out("commit", "-q", "--allow-empty", "-m", f"clone {i} commit {n}")
            head = g.out("rev-parse", "HEAD").strip()
            g.out("notes", "--ref=refs/notes/tdd-handoffs", "add", "-m",
                  json.dumps({"clone": i, "n": n}), head)
            wrote[i].append(head)
            g.out("push", "-q", "hub", f"HEAD:refs/heads/c{i}")
            lost.append(remote.sync_notes(g, "hub"))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    listed = git(bare, "notes", "--ref=refs/notes/tdd-handoffs", "list").splitlines()
    annotated = {line.split()[1] for line in listed}
    assert annotated == set(wrote[0]) | set(wrote[1])
    assert len(annotated) == 2 * per_clone
    # Never forced: every earlier tip of the hub's notes is in its history.
    history = git(bare, "rev-list", "--count", "refs/notes/tdd-handoffs")
    assert int(history) >= 2 * per_clone
    assert sum(lost) >= 1, "the writers never raced: no push lost to the other"


def test_second_daemon_refused_naming_holder(repo: Repo, run_rgr: RunRgr) -> None:
    # A live process holds the daemon lock: this one.
    lock = repo.path / ".git" / "rgr" / "daemon.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        lock.write_text(json.dumps({"pid": holder.pid, "host": os.uname().nodename,
                                    "command": "rgr daemon", "started": 0}))
        code, out, err = run_rgr(["daemon"], repo.path)
        assert code == 1
        assert "another rgr daemon is running on this clone" in err
        assert f"pid {holder.pid}" in err
        code, out, err = run_rgr(["daemon", "stop"], repo.path)
        assert code == 0 and f"pid {holder.pid}" in out
        assert (repo.path / ".git" / "rgr" / "daemon.stop").exists()
    finally:
        holder.kill()
        holder.wait()


def test_unreachable_remote_is_named(repo: Repo, run_rgr: RunRgr, tmp_path: Path) -> None:
    repo.git("remote", "add", "gone", str(tmp_path / "no-such-remote.git"))
    code, _out, err = run_rgr(["queue", "add", "x", "--remote", "gone"], repo.path)
    assert code == 1
    assert "cannot fetch from the remote gone" in err
    assert "local work is kept" in err


def test_a_schedule_fires_once_per_firing(repo: Repo) -> None:
    from rgr.daemon.daemon import fire_schedules

    g = Git(repo.path, git_env())
    queue = Queue(g, LocalHub(g))
    spec = JobSpec(0, "refactor", "tidy", "main", "rgr/refactor-tidy", every="0 2 * * *")
    ident = queue.add(spec, JobState("scheduled", next_at=1.0))  # long overdue
    fired = fire_schedules(queue, queue.jobs(), print)
    assert len(fired) == 1
    assert fire_schedules(queue, queue.jobs(), print) == []  # next firing is tomorrow
    jobs = {j.id: j for j in queue.jobs()}
    child = jobs[fired[0]]
    assert child.spec.schedule_of == ident and child.spec.every is None
    assert child.spec.branch.startswith("rgr/refactor-tidy-19700101-")
    assert child.state.state == "queued" and child.spec.kind == "refactor"
    schedule = jobs[ident].state
    assert schedule.fired == 1 and schedule.next_at is not None and schedule.next_at > 1e9


def test_test_slots_bound_concurrent_runs(tmp_path: Path) -> None:
    from rgr.base.slots import slot_env, test_slot

    env = slot_env(tmp_path / "slots", 2)
    inside = []
    peak = []
    lock = threading.Lock()

    def runner() -> None:
        with test_slot(env):
            with lock:
                inside.append(1)
                peak.append(len(inside))
            threading.Event().wait(0.3)
            with lock:
                inside.pop()

    threads = [threading.Thread(target=runner) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert max(peak) == 2 and len(peak) == 5


def test_a_remote_that_rejects_pushes_is_named(tmp_path: Path, run_rgr: RunRgr) -> None:
    repo = make_repo(tmp_path)
    bare = tmp_path / "strict.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(bare))
    hook = bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'pushes are closed today' >&2\nexit 1\n")
    hook.chmod(0o755)
    repo.git("remote", "add", "strict", str(bare))
    code, _out, err = run_rgr(["queue", "add", "x", "--remote", "strict"], repo.path)
    assert code == 1
    assert "the remote strict refused the update" in err and "pushes are closed today" in err


def test_daemon_view_live_rows_and_plain_lines() -> None:
    import io

    from rich.console import Console

    from rgr.daemon.view import DaemonView

    live = DaemonView(2, Console(file=io.StringIO(), width=160, force_terminal=True),
                      live=True)
    live.report(1, "claimed job 3", job=3, feature="make alpha")
    live.report(1, "job 3: GREEN", job=3, phase="GREEN", cycle=1, cost=0.05)
    live.report(1, "turn 1 Write alpha.py", live_only=True)
    text = Console(file=io.StringIO(), width=160, record=True)
    text.print(live._render())
    rendered = text.export_text()
    row = next(line for line in rendered.splitlines() if "make alpha" in line)
    assert "GREEN" in row and "$0.0500" in row and "turn 1 Write alpha.py" in row
    assert "│ 2 " in rendered or " 2 " in rendered  # the idle worker has its row too

    out = io.StringIO()
    plain = DaemonView(1, Console(file=out, width=160), live=False)
    plain.report(1, "claimed job 1", job=1)
    plain.report(1, "turn 1 Write a.py", live_only=True)  # tool calls: live rows only
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].endswith("worker 1: claimed job 1")
    assert datetime.strptime(lines[0].split()[0], "%Y-%m-%dT%H:%M:%S")


def test_leases_are_judged_by_the_readers_own_clock_whatever_the_holders_says(
        repo: Repo) -> None:
    """A worker whose clock is an hour behind writes claims that every wall-clock reader
    takes for long expired (its job would be taken over while it runs); one an hour
    ahead writes claims that outlive it by an hour. A LeaseWatch judges neither by the
    holder's clock: a claim is gone once the reader saw it unchanged for a lease."""
    from rgr.daemon import claims

    ident = add_job(repo.path, "skewed")
    g = Git(repo.path, git_env())
    hub = LocalHub(g)
    now = [1000.0]
    watch = claims.LeaseWatch(clock=lambda: now[0])
    for skew in (-3600.0, 3600.0):
        stamp = time.time() + skew
        claim = Claim("far:1:1", "far-host", 1, stamp, stamp, 30.0)
        blob = g.write_blob(claim.to_json())
        g.out("update-ref", f"refs/rgr/claims/{ident}", blob)
        [job] = Queue(g, hub).jobs()
        assert job.claim is not None
        assert job.claim.gone() is (skew < 0)  # what wall clocks make of it
        assert not watch.gone(job)  # first sight
        now[0] += 25.0
        assert not watch.gone(job)  # within its lease
        # The holder renews (a new record), late by the reader's clock: still alive.
        renewed = dataclasses.replace(claim, heartbeat_at=stamp + 20.0)
        g.out("update-ref", f"refs/rgr/claims/{ident}", g.write_blob(renewed.to_json()))
        [job] = Queue(g, hub).jobs()
        now[0] += 25.0
        assert not watch.gone(job)
        assert claims.try_claim(hub, job, "me:1:1", 30.0, watch.gone) is None
        # The holder dies: nothing changes for a lease, then the claim is gone.
        now[0] += 29.0
        assert not watch.gone(job)
        now[0] += 2.0
        assert watch.gone(job)
        won = claims.try_claim(hub, job, "me:1:1", 30.0, watch.gone)
        assert won is not None
        assert claims.release(hub, ident, won[1])


def test_the_budget_is_the_queues_whole_spending(repo: Repo, run_rgr: RunRgr) -> None:
    """`--max-budget-usd` on `rgr queue add` is the job's own budget, kept in its state
    ref beside what it spent; the fleet's budget is checked against the sum of every
    job's state, whoever spent it; `rgr queue retry --max-budget-usd` gives more."""
    from rgr.daemon.worker import Budget, job_left

    code, _out, err = run_rgr(["queue", "add", "one", "--max-budget-usd", "0.5"], repo.path)
    assert code == 0, err
    assert run_rgr(["queue", "add", "two"], repo.path)[0] == 0
    g = Git(repo.path, git_env())
    queue = Queue(g, LocalHub(g))
    one, two = queue.jobs()
    assert one.state.max_budget_usd == 0.5 and two.state.max_budget_usd is None
    # Two workers (say on two machines) record what their phases cost.
    assert queue.set_state(one, dataclasses.replace(one.state, cost_usd=0.55, state="failed"))
    assert queue.set_state(two, dataclasses.replace(two.state, cost_usd=0.3))
    jobs = queue.jobs()
    assert Budget(1.0).left(jobs) == pytest.approx(0.15)
    assert Budget(0.8).left(jobs) == pytest.approx(-0.05)
    assert Budget(None).left(jobs) is None
    assert job_left(jobs[0]) == pytest.approx(-0.05) and job_left(jobs[1]) is None
    code, _out, err = run_rgr(["queue", "retry", "1", "--max-budget-usd", "2"], repo.path)
    assert code == 0, err
    again = queue.job(1)
    assert again.state.state == "queued" and again.state.max_budget_usd == 2.0
    assert job_left(again) == pytest.approx(1.45)  # what it spent still counts
    code, _out, err = run_rgr(["queue", "add", "x", "--max-budget-usd", "0"], repo.path)
    assert code == 2 and "--max-budget-usd" in err


def test_a_jobs_spending_counts_every_session_once(tmp_path: Path) -> None:
    """A job's spending is read from its clone's run folders (every agent_call, the
    rejected sessions too) and the merge fixer's ledger; what the job's state counted
    already is not counted again, and a phase a killed worker left uncounted is."""
    from rgr.daemon.workcopy import WorkCopy

    origin = make_repo(tmp_path, name="origin")
    env = {**git_env(), "RGR_JOBS_DIR": str(tmp_path / "jobs")}
    main = Git(origin.path, env)
    wc = WorkCopy(main, origin.path / ".git", JobSpec(7, "run", "x", "main", "rgr/x"),
                  str(origin.path))
    wc.prepare()
    runs = wc.root / ".git" / "rgr" / "runs" / "r1"
    runs.mkdir(parents=True)
    events = runs / "events.jsonl"
    events.write_text("".join(json.dumps(e) + "\n" for e in (
        {"type": "agent_call", "costUsd": 0.25},  # a rejected attempt
        {"type": "agent_call", "costUsd": 0.5},
        {"type": "invocation_finished", "spentUsd": 0.75, "costUsd": 9.0})))
    assert wc.uncounted_spend() == (0.75, 0.75)
    wc.counted(0.75)
    assert wc.uncounted_spend() == (0.0, 0.75)
    with events.open("a") as handle:  # the phase a kill -9 cut short, then a merge fix
        handle.write(json.dumps({"type": "agent_call", "costUsd": 0.125}) + "\n{\"type")
    (wc.root / ".git" / "rgr" / "merge-fix-spend.jsonl").write_text('{"costUsd": 0.0625}\n')
    assert wc.uncounted_spend() == (pytest.approx(0.1875), pytest.approx(0.9375))


def test_a_remote_that_does_not_answer_is_unreachable_not_a_refusal(repo: Repo) -> None:
    """A fetch killed at its timeout read as `the remote refused the update ... check
    its permissions and hooks` (seen in the budget bench: 16 clones, 10,000 jobs)."""
    from rgr.daemon.hub import answer, unreachable

    g = Git(repo.path, git_env())
    hung = g.run("-c", "protocol.ext.allow=always", "fetch", "ext::sleep 20", "main",
                 timeout=0.5)
    assert hung.timed_out
    text = answer(hung)
    assert unreachable(text) and not lost_race(text)
    assert "did not answer within 0 s" in text or "did not answer within 1 s" in text


def test_a_claim_is_judged_by_its_lease_never_by_a_pid_from_another_namespace(
        repo: Repo) -> None:
    """Workers sharing this host name in other PID namespaces (containers on the host
    network) write pids that name no process here: their claims live until their lease
    runs out, by the reader's clock. Only a claim of an earlier daemon of this very
    clone (which holds the clone's lock now) is gone at once; an old rgr's claim (no
    instance) waits for its lease."""
    from rgr.daemon import claims, identity
    from rgr.daemon.queue import host

    g = Git(repo.path, git_env())
    hub = LocalHub(g)
    git_dir = repo.path / ".git"
    earlier = identity.start(git_dir, host())
    me = identity.start(git_dir, host())
    assert me.instance != earlier.instance and earlier.instance in me.predecessors
    dead_pid = subprocess.Popen(["true"])
    dead_pid.wait()  # a pid that is not alive here (as another namespace's pids look)
    now = [1000.0]
    watch = claims.LeaseWatch(clock=lambda: now[0], me=me)
    neighbour = identity.Identity(host())  # same host name, another PID namespace
    cases = {"neighbour": (neighbour.instance, False), "old rgr": ("", False),
             "this clone's dead daemon": (earlier.instance, True)}
    for what, (instance, at_once) in cases.items():
        ident = add_job(repo.path, what.replace(" ", "-").replace("'", ""))
        stamp = time.time()
        claim = Claim(f"{host()}:{dead_pid.pid}:{instance}:1", host(), dead_pid.pid,
                      stamp, stamp, 30.0, instance)
        record = dataclasses.asdict(claim)
        if not instance:
            del record["instance"]  # as an older rgr wrote its claims
        g.out("update-ref", f"refs/rgr/claims/{ident}", g.write_blob(json.dumps(record)))
        job = next(j for j in Queue(g, hub).jobs() if j.id == ident)
        assert job.claim is not None and not job.claim.gone(), what  # wall clocks agree
        assert watch.gone(job) is at_once, what
        if not at_once:
            assert claims.try_claim(hub, job, me.worker(1), 30.0, watch.gone, me) is None
            now[0] += 31.0
            assert watch.gone(job), what  # its lease ran out, by this reader's clock
        won = claims.try_claim(hub, job, me.worker(1), 30.0, watch.gone, me)
        assert won is not None, what
        assert won[0].instance == me.instance and me.instance in won[0].worker
        # A claim of this daemon itself is never its own dead predecessor's.
        mine = next(j for j in Queue(g, hub).jobs() if j.id == ident)
        assert not claims.LeaseWatch(me=me).gone(mine)
    # A claim with a field this rgr does not know (a newer rgr's) is read all the same.
    assert Claim.parse(json.dumps({**dataclasses.asdict(won[0]), "later": 1})) == won[0]


def test_the_last_count_is_read_from_the_remote(tmp_path: Path) -> None:
    """A daemon's last line counts the jobs as the remote holds them when it ends: a
    job another machine finished after this daemon's last look is complete there (a
    survivor of a fleet once said `3 complete, 1 running`, one poll behind)."""
    from rgr.daemon.daemon import final_count
    from rgr.daemon.worker import DaemonContext, DaemonOptions

    _bare, (here, there) = bare_with_clones(tmp_path, 2)
    mine = Git(here, git_env())
    hub = RemoteHub(mine, "hub")
    hub.refresh()
    queue = Queue(mine, hub)
    assert [j.state.state for j in queue.jobs()] == ["queued"]
    # Another machine finishes the job on the remote.
    other = Git(there, git_env())
    theirs = Queue(other, RemoteHub(other, "hub"))
    theirs.hub.refresh()
    [job] = theirs.jobs()
    assert theirs.set_state(job, dataclasses.replace(job.state, state="complete"))
    ctx = DaemonContext(root=here, git_dir=here / ".git", main=mine, hub=hub, queue=queue,
                        hub_url="hub", options=DaemonOptions(remote="hub"), env=git_env(),
                        report=lambda *args, **kwargs: None)
    assert [j.state.state for j in queue.jobs()] == ["queued"]  # this clone's last look
    assert final_count(ctx) == "daemon done: 1 complete"
