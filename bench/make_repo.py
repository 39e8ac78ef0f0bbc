"""Build a repository with N commits, each carrying one handoff note, fast.

Uses ``git fast-import`` (git's own bulk loader), so the notes tree is laid out exactly
as git lays it out (fan-out subtrees), which is what a long-lived rgr repository looks
like after users have run ``git notes`` or ``git gc`` on it.

    python bench/make_repo.py /tmp/bench-100k 100000
    python bench/make_repo.py /tmp/bench-foreign-100k 100000 --foreign   # another tool's
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PHASES = ["PLAN", "RED", "GREEN", "REFACTOR"]


#: The handoff fields another tool writing rgr's notes puts in a note (the camelCase
#: HandoffState rgr's notes grew from); no finishedAt, so the history row's time is the
#: commit's.
FOREIGN_FIELDS = ("phase", "nextPhase", "cycleNumber", "currentTest", "completedTests",
               "pendingTests", "testResult", "error", "errorDetails", "retryCount")


def foreign_note_for(i: int) -> str:
    """:func:`note_for` with another tool's fields only (:data:`FOREIGN_FIELDS`)."""
    state = json.loads(note_for(i))
    return json.dumps({key: state[key] for key in FOREIGN_FIELDS}, indent=2) + "\n"


def note_for(i: int) -> str:
    phase = PHASES[i % 4]
    state = {
        "phase": phase,
        "nextPhase": PHASES[(i + 1) % 4],
        "cycleNumber": i // 4 + 1,
        "currentTest": {
            "description": f"behaviour number {i // 4}",
            "testFile": "tests/test_feature.py",
            "implFile": "src/feature.py",
        },
        "completedTests": [f"behaviour number {n}" for n in range(max(0, i // 4 - 2), i // 4)],
        "pendingTests": ["one more behaviour"],
        "testResult": "FAIL" if phase == "RED" else "PASS",
        "error": None,
        "errorDetails": None,
        "retryCount": 0,
        "schemaVersion": 1,
        "mode": "tdd",
        "runId": "bench",
        "feature": "a benchmark feature",
        "branch": "main",
        "startedAt": "2026-11-21T00:00:00Z",
        "finishedAt": "2026-11-21T00:00:01Z",
        "agent": {"sessionId": f"00000000-0000-4000-8000-{i:012d}", "costUsd": 0.01},
    }
    return json.dumps(state, indent=2) + "\n"


def build(path: Path, count: int, foreign: bool = False) -> None:
    """Streamed into fast-import as it is generated: a million notes (about 800 MB of
    input) never sit in memory. ``foreign``: notes another tool wrote
    (:func:`foreign_note_for`)."""
    note = foreign_note_for if foreign else note_for
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    loader = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=path,
                              stdin=subprocess.PIPE)
    assert loader.stdin is not None
    write = loader.stdin.write

    def data(text: str) -> None:
        raw = text.encode()
        write(b"data %d\n" % len(raw) + raw + b"\n")

    when = 1_700_000_000
    for i in range(count):
        write(b"commit refs/heads/main\nmark :%d\n" % (i + 1))
        write(b"committer Bench <bench@example.com> %d +0000\n" % (when + i))
        data(f"commit {i}\n")
        if i == 0:
            write(b"M 644 inline README\n")
            data("bench\n")
    # One notes commit holding every note: fast-import picks git's fan-out itself.
    write(b"commit refs/notes/tdd-handoffs\n")
    write(b"committer Bench <bench@example.com> %d +0000\n" % (when + count))
    data("Notes added by bench\n")
    for i in range(count):
        write(b"N inline :%d\n" % (i + 1))
        data(note(i))
    loader.stdin.close()
    if loader.wait() != 0:
        raise SystemExit(f"git fast-import failed building {path}")
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=path, check=True)


if __name__ == "__main__":
    build(Path(sys.argv[1]), int(sys.argv[2]), foreign="--foreign" in sys.argv[3:])
