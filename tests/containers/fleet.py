"""A fleet on this machine: a project's bare remote behind git's HTTP protocol with
credentials, the scripted model server, jobs queued from a clone on the host, and
worker containers started by the caller. What the container tests and the bench share.

Everything it checks afterwards is read from the bare remote with the git CLI alone:
states, claims, the base branch's history and the handoff notes on it."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from daemon_kata import choose

from rgr.demo.env import claude_env
from rgr.demo.kata import make_project
from rgr.fake_model import FakeModelServer, RequestRecord
from tests.git_http import GitHttpServer

NOTES = "refs/notes/tdd-handoffs"
#: One job's handoffs: the start marker, one cycle, the closing plan (daemon_kata).
PHASES = ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE"]
USERNAME = "rgr-fleet"
#: The project's suite inside the image: the OS's Python and pytest.
TEST_COMMAND = ["python3", "-m", "pytest", "-q"]
#: The variables of claude_env a worker container needs (not HOME, PATH, XDG_*).
CLAUDE_VARIABLES = ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY",
                    "DISABLE_ERROR_REPORTING", "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY",
                    "CLAUDE_CODE_MAX_RETRIES")


def sh_git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def credential_env(password: str) -> dict[str, str]:
    """git's credential helper reading the variables, as the entrypoint sets it."""
    return {"RGR_GIT_USERNAME": USERNAME, "RGR_GIT_PASSWORD": password,
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "credential.helper",
            "GIT_CONFIG_VALUE_0": '!f() { test "$1" = get || exit 0; '
                                  'echo "username=$RGR_GIT_USERNAME"; '
                                  'echo "password=$RGR_GIT_PASSWORD"; }; f'}


