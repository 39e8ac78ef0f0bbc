"""``--test-slots N``: at most N test runs at once across every worker of a daemon.

Test runs are CPU-bound; agent sessions mostly wait on the model. The daemon puts
``RGR_TEST_SLOTS`` (N) and ``RGR_TEST_SLOTS_DIR`` in its children's environment, and
every test run of those children holds one of N ``flock``-ed files for its duration.
A kill -9 releases the lock with the process: nothing to clean up.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

COUNT_VAR = "RGR_TEST_SLOTS"
DIR_VAR = "RGR_TEST_SLOTS_DIR"


def slot_env(directory: Path, count: int | None) -> dict[str, str]:
    directory.mkdir(parents=True, exist_ok=True)
    return {COUNT_VAR: str(count or os.cpu_count() or 1), DIR_VAR: str(directory)}


@contextmanager
def test_slot(env: Mapping[str, str]) -> Iterator[None]:
    """Hold one test slot (no-op outside a daemon)."""
    count, directory = env.get(COUNT_VAR), env.get(DIR_VAR)
    if not count or not directory or not count.isdigit():
        yield
        return
    handles = [open(Path(directory) / f"slot-{n}", "a") for n in range(int(count))]  # noqa: SIM115
    try:
        while True:
            for handle in handles:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                try:
                    yield
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)
                return
            time.sleep(0.05)
    finally:
        for handle in handles:
            handle.close()
