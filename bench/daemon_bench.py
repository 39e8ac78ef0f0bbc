"""Benchmark the daemon's coordination, all of it real git (and, for throughput, the
real claude against the scripted model server with a per-turn latency).

    python bench/daemon_bench.py                       # everything, ~5 minutes
    python bench/daemon_bench.py --only claims,queue   # or race, notes, budget, throughput

Prints:
  * claim latency (claim + release, median ms) through this repository and through a
    local bare remote, against git's own update-ref / push of one ref (ratio);
  * claim-race rounds per second (8 processes, one winner each round), local and remote;
  * `rgr queue --json` and Queue.jobs() on 10,000 jobs (target < 0.5 s);
  * notes contention: K clones syncing notes into one bare remote at once: notes per
    second and lost races (the scale simulation for many machines on one remote);
  * throughput: N workers on N independent one-test jobs vs one worker on one job, with
    the scripted model thinking --latency seconds per turn (target N/1 <= 1.25);
  * the fleet budget's check before a phase: what it adds to the phase boundary (the
    sum over the queue's states, the job clone's uncounted spending) and what the whole
    read costs when K clones check at once through one bare remote (contention).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "e2e"))

from rgr.daemon import claims, remote  # noqa: E402
from rgr.daemon.hub import Hub, LocalHub, RemoteHub  # noqa: E402
from rgr.daemon.queue import Job, JobSpec, JobState, Queue  # noqa: E402
from rgr.store.gitcli import Git, git_env  # noqa: E402
from tests.daemon_race import race  # noqa: E402


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def make_repo(path: Path) -> Path:
    sh(path.parent, "init", "-q", "-b", "main", str(path))
    sh(path, "config", "user.name", "Bench")
    sh(path, "config", "user.email", "bench@example.com")
    sh(path, "commit", "-q", "--allow-empty", "-m", "init")
    return path


def clones_of(bare: Path, tmp: Path, prefix: str, count: int) -> list[Path]:
    """``count`` clones of ``bare`` (remote name: hub), each with its own identity."""
    clones = []
    for i in range(count):
        clone = tmp / f"{prefix}{i}"
        sh(tmp, "clone", "-q", "-o", "hub", str(bare), str(clone))
        sh(clone, "config", "user.name", f"w{i}")
        sh(clone, "config", "user.email", f"w{i}@example.com")
        clones.append(clone)
    return clones


def median_ms(fn: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def bench_claims(tmp: Path, runs: int) -> None:
    repo = make_repo(tmp / "claims")
    bare = tmp / "claims.git"
    sh(tmp, "clone", "-q", "--bare", str(repo), str(bare))
    sh(repo, "remote", "add", "hub", str(bare))
    g = Git(repo, git_env())
    for label, hub in (("local", LocalHub(g)), ("bare remote", RemoteHub(g, "hub"))):
        queue = Queue(g, hub)
        ident = queue.add(JobSpec(0, "run", f"bench {label}", "main", f"rgr/b-{label[0]}"),
                          JobState("queued"))

        job = queue.job(ident)  # a worker has the queue read already

        def cycle(h: Hub = hub, n: int = ident, free: Job = job) -> None:
            won = claims.try_claim(h, free, "bench", 60.0)
            assert won is not None
            assert claims.release(h, n, won[1])

        ms = median_ms(cycle, runs)
        read_ms = median_ms(lambda q=queue, n=ident: q.job(n), runs)
        blob = g.write_blob("x")
        if label == "local":
            def ref_cycle(blob: str = blob) -> None:
                sh(repo, "update-ref", "refs/bench/x", blob)
                sh(repo, "update-ref", "-d", "refs/bench/x")
        else:
            def ref_cycle(blob: str = blob) -> None:
                sh(repo, "push", "-q", "hub", f"{blob}:refs/bench/x")
                sh(repo, "push", "-q", "hub", ":refs/bench/x")
        ref_ms = median_ms(ref_cycle, runs)
        print(f"claim + release, {label:11}: {ms:7.1f} ms  (git alone, set + delete one "
              f"ref: {ref_ms:6.1f} ms; ratio {ms / ref_ms:.2f}); reading the job first: "
              f"{read_ms:.1f} ms")


def bench_race(tmp: Path, rounds: int) -> None:
    repo = make_repo(tmp / "race")
    g = Git(repo, git_env())
    Queue(g, LocalHub(g)).add(JobSpec(0, "run", "contested", "main", "rgr/c"),
                              JobState("queued"))
    started = time.perf_counter()
    winners = race([repo] * 8, None, rounds)
    local = rounds / (time.perf_counter() - started)
    bare = tmp / "race.git"
    sh(tmp, "clone", "-q", "--mirror", str(repo), str(bare))  # --mirror: refs/rgr/* too
    clones = clones_of(bare, tmp, "race", 8)
    started = time.perf_counter()
    remote_winners = race(clones, "hub", rounds)
    remote_rate = rounds / (time.perf_counter() - started)
    ok = winners == [1] * rounds and remote_winners == [1] * rounds
    print(f"claim race, 8 processes: local {local:.1f} rounds/s, bare remote "
          f"{remote_rate:.1f} rounds/s; exactly one winner in every one of "
          f"{2 * rounds} rounds: {ok}")


def bench_queue(tmp: Path, jobs: int) -> None:
    repo = make_repo(tmp / "queue")
    g = Git(repo, git_env())
    blobs = tmp / "blobs"
    blobs.mkdir()
    paths = []
    for n in range(1, jobs + 1):
        spec = JobSpec(n, "run", f"feature number {n}", "main", f"rgr/feature-{n}",
                       after=(n - 1,) if n % 10 == 0 else ())
        state = JobState("complete" if n % 3 else "queued", cost_usd=0.01 * (n % 7),
                         phase="COMPLETE" if n % 3 else None, cycle=2 if n % 3 else None)
        for kind, text in (("queue", spec.to_json()), ("state", state.to_json())):
            path = blobs / f"{kind}-{n}"
            path.write_text(text)
            paths.append((kind, n, path))
    oids = g.out("hash-object", "-w", "--stdin-paths",
                 input="".join(f"{p}\n" for _, _, p in paths)).split()
    g.out("update-ref", "--stdin", input="".join(
        f"create refs/rgr/{kind}/{n} {oid}\n" for (kind, n, _), oid in zip(paths, oids,
                                                                         strict=True)))
    g.out("pack-refs", "--all")  # as `rgr queue add` and the daemon do as the queue grows
    g.out("gc", "--quiet")  # and as git's own gc --auto does past 6,700 loose objects
    in_process = median_ms(lambda: Queue(g, LocalHub(g)).jobs(), 5) / 1000
    rgr = [sys.executable, "-m", "rgr", "queue", "--json"]
    cli = []
    for _ in range(3):
        started = time.perf_counter()
        out = subprocess.run(rgr, cwd=repo, check=True, capture_output=True).stdout
        cli.append(time.perf_counter() - started)
    assert len(json.loads(out)) == jobs
    table = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run(rgr[:-1], cwd=repo, check=True, capture_output=True)
        table.append(time.perf_counter() - started)
    base = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "rgr", "--version"], cwd=repo, check=True,
                       capture_output=True)
        base.append(time.perf_counter() - started)
    print(f"rgr queue on {jobs} jobs (target < 0.5 s): --json {statistics.median(cli):.2f} s, "
          f"table {statistics.median(table):.2f} s (rgr --version alone "
          f"{statistics.median(base):.2f} s); reading the queue in-process "
          f"{in_process:.3f} s")


def bench_notes(tmp: Path, writers: int, per_writer: int) -> None:
    repo = make_repo(tmp / f"notes-{writers}")
    bare = tmp / f"notes-{writers}.git"
    sh(tmp, "clone", "-q", "--bare", str(repo), str(bare))
    clones = clones_of(bare, tmp, f"notes-{writers}-", writers)
    lost = [0] * writers

    def writer(i: int) -> None:
        g = Git(clones[i], git_env())
        for n in range(per_writer):
            g.out("commit", "-q", "--allow-empty", "-m", f"w{i} {n}")
            g.out("notes", "--ref=refs/notes/tdd-handoffs", "add", "-m", f"{i}/{n}", "HEAD")
            g.out("push", "-q", "hub", f"HEAD:refs/heads/w{i}")
            lost[i] += remote.sync_notes(g, "hub")

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.perf_counter() - started
    count = len(sh(bare, "notes", "--ref=refs/notes/tdd-handoffs", "list").splitlines())
    total = writers * per_writer
    print(f"notes contention, {writers:2} writers x {per_writer}: {total / took:5.1f} notes/s "
          f"into one remote, {sum(lost)} lost races ({sum(lost) / total:.2f} per note), "
          f"{count} of {total} notes on the remote")


def bench_throughput(tmp: Path, latency: float, counts: list[int]) -> None:
    from daemon_kata import choose
    from kata import make_project, rgr_env

    from rgr.fake_model import FakeModelServer

    names = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]
    results: dict[int, float] = {}
    for n in counts:
        repo = make_project(tmp / f"tp-{n}")
        with FakeModelServer(choose=choose, latency_s=latency) as server:
            env = rgr_env(tmp / f"home-{n}", server.url)
            for name in names[:n]:
                subprocess.run([sys.executable, "-m", "rgr", "queue", "add", f"make {name}"],
                               cwd=repo, env=env, check=True, capture_output=True)
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "rgr", "daemon", "--workers", str(n),
                                   "--poll", "0.3"], cwd=repo, env=env, capture_output=True,
                                  text=True)
            results[n] = time.perf_counter() - started
            assert done.returncode == 0, done.stdout + done.stderr
            assert server.errors == []
        ratio = results[n] / results[counts[0]]
        print(f"throughput: {n} worker(s) on {n} job(s): {results[n]:6.1f} s "
              f"(ratio to 1 on 1: {ratio:.2f}; target <= 1.25), model latency {latency} s/turn")


def fill_queue(repo: Path, tmp: Path, jobs: int) -> None:
    """``jobs`` jobs with a spending each, written straight as refs (as bench_queue)."""
    g = Git(repo, git_env())
    folder = tmp / f"budget-blobs-{jobs}"
    folder.mkdir()
    paths = []
    for n in range(1, jobs + 1):
        spec = JobSpec(n, "run", f"feature {n}", "main", f"rgr/f-{n}")
        state = JobState("running" if n % 4 else "complete", cost_usd=0.05 * (n % 9))
        for kind, text in (("queue", spec.to_json()), ("state", state.to_json())):
            path = folder / f"{kind}-{n}"
            path.write_text(text)
            paths.append((kind, n, path))
    oids = g.out("hash-object", "-w", "--stdin-paths",
                 input="".join(f"{p}\n" for _, _, p in paths)).split()
    g.out("update-ref", "--stdin", input="".join(
        f"create refs/rgr/{kind}/{n} {oid}\n" for (kind, n, _), oid in zip(paths, oids,
                                                                         strict=True)))
    g.out("pack-refs", "--all")


def job_clone_with_runs(tmp: Path, phases: int) -> Path:
    """A job clone's git dir as a job of ``phases`` phases leaves it: one run folder, an
    attempt per phase, a few events each."""
    git_dir = tmp / "job-clone" / ".git"
    events = git_dir / "rgr" / "runs" / "run-1" / "events.jsonl"
    events.parent.mkdir(parents=True)
    lines = []
    for phase in range(phases):
        lines += [{"type": "phase_started", "phase": phase}, {"type": "attempt_started"},
                  {"type": "agent_call", "costUsd": 0.0563, "sessionId": f"s{phase}"},
                  {"type": "test_run", "passed": 3}, {"type": "phase_done", "phase": phase}]
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return git_dir


def bench_budget(tmp: Path, runs: int, sizes: list[int], checkers: list[int]) -> None:
    from rgr.daemon.queue import fleet_spent
    from rgr.daemon.worker import Budget
    from rgr.observe.artifacts import sessions_spent

    git_dir = job_clone_with_runs(tmp, 40)
    spend_ms = median_ms(lambda: sessions_spent(git_dir), runs)
    print(f"budget: the job clone's uncounted spending (40 phases in its run folder): "
          f"{spend_ms:.2f} ms per phase boundary")
    for jobs in sizes:
        repo = make_repo(tmp / f"budget-{jobs}")
        fill_queue(repo, tmp, jobs)
        bare = tmp / f"budget-{jobs}.git"
        sh(tmp, "clone", "-q", "--mirror", str(repo), str(bare))
        clones = clones_of(bare, tmp, f"budget-{jobs}-", max(checkers))
        g = Git(clones[0], git_env())
        hub = RemoteHub(g, "hub")
        queue = Queue(g, hub)
        hub.refresh()
        read = queue.jobs()
        sum_ms = median_ms(lambda jobs_=read: Budget(1.0).left(jobs_), runs)
        # What a phase boundary did before the fleet budget (a cancel from another
        # clone: refresh, read the queue) and what it does now (the same, and the sum).
        before = median_ms(lambda h=hub, q=queue: (h.refresh(), q.jobs()), runs)
        after = median_ms(lambda h=hub, q=queue: (h.refresh(), fleet_spent(q.jobs())), runs)
        print(f"budget, {jobs:5} jobs: the sum over the states {sum_ms * 1000:7.1f} us; "
              f"refresh + read at a phase boundary {before:6.1f} ms, with the sum "
              f"{after:6.1f} ms (added {after - before:+.1f} ms, noise included)")
        for k in checkers:
            latencies, failed = contended_checks(clones[:k], runs)
            print(f"budget, {jobs:5} jobs, {k:2} clones checking at once through one "
                  f"remote: median {statistics.median(latencies):6.1f} ms, p90 "
                  f"{sorted(latencies)[int(len(latencies) * 0.9)]:6.1f} ms per check"
                  + (f"; {failed} of {k * runs} checks failed: {failed_why[-1]}"
                     if failed else ""))


failed_why: list[str] = []


def contended_checks(clones: list[Path], runs: int) -> tuple[list[float], int]:
    """Every clone refreshes the queue from the remote and sums it, ``runs`` times, all
    at once: the latency of each check (ms) that worked, and how many did not."""
    from rgr.base.errors import RgrError
    from rgr.daemon.queue import fleet_spent

    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()

    def checker(clone: Path) -> None:
        g = Git(clone, git_env())
        hub = RemoteHub(g, "hub")
        queue = Queue(g, hub)
        for _ in range(runs):
            started = time.perf_counter()
            try:
                hub.refresh()
            except RgrError as exc:
                with lock:
                    failures[0] += 1
                    failed_why.append(exc.message.splitlines()[0])
                continue
            fleet_spent(queue.jobs())
            took = (time.perf_counter() - started) * 1000
            with lock:
                latencies.append(took)

    threads = [threading.Thread(target=checker, args=(c,)) for c in clones]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies or [float("nan")], failures[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="claims,race,queue,notes,budget,throughput")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--budget-jobs", default="100,1000",
                        help="queue sizes for the budget's check")
    parser.add_argument("--checkers", default="1,4,16",
                        help="clones checking the budget at once")
    args = parser.parse_args()
    only = set(args.only.split(","))
    with tempfile.TemporaryDirectory(prefix="rgr-daemon-bench-") as name:
        tmp = Path(name)
        if "claims" in only:
            bench_claims(tmp, args.runs)
        if "race" in only:
            bench_race(tmp, args.rounds)
        if "queue" in only:
            bench_queue(tmp, args.jobs)
        if "notes" in only:
            for writers in (2, 4, 8, 16):
                bench_notes(tmp, writers, 8)
        if "budget" in only:
            bench_budget(tmp, args.runs, [int(n) for n in args.budget_jobs.split(",")],
                         [int(n) for n in args.checkers.split(",")])
        if "throughput" in only:
            bench_throughput(tmp, args.latency, [int(n) for n in args.workers.split(",")])


if __name__ == "__main__":
    main()
