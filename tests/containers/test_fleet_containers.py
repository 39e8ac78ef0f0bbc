"""rgr workers in real containers (podman): the image built from this working tree
(deploy/fleet/Dockerfile on the Debian base deploy/fleet/base-image.sh makes from the OS
mirror), N worker containers on one bare remote on the host (git's HTTP protocol with
credentials), the scripted model server on the host's loopback, the real claude inside
the image, and every agent and test run sealed in bubblewrap inside the container.

Marked ``containers`` and opt-in: skipped (saying how to run them) unless RGR_CONTAINERS=1,
so the default run and CI stay fast: ``RGR_CONTAINERS=1 .venv/bin/python -m pytest -m
containers``. Once asked for they never skip: podman, runc and debootstrap are installed
with apt-get where missing, and on a machine that cannot run them they fail saying why."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.containers import podman
from tests.containers.fleet import Fleet, fleet
from tests.containers.podman import PREFIX, SANDBOX_OPTS, WORKER_IMAGE

pytestmark = pytest.mark.containers

MANIFEST = podman.DEPLOY / "kubernetes.yaml"
#: One more job than workers (one worker a container): the fourth is claimed when a
#: worker has landed its first job, so it is planned on a main where others landed.
NAMES = ("alpha", "beta", "gamma", "delta")
#: The job whose worker is killed, at the first model request of its GREEN session.
VICTIM = "beta"
#: The Secret's name here (the manifest's is rgr-fleet): this test run's own.
SECRET = PREFIX + "fleet"
DONE_TIMEOUT_S = 900.0


@pytest.fixture(scope="module")
def image() -> Iterator[str]:
    why = podman.missing()
    if why is not None:
        pytest.fail(why)
    podman.remove_test_containers()
    took = podman.build_images()
    print(f"\nimages: base {took['base']:.0f} s, worker {took['worker']:.0f} s")
    yield WORKER_IMAGE
    podman.remove_test_containers()


def kill_when_green_starts(fleet_: Fleet, host_to_container: dict[str, str],
                           green: threading.Event) -> tuple[str, str]:
    """Waits for VICTIM's GREEN session, finds from the hub's claim which worker holds
    the job, and `podman kill`s that container (SIGKILL: its daemon, claude and git die
    mid-phase). Returns (host, container)."""
    deadline = time.monotonic() + DONE_TIMEOUT_S
    while not green.wait(2):
        failed = {i: s["message"] for i, s in fleet_.states().items()
                  if s["state"] in ("failed", "needs-attention")}
        assert not failed, failed
        for container in host_to_container.values():
            assert podman.state(container) == "running", podman.logs(container)[-3000:]
        assert time.monotonic() < deadline, f"green-{VICTIM} never started"
    job = fleet_.job_of(VICTIM)
    claim = fleet_.claims().get(job)
    assert claim is not None, f"job {job} runs without a claim on the hub"
    host = str(claim["host"])
    container = host_to_container[host]
    podman.podman("kill", container)
    code = podman.podman("wait", container).stdout.strip()
    assert code == "137", code  # 128 + SIGKILL
    return host, container


def finish(fleet_: Fleet, containers: list[str], killed: str) -> None:
    """Waits until every job is complete on the hub, then stops the other workers the
    way an orchestrator does (SIGTERM: a clean stop, exit 0)."""

    def dead_worker() -> str | None:
        for name in containers:
            if name != killed and podman.state(name) != "running":
                return f"{name} stopped:\n{podman.logs(name)[-3000:]}"
        return None

    took = fleet_.wait_done(len(NAMES), DONE_TIMEOUT_S, dead_worker)
    print(f"all {len(NAMES)} jobs complete {took:.0f} s after the kill")
    for name in containers:
        if name == killed:
            continue
        podman.podman("stop", "-t", "120", name, timeout=180)
        code = podman.podman("inspect", "--format", "{{.State.ExitCode}}", name).stdout
        assert code.strip() == "0", f"{name} exited {code}:\n{podman.logs(name)[-3000:]}"


def check(fleet_: Fleet, killed: str, logs: dict[str, str]) -> None:
    """The git checks, the model's view, and who took the job over (``logs``: each
    surviving container's output)."""
    assert fleet_.model.errors == [], fleet_.model.errors
    fleet_.assert_each_job_landed_once(NAMES, killed=VICTIM)
    counts = fleet_.sessions_by_job()
    # Five agent sessions a job; the killed GREEN is played again by the new holder.
    assert counts == {**dict.fromkeys(NAMES, 5), VICTIM: 6}, counts
    # The job was taken over by another container, after the lease ran out.
    job = fleet_.job_of(VICTIM)
    takers = [name for name, text in logs.items()
              if re.search(rf"claimed job {job} \(taken over from ", text)]
    assert len(takers) == 1 and killed not in takers, {n: t[-1500:] for n, t in logs.items()}
    # The hub asked for the credentials (git asked the entrypoint's helper for them).
    assert fleet_.http.refused > 0 and fleet_.http.served > 0


