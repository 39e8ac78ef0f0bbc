"""rgr's own overhead per phase: everything but the agent's and the test runner's time.

Runs the two-test kata of the end-to-end suite (nine phases) with ``python -m rgr run``
(the real claude from tests/e2e/node, the scripted model server, real git and pytest),
then reads the run folder's events.jsonl: a phase's overhead is its ``phase_done``
duration less its agent sessions (from ``attempt_started`` to ``agent_call``, so the
CLI's own start counts as the agent's) and less the test runs inside it (``test_run``).
The events are the run's own record, so the same measure reads any rgr since the run
folder exists: ``--checkout`` runs another checkout's rgr (bench/before_after.py does).

    python bench/phase_overhead.py [--checkout PATH] [--runs N]

Target (issue 3): median overhead under 100 ms. Also prints the first request each
phase sends to the model (target: at most 16 KB).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from kata import make_project, rgr_env  # noqa: E402

from rgr.demo.kata import two_test_kata  # noqa: E402
from rgr.fake_model import FakeModelServer  # noqa: E402


def _seconds(ts: str) -> float:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()


def overheads(events: list[dict[str, object]]) -> list[float]:
    """Each phase's seconds outside its agent sessions and its test runs."""
    found: list[float] = []
    in_phase = False
    agent_s = tests_s = 0.0
    started: float | None = None
    for event in events:
        kind = event.get("type")
        if kind == "phase_started":
            in_phase, agent_s, tests_s = True, 0.0, 0.0
        elif kind == "attempt_started":
            started = _seconds(str(event["ts"]))
        elif kind == "agent_call" and started is not None:
            agent_s += _seconds(str(event["ts"])) - started
            started = None
        elif kind == "test_run" and in_phase:
            tests_s += float(event.get("durationS") or 0.0)  # type: ignore[arg-type]
        elif kind == "phase_done" and in_phase:
            found.append(float(event["durationS"]) - agent_s - tests_s)  # type: ignore[arg-type]
            in_phase = False
    return found


def run_kata(checkout: Path) -> tuple[list[float], dict[str, int]]:
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(two_test_kata()) as server:
        repo = make_project(Path(tmp) / "kata")
        env = {**rgr_env(Path(tmp) / "home", server.url), "PYTHONPATH": str(checkout)}
        done = subprocess.run([sys.executable, "-m", "rgr", "run", "--yes", "--skip-preflight",
                               "add a slugify function"], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=900,
                              stdin=subprocess.DEVNULL)
        if done.returncode != 0 or server.remaining:
            sys.exit(f"the kata did not complete (exit {done.returncode}, "
                     f"{server.remaining} sessions unplayed):\n{done.stdout[-1500:]}"
                     f"{done.stderr[-1500:]}{server.errors}")
        [log] = (repo / ".git" / "rgr" / "runs").glob("*/events.jsonl")
        events = [json.loads(line) for line in log.read_text().splitlines() if line]
        first: dict[str, int] = {}
        for record in server.requests:
            if record.session_id and "StructuredOutput" in record.tools:
                first.setdefault(record.session_id, record.body_bytes)
    return overheads(events), first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=ROOT,
                        help="the rgr checkout to run (default: this one)")
    parser.add_argument("--runs", type=int, default=1, help="katas to run (9 phases each)")
    opts = parser.parse_args()
    os.environ.pop("PYTHONPATH", None)
    per_phase: list[float] = []
    first: dict[str, int] = {}
    for _ in range(opts.runs):
        phases, requests = run_kata(opts.checkout.resolve())
        per_phase += phases
        first.update(requests)
    print(f"phases: {len(per_phase)} in {opts.runs} kata run(s) of {opts.checkout}")
    print("rgr overhead per phase (ms):", " ".join(f"{o * 1000:.0f}" for o in per_phase))
    median = statistics.median(per_phase)
    print(f"median overhead: {median * 1000:.1f} ms (target < 100 ms)")
    print("first model request per phase (bytes):", " ".join(str(v) for v in first.values()),
          f"(max {max(first.values())}, target <= {16 * 1024})")
    return 0 if median < 0.1 and max(first.values()) <= 16 * 1024 else 1


if __name__ == "__main__":
    sys.exit(main())
