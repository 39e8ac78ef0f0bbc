"""The claim race: N processes claim the same job at the same instant, round after
round, through a hub (this repository, or a bare remote each process has a clone of).
Shared by tests/daemon/test_queue.py and bench/daemon_bench.py."""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Sequence
from multiprocessing.synchronize import Barrier
from pathlib import Path

from rgr.daemon import claims
from rgr.daemon.hub import Hub, open_hub
from rgr.daemon.queue import CLAIMS, Queue
from rgr.store.gitcli import Git, git_env


def _contender(clone: str, remote: str | None, job_id: int, rounds: int, barrier: Barrier,
               results: mp.Queue[tuple[int, int, bool]], index: int) -> None:
    git = Git(Path(clone), git_env())
    hub: Hub = open_hub(git, remote)
    queue = Queue(git, hub)
    for number in range(rounds):
        barrier.wait()  # the previous round was reset
        hub.refresh()
        job = queue.job(job_id)
        barrier.wait()  # everyone has read the free job: now all claim at once
        won = claims.try_claim(hub, job, f"race:{os.getpid()}:{index}", 30.0) is not None
        results.put((number, index, won))
        barrier.wait()  # everyone has tried
        if index == 0:  # reset: the job is free again for the next round
            if remote is None:
                git.out("update-ref", "-d", f"{CLAIMS}{job_id}")
            else:
                git.out("push", "--quiet", remote, f":{CLAIMS}{job_id}")


def race(clones: Sequence[Path], remote: str | None, rounds: int,
         job_id: int = 1) -> list[int]:
    """Run the race; the number of winners of each round."""
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(len(clones))
    results: mp.Queue[tuple[int, int, bool]] = ctx.Queue()
    procs = [ctx.Process(target=_contender, args=(str(c), remote, job_id, rounds, barrier,
                                                  results, i))
             for i, c in enumerate(clones)]
    for p in procs:
        p.start()
    winners = [0] * rounds
    deadline = time.monotonic() + 60 + rounds * 10
    for _ in range(rounds * len(clones)):
        number, _index, won = results.get(timeout=max(deadline - time.monotonic(), 1))
        winners[number] += int(won)
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0, f"a contender failed (exit code {p.exitcode})"
    return winners
