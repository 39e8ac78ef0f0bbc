"""Benchmark the handoff-note store against git's own CLI.

Prints, for a repository with N noted commits (default 100,000):
  * `rgr history --json` against `git log --notes=tdd-handoffs --format=%H%n%N` (ratio);
  * `rgr status` wall time;
  * the cost of writing one note when 100 notes exist and when N exist (ratio).

    python bench/notes_bench.py            # 100,000 notes (builds /tmp/rgr-bench-*)
    python bench/notes_bench.py --notes 20000 --runs 3

Targets (issue 2): history <= 2x git log; status < 0.5 s; write(N) <= 2x write(100).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_repo import build

from rgr.handoff import HandoffState, Phase
from rgr.notes import NotesStore


def wall(argv: list[str], cwd: Path, runs: int) -> float:
    """Median wall time of ``argv`` over ``runs`` runs (output discarded)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def ensure_repo(path: Path, count: int) -> Path:
    if not (path / ".git").is_dir():
        print(f"building {path} with {count:,} noted commits ...", flush=True)
        build(path, count)
    return path


def write_cost(path: Path, writes: int) -> float:
    """Median seconds to write one note on a fresh commit."""
    repo = pygit2.Repository(str(path))
    store = NotesStore(repo)
    head = repo.head.target
    sig = pygit2.Signature("bench", "bench@example.com")
    tree = repo[head].peel(pygit2.Tree).id
    fresh = [
        str(repo.create_commit(None, sig, sig, f"extra {i} {time.time()}", tree, [head]))
        for i in range(writes)
    ]
    state = HandoffState(phase=Phase.GREEN, cycle_number=1)
    times = []
    for commit in fresh:
        started = time.perf_counter()
        store.write(commit, state)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def report(name: str, value: float, reference: float | None = None, target: str = "") -> None:
    ratio = f"  ratio {value / reference:5.2f}x" if reference else ""
    print(f"{name:<44} {value * 1000:9.1f} ms{ratio}  {target}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp"))
    args = parser.parse_args()
    big = ensure_repo(args.workdir / f"rgr-bench-{args.notes}", args.notes)
    small = ensure_repo(args.workdir / "rgr-bench-100", 100)
    rgr = [sys.executable, "-m", "rgr"]
    checks: list[tuple[str, Callable[[], bool]]] = []

    print(f"repository: {big} ({args.notes:,} commits, one note each); median of {args.runs}")
    git_log = wall(["git", "log", "--notes=tdd-handoffs", "--format=%H%n%N"], big, args.runs)
    history = wall([*rgr, "history", "--json"], big, args.runs)
    status = wall([*rgr, "status"], big, args.runs)
    report("git log --notes=tdd-handoffs --format=%H%n%N", git_log)
    report("rgr history --json", history, git_log, "(target <= 2.00x)")
    report("rgr status", status, None, "(target < 500 ms)")
    checks.append(("history <= 2x git log", lambda: history <= 2 * git_log))
    checks.append(("status < 0.5 s", lambda: status < 0.5))

    small_write = write_cost(small, 50)
    big_write = write_cost(big, 50)
    report("write one note, 100 notes exist", small_write)
    report(f"write one note, {args.notes:,} notes exist", big_write, small_write,
           "(target <= 2.00x)")
    checks.append(("write(N) <= 2x write(100)", lambda: big_write <= 2 * small_write))

    failed = [name for name, ok in checks if not ok()]
    print("all targets met" if not failed else f"targets missed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
