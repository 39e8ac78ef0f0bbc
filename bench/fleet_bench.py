"""Benchmark rgr workers in containers: N worker containers (podman, the image of
deploy/fleet/Dockerfile built from this working tree) on N independent one-test jobs,
against one worker container on one job, with the scripted model thinking --latency
seconds per turn (target: N on N within 1.3x of 1 on 1 on a 2-core machine).

    python bench/fleet_bench.py                     # 1, 2 and 4 containers, 1 s/turn
    python bench/fleet_bench.py --workers 1,2 --latency 2

Each round is a fresh bare remote (git's HTTP protocol with credentials, on the host),
the real claude inside the containers, the sandbox on (bubblewrap in each container),
jobs not integrated (--integrate none: N independent jobs, no landing queue). The time
is from starting the containers to the last job complete on the remote: container start,
clone, five agent sessions and their test runs per job. Needs root; podman, runc and
debootstrap are installed with apt-get where missing (tests/containers/podman.py, docs/daemon.md:
"A fleet"); the images are built first (cached after the first time)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (".", "tests/e2e"):
    sys.path.insert(0, str(HERE.parent / folder))

from tests.containers import podman  # noqa: E402
from tests.containers.fleet import fleet  # noqa: E402

NAMES = ("alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta")


def cpu_seconds(container: str) -> float:
    """CPU time the container's processes used (its cgroup's cpuacct, cgroup v1)."""
    path = podman.podman("inspect", "--format", "{{.State.CgroupPath}}", container).stdout
    usage = Path("/sys/fs/cgroup/cpuacct") / path.strip().lstrip("/") / "cpuacct.usage"
    return int(usage.read_text()) / 1e9


def one_round(tmp: Path, n: int, latency: float) -> tuple[float, float]:
    with fleet(tmp, latency_s=latency) as f:
        f.queue(*NAMES[:n])
        started = time.monotonic()
        names = [podman.run_worker(f"bench{i}", f.worker_env(RGR_INTEGRATE="none",
                                                             RGR_DAEMON_HOST=f"bench{i}"))
                 for i in range(n)]
        try:
            def dead() -> str | None:
                for name in names:
                    if podman.state(name) != "running":
                        return f"{name} stopped:\n{podman.logs(name)[-3000:]}"
                return None

            f.wait_done(n, 1800, dead)
            took = time.monotonic() - started
            cpu = sum(cpu_seconds(name) for name in names)
            assert f.model.errors == [], f.model.errors
            assert sorted(f.sessions_by_job().values()) == [5] * n, f.sessions_by_job()
        finally:
            podman.podman("rm", "-f", "-t", "0", *names, check=False)
    return took, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=1, help="rounds per N (best kept)")
    args = parser.parse_args()
    why = podman.missing()
    if why is not None:
        sys.exit(f"fleet_bench: {why}")
    took = podman.build_images()
    print(f"images: base {took['base']:.0f} s, worker {took['worker']:.0f} s (cached after "
          "the first build)")
    podman.remove_test_containers()
    counts = [int(n) for n in args.workers.split(",")]
    results: dict[int, float] = {}
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="rgr-fleet-bench-") as name:
        for n in counts:
            runs = []
            load = os.getloadavg()[0]
            for r in range(args.repeat):
                folder = Path(name) / f"n{n}-r{r}"
                folder.mkdir()
                runs.append(one_round(folder, n, args.latency))
            results[n] = min(t for t, _ in runs)
            cpu = min(c for _, c in runs) / n
            ratio = results[n] / results[counts[0]]
            print(f"containers: {n} worker container(s) on {n} job(s): {results[n]:6.1f} s "
                  f"(rounds: {', '.join(f'{t:.1f}' for t, _ in runs)}; ratio to {counts[0]} on "
                  f"{counts[0]}: {ratio:.2f}; target <= 1.3), model latency "
                  f"{args.latency} s/turn; {cpu:.1f} CPU s per job in the containers "
                  f"(N jobs need at least {n * cpu / cores:.0f} s of {cores} cores); load "
                  f"average {load:.1f} before, {os.getloadavg()[0]:.1f} after", flush=True)

if __name__ == "__main__":
    main()
