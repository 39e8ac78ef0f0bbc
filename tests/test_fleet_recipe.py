"""The fleet recipe's entrypoint (deploy/fleet/entrypoint.sh), run as a container would
run it, minus the container (no engine here): it clones the shared remote, starts
`rgr daemon --remote hub --watch`, and stops cleanly on SIGTERM (`docker stop`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO_ROOT, clean_env, git, make_repo

ENTRYPOINT = REPO_ROOT / "deploy" / "fleet" / "entrypoint.sh"


def worker_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    # `rgr` on PATH, as `pip install .` puts it in the image.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return clean_env(tmp_path / "home", {"PATH": path, **extra})


def test_the_entrypoint_clones_the_remote_works_its_queue_and_stops_on_sigterm(
        tmp_path: Path) -> None:
    source = make_repo(tmp_path, commits=1)
    hub = tmp_path / "hub.git"
    git(tmp_path, "clone", "-q", "--bare", str(source.path), str(hub))
    worker = subprocess.Popen(
        ["sh", str(ENTRYPOINT)], cwd=tmp_path, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=worker_env(tmp_path, RGR_REMOTE_URL=str(hub), RGR_WORKERS="2",
                       RGR_DAEMON_HOST="worker-1"))
    assert worker.stdout is not None
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = worker.stdout.readline()
        if not line:
            break
        seen.append(line)
        if "rgr daemon: 2 worker(s)" in line:
            break
    assert any("rgr daemon: 2 worker(s)" in line for line in seen), "".join(seen)
    worker.send_signal(signal.SIGTERM)
    rest, _ = worker.communicate(timeout=60)
    assert worker.returncode == 0, "".join(seen) + rest

    clone = tmp_path / "home" / "work"
    assert git(clone, "remote", "get-url", "hub") == str(hub)
    assert git(clone, "config", "user.name") == "rgr worker"
    assert git(clone, "rev-parse", "HEAD") == source.head()


def test_the_entrypoint_names_a_missing_remote(tmp_path: Path) -> None:
    done = subprocess.run(["sh", str(ENTRYPOINT)], cwd=tmp_path, capture_output=True,
                          text=True, env=worker_env(tmp_path), timeout=30)
    assert done.returncode != 0 and "RGR_REMOTE_URL" in done.stderr
    assert not (tmp_path / "home" / "work").exists()
