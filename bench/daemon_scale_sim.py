"""A simulation of many daemon workers sharing one remote: the ref updates the remote
must take, and the lost races on the one shared ref (the handoff notes).

    python bench/daemon_scale_sim.py                  # 1x4 .. 200x4 machines x workers
    python bench/daemon_scale_sim.py --sync-s 0.8     # a slower notes sync (fetch+merge+push)

Model (every figure is a flag): a job is --phases phases whose durations are
log-normal around --phase-s; a worker renews its claim every lease/3 seconds; each phase
ends with a state CAS, a branch push and a push of the job's own notes ref (separate refs:
they never contend); each job ends with one sync of the shared notes ref, which takes
--sync-s (fetch + merge + push, measured by daemon_bench.py) and is lost, and retried
after a backoff, when another sync landed inside that window. ``--per-phase`` shares the
notes after every phase instead (the design rgr does not use), for comparison.
"""

from __future__ import annotations

import argparse
import heapq
import random


def simulate(workers: int, hours: float, phase_s: float, phases: int, lease_s: float,
             sync_s: float, per_phase: bool, seed: int = 1) -> dict[str, float]:
    rng = random.Random(seed)
    horizon = hours * 3600
    events: list[tuple[float, int, str]] = []
    for w in range(workers):
        heapq.heappush(events, (rng.uniform(0, phase_s), w, "phase"))
    phase_of = [0] * workers
    updates = 0
    shared_attempts = 0
    shared_lost = 0
    last_landed: list[float] = []  # times shared syncs landed
    heartbeats = workers * horizon / (lease_s / 3)
    while events:
        t, w, kind = heapq.heappop(events)
        if t > horizon:
            break
        if kind == "phase":
            updates += 3  # state CAS, branch push, job notes push
            phase_of[w] += 1
            done_job = phase_of[w] % phases == 0
            if done_job or per_phase:
                heapq.heappush(events, (t, w, "sync"))
            duration = rng.lognormvariate(0, 0.5) * phase_s
            heapq.heappush(events, (t + duration, w, "phase"))
        else:  # a shared-notes sync starts at t and pushes at t + sync_s
            shared_attempts += 1
            if shared_attempts > 200_000:  # saturated: retries outgrow what lands
                return {"updates_per_s": (updates + heartbeats * t / horizon) / t,
                        "shared_per_s": len(last_landed) / t, "lost_per_sync": float("inf")}
            start = t
            end = t + sync_s
            if any(start < landed <= end for landed in last_landed[-50:]):
                shared_lost += 1
                backoff = rng.uniform(0.5, 1.0) * min(0.05 * 2 ** rng.randint(1, 6), 2.0)
                heapq.heappush(events, (end + backoff, w, "sync"))
            else:
                updates += 1
                last_landed.append(end)
    total = updates + heartbeats
    return {"updates_per_s": total / horizon,
            "shared_per_s": len(last_landed) / horizon,
            "lost_per_sync": shared_lost / max(len(last_landed), 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hours", type=float, default=2.0)
    parser.add_argument("--phase-s", type=float, default=90.0)
    parser.add_argument("--phases", type=int, default=9)
    parser.add_argument("--lease-s", type=float, default=120.0)
    parser.add_argument("--sync-s", type=float, default=0.5)
    args = parser.parse_args()
    print(f"phases {args.phase_s:.0f} s (log-normal), {args.phases} per job, lease "
          f"{args.lease_s:.0f} s, shared notes sync {args.sync_s} s")
    for machines in (1, 10, 50, 100, 200, 500):
        workers = machines * 4
        row = []
        for per_phase in (False, True):
            r = simulate(workers, args.hours, args.phase_s, args.phases, args.lease_s,
                         args.sync_s, per_phase)
            row.append(r)
        ours, naive = row
        print(f"{machines:3} machines x 4 workers: {ours['updates_per_s']:6.1f} ref updates/s; "
              f"shared notes ref {ours['shared_per_s']:5.2f} pushes/s, "
              f"{ours['lost_per_sync']:.2f} lost races per sync "
              f"(sharing after every phase: {naive['shared_per_s']:5.2f}/s, "
              f"{naive['lost_per_sync']:.2f} lost per sync)")


if __name__ == "__main__":
    main()
