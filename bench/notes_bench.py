"""rgr's read paths and note writes against git's own CLI, side by side in one run.

For a repository with N noted commits (default 100,000; built once with
``git fast-import``, see make_repo.py) prints, per command, the median CPU time (user +
system, the process and every child it waited for), wall time and peak memory (the
largest process of the tree) of rgr and of the git command that does the same work,
and their ratios:

  start-up        `rgr --version`, `rgr --help`          vs `python -c pass`
  one note        `rgr status`, `rgr show`                vs `git notes show HEAD`
  newest N        `rgr history` (50 rows), `--limit 10`   vs `git log -50/-10 --notes`
  every note      `rgr history --json` vs `git log --notes`: cold (no cache), first
                  read after rgr wrote the notes (rows filed as written, no walk
                  saved), warm rows with a new walk of history, warm (rows and walk;
                  the target) (also rgr's own peak memory, its git children excluded)
  foreign notes   the same over notes another tool wrote (no finishedAt): cold, and
                  the reads after it (--only foreign)
  one write       NotesStore.write at 100 notes and at N notes (git notes add beside it)

    python bench/notes_bench.py                        # 100,000 notes
    python bench/notes_bench.py --notes 1000000 --runs 3
    python bench/notes_bench.py --notes 100000 --notes 1000000
    python bench/notes_bench.py --only reads --only writes   # the millisecond parts

Commands that take milliseconds (start-up, status, show, the table) run 21 times each;
``--runs`` sets the runs of the every-note reads. Writes: three rounds of 100 writes.

Targets (issue 14): start-up <= 3x python; status/show < 150 ms wall; history (N rows)
<= 3x git log -N + python start-up; history --json (warm, and the first read of notes
rgr wrote) <= 1.25x git's CPU and <= its peak memory (cold, notes rgr did not write,
is printed beside them, without a target); write at N notes <= write at 100. Wall
times mean little on a busy machine: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_repo import build

from rgr.store.handoff import HandoffState, Phase
from rgr.store.history.cache import add_written, cache_file, order_file, validator_key
from rgr.store.notes import NotesStore

#: Runs rgr's entry point and reports its own peak RSS (KiB) on stderr, children excluded
#: (also when a quick answer ends with os._exit, which skips ``finally``).
OWN_RSS = (
    "import os, resource, sys\n"
    "from rgr.launch import main\n"
    "def report():\n"
    "    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "    sys.stderr.write(f'@@rss {rss}\\n')\n"
    "    sys.stderr.flush()\n"
    "real_exit = os._exit\n"
    "os._exit = lambda code: (report(), real_exit(code))\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    "    report()\n"
)


@dataclass(frozen=True)
class Sample:
    cpu: float  # seconds, user + system, waited-for children included
    wall: float  # seconds
    rss: int  # KiB, the largest process of the tree


#: GNU time runs each command, for its peak RSS: a process forked from this benchmark
#: reports this benchmark's own size (the kernel keeps the parent's high-water mark
#: across exec), GNU time's is ~2 MB. `apt-get install time` where it is missing. CPU
#: comes from wait4 on it (microseconds; GNU time's own figures are in 10 ms steps).
GNU_TIME = "/usr/bin/time"


def measure(argv: list[str], cwd: Path, runs: int,
            before: Callable[[], None] | None = None) -> Sample:
    """Median CPU, wall and peak RSS of ``argv`` over ``runs`` runs (output discarded);
    ``before`` is called before each run, untimed."""
    if not Path(GNU_TIME).exists():
        raise SystemExit(f"{GNU_TIME} (GNU time) is needed: apt-get install time")
    samples = []
    report = cwd / ".bench-time"
    for _ in range(runs):
        if before is not None:
            before()
        started = time.perf_counter()
        proc = subprocess.Popen([GNU_TIME, "-o", str(report), "-f", "%M", *argv], cwd=cwd,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise SystemExit(f"{' '.join(argv)} failed with exit code {code}")
        rss = int(report.read_text().split()[-1])
        samples.append(Sample(usage.ru_utime + usage.ru_stime, wall, rss))
    report.unlink()
    return Sample(statistics.median(s.cpu for s in samples),
                  statistics.median(s.wall for s in samples),
                  int(statistics.median(s.rss for s in samples)))


def own_rss(args: list[str], cwd: Path) -> int:
    """rgr's own peak RSS (KiB) for ``rgr args``: its git child is not in it."""
    proc = subprocess.run([sys.executable, "-c", OWN_RSS, *args], cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          check=True)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("@@rss "))
    return int(line.split()[1])


