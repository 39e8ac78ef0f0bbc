"""The mutation gate's cost per phase (issue 25, item 2): proportional to the change, not
to the repository.

Two Python projects, each judged as rgr judges a GREEN: the phase's own test run (the
whole suite on a pristine sealed checkout of the tip) and then the gate on base..tip
(rgr.check.mutation.gate.measure, through the run's real Sealer: bubblewrap, pristine
checkouts, the coverage cache cleared before every round):

* the calc kata: one test, ``add`` written by GREEN (2 lines changed);
* a 10,000-file repository (git fast-import) with 100 test files, whose GREEN adds a
  50-line module (ten small functions) that its RED's tests pin;
* the calc kata in Go, Rust and JavaScript (Vitest) (tests/e2e/ecosystems.py's
  ``calc_files``; rgr.check.mutation.textual: every mutant runs the whole suite, and
  survivors' lines are probed), with ``--languages``.

    python bench/mutation_bench.py [--files 10000] [--rounds 3] [--jobs 2] [--no-sandbox]
                                   [--languages go,rust,vitest] [--skip-python]

Targets: the gate at most 2x the phase's own test run on the kata; at most 20 s for the
large repository's 50-line change on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from rgr.base.config import AdequacyConfig  # noqa: E402
from rgr.check.mutation.gate import measure, subject_of  # noqa: E402
from rgr.ecosystems import traced as coverage_lines  # noqa: E402
from rgr.ecosystems.registry import resolve_test_command  # noqa: E402
from rgr.sandbox.sealer import open_sealer  # noqa: E402
from rgr.store import git  # noqa: E402
from rgr.store.workspace import open_workspace  # noqa: E402
from tests.fake_backend import FakeBackend  # noqa: E402

FEATURE = "".join(f"""def f{i}(a, b):
    if a > b:
        return a - b + {i}
    total = a * b
    return total + {i}
""" for i in range(10))
FEATURE_TESTS = "from feature import " + ", ".join(f"f{i}" for i in range(10)) + "\n\n" + \
    "\n".join(f"""
def test_f{i}():
    assert f{i}(5, 3) == {2 + i}
    assert f{i}(3, 3) == {9 + i}
    assert f{i}(2, 4) == {8 + i}
""" for i in range(10))


def sh(cwd: Path, *argv: str, data: bytes | None = None) -> None:
    subprocess.run(argv, cwd=cwd, check=True, input=data, capture_output=True)


def new_repo(path: Path, files: int) -> None:
    """``files`` small modules (and 100 test files) in one commit, via fast-import."""
    sh(path.parent, "git", "init", "-q", "-b", "main", str(path))
    for key, value in (("user.name", "Bench"), ("user.email", "b@example.com"),
                       ("commit.gpgsign", "false")):
        sh(path, "git", "config", key, value)
    blobs: list[tuple[str, bytes]] = [
        ("pytest.ini", b"[pytest]\npythonpath = . src\ntestpaths = tests\n"),
        ("tdd.toml", f'test_command = ["{sys.executable}", "-m", "pytest", "-q"]\n'.encode()),
        (".gitignore", b"__pycache__/\n")]
    for i in range(files):
        blobs.append((f"src/d{i % 100}/m{i}.py", f"def f{i}():\n    return {i}\n".encode()))
    for d in range(min(100, files)):
        blobs.append((f"tests/test_d{d}.py",
                      f"import importlib\n\n\ndef test_d{d}():\n    module = importlib."
                      f"import_module('d{d}.m{d}')\n    assert module.f{d}() == {d}\n"
                      .encode()))
    lines = ["commit refs/heads/main", "committer Bench <b@example.com> 0 +0000",
             "data 4", "init"]
    for name, body in blobs:
        lines += [f"M 100644 inline {name}", f"data {len(body)}", body.decode()]
    sh(path, "git", "fast-import", "--quiet", data=("\n".join(lines) + "\n").encode())
    sh(path, "git", "checkout", "-q", "main")


def commit(path: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
        sh(path, "git", "add", name)
    sh(path, "git", "commit", "-q", "-m", message)


def kata(path: Path) -> None:
    new_repo(path, 0)
    commit(path, {"tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n"
                  "    assert add(2, 3) == 5\n"}, "test: add")
    commit(path, {"calc.py": "def add(a, b):\n    return a + b\n"}, "feat: add")


def large(path: Path, files: int) -> None:
    new_repo(path, files)
    commit(path, {"tests/test_feature.py": FEATURE_TESTS}, "test: feature")
    commit(path, {"src/feature.py": FEATURE}, "feat: feature (50 lines)")


def language_kata(path: Path, kind: str) -> None:
    """The calc kata in ``kind`` (go, rust, vitest), its toolchain installed and shown to
    the sandbox as the e2e tests do; base = the test, tip = ``add``'s honest body."""
    from ecosystems import CALC_HONEST, CALC_STUB, ECOSYSTEMS, calc_files, make_project

    eco = ECOSYSTEMS[kind]
    toolchain = eco.setup(path.parent / "home")
    os.environ.update(toolchain.env)  # the names tdd.toml's pass_env lists
    stub = calc_files(kind, CALC_STUB[kind], True)
    test = next(name for name in stub if "test" in name)
    make_project(replace(eco, files={k: v for k, v in stub.items() if k != test}), path,
                 "claude", toolchain)
    eco.link(path)
    commit(path, {test: stub[test]}, "test: add")
    impl = next(name for name in stub if name != test and name.endswith((".go", ".rs", ".js")))
    commit(path, {impl: calc_files(kind, CALC_HONEST[kind], True)[impl]}, "feat: add")


