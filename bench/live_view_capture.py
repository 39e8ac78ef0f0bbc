"""Capture rgr's live view from a real run in a real terminal (tmux), for the README.

Runs the two-test kata of the end-to-end suite (the real ``rgr run`` and ``claude``
2.1.197 from tests/e2e/node, real git and pytest, the scripted model server with 0.5 s
of "thinking" per answer so the view has something to show) inside a detached tmux
session of 120x40, waits until the GREEN phase of cycle 2 is running a tool, and prints
``tmux capture-pane -p`` of that moment, then of the end of the run.

    python bench/live_view_capture.py [--at "cycle 2 · GREEN"] [--latency 0.5]

Needs tmux. Nothing is drawn by hand: what is printed is what the terminal showed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from kata import make_project, rgr_env, two_test_kata  # noqa: E402

from rgr.fake_model import FakeModelServer  # noqa: E402


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True,
                          text=True).stdout


def capture(session: str) -> str:
    return tmux("capture-pane", "-p", "-t", session).rstrip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--at", default="cycle 2 · GREEN",
                        help="capture once the live panel shows this and a tool call")
    parser.add_argument("--latency", type=float, default=0.5,
                        help="seconds the scripted model thinks before each answer")
    parser.add_argument("--timeout", type=float, default=180.0)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 1
    session = f"rgr-live-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="rgr-live-") as tmp:
        repo = make_project(Path(tmp) / "kata")
        with FakeModelServer(two_test_kata(), latency_s=args.latency) as server:
            env = rgr_env(Path(tmp) / "home", server.url)
            env["TERM"] = "xterm-256color"
            env["COLUMNS"], env["LINES"] = "120", "40"
            done_flag = Path(tmp) / "done"
            # tmux runs a multi-argument command directly (no shell); -e sets the
            # environment of the pane, which otherwise inherits tmux's server's.
            env_args = [a for k, v in env.items() for a in ("-e", f"{k}={v}")]
            tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40",
                 "-c", str(repo), *env_args,
                 sys.executable, "-c",
                 "import subprocess, sys, pathlib; "
                 "rc = subprocess.call([sys.executable, '-m', 'rgr', 'run', '--yes', "
                 "'--skip-preflight', '--max-budget-usd', '2', "
                 "'add a slugify function that lowercases and joins words with dashes']); "
                 f"pathlib.Path({str(done_flag)!r}).write_text(str(rc)); "
                 "import time; time.sleep(600)")
            try:
                mid = None
                deadline = time.monotonic() + args.timeout
                while time.monotonic() < deadline and not done_flag.exists():
                    screen = capture(session)
                    if mid is None and args.at in screen and "turn 2" in screen.split(
                            args.at, 1)[1]:
                        mid = screen
                    time.sleep(0.1)
                while not done_flag.exists() and time.monotonic() < deadline:
                    time.sleep(0.2)
                time.sleep(0.3)
                end = capture(session)
            finally:
                subprocess.run(["tmux", "kill-session", "-t", session], check=False,
                               capture_output=True)
    print("=== live view, mid-run ===")
    print(mid or "(the moment asked for was not seen)")
    print("=== end of the run ===")
    print(end)
    return 0 if mid is not None and done_flag_ok(end) else 1


def done_flag_ok(screen: str) -> bool:
    return "feature complete" in screen


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
