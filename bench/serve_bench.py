"""How fast `rgr serve` answers on a big repository: 1,000 jobs in the queue and 10,000
handoff notes (about 240 runs of 10 cycles, one rejected attempt kept every fifth run),
all made with git's own bulk tools.

    python bench/serve_bench.py                  # 1,000 jobs, 10,000 notes, 15 requests each
    python bench/serve_bench.py --jobs 1000 --notes 10000 --requests 15

A real `rgr serve` (subprocess) is asked each page over HTTP; the figures are the
server's own time for the request (its Server-Timing header: from the request reaching
the application to the response starting) and the wall time the client saw, median and
worst of --requests, after one warm-up request each. Targets: the board under 300 ms,
a run page under 200 ms.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PHASES = ("PLAN", "RED", "GREEN", "REFACTOR")
CYCLES = 10


def note(run: int, phase: str, cycle: int, next_phase: str, **extra: object) -> str:
    data: dict[str, object] = {
        "phase": phase, "nextPhase": next_phase, "cycleNumber": cycle,
        "currentTest": {"description": f"behaviour {cycle} of feature {run}",
                        "testFile": f"tests/test_f{run}.py", "implFile": f"f{run}.py"},
        "completedTests": [f"behaviour {n} of feature {run}" for n in range(1, cycle)],
        "pendingTests": [f"behaviour {n} of feature {run}" for n in range(cycle, CYCLES + 1)],
        "testResult": "FAIL" if phase == "RED" else "PASS", "error": None,
        "errorDetails": None, "retryCount": 0, "schemaVersion": 1, "mode": "tdd",
        "runId": f"run-{run:05d}", "feature": f"feature number {run}", "branch": "main",
        "startBranch": "main", "startedAt": "2026-11-21T00:00:00Z",
        "finishedAt": "2026-11-21T00:00:30Z",
        "agent": {"backend": "claude", "sessionId": f"s-{run}-{cycle}-{phase}",
                  "model": "claude-opus-4-8", "numTurns": 4, "costUsd": 0.05,
                  "durationMs": 4000, "inputTokens": 12000, "outputTokens": 300,
                  "permissionDenials": 0, "promptVersion": "v1"},
        "tests": {"command": ["pytest"], "exitCode": 1 if phase == "RED" else 0,
                  "durationS": 0.5, "passed": cycle - 1, "failed": 1 if phase == "RED" else 0,
                  "errors": 0, "skipped": 0,
                  "failing": [f"tests/test_f{run}.py::test_{cycle}"] if phase == "RED" else []},
    }
    data.update(extra)
    return json.dumps(data, indent=2) + "\n"


def build_notes(path: Path, count: int) -> tuple[str, int]:
    """Runs of 10 cycles on main until ``count`` notes; returns the last run's id and how
    many runs there are."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    loader = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=path,
                              stdin=subprocess.PIPE)
    assert loader.stdin is not None
    out = loader.stdin

    def data(text: str) -> None:
        raw = text.encode()
        out.write(b"data %d\n" % len(raw) + raw + b"\n")

    mark, when, notes, run = 0, 1_700_000_000, [], 0
    attempts: list[tuple[int, int]] = []
    while len(notes) < count:
        run += 1
        body = ""
        steps = [("REFACTOR", 0, "PLAN")] + [
            (phase, cycle, PHASES[(i + 1) % 4] if not (cycle == CYCLES and phase == "REFACTOR")
             else "PLAN") for cycle in range(1, CYCLES + 1) for i, phase in enumerate(PHASES)]
        steps.append(("COMPLETE", CYCLES, "COMPLETE"))
        for phase, cycle, following in steps:
            mark += 1
            when += 1
            out.write(b"commit refs/heads/main\nmark :%d\n" % mark)
            out.write(b"committer Bench <bench@example.com> %d +0000\n" % when)
            data(f"{phase.lower()}: feature {run} cycle {cycle}\n")
            if phase in ("RED", "GREEN"):
                body += f"def behaviour_{cycle}_{phase.lower()}():\n    return {cycle}\n"
                out.write(f"M 644 inline src/f{run}.py\n".encode())
                data(body)
            notes.append((mark, note(run, phase, cycle, following)))
            if phase == "RED" and cycle == 1 and run % 5 == 0:
                attempts.append((run, mark))
    for run_number, parent in attempts:
        mark += 1
        when += 1
        out.write(f"commit refs/rgr/attempts/run-{run_number:05d}/c1-GREEN-a1\n".encode()
                  + b"mark :%d\n" % mark)
        out.write(b"committer Bench <bench@example.com> %d +0000\n" % when)
        data("feat: a rejected attempt\n")
        out.write(b"from :%d\n" % parent)
        out.write(f"M 644 inline tests/test_f{run_number}.py\n".encode())
        data("def test_1():\n    assert True\n")
        notes.append((mark, note(run_number, "GREEN", 1, "GREEN",
                                 error="test-modified: a test changed in GREEN",
                                 errorDetails={"type": "test-modified", "message": "no"})))
    out.write(b"commit refs/notes/tdd-handoffs\n")
    out.write(b"committer Bench <bench@example.com> %d +0000\n" % (when + 1))
    data("Notes added by bench\n")
    for marked, text in notes:
        out.write(b"N inline :%d\n" % marked)
        data(text)
    out.close()
    if loader.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=path, check=True)
    return f"run-{run:05d}", run


