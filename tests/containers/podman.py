"""podman for the container tests and the bench: the settings this machine needs
(deploy/fleet/containers.conf), the worker image built from this working tree (the
Debian base made once per machine by deploy/fleet/base-image.sh), and worker containers
on the host network next to a hub and the scripted model server on the host's loopback.

The tests are opt-in (RGR_CONTAINERS=1, tests/conftest.py). Once asked for, they never
skip: they need root (rootful podman, debootstrap), podman, runc and debootstrap are
installed from the OS packages with apt-get where they are missing, and on a machine where
that cannot be done a test fails saying what to install."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
DEPLOY = REPO_ROOT / "deploy" / "fleet"
CONTAINERS_CONF = DEPLOY / "containers.conf"
BASE_IMAGE = "localhost/rgr-base:bookworm"
#: The image the tests build from this working tree (the README's is rgr-worker), one
#: tag per checkout: two checkouts on one machine never test each other's code.
WORKER_IMAGE = ("localhost/rgr-worker:test-"
                + hashlib.sha256(str(REPO_ROOT).encode()).hexdigest()[:12])
#: What every test container's (and secret's) name starts with: this process's own, so
#: test runs at once on one machine leave each other's containers alone.
PREFIX = f"rgr-test-{os.getpid()}-"
INSTALL = "apt-get install -y podman runc debootstrap"
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")

#: The one setting bubblewrap needs inside a rootful podman container, measured here
#: (test_fleet_containers.py shows the sandbox fails without it): podman covers parts of
#: /proc (kcore, keys, timer_list ... masked; bus, fs, irq, sys read-only binds), and the
#: kernel refuses a fresh proc mount in a new user namespace while anything of the outer
#: /proc is covered ("bwrap: Can't mount proc on /newroot/proc: Operation not
#: permitted"). Unmasking only some of them is not enough; /sys stays masked. podman's
#: default seccomp profile already allows the user namespace (no seccomp=unconfined), and
#: no capability is added: the worker runs as an unprivileged user.
SANDBOX_OPTS = ("--security-opt", "unmask=/proc/*")


def env() -> dict[str, str]:
    return {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF)}


def podman(*args: str, check: bool = True, timeout: float = 600,
           input: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["podman", *args], capture_output=True, text=True, env=env(),
                          timeout=timeout, input=input, stdin=None if input else
                          subprocess.DEVNULL)
    if check and done.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)} exited {done.returncode}:\n"
                             f"{done.stdout[-4000:]}{done.stderr[-4000:]}")
    return done


TOOLS = ("podman", "runc", "debootstrap")


def missing() -> str | None:
    """Why the container tests cannot run on this machine, or None. podman, runc and
    debootstrap are installed with apt-get where they are missing (what rgr's suite does
    for bubblewrap); rootful podman and debootstrap need root."""
    if os.geteuid() != 0:
        return "the container tests run rootful podman and debootstrap: run them as root"
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    if not absent:
        return None
    if shutil.which("apt-get") is None:
        return f"{', '.join(absent)} not installed and no apt-get here: {INSTALL}"
    for argv in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *TOOLS]):
        done = subprocess.run(argv, capture_output=True, text=True, timeout=1800,
                              stdin=subprocess.DEVNULL,
                              env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if done.returncode != 0:
            return (f"installing {', '.join(absent)} failed ({' '.join(argv)} exited "
                    f"{done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    still = [tool for tool in TOOLS if shutil.which(tool) is None]
    return f"{', '.join(still)} still missing after apt-get: {INSTALL}" if still else None


def build_images(log: Path | None = None) -> dict[str, float]:
    """The base (once per machine) and the worker image from this working tree (layers
    cached: only what changed is redone). Returns the seconds each step took."""
    took: dict[str, float] = {}
    started = time.monotonic()
    base = subprocess.run(["sh", str(DEPLOY / "base-image.sh")], capture_output=True,
                          text=True, env={**env(), "RGR_BASE_IMAGE": BASE_IMAGE},
                          timeout=3600, stdin=subprocess.DEVNULL)
    took["base"] = time.monotonic() - started
    if log is not None:
        log.write_text(base.stdout + base.stderr)
    assert base.returncode == 0, f"base-image.sh failed:\n{base.stdout[-3000:]}{base.stderr}"
    started = time.monotonic()
    # The machine's CA bundle for the build's npm and pip downloads (this machine's
    # traffic goes through a proxy that re-signs TLS); mounted for those steps only.
    ca = [f"--secret=id=cacert,src={CA_BUNDLE}"] if CA_BUNDLE.is_file() else []
    podman("build", "--network", "host", *ca, "-f", str(DEPLOY / "Dockerfile"),
           "--build-arg", f"BASE={BASE_IMAGE}", "-t", WORKER_IMAGE, str(REPO_ROOT),
           timeout=3600)
    took["worker"] = time.monotonic() - started
    return took


def run_worker(name: str, variables: Mapping[str, str], *,
               image: str = WORKER_IMAGE, options: Sequence[str] = SANDBOX_OPTS) -> str:
    """A worker container (detached, on the host network) named ``PREFIX + name``;
    ``variables`` are its environment (given by name: no value on podman's command line)."""
    full = PREFIX + name
    args = ["run", "-d", "--name", full, "--network", "host", *options]
    for key in variables:
        args += ["--env", key]
    proc_env = {**env(), **variables}
    done = subprocess.run(["podman", *args, image], capture_output=True, text=True,
                          env=proc_env, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    return full


def logs(name: str) -> str:
    done = podman("logs", name, check=False)
    return done.stdout + done.stderr


def state(name: str) -> str:
    """running, exited, ... ("" once removed)."""
    done = podman("inspect", "--format", "{{.State.Status}}", name, check=False)
    return done.stdout.strip()


def remove_test_containers() -> None:
    """Every container (and pod) this process started, and those of test runs that
    died without cleaning up (their pid is gone)."""

    def ours(name: str) -> bool:
        match = re.match(r"rgr-test-(\d+)-", name)
        return match is not None and (name.startswith(PREFIX)
                                      or not Path(f"/proc/{match.group(1)}").exists())

    names = podman("ps", "-a", "--format", "{{.Names}}", check=False).stdout.split()
    pods = podman("pod", "ps", "--format", "{{.Name}}", check=False).stdout.split()
    for pod in filter(ours, pods):
        podman("pod", "rm", "-f", "-t", "0", pod, check=False)
    leftover = [n for n in names if ours(n)]
    if leftover:
        podman("rm", "-f", "-t", "0", *leftover, check=False)