@dataclass
class Fleet:
    tmp: Path
    hub: Path  # the bare remote, on the host
    url: str  # how the workers reach it
    password: str
    http: GitHttpServer
    model: FakeModelServer
    host_env: dict[str, str]  # rgr and git on the host (queueing)
    clone: Path  # the host's clone, remote "hub"
    started: dict[str, float] = field(default_factory=dict)  # session name -> time

    def worker_env(self, **extra: str) -> dict[str, str]:
        """A worker container's variables (the entrypoint's and claude's)."""
        claude = claude_env(self.tmp / "unused-home", self.model.url)
        env = {name: claude[name] for name in CLAUDE_VARIABLES}
        env.update(RGR_REMOTE_URL=self.url, RGR_GIT_USERNAME=USERNAME,
                   RGR_GIT_PASSWORD=self.password, RGR_INTEGRATE="merge",
                   RGR_LEASE="15", RGR_POLL="0.5")
        # The scripts have no examiner session: off, as in every scripted-model
        # environment (rgr.base.config.ACCEPTANCE_MODE_VAR).
        env["TDD_ACCEPTANCE_MODE"] = "off"
        env.update(extra)
        return env

    def queue(self, *names: str) -> None:
        for name in names:
            done = subprocess.run([sys.executable, "-m", "rgr", "queue", "add", f"make {name}",
                                   "--remote", "hub"], cwd=self.clone, env=self.host_env,
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stdout + done.stderr

    # -- reading the hub with git alone -------------------------------------------------

    def blobs(self, prefix: str) -> dict[int, dict[str, object]]:
        out = sh_git(self.hub, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
        found = {}
        for line in out.splitlines():
            ref, oid = line.split()
            found[int(ref.rsplit("/", 1)[1])] = json.loads(sh_git(self.hub, "cat-file",
                                                                  "blob", oid))
        return found

    def states(self) -> dict[int, dict[str, object]]:
        return self.blobs("refs/rgr/state/")

    def claims(self) -> dict[int, dict[str, object]]:
        return self.blobs("refs/rgr/claims/")

    def spec_of(self, name: str) -> tuple[int, dict[str, object]]:
        for ident, spec in self.blobs("refs/rgr/queue/").items():
            if spec["feature"] == f"make {name}":
                return ident, spec
        raise AssertionError(f"no job makes {name}")

    def job_of(self, name: str) -> int:
        return self.spec_of(name)[0]

    def wait_done(self, jobs: int, timeout: float, alive: Callable[[], str | None]) -> float:
        """Seconds until every job is complete on the hub; fails at once on a failed
        job or when ``alive`` names a worker that stopped."""
        started = time.monotonic()
        while True:
            states = self.states()
            if len(states) == jobs and all(s["state"] == "complete" for s in states.values()):
                return time.monotonic() - started
            bad = {i: s for i, s in states.items()
                   if s["state"] in ("failed", "needs-attention", "cancelled")}
            assert not bad, bad
            dead = alive()
            assert dead is None, dead
            assert time.monotonic() - started < timeout, f"not done in {timeout} s: {states}"
            time.sleep(1)

    def assert_each_job_landed_once(self, names: tuple[str, ...],
                                    killed: str | None = None) -> None:
        """From the bare remote alone: every job complete and claimed once (the killed
        one twice: taken over), no claim left, each job's commits on main exactly once,
        and each job's handoff notes on main, one clean kata."""
        states = self.states()
        assert sorted(s["state"] for s in states.values()) == ["complete"] * len(names)
        assert self.claims() == {}
        for name in names:
            runs = states[self.job_of(name)]["runs"]
            assert runs == (2 if name == killed else 1), (name, runs, states)
        subjects = sh_git(self.hub, "log", "--format=%s", "main").splitlines()
        for name in names:
            for prefix in ("test", "feat"):  # (the planner commits once per cycle)
                assert subjects.count(f"{prefix}: {name}") == 1, (name, prefix, subjects)
        out = sh_git(self.hub, "log", "--reverse", f"--notes={NOTES}",
                     "--format=%x1e%H%n%N", "main")
        notes = [json.loads(n) for record in out.split("\x1e")[1:]
                 if (n := record.partition("\n")[2].strip())]
        for name in names:
            branch = self.spec_of(name)[1]["branch"]
            # (A commit rgr made while landing carries a copy of the job's handoff, marked
            # landing.copiedFrom: not a phase; as in tests/e2e/test_daemon.py.)
            phases = [n["phase"] for n in notes if n.get("branch") == branch
                      and not (n.get("landing") or {}).get("copiedFrom")]
            assert phases == PHASES, (branch, phases)
        # main's test list holds each job's item once, done: a job rebased onto a main
        # where others landed comes out of git's union merge with its item's open line
        # kept next to the done one, which the landing removes (else the next job's
        # planner sees finished work as still to do).
        items = [line for line in sh_git(self.hub, "show", "main:test-list.md").splitlines()
                 if line.startswith("- [")]
        assert not [line for line in items if line.startswith("- [ ]")], items
        for name in names:
            assert sum(f" {name} " in f"{line} " for line in items) == 1, (name, items)
        # And the suite of main passes on a fresh checkout (the project's own pytest).
        check = self.tmp / "check-main"
        sh_git(self.tmp, "clone", "-q", "--branch", "main", str(self.hub), str(check))
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                              cwd=check, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"{len(names)} passed" in done.stdout, done.stdout

    def sessions_by_job(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for index in self.model.sessions.values():
            script = self.model._state.scripts[index].name or "?"
            job = script.split("-")[1]
            counts[job] = counts.get(job, 0) + 1
        return counts


@contextmanager
def fleet(tmp: Path, latency_s: float = 0.0,
          on_session: Callable[[str], None] | None = None) -> Iterator[Fleet]:
    """The project on a bare remote served over HTTP with a fresh password, the scripted
    model, and a host clone to queue from. ``on_session`` hears each agent session's
    script name (plan-alpha-1, red-alpha, green-alpha ...) as its first request comes."""
    project = make_project(tmp / "kata", TEST_COMMAND, "claude")
    hubs = tmp / "hubs"
    hubs.mkdir()
    hub = hubs / "kata.git"
    sh_git(tmp, "clone", "-q", "--bare", str(project), str(hub))
    password = secrets.token_hex(16)
    started: dict[str, float] = {}
    box: list[FakeModelServer] = []

    def hook(record: RequestRecord) -> None:
        if record.script_index is None or not box:
            return
        name = box[0]._state.scripts[record.script_index].name or "?"
        if name not in started:
            started[name] = time.monotonic()
            if on_session is not None:
                on_session(name)

    with GitHttpServer(hubs, USERNAME, password) as http, \
            FakeModelServer(choose=choose, latency_s=latency_s, on_request=hook) as model:
        box.append(model)
        home = tmp / "host-home"
        host_env = {**claude_env(home, model.url), **credential_env(password),
                    "GIT_TERMINAL_PROMPT": "0", "PYTHONDONTWRITEBYTECODE": "1",
                    "XDG_CACHE_HOME": str(home / "cache")}
        url = http.url("kata.git")
        clone = tmp / "host-clone"
        sh_git(tmp, "clone", "-q", "-o", "hub", url, str(clone), env=host_env)
        yield Fleet(tmp, hub, url, password, http, model, host_env, clone, started)
