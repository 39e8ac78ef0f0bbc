"""One run, two versions of rgr: the phase overhead and the sealing cost of an older
commit and of this checkout, side by side on the same machine at the same time.

    python bench/before_after.py                 # against the commit before the kernel
    python bench/before_after.py --before REF    # against any commit
    python bench/before_after.py --rounds 3 --files 2000

The older version is checked out with ``git worktree add --detach`` into a temporary
folder and run with its own ``rgr`` package first on ``PYTHONPATH`` (the same venv's
libraries and the same claude from tests/e2e/node, linked in); the two run in turns,
round by round, so a busy machine slows both alike. Each round runs this checkout's
bench/phase_overhead.py on each version (the two-test kata through ``python -m rgr``:
rgr's overhead per phase from the run's own events, the first request's size) and each
version's own bench/seal_bench.py (a scratch copy, an import and a pristine
checkout on a repository of ``--files`` files, against ``git worktree add``) as each
version has them, and this script prints the medians and the ratio after/before.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: figure -> (the regex that finds it in a bench script's output, its unit)
FIGURES: dict[str, tuple[str, str]] = {
    "phase overhead, median": (r"median overhead: ([\d.]+) ms", "ms"),
    "first request, largest": (r"first model request per phase \(bytes\): ([\d ]+)", "B"),
    "sealed attempt, total": (r"sealed total\s+([\d.]+)", "s"),
    "git worktree add": (r"git worktree add\s+([\d.]+)", "s"),
    "sealed / worktree add": (r"sealed total / git worktree add: ([\d.]+)x", "x"),
}


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def _commit_before_the_kernel() -> str:
    added = _git("log", "--diff-filter=A", "--format=%H", "--", "rgr/loop/kernel.py")
    if not added:
        sys.exit("this checkout's history has no rgr/loop/kernel.py: pass --before REF")
    return added.splitlines()[-1] + "^"


def _checkout(ref: str, into: Path) -> Path:
    _git("worktree", "add", "--detach", "--quiet", str(into), ref)
    node = ROOT / "tests" / "e2e" / "node" / "node_modules"
    target = into / "tests" / "e2e" / "node" / "node_modules"
    if node.is_dir() and not target.exists():
        target.symlink_to(node)
    return into


def _run(where: Path, script: str, args: list[str], rgr: Path | None = None) -> str:
    """``bench/<script>`` of the checkout ``where``, importing the rgr of ``rgr`` (None:
    the installed one). A script whose figures miss their target exits 1 and still
    prints them."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if rgr is not None:
        env["PYTHONPATH"] = str(rgr)
    done = subprocess.run([sys.executable, f"bench/{script}", *args], cwd=where, env=env,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode not in (0, 1) or not _figures(done.stdout):
        sys.exit(f"{script} failed for {rgr or where}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def _figures(output: str) -> dict[str, float]:
    found: dict[str, float] = {}
    for name, (pattern, _unit) in FIGURES.items():
        match = re.search(pattern, output)
        if match:
            values = [float(v) for v in match.group(1).split()]
            found[name] = max(values)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the older commit (default: the one before "
                        "rgr/loop/kernel.py was added)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--files", type=int, default=10_000)
    opts = parser.parse_args()
    before_ref = opts.before or _commit_before_the_kernel()
    before_id = _git("rev-parse", "--short", before_ref)
    after_id = _git("rev-parse", "--short", "HEAD")
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="rgr-before-") as tmp:
        before = _checkout(before_ref, Path(tmp) / "before")
        try:
            sides: dict[str, Path] = {"before": before, "after": ROOT}
            seal = ["--files", str(opts.files), "--rounds", "3", "--kata-rounds", "0"]
            for n in range(opts.rounds):
                for side in (("before", "after") if n % 2 == 0 else ("after", "before")):
                    checkout = sides[side]
                    # This checkout's kata and measure for both (the events say it all);
                    # each version's own seal bench (it calls the store's functions).
                    figures = _figures(_run(ROOT, "phase_overhead.py",
                                            ["--checkout", str(checkout)]))
                    figures.update(_figures(_run(checkout, "seal_bench.py", seal, checkout)))
                    runs[side].append(figures)
                    print(f"round {n + 1} {side}: " + ", ".join(
                        f"{k} {v:g}" for k, v in figures.items()), flush=True)
        finally:
            _git("worktree", "remove", "--force", str(before))
    def median(side: str, name: str) -> float | None:
        values = [r[name] for r in runs[side] if name in r]
        return statistics.median(values) if values else None

    print(f"\nmedians of {opts.rounds} rounds; before = {before_id}, after = {after_id}")
    print(f"  {'figure':<26} {'before':>10} {'after':>10} {'after/before':>13}")
    for name, (_pattern, unit) in FIGURES.items():
        b, a = median("before", name), median("after", name)
        ratio = f"{a / b:.2f}x" if a is not None and b else "-"
        shown = ["-" if v is None else f"{v:g} {unit}" for v in (b, a)]
        print(f"  {name:<26} {shown[0]:>10} {shown[1]:>10} {ratio:>13}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
