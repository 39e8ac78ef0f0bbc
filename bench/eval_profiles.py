"""What does each mode of `rgr eval` let through, agent profile by agent profile? (issue 46)

For every scripted profile of tests/e2e/eval_profiles.py (honest, lazy, special-caser,
test-editor, regression-maker): the kata projects of the languages given, the sweep's two
tasks in each (bench/eval/katas.py: slugify, count_words), and `rgr eval` in the modes
given, driven through the real claude CLI against the scripted server. Prints one
table (profile x mode: solved, hidden tests passed, runs with a regression, runs that
edited tests, tests written, cost, wall time, sessions, the referee's rejections) and
writes it, with every eval's own report, under the work folder.

    python bench/eval_profiles.py [--profiles honest,lazy,...] [--modes bare,tdd-prompt,rgr]
                                  [--langs python,javascript,go,rust,ruby] [--repeat N]
                                  [--work DIR]

Scripted profiles are not models: the table shows what each mode lets through when an
agent behaves that way, not how often a real model does.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from eval_profiles import (  # noqa: E402
    PROFILES,
    SWEEP_TASKS,
    ProfileModel,
    make_sweep,
    tasks_env,
)
from kata import rgr_env  # noqa: E402

from rgr.evaluate import report, results  # noqa: E402
from rgr.fake_model import FakeModelServer  # noqa: E402


def one_profile(work: Path, profile: str, modes: str, repeat: int,
                langs: list[str]) -> Path:
    folder = work / profile
    chosen = tuple(t for t in SWEEP_TASKS if t.lang.name in langs)
    tasks = make_sweep(folder, chosen)
    out = folder / "out"
    with FakeModelServer(choose=ProfileModel(profile)) as server:
        env = {**rgr_env(folder / "home", server.url), **tasks_env(chosen)}
        done = subprocess.run(
            [sys.executable, "-m", "rgr", "eval", str(tasks), "--modes", modes, "--repeat",
             str(repeat), "--yes", "--out", str(out)], cwd=folder, env=env,
            capture_output=True, text=True, timeout=7200, stdin=subprocess.DEVNULL)
    (folder / "eval.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"rgr eval failed for {profile}:\n{done.stdout[-3000:]}"
                         f"{done.stderr[-3000:]}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", default=",".join(PROFILES))
    parser.add_argument("--modes", default="bare,tdd-prompt,rgr")
    parser.add_argument("--langs", default=",".join(dict.fromkeys(
        t.lang.name for t in SWEEP_TASKS)))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="rgr-eval-profiles-"))
    work.mkdir(parents=True, exist_ok=True)
    rows: list[list[str]] = []
    combined: dict[str, object] = {}
    started = time.monotonic()
    for profile in args.profiles.split(","):
        began = time.monotonic()
        out = one_profile(work, profile, args.modes, args.repeat, args.langs.split(","))
        runs = results.load_all(out)
        modes = report.aggregate(runs)
        combined[profile] = modes
        rows += report.table_rows(modes, first=profile)
        print(f"{profile}: {len(runs)} run(s) in {time.monotonic() - began:.0f}s",
              file=sys.stderr)
    table = report.markdown_table(rows, ("profile", *report.COLUMNS))
    (work / "profiles.md").write_text(table)
    (work / "profiles.json").write_text(json.dumps(combined, indent=2) + "\n")
    print(table)
    print(f"all profiles: {time.monotonic() - started:.0f}s; reports under {work}")


if __name__ == "__main__":
    main()
