"""The cost of sealing an attempt, and of the sandbox on a whole run.

Part 1, per attempt on a 10,000-file repository (made with git fast-import): the scratch
copy (a new repository whose objects are the user's, by alternates, with the base
checked out), the import of a small commit from it, a pristine checkout of the result,
a bubblewrap start (``bwrap ... true``), and the reference: ``git worktree add`` of the
same commit. Under the sandbox rgr checks the base's pristine tree out in a thread while
the agent works (``--session-s``, the shortest agent session: claude alone takes about
1 s to start) and the verification then checks out only what the commit changed; the
"unstaged" rows are the same attempt with a whole pristine checkout after the session
(``--no-sandbox``, or a verification with nothing staged).
The reference, ``git worktree add``, runs on the repository's disk; the scratch copies
go where rgr puts them (/dev/shm by default, or ``--scratch-dir``).

Part 2, the demo kata (two tests, nine agent sessions: the real claude and the scripted
model) with the sandbox and with ``--no-sandbox``, alternated, several rounds.

    python bench/seal_bench.py [--files 10000] [--rounds 5] [--kata-rounds 3] [--session-s 2]

Part 3, the project's toolchain (rgr.sandbox.toolchain): its detection on a project with
a real virtualenv, node_modules and a HOME holding rustup, cargo, pyenv, nvm and Go's
module cache, and a test run's sandbox start (``bwrap ... true``) with the toolchain
shown against the same sandbox without it, alternated.

    python bench/seal_bench.py [--files 10000] [--rounds 5] [--kata-rounds 3] [--session-s 2]
    python bench/seal_bench.py --only toolchain [--rounds 21]

Targets (issue 11): under 1 s per attempt at 10,000 files; the kata at most 15% slower.
Target (issue 23): detection and the extra mounts under 50 ms per sandbox start.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pygit2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from rgr.base.proc import run  # noqa: E402
from rgr.sandbox.jail import Jail  # noqa: E402
from rgr.store import scratch  # noqa: E402


def make_big_repo(path: Path, files: int) -> None:
    """``files`` small files in 100 folders, one commit, via fast-import."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    lines = ["commit refs/heads/main", "committer Bench <b@example.com> 0 +0000",
             "data 4", "init"]
    for i in range(files):
        body = f"def f{i}():\n    return {i}\n".encode()
        lines += [f"M 100644 inline src/d{i % 100}/m{i}.py", f"data {len(body)}",
                  body.decode()]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, check=True,
                   input=("\n".join(lines) + "\n").encode())
    subprocess.run(["git", "checkout", "-q", "main"], cwd=path, check=True)


@contextmanager
def timer(into: list[float]) -> Iterator[None]:
    started = time.perf_counter()
    yield
    into.append(time.perf_counter() - started)


def per_attempt(files: int, rounds: int, scratch_dir: str, session_s: float) -> None:
    with tempfile.TemporaryDirectory(prefix="rgr-seal-bench-") as tmp, \
            tempfile.TemporaryDirectory(prefix="rgr-seal-bench-", dir=scratch_dir) as fast:
        base_dir = Path(fast)  # where rgr makes scratch copies (rgr.sandbox.sealer.work_root)
        repo_path = Path(tmp) / "repo"
        print(f"scratch copies and checkouts in {scratch_dir}")
        made: list[float] = []
        with timer(made):
            make_big_repo(repo_path, files)
        print(f"repository: {files} files, made in {made[0]:.1f}s")
        repo = pygit2.Repository(str(repo_path))
        who = pygit2.Signature("Bench", "b@example.com")
        bwrap = shutil.which("bwrap")
        rows: dict[str, list[float]] = {k: [] for k in
                                        ("scratch copy", "import", "pristine checkout",
                                         "sandbox start", "sealed total",
                                         "pristine, unstaged", "sealed total, unstaged",
                                         "git worktree add")}
        stager = scratch.PristineStager(repo.path)
        for n in range(rounds):
            base = repo.head.peel(pygit2.Commit)
            work = base_dir / f"attempt-{n}" / "work"
            with timer(rows["scratch copy"]):
                scratch.make_scratch(repo, base, "main", work, who)
            # As rgr.sandbox.sealer.Sealer.seat does under the sandbox: the base's pristine tree
            # is checked out in a thread while the agent works.
            (base_dir / f"staged-{n}").mkdir()
            stager.stage(base.id, base_dir / f"staged-{n}")
            session_started = time.perf_counter()
            (work / "src/d0/m0.py").write_text("def f0():\n    return -1\n")
            subprocess.run(["git", "commit", "-qam", "feat: change"], cwd=work, check=True)
            time.sleep(max(0.0, session_s - (time.perf_counter() - session_started)))
            with timer(rows["import"]):
                tip = scratch.import_branch(repo, scratch.Scratch(work, "main"), base.id)
            with timer(rows["pristine checkout"]):
                if not stager.take(repo, tip, base_dir / f"pristine-{n}"):
                    raise SystemExit("the staged checkout was not usable")
            with timer(rows["pristine, unstaged"]):
                scratch.checkout_pristine(repo, tip, base_dir / f"unstaged-{n}")
            if bwrap:
                jail = Jail(bwrap, masked=(Path("/tmp"),), readable=(), writable=(work,))
                with timer(rows["sandbox start"]):
                    run(jail.wrap(["true"], work), cwd=work, timeout=30)
            parts = ("scratch copy", "import", "pristine checkout", "sandbox start")
            rows["sealed total"].append(sum(rows[k][-1] for k in parts if rows[k]))
            rows["sealed total, unstaged"].append(
                rows["sealed total"][-1] - rows["pristine checkout"][-1]
                + rows["pristine, unstaged"][-1])
            with timer(rows["git worktree add"]):
                subprocess.run(["git", "worktree", "add", "-q", "--detach",
                                str(Path(tmp) / f"wt-{n}"), str(tip)], cwd=repo_path,
                               check=True)
        print(f"\nper attempt, median of {rounds} (wall seconds):")
        for name, values in rows.items():
            if values:
                print(f"  {name:<24} {statistics.median(values):7.3f}")
        ratio = statistics.median(rows["sealed total"]) / statistics.median(
            rows["git worktree add"])
        print(f"  sealed total / git worktree add: {ratio:.2f}x")