def build_jobs(path: Path, count: int) -> None:
    """The queue's refs as the daemon leaves them, written with hash-object/update-ref
    (as bench/daemon_bench.py does), then packed as `rgr queue add` packs them."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from rgr.daemon.queue import Claim, JobSpec, JobState

    states = ("complete", "complete", "queued", "failed", "cancelled", "running")
    blobs: list[tuple[str, int, str]] = []
    now = time.time()
    for n in range(1, count + 1):
        state = states[n % len(states)]
        spec = JobSpec(n, "run", f"feature number {n}", "main", f"rgr/feature-{n}",
                       created_at=now - 3600, created_by="bench:1")
        record = JobState(state, updated_at=now - 60, by="bench:2:1", cost_usd=0.01 * (n % 7),
                          phase="COMPLETE" if state == "complete" else "GREEN", cycle=2,
                          runs=1)
        blobs += [("queue", n, spec.to_json()), ("state", n, record.to_json())]
        if state == "running":
            blobs.append(("claims", n, Claim(f"bench:{n}:1", "bench", 1, now, now,
                                             3600.0).to_json()))
    folder = path / ".git" / "bench-blobs"
    folder.mkdir()
    files = []
    for kind, n, text in blobs:
        file = folder / f"{kind}-{n}"
        file.write_text(text)
        files.append(str(file))
    oids = subprocess.run(["git", "hash-object", "-w", "--stdin-paths"], cwd=path, check=True,
                          capture_output=True, text=True,
                          input="\n".join(files) + "\n").stdout.split()
    subprocess.run(["git", "update-ref", "--stdin"], cwd=path, check=True, text=True,
                   input="".join(f"create refs/rgr/{kind}/{n} {oid}\n"
                                 for (kind, n, _), oid in zip(blobs, oids, strict=True)))
    subprocess.run(["git", "pack-refs", "--all"], cwd=path, check=True)
    subprocess.run(["git", "gc", "--quiet"], cwd=path, check=True)


def ask(url: str) -> tuple[float, float, int]:
    """(server ms from Server-Timing, wall ms, status)."""
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as response:
        response.read()
        timing = response.headers.get("server-timing", "")
        status = response.status
    wall = (time.perf_counter() - started) * 1000
    found = re.search(r"dur=([0-9.]+)", timing)
    return (float(found.group(1)) if found else float("nan")), wall, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--requests", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rgr-serve-bench-") as tmp:
        repo = Path(tmp) / "repo"
        started = time.perf_counter()
        last_run, runs = build_notes(repo, args.notes)
        build_jobs(repo, args.jobs)
        listed = subprocess.run(["git", "notes", "--ref=refs/notes/tdd-handoffs", "list"],
                                cwd=repo, check=True, capture_output=True, text=True)
        notes = len(listed.stdout.splitlines())
        print(f"repository: {args.jobs} jobs, {notes} notes in {runs} runs "
              f"(built in {time.perf_counter() - started:.1f} s)")
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True,
                              capture_output=True, text=True).stdout.strip()
        attempt = subprocess.run(["git", "for-each-ref", "--count=1", "--format=%(objectname)",
                                  "refs/rgr/attempts/"], cwd=repo, check=True,
                                 capture_output=True, text=True).stdout.strip()
        server = subprocess.Popen([sys.executable, "-m", "rgr", "serve", "--port", "0"],
                                  cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        try:
            assert server.stdout is not None
            base = re.search(r"(http://\S+)", server.stdout.readline())
            assert base, server.communicate()
            url = base.group(1).rstrip("/")
            pages = [("board (all jobs)", "/"), ("board, running only", "/?state=running"),
                     ("board's live body, changed", "/board"),
                     (f"run page, last run ({CYCLES} cycles, 42 notes)", f"/runs/{head}"),
                     ("run page, a run with a rejected attempt", f"/runs/{attempt}"),
                     ("a job's page (no run: its branch is not here)", "/jobs/1"),
                     ("raw note", f"/notes/{head}"),
                     (f"history ({notes} notes)", "/history")]
            print(f"{'page':<52} {'server median':>13} {'worst':>7} {'wall median':>12}")
            for name, path in pages:
                ask(url + path)  # warm-up
                rounds = [ask(url + path) for _ in range(max(1, args.requests))]
                assert all(r[2] == 200 for r in rounds), (name, rounds)
                server_ms = [r[0] for r in rounds]
                wall_ms = [r[1] for r in rounds]
                print(f"{name:<52} {statistics.median(server_ms):>10.1f} ms "
                      f"{max(server_ms):>4.0f} ms {statistics.median(wall_ms):>9.1f} ms")
            tag_request = urllib.request.Request(url + "/board")
            with urllib.request.urlopen(tag_request) as response:
                tag = response.headers["etag"]
            rounds = []
            for _ in range(max(1, args.requests)):
                started = time.perf_counter()
                request = urllib.request.Request(url + "/board", headers={"If-None-Match": tag})
                try:
                    urllib.request.urlopen(request)
                except urllib.error.HTTPError as error:
                    assert error.code == 304
                    timing = error.headers.get("server-timing", "")
                    found = re.search(r"dur=([0-9.]+)", timing)
                    rounds.append((float(found.group(1)) if found else 0.0,
                                   (time.perf_counter() - started) * 1000))
            print(f"{'board live poll, unchanged (304)':<52} "
                  f"{statistics.median(r[0] for r in rounds):>10.1f} ms "
                  f"{max(r[0] for r in rounds):>4.0f} ms "
                  f"{statistics.median(r[1] for r in rounds):>9.1f} ms")
            print(f"(last run {last_run}; median of {args.requests} requests after one "
                  "warm-up, one at a time)")
        finally:
            server.terminate()
            server.wait(timeout=20)


if __name__ == "__main__":
    main()