def test_worker_containers_one_killed_mid_job(image: str, tmp_path: Path) -> None:
    """3 worker containers, 4 jobs integrated into main; the container running beta's
    GREEN session is `podman kill`ed; the others finish everything, exactly once."""
    green = threading.Event()
    with fleet(tmp_path, on_session=lambda n: n == f"green-{VICTIM}" and green.set()) as f:
        f.queue(*NAMES)
        started = time.monotonic()
        # On the host network the containers share the host's name; RGR_DAEMON_HOST
        # only lets the test tell from a claim which container to kill (claims tell
        # workers apart by their instance: tests/e2e/test_daemon.py, PID namespaces).
        containers = [podman.run_worker(f"w{i}", f.worker_env(RGR_DAEMON_HOST=f"w{i}"),
                                        image=image) for i in range(1, 4)]
        try:
            _, killed = kill_when_green_starts(
                f, {f"w{i}": PREFIX + f"w{i}" for i in range(1, 4)}, green)
            finish(f, containers, killed)
            print(f"3 containers, {len(NAMES)} jobs: {time.monotonic() - started:.0f} s")
            logs = {name: podman.logs(name) for name in containers if name != killed}
        finally:
            podman.podman("rm", "-f", "-t", "0", *containers, check=False)
        check(f, killed, logs)


def kube_manifest(name: str, image: str, variables: dict[str, str]) -> str:
    """The shipped Deployment as one worker named ``name``: its image, and the test's
    settings added to its environment. One replica per play so that the test knows
    which container holds which claim (podman 4.3 would play `replicas: 3` as 3 pods;
    4.4 and later make one)."""
    text = MANIFEST.read_text()

    def once(old: str, new: str) -> None:
        nonlocal text
        assert text.count(old) == 1, old
        text = text.replace(old, new)

    once("\n  name: rgr-worker\n", f"\n  name: {name}\n")
    once("replicas: 4", "replicas: 1")
    once("image: localhost/rgr-worker:latest", f"image: {image}")
    once('              value: "120"\n', f'              value: "{variables.pop("RGR_LEASE")}"\n')
    extra = "".join(f"            - name: {key}\n              value: \"{value}\"\n"
                    for key, value in variables.items())
    once("          env:\n", "          env:\n" + extra)
    # podman 4.3's kube play ignores procMount; `privileged` is the one setting of a
    # Kubernetes file it reads that lifts the /proc masks. Weaker than the shipped file
    # (podman turns seccomp off for it, docs/daemon.md); the worker still runs as uid
    # 1000 with no capability: the test checks it in each pod. Not needed from podman
    # 4.7 on, which honours procMount.
    once("procMount: Unmasked", "privileged: true")
    assert text.count("name: rgr-fleet,") == 5
    return text.replace("name: rgr-fleet,", f"name: {SECRET},")


def kube_secret(f: Fleet) -> str:
    """The Secret the manifest reads (the keys its header names) as podman 4.3 looks
    secretKeyRef values up: a podman secret holding the Secret's ``data`` (base64
    values) as one JSON object. (`podman kube play` of a Secret object stores it as
    YAML, which those lookups then refuse: "secret rgr-fleet is not valid JSON".)"""
    values = {"remote-url": f.url, "git-username": "rgr-fleet", "git-password": f.password,
              "anthropic-api-key": f.worker_env()["ANTHROPIC_API_KEY"],
              "anthropic-base-url": f.model.url}
    return json.dumps({k: base64.b64encode(v.encode()).decode() for k, v in values.items()})