def rgr_command() -> list[str]:
    """The installed `rgr` script (what a user runs), else `python -m rgr`."""
    script = Path(sys.executable).parent / "rgr"
    return [str(script)] if script.exists() else [sys.executable, "-m", "rgr"]


def ensure_repo(path: Path, count: int, foreign: bool = False) -> Path:
    if not (path / ".git").is_dir():
        print(f"building {path} with {count:,} noted commits ...", flush=True)
        build(path, count, foreign)
    return path


def write_costs(paths: list[Path], writes: int) -> list[float]:
    """Median seconds to write one note on a fresh commit, per repository. The writes
    alternate between the repositories, so a busy machine slows them all alike. Each
    notes ref is put back afterwards: the repositories keep the number of notes they
    are named for, however often the bench runs."""
    stores, fresh, tips = [], [], []
    sig = pygit2.Signature("bench", "bench@example.com")
    for path in paths:
        repo = pygit2.Repository(str(path))
        head = repo.head.target
        tree = repo[head].peel(pygit2.Tree).id
        stores.append(NotesStore(repo))
        tips.append(repo.references[stores[-1].ref].target)
        fresh.append([
            str(repo.create_commit(None, sig, sig, f"extra {i} {time.time()}", tree, [head]))
            for i in range(writes)
        ])
    state = HandoffState(phase=Phase.GREEN, cycle_number=1)
    times: list[list[float]] = [[] for _ in paths]
    for i in range(writes):
        for n, store in enumerate(stores):
            started = time.perf_counter()
            store.write(fresh[n][i], state)
            times[n].append(time.perf_counter() - started)
    for store, tip in zip(stores, tips, strict=True):
        store.repo.references.create(store.ref, tip, force=True)
    return [statistics.median(t) for t in times]


