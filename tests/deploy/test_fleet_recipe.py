"""The fleet recipe's entrypoint (deploy/fleet/entrypoint.sh), run as a container would
run it, minus the container (tests/containers/ runs it in real ones): it clones the
shared remote, with credentials from the environment when the remote asks for them,
starts `rgr daemon --remote hub --watch`, and stops cleanly on SIGTERM (`docker stop`).
And the image pins the Claude Code release the end-to-end suite pins."""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from rgr.backends.claude_release import PINNED
from tests.conftest import REPO_ROOT, clean_env, git, make_repo
from tests.git_http import GitHttpServer

ENTRYPOINT = REPO_ROOT / "deploy" / "fleet" / "entrypoint.sh"
DOCKERFILE = REPO_ROOT / "deploy" / "fleet" / "Dockerfile"


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


def test_the_entrypoint_gives_git_the_credentials_from_the_environment(
        tmp_path: Path) -> None:
    """An https remote that asks for credentials: the entrypoint's helper answers with
    RGR_GIT_USERNAME/RGR_GIT_PASSWORD, which appear in no file and not in the URL."""
    source = make_repo(tmp_path, commits=1)
    hubs = tmp_path / "hubs"
    hubs.mkdir()
    git(tmp_path, "clone", "-q", "--bare", str(source.path), str(hubs / "p.git"))
    password = secrets.token_hex(16)
    with GitHttpServer(hubs, "rgr-bot", password) as http:
        url = http.url("p.git")
        worker = subprocess.Popen(
            ["sh", str(ENTRYPOINT)], cwd=tmp_path, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=worker_env(tmp_path, RGR_REMOTE_URL=url, RGR_GIT_USERNAME="rgr-bot",
                           RGR_GIT_PASSWORD=password, GIT_TERMINAL_PROMPT="0"))
        assert worker.stdout is not None
        seen = []
        for line in worker.stdout:
            seen.append(line)
            if "rgr daemon: 1 worker(s)" in line or len(seen) > 50:
                break
        worker.send_signal(signal.SIGTERM)
        rest, _ = worker.communicate(timeout=60)
        assert worker.returncode == 0, "".join(seen) + rest
        assert http.refused > 0 and http.served > 0  # asked, then answered
        wrong = subprocess.run(["git", "ls-remote", url], capture_output=True, text=True,
                               env=worker_env(tmp_path, GIT_TERMINAL_PROMPT="0"))
        assert wrong.returncode != 0  # the remote does ask
    clone = tmp_path / "home" / "work"
    assert git(clone, "remote", "get-url", "hub") == url
    assert git(clone, "rev-parse", "HEAD") == source.head()
    for path in [*clone.joinpath(".git").rglob("*"), *(tmp_path / "home").glob(".*")]:
        if path.is_file():
            assert password.encode() not in path.read_bytes(), path


def test_the_manifest_asks_for_least_privilege_and_a_grace_period_that_fits() -> None:
    """The shipped Deployment: no privilege, every capability dropped, seccomp on, only
    /proc unmasked; the daemon's --grace (RGR_GRACE) ends at least 10 s before the
    engine's terminationGracePeriodSeconds, and the entrypoint passes it on (the
    containers themselves: tests/containers)."""
    text = (REPO_ROOT / "deploy" / "fleet" / "kubernetes.yaml").read_text()
    settings = "\n".join(line.split("#")[0] for line in text.splitlines())
    assert "privileged" not in settings and "add:" not in settings
    assert re.search(r"capabilities:\s*drop: \[ALL\]", settings)
    assert re.search(r"seccompProfile:\s*type: RuntimeDefault", settings)
    assert "allowPrivilegeEscalation: false" in settings
    assert settings.count("procMount: Unmasked") == 1
    period = re.search(r"terminationGracePeriodSeconds: (\d+)", settings)
    grace = re.search(r'- name: RGR_GRACE\s+value: "(\d+)"', settings)
    assert period is not None and grace is not None
    assert int(grace.group(1)) + 10 <= int(period.group(1))
    assert '--grace "${RGR_GRACE:-20}"' in ENTRYPOINT.read_text()
    compose = (REPO_ROOT / "deploy" / "fleet" / "compose.yaml").read_text()
    assert "stop_grace_period: 30m" in compose and "RGR_GRACE: 1780" in compose


def test_the_image_pins_the_claude_code_release_the_suite_pins() -> None:
    pinned = re.search(r"^ARG CLAUDE_CODE_VERSION=(\S+)$", DOCKERFILE.read_text(), re.M)
    assert pinned is not None and pinned.group(1) == PINNED


def test_the_container_tests_are_opt_in_and_say_how_to_run_them(tmp_path: Path) -> None:
    """Without RGR_CONTAINERS=1 (the default run, CI) tests/containers builds no image
    and runs no container: each test is reported skipped with the command that runs it,
    never passed."""
    env = clean_env(tmp_path / "home")
    env.pop("RGR_CONTAINERS", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "tests/containers", "-q",
                           "-p", "no:cacheprovider"], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"3 skipped in [\d.]+s", summary), done.stdout
    assert ("container tests are opt-in: run with RGR_CONTAINERS=1 .venv/bin/python -m "
            "pytest -m containers") in done.stdout, done.stdout


def test_ci_runs_exactly_the_readme_test_command() -> None:
    """.ci/run is the README's command and nothing more: no tool installed or image
    built there (the container tests are opt-in, docs/daemon.md: "A fleet")."""
    readme = (REPO_ROOT / "README.md").read_text()
    command = re.search(r"^Run the tests .*?```sh\n(.+?)\n```", readme, re.M | re.S)
    assert command is not None
    lines = [line for line in (REPO_ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', command.group(1)], lines