def judge(path: Path, rounds: int, jobs: int, no_sandbox: bool, label: str) -> None:
    ws = open_workspace(path, no_sandbox=no_sandbox)
    cmd = resolve_test_command(ws.config, ws.root)
    sealer = open_sealer(ws, FakeBackend(), cmd, lambda line: None)  # type: ignore[arg-type]
    tip = git.head_commit(ws.repo)
    base = git.resolve_commit(ws.repo, "HEAD~1")
    settings = AdequacyConfig(jobs=jobs, budget=600)
    runs, gates = [], []
    note = None
    for _ in range(rounds):
        shutil.rmtree(ws.git_dir / coverage_lines.FOLDER, ignore_errors=True)
        started = time.perf_counter()
        report = sealer.run_tests(tip)
        runs.append(time.perf_counter() - started)
        assert report.all_passed, report.output_excerpt
        subject = subject_of(ws.repo, ws.config, "GREEN", base, tip)
        started = time.perf_counter()
        note = measure(subject, settings, cmd, lambda label: sealer.checkout(tip, label),
                       ws.git_dir, ws.config.command_timeout, baseline_s=report.duration_s,
                       baseline=report)
        gates.append(time.perf_counter() - started)
    assert note is not None
    run_s, gate_s = statistics.median(runs), statistics.median(gates)
    changed = sum(len(v) for v in subject.changed.values())
    print(f"{label}: {changed} changed line(s), {note.tried} mutants, {note.killed} killed, "
          f"{note.unviable} unviable, decision {note.decision}")
    print(f"  phase test run {run_s:6.2f}s   gate {gate_s:6.2f}s   ratio {gate_s / run_s:4.2f}x"
          f"   (median of {rounds}; sandbox {'off' if no_sandbox else 'on'}, jobs {jobs})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-sandbox", action="store_true")
    parser.add_argument("--languages", default="",
                        help="comma-separated: go, rust, vitest (the calc kata in each)")
    parser.add_argument("--skip-python", action="store_true",
                        help="only the --languages katas")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rgr-mutation-bench-") as tmp:
        for kind in filter(None, args.languages.split(",")):
            language_kata(Path(tmp) / kind / "calc", kind)
            judge(Path(tmp) / kind / "calc", args.rounds, args.jobs, args.no_sandbox,
                  f"calc kata ({kind})")
        if args.skip_python:
            return
        kata(Path(tmp) / "kata")
        judge(Path(tmp) / "kata", args.rounds, args.jobs, args.no_sandbox, "calc kata")
        started = time.perf_counter()
        large(Path(tmp) / "large", args.files)
        print(f"({args.files}-file repository made in {time.perf_counter() - started:.1f}s)")
        judge(Path(tmp) / "large", args.rounds, args.jobs, args.no_sandbox,
              f"{args.files}-file repository")


if __name__ == "__main__":
    main()