def git_write_costs(paths: list[Path], writes: int) -> list[float]:
    """Median seconds of ``git notes add`` on a fresh commit, per repository, alternating
    (the reference for :func:`write_costs`: how git's own writes scale). Each notes ref
    is put back afterwards."""
    def git(path: Path, *args: str) -> str:
        return subprocess.run(["git", "-C", str(path), *args], check=True,
                              capture_output=True, text=True).stdout.strip()

    tips = [git(path, "rev-parse", "refs/notes/tdd-handoffs") for path in paths]
    fresh = [[git(path, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", f"git {i} {time.time()}")
              for i in range(writes)] for path in paths]
    times: list[list[float]] = [[] for _ in paths]
    for i in range(writes):
        for n, path in enumerate(paths):
            started = time.perf_counter()
            git(path, "notes", "--ref=tdd-handoffs", "add", "-m", "{}", fresh[n][i])
            times[n].append(time.perf_counter() - started)
    for path, tip in zip(paths, tips, strict=True):
        git(path, "update-ref", "refs/notes/tdd-handoffs", tip)
    return [statistics.median(t) for t in times]


HEADER = (f"{'command':<46} {'cpu ms':>9} {'wall ms':>9} {'rss MiB':>8}  "
          f"{'cpu x':>6} {'wall x':>6} {'rss x':>6}  target")


def row(name: str, sample: Sample, reference: Sample | None = None, target: str = "") -> None:
    ratios = ""
    if reference is not None:
        ratios = (f"{sample.cpu / reference.cpu:6.2f} {sample.wall / reference.wall:6.2f} "
                  f"{sample.rss / reference.rss:6.2f}")
    else:
        ratios = " " * 20
    print(f"{name:<46} {sample.cpu * 1000:9.1f} {sample.wall * 1000:9.1f} "
          f"{sample.rss / 1024:8.1f}  {ratios}  {target}", flush=True)


class Checks:
    def __init__(self) -> None:
        self.missed: list[str] = []

    def check(self, name: str, ok: bool) -> None:
        if not ok:
            self.missed.append(name)


def bench_startup(rgr: list[str], cwd: Path, runs: int, checks: Checks) -> None:
    print(f"\nstart-up (median of {runs})\n{HEADER}")
    python = measure([sys.executable, "-c", "pass"], cwd, runs)
    row("python -c pass (reference)", python)
    for args in (["--version"], ["--help"]):
        sample = measure([*rgr, *args], cwd, runs)
        row(f"rgr {' '.join(args)}", sample, python, "(<= 3x python)")
        checks.check(f"rgr {args[0]} <= 3x python (wall)", sample.wall <= 3 * python.wall)


#: Runs of each command that takes milliseconds (start-up, one note, the table): on a
#: shared two-core machine single runs of them vary by several milliseconds.
SHORT_RUNS = 21


def bench_reads(rgr: list[str], path: Path, count: int, checks: Checks) -> None:
    """One note (status, show) and the newest N (the table), against git."""
    runs = SHORT_RUNS
    notes = "--notes=tdd-handoffs"
    print(f"\n{path}: {count:,} commits, one note each: short reads (median of {runs})\n"
          f"{HEADER}")
    python = measure([sys.executable, "-c", "pass"], path, runs)
    row("python -c pass (reference)", python)

    one = measure(["git", "notes", "--ref=tdd-handoffs", "show", "HEAD"], path, runs)
    row("git notes --ref=tdd-handoffs show HEAD", one)
    for command in ("status", "show"):
        sample = measure([*rgr, command], path, runs)
        row(f"rgr {command}", sample, one, "(< 150 ms wall)")
        checks.check(f"rgr {command} < 150 ms at {count:,}", sample.wall < 0.15)

    version = measure([*rgr, "--version"], path, runs)
    for limit, args in ((50, ["history"]), (10, ["history", "--limit", "10"])):
        git_log = measure(["git", "log", f"-{limit}", notes, "--format=%H%n%N"], path, runs)
        row(f"git log -{limit} {notes} --format=%H%n%N", git_log)
        sample = measure([*rgr, *args], path, runs)
        strict = 3 * git_log.wall + python.wall
        row(f"rgr {' '.join(args)}", sample, git_log, f"(<= 3x git + python: {strict * 1000:.1f})")
        # The same target with rgr's own start-up (`rgr --version`: the console script,
        # its `import re`, rgr's package) in place of a bare interpreter's.
        print(f"{'':<46} {'':>9} {'':>9} {'':>8}  {'':>20}  (<= 3x git + rgr --version: "
              f"{(3 * git_log.wall + version.wall) * 1000:.1f})")
        checks.check(f"rgr {' '.join(args)} at {count:,}", sample.wall <= strict)


def bench_json(rgr: list[str], path: Path, count: int, runs: int, checks: Checks) -> None:
    """Every note (``history --json``): cold, warm rows with a new walk, warm."""
    notes = "--notes=tdd-handoffs"
    print(f"\n{path}: {count:,} commits, one note each: every note (median of {runs})\n"
          f"{HEADER}")
    git_all = measure(["git", "log", notes, "--format=%H%n%N"], path, runs)
    row(f"git log {notes} --format=%H%n%N", git_all)
    # Cold: no cache (the first run, or a new rgr); it writes the row cache as it goes.
    rows_cache, walk_cache = cache_file(path / ".git"), order_file(path / ".git")

    def no_cache() -> None:
        rows_cache.unlink(missing_ok=True)
        walk_cache.unlink(missing_ok=True)

    cold = measure([*rgr, "history", "--json"], path, runs, before=no_cache)
    row("rgr history --json, cold: no cache", cold, git_all, "(no target)")
    no_cache()
    cold_mine = own_rss(["history", "--json"], path)  # and the row cache is full again
    # The first read after rgr wrote every note itself: each write filed its row
    # (add_written, in write order), no read has run yet, so no walk is saved.
    written = rows_cache.with_name("history-rows.as-written")
    if not written.exists() or not written.read_bytes()[:200].startswith(
            b"rgr-history-rows " + validator_key() + b"\n"):  # none yet, or older code's
        file_rows_as_written(path, written)

    def as_written() -> None:
        no_cache()
        shutil.copyfile(written, rows_cache)  # a copy: the read may append to its cache

    first = measure([*rgr, "history", "--json"], path, runs, before=as_written)
    row("rgr history --json, notes rgr wrote, 1st read", first, git_all,
        "(cpu <= 1.25x, rss <= 1x)")
    # Every row cached, but HEAD is not where the saved walk was (git rev-list again).
    walk = measure([*rgr, "history", "--json"], path, runs,
                   before=lambda: walk_cache.unlink(missing_ok=True))
    row("rgr history --json, warm rows, new walk", walk, git_all, "(no target)")
    # Warm: every row cached and the walk from HEAD saved (the runs above saved it).
    history = measure([*rgr, "history", "--json"], path, runs)
    row("rgr history --json, warm (rgr + git children)", history, git_all,
        "(cpu <= 1.25x, rss <= 1x)")
    mine = own_rss(["history", "--json"], path)
    for name, rss in (("warm", mine), ("cold", cold_mine)):
        label = f"  rgr history --json {name}: rgr alone, peak RSS"
        print(f"{label:<46} {'':>9} {'':>9} {rss / 1024:8.1f}  {'':>6} {'':>6} "
              f"{rss / git_all.rss:6.2f}")
    checks.check(f"history --json (warm) cpu <= 1.25x git at {count:,}",
                 history.cpu <= 1.25 * git_all.cpu)
    checks.check(f"history --json (1st read of notes rgr wrote) cpu <= 1.25x git at {count:,}",
                 first.cpu <= 1.25 * git_all.cpu)
    checks.check(f"history --json (1st read of notes rgr wrote) rss <= git at {count:,}",
                 first.rss <= git_all.rss)
    checks.check(f"history --json (warm) rss <= git at {count:,}", history.rss <= git_all.rss)


def bench_foreign_json(rgr: list[str], path: Path, count: int, runs: int) -> None:
    """Every note (``history --json``) of notes another tool wrote (no finishedAt: each
    row's time is its commit's): the first read (no cache) and the
    next ones (what that read filed), against ``git log --notes``. No target: printed
    beside the reads of rgr's own notes."""
    notes = "--notes=tdd-handoffs"
    print(f"\n{path}: {count:,} commits, one note each written by another tool (no "
          f"finishedAt): every note (median of {runs})\n{HEADER}")
    git_all = measure(["git", "log", notes, "--format=%H%n%N"], path, runs)
    row(f"git log {notes} --format=%H%n%N", git_all)
    rows_cache, walk_cache = cache_file(path / ".git"), order_file(path / ".git")

    def no_cache() -> None:
        rows_cache.unlink(missing_ok=True)
        walk_cache.unlink(missing_ok=True)

    cold = measure([*rgr, "history", "--json"], path, runs, before=no_cache)
    row("rgr history --json, foreign notes, cold", cold, git_all, "(no target)")
    # The runs above filed what they could; every read from now on is a next read.
    warm = measure([*rgr, "history", "--json"], path, runs)
    row("rgr history --json, foreign notes, next reads", warm, git_all, "(no target)")


def file_rows_as_written(path: Path, out: Path) -> None:
    """The row cache as rgr would have left it had it written every note of ``path``
    itself: rgr.store.history.cache.add_written on each note, into ``out`` (kept beside the
    cache for the next bench run: at a million notes it takes a few minutes)."""
    print(f"filing the rows of {path}'s notes as rgr writes them (once) ...", flush=True)
    listed = subprocess.run(["git", "notes", "--ref=tdd-handoffs", "list"], cwd=path,
                            check=True, capture_output=True).stdout.split()
    blob_of = dict(zip(listed[1::2], listed[0::2], strict=True))
    # In the order rgr writes them: each note as its commit is made, oldest first.
    walk = subprocess.run(["git", "log", "--reverse", "--format=%H %ct", "HEAD"], cwd=path,
                          check=True, capture_output=True).stdout.split()
    time_of = dict(zip(walk[0::2], map(int, walk[1::2]), strict=True))
    commits = [commit for commit in walk[0::2] if commit in blob_of]
    blobs = [blob_of[commit] for commit in commits]
    reader = subprocess.Popen(["git", "cat-file", "--batch"], cwd=path,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert reader.stdin is not None and reader.stdout is not None
    staging = out.with_name("bench-staging")
    staging.mkdir(exist_ok=True)
    target = cache_file(staging)
    target.unlink(missing_ok=True)
    for commit, blob in zip(commits, blobs, strict=True):
        reader.stdin.write(blob + b"\n")
        reader.stdin.flush()
        size = int(reader.stdout.readline().split()[2])
        text = reader.stdout.read(size + 1)[:-1].decode()
        add_written([staging], commit.decode(), blob.decode(), text, time_of[commit])
    reader.stdin.close()
    reader.wait()
    os.replace(target, out)
    shutil.rmtree(staging)


def bench_writes(small: Path, big: Path, count: int, checks: Checks) -> None:
    rounds = [write_costs([small, big], 100) for _ in range(3)]
    ratios = sorted(big_write / small_write for small_write, big_write in rounds)
    small_write = statistics.median(r[0] for r in rounds)
    big_write = statistics.median(r[1] for r in rounds)
    git_small, git_big = git_write_costs([small, big], 50)
    print(f"\nnote writes (median of 3 rounds of 100, in-process, alternating)\n"
          f"{'write one note, 100 notes exist':<46} {small_write * 1000:9.2f} ms\n"
          f"{f'write one note, {count:,} notes exist':<46} {big_write * 1000:9.2f} ms"
          f"  ratio {ratios[1]:5.2f}x (rounds {ratios[0]:.2f}-{ratios[2]:.2f}x; target <= 1x)\n"
          f"{'  reference: git notes add, 100 notes exist':<46} {git_small * 1000:9.2f} ms\n"
          f"{f'  reference: git notes add, {count:,} notes':<46} {git_big * 1000:9.2f} ms"
          f"  ratio {git_big / git_small:5.2f}x (median of 50, process start included)",
          flush=True)
    checks.check(f"write at {count:,} <= write at 100", ratios[1] <= 1)


PARTS = ("startup", "reads", "json", "foreign", "writes")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--notes", type=int, action="append",
                        help="notes in the repository (repeatable; default 100,000)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp"))
    parser.add_argument("--only", action="append", choices=PARTS,
                        help="run only this part (repeatable; default: all)")
    args = parser.parse_args()
    parts = args.only or PARTS
    counts = args.notes or [100_000]
    rgr = rgr_command()
    # As pip and pipx install it: with bytecode (this machine sets PYTHONDONTWRITEBYTECODE,
    # which would otherwise charge every run for compiling rgr's sources).
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "rgr"), quiet=1)
    checks = Checks()
    print(f"{' '.join(rgr)}; {os.cpu_count()} cores; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    small = ensure_repo(args.workdir / "rgr-bench-100", 100)
    if "startup" in parts:
        bench_startup(rgr, small, SHORT_RUNS, checks)
    for count in counts:
        big = ensure_repo(args.workdir / f"rgr-bench-{count}", count)
        if "reads" in parts:
            bench_reads(rgr, big, count, checks)
        if "json" in parts:
            bench_json(rgr, big, count, args.runs, checks)
        if "foreign" in parts:
            foreign = ensure_repo(args.workdir / f"rgr-bench-foreign-{count}", count,
                                  foreign=True)
            bench_foreign_json(rgr, foreign, count, args.runs)
        if "writes" in parts:
            bench_writes(small, big, count, checks)
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("all targets met" if not checks.missed else
          "targets missed: " + "; ".join(checks.missed))
    return 1 if checks.missed else 0


if __name__ == "__main__":
    sys.exit(main())