def test_kubernetes_deployment_with_podman_kube_play(image: str, tmp_path: Path) -> None:
    """deploy/fleet/kubernetes.yaml played with `podman kube play` (three pods, the
    remote's URL and credentials and the API key from the Secret), the same kill and
    the same checks."""
    green = threading.Event()
    with fleet(tmp_path, on_session=lambda n: n == f"green-{VICTIM}" and green.set()) as f:
        f.queue(*NAMES)
        secret = tmp_path / "secret.json"
        secret.write_text(kube_secret(f))
        podman.podman("secret", "create", SECRET, str(secret))
        env = f.worker_env()
        # What the Secret carries is not set again in the Deployment.
        for key in ("RGR_REMOTE_URL", "RGR_GIT_USERNAME", "RGR_GIT_PASSWORD",
                    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "RGR_INTEGRATE"):
            env.pop(key)
        pods = []
        try:
            for i in range(1, 4):
                name = f"{PREFIX}kube{i}"  # the pod: <name>-pod-0
                play = tmp_path / f"{name}.yaml"
                play.write_text(kube_manifest(name, image, dict(env)))
                podman.podman("kube", "play", "--network", "host", str(play))
                pods.append(name)
            # podman names a Deployment's pod <name>-pod-0 and its container after
            # the pod and the manifest's container name (worker).
            listed = podman.podman("ps", "--format", "{{.Names}}").stdout.split()
            containers = [f"{pod}-pod-0-worker" for pod in pods]
            assert set(containers) <= set(listed), listed
            hosts = {podman.podman("exec", c, "cat", "/etc/hostname").stdout.strip(): c
                     for c in containers}
            for c in containers:  # PID 1 (tini, then the daemon under it): uid 1000, no caps
                status = podman.podman("exec", c, "grep", "-E", "^(Uid|CapEff):",
                                       "/proc/1/status").stdout.split()
                assert status[1] == "1000" and status[-1] == "0000000000000000", status
            _, killed = kill_when_green_starts(f, hosts, green)
            finish(f, containers, killed)
            logs = {name: podman.logs(name) for name in containers if name != killed}
        finally:
            for pod in pods:
                podman.podman("pod", "rm", "-f", "-t", "0", f"{pod}-pod-0", check=False)
            podman.podman("secret", "rm", SECRET, check=False)
        check(f, killed, logs)


def test_the_sandbox_needs_proc_unmasked_in_a_container(image: str, tmp_path: Path) -> None:
    """With podman's defaults bubblewrap cannot mount a fresh /proc and rgr names the
    cause and the setting; with SANDBOX_OPTS (only /proc unmasked, no capability, the
    default seccomp profile) `rgr doctor` runs the project's tests sealed."""
    script = ("cd /tmp && git init -q p && cd p "
              "&& printf 'test_command = [\"python3\", \"-m\", \"pytest\", \"-q\"]\\n' > tdd.toml "
              "&& printf 'def test_one():\\n    assert 1\\n' > test_one.py "
              "&& git add -A && git -c user.name=a -c user.email=b commit -q -m i "
              "&& rgr doctor")

    def doctor(*options: str) -> subprocess.CompletedProcess[str]:
        return podman.podman("run", "--rm", *options, "--entrypoint", "sh", image, "-c",
                             script, check=False)

    refused = doctor()
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "Can't mount proc" in refused.stderr, refused.stderr
    assert "unmask=/proc/*" in refused.stderr and "procMount: Unmasked" in refused.stderr
    sealed = doctor(*SANDBOX_OPTS)
    assert sealed.returncode == 0, sealed.stdout + sealed.stderr
    assert "sandbox       bubblewrap" in sealed.stdout
    assert "1 passed" in sealed.stdout, sealed.stdout
    # Inside the sandbox the worker is still an unprivileged user with no capability.
    status = podman.podman("run", "--rm", *SANDBOX_OPTS, "--entrypoint", "sh", image, "-c",
                           "id -u; grep CapEff /proc/self/status").stdout.split()
    assert status[0] == "1000" and status[-1] == "0000000000000000", status
