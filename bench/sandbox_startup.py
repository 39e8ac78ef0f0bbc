"""The sandbox's start-up cost, before and after least privilege (issue 42).

For each rgr checkout given (default: /work/main, then this one), a child process that
imports that checkout's rgr builds the agent's jail for the README's layout (claude
installed with ``npm install -g --prefix ~/.local`` under a fake HOME, a Rust toolchain
in that HOME) and runs ``true`` in it ``--runs`` times through rgr.base.proc.run (so the
cost counts building the command line, handing the writable folders over and back when
rgr runs as root, bubblewrap and the program's start). Prints each checkout's median and
p90 in ms, the length of the bwrap command line, and the ratio after/before.

    python bench/sandbox_startup.py [--before PATH] [--after PATH] [--runs N] [--argv]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, statistics, sys, tempfile, time
from pathlib import Path
# This checkout's rgr, not the one an editable install's import hook would find.
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f)]
sys.path.insert(0, sys.argv[2])
import rgr
assert Path(rgr.__file__).is_relative_to(sys.argv[2]), rgr.__file__
from rgr.base.proc import run
from rgr.sandbox.policy import SandboxPolicy
from rgr.sandbox import toolchain

runs = int(sys.argv[1])
with tempfile.TemporaryDirectory(prefix="rgr-bench-") as tmp:
    home = Path(tmp) / "home"
    package = home / ".local/lib/node_modules/@anthropic-ai/claude-code"
    (package / "bin").mkdir(parents=True)
    exe = package / "bin/claude.exe"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    (home / ".local/bin").mkdir(parents=True)
    claude = home / ".local/bin/claude"
    claude.symlink_to("../lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe")
    for rel in (".rustup/toolchains/stable/bin", ".cargo/bin", ".cargo/registry"):
        (home / rel).mkdir(parents=True)
    (home / ".cargo/credentials.toml").write_text("token\n")
    repo = home / "projects/app"
    repo.mkdir(parents=True)
    (repo / "Cargo.toml").write_text("[package]\n")
    os.environ["HOME"] = str(home)
    found = toolchain.detect(repo, {"HOME": str(home), "PATH": os.environ["PATH"]})
    seat = Path(tmp) / "seat"
    work, own, scratch_tmp = (seat / n for n in ("work", "home", "tmp"))
    for folder in (work, own, scratch_tmp):
        folder.mkdir(parents=True)
    for i in range(200):  # a small scratch copy's worth of files
        (work / f"f{i}.txt").write_text("x")
    jail = SandboxPolicy(toolchain=found).agent_jail(
        repo_root=repo, work=work, home=own, tmp=scratch_tmp, executables=[claude],
        forwards=())
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = run(["true"], cwd=work, timeout=30, launcher=jail)
        times.append(time.perf_counter() - started)
        assert done.returncode == 0, done.stderr
    argv = list(jail.wrap(["true"], work))
    getattr(jail, "release", lambda: None)()  # before issue 42 there was none
    times.sort()
    print(json.dumps({"median": statistics.median(times), "p90": times[int(len(times) * 0.9)],
                      "argv": [a.replace(str(home), "~") for a in argv]}))
"""


def measure(checkout: Path, runs: int) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", CHILD, str(runs), str(checkout)], env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"{checkout}: the measure failed:\n{done.stderr[-2000:]}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, default=Path("/work/main"))
    parser.add_argument("--after", type=Path, default=ROOT)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--argv", action="store_true", help="print each bwrap command line")
    opts = parser.parse_args()
    figures = {}
    for label, checkout in (("before", opts.before), ("after", opts.after)):
        found = measure(checkout.resolve(), opts.runs)
        figures[label] = found
        argv = found["argv"]
        assert isinstance(argv, list)
        print(f"{label:<6} {checkout}: median {float(found['median']) * 1000:.1f} ms, "  # type: ignore[arg-type]
              f"p90 {float(found['p90']) * 1000:.1f} ms, {len(argv)} bwrap arguments")  # type: ignore[arg-type]
        if opts.argv:
            print("  " + " ".join(argv))
    ratio = float(figures["after"]["median"]) / float(figures["before"]["median"])  # type: ignore[arg-type]
    print(f"ratio after/before (median): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