def kata(rounds: int) -> None:
    from kata import make_project, rgr, rgr_env  # the e2e suite's own helpers

    from rgr.demo.kata import two_test_kata
    from rgr.fake_model import FakeModelServer

    results: dict[str, list[float]] = {"sandbox": [], "--no-sandbox": []}
    for n in range(rounds):
        for mode in ("sandbox", "--no-sandbox"):
            with tempfile.TemporaryDirectory(prefix="rgr-kata-bench-") as tmp:
                repo = make_project(Path(tmp) / "kata")
                with FakeModelServer(two_test_kata()) as server:
                    args = ["run", "--yes", "--skip-preflight", "add a slugify function"]
                    if mode != "sandbox":
                        args.insert(1, "--no-sandbox")
                    started = time.perf_counter()
                    done = rgr(args, repo, rgr_env(Path(tmp) / "home", server.url))
                    elapsed = time.perf_counter() - started
                assert done.returncode == 0, done.stdout + done.stderr
                results[mode].append(elapsed)
                print(f"  round {n + 1} {mode:<13} {elapsed:6.1f}s")
    sealed = statistics.median(results["sandbox"])
    bare = statistics.median(results["--no-sandbox"])
    print(f"\nkata, median of {rounds}: sandbox {sealed:.1f}s, --no-sandbox {bare:.1f}s, "
          f"ratio {sealed / bare:.2f}x")


def toolchain_cost(rounds: int) -> None:
    """Detection, and a test jail's start with and without what it shows."""
    from rgr.sandbox.policy import SandboxPolicy
    from rgr.sandbox.toolchain import detect

    with tempfile.TemporaryDirectory(prefix="rgr-seal-bench-") as tmp:
        home = Path(tmp) / "home"
        project = home / "code" / "project"
        project.mkdir(parents=True)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")],
                       check=True)
        (project / "node_modules" / ".bin").mkdir(parents=True)
        for name in (".rustup", ".cargo/bin", ".pyenv/versions", ".nvm", "go/pkg/mod"):
            (home / name).mkdir(parents=True)
        env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
        checkout = Path(tmp) / "shm" / "tree"
        sandbox_home, sandbox_tmp = Path(tmp) / "shm" / "home", Path(tmp) / "shm" / "tmp"
        for folder in (checkout, sandbox_home, sandbox_tmp):
            folder.mkdir(parents=True)
        detected: list[float] = []
        starts: dict[str, list[float]] = {"without": [], "with": []}
        found = detect(project, env)
        print(f"shown: {len(found.shown)} paths, {len(found.env)} variables, "
              f"{len(found.aliases)} alias(es)")
        for _ in range(rounds):
            with timer(detected):
                found = detect(project, env)
            for label, policy in (("without", SandboxPolicy()),
                                  ("with", SandboxPolicy(toolchain=found))):
                jail = policy.test_jail(repo_root=project, checkout=checkout,
                                        home=sandbox_home, tmp=sandbox_tmp,
                                        executables=[Path(sys.executable)])
                with timer(starts[label]):
                    done = run(jail.wrap(["true"], checkout), cwd=checkout, timeout=30)
                assert done.returncode == 0, done.describe()
        without = statistics.median(starts["without"]) * 1000
        with_ = statistics.median(starts["with"]) * 1000
        detection = statistics.median(detected) * 1000
        print(f"median of {rounds}: detection {detection:.2f} ms; sandbox start without "
              f"the toolchain {without:.1f} ms, with it {with_:.1f} ms "
              f"(+{with_ - without:.1f} ms, {with_ / without:.2f}x); detection and mounts "
              f"together {detection + with_ - without:.1f} ms (target < 50 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kata-rounds", type=int, default=3)
    parser.add_argument("--session-s", type=float, default=2.0,
                        help="how long the simulated agent session lasts")
    parser.add_argument("--scratch-dir", default="/dev/shm",
                        help="where the scratch copies go (rgr's default: /dev/shm)")
    parser.add_argument("--only", choices=["toolchain"],
                        help="run one part only")
    args = parser.parse_args()
    if args.only == "toolchain":
        toolchain_cost(args.rounds)
        return
    per_attempt(args.files, args.rounds, args.scratch_dir, args.session_s)
    if args.kata_rounds:
        print("\nthe demo kata (two tests, nine sessions):")
        kata(args.kata_rounds)
    print("\nthe project's toolchain:")
    toolchain_cost(args.rounds)


if __name__ == "__main__":
    main()
