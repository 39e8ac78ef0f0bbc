"""The slugify kata (scripts shipped in rgr.demo.kata, which ``rgr demo`` replays), a
model that picks them by phase and cycle, and a runner for rgr against it."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import ClassVar

from harness import (
    claude_env,
    codex_env,
    ensure_claude,
    ensure_codex,
    ensure_gemini,
    ensure_opencode,
    gemini_env,
    opencode_env,
)

from rgr.demo import kata as _kata
from rgr.demo.kata import (
    ASSERT_1,
    ASSERT_2,
    IMPL_1,
    IMPL_2,
    TEST_1,
    TEST_2,
    TEST_FILE_1,
    TEST_FILE_2,
    commit,
    green,
    one_test_kata_tail,
    plan,
    red,
    refactor,
    text_only,
    two_test_kata,
)
from rgr.fake_model import (
    FakeModelServer,
    HttpError,
    SessionScript,
    Step,
    bash,
    write,
)
from rgr.fake_model.chat import ChatModelServer
from rgr.fake_model.gemini import GeminiModelServer
from rgr.fake_model.responses import ResponsesModelServer

__all__ = [
    "AGENT_BACKENDS",
    "ASSERT_1",
    "ASSERT_2",
    "CANARY_ENV",
    "IMPL_1",
    "IMPL_2",
    "NOTES",
    "TEST_1",
    "TEST_2",
    "TEST_FILE_1",
    "TEST_FILE_2",
    "KataModel",
    "assert_no_canary",
    "assert_suite_green",
    "codex_config",
    "commit",
    "descendants",
    "edit_past_the_hook",
    "git",
    "green",
    "kill_tree",
    "make_project",
    "model_server",
    "notes_on_branch",
    "one_test_kata_tail",
    "plan",
    "red",
    "refactor",
    "rgr",
    "rgr_env",
    "text_only",
    "two_test_kata",
    "write",
]


class KataModel:
    """Scripts each agent session from the phase and cycle in its prompts, so a phase
    redone after a crash gets the same script. With ``stumble`` it also fails twice on
    purpose: the first GREEN of cycle 1 edits the test (rejected, kept, retried) and the
    first RED of cycle 2 meets an overloaded API (retried after a backoff)."""

    ROLES: ClassVar[dict[str, str]] = {"PLANNER": "PLAN", "TESTER": "RED", "IMPLEMENTER": "GREEN",
                                       "REFACTORER": "REFACTOR"}

    def __init__(self, tests: int = 2, stumble: bool = True) -> None:
        self.tests = tests
        self.stumble = stumble
        self.served: Counter[tuple[str, int]] = Counter()
        self.lock = threading.Lock()

    def __call__(self, system: str, prompt: str) -> SessionScript:
        role = re.search(r"You are the (\w+)", system)
        cycle = re.search(r"cycle (\d+)", prompt)
        assert role and cycle, (system[:200], prompt[:200])
        phase, number = self.ROLES[role.group(1)], int(cycle.group(1))
        with self.lock:
            seen = self.served[(phase, number)]
            self.served[(phase, number)] += 1
        if phase == "PLAN":
            return plan(number - 1, first=number == 1, total=self.tests)
        if phase == "RED":
            if self.stumble and number == 2 and seen == 0:
                return SessionScript([HttpError(529, "overloaded_error", "Overloaded", 5)],
                                     name="overloaded")
            return red(TEST_FILE_1 if number == 1 else TEST_FILE_2, first=number == 1)
        if phase == "GREEN":
            if self.stumble and number == 1 and seen == 0:
                weakened = TEST_FILE_1.replace(ASSERT_1, "assert True")
                return green(IMPL_1, first=True,
                             extra=edit_past_the_hook("tests/test_slug.py", weakened))
            return green(IMPL_1 if number == 1 else IMPL_2, first=number == 1)
        return refactor()


def edit_past_the_hook(path: str, content: str, carrier: str = "rgr_edit.py",
                       carrier_after: str | None = None) -> list[Step]:
    """Steps that change ``path`` the way rgr's PreToolUse hook cannot stop: code the
    agent writes into ``carrier`` (a file its phase may write) and runs through the
    allowed test command (pytest imports it with ``-p``); ``carrier_after`` is what the
    carrier holds afterwards. An honest agent is stopped by the hook; this is the
    cheating one, left for rgr's checks on the commit to judge."""
    source = (f"import os\nos.makedirs(os.path.dirname({path!r}) or '.', exist_ok=True)\n"
              f"open({path!r}, 'w').write({content!r})\n")
    module = carrier.removesuffix(".py").replace("/", ".")
    steps = [write(carrier, source), bash(f"{sys.executable} -m pytest -q -p {module} --co")]
    if carrier_after is not None:
        steps.append(write(carrier, carrier_after))
    return steps


#: The agent CLIs the e2e helpers can drive. ``make_project``, ``rgr_env`` and
#: ``model_server`` take one of these names; the ``agent_backend`` parameter
#: (tests/conftest.py) runs a test once per backend listed in RGR_E2E_BACKENDS.
AGENT_BACKENDS = ("claude", "codex", "gemini", "opencode")


def codex_config() -> str:
    """tdd.toml lines that make codex the run's backend (the pinned binary)."""
    return _kata.codex_config(str(ensure_codex()))


def make_project(root: Path, backend: str = "claude", extra_config: str = "",
                 codex: bool = False) -> Path:
    """A Python project with no tests yet, committed on main, whose agents run on
    ``backend``; ``codex`` configures codex on a claude project too (for an agent file
    that picks it). Settings a test appends to tdd.toml stay top-level either way."""
    assert backend in AGENT_BACKENDS, backend
    config = ""
    if backend == "gemini":
        config = f"backend = \"gemini\"\ngemini_binary = {json.dumps(str(ensure_gemini()))}\n"
    if backend == "opencode":
        config = (f"backend = \"opencode\"\n"
                  f"opencode_binary = {json.dumps(str(ensure_opencode()))}\n")
    if backend == "codex" or codex:
        config = codex_config()
        if backend != "codex":
            config = config.replace('backend = "codex"\n', "")
    return _kata.make_project(root, [sys.executable, "-m", "pytest", "-q"],
                              str(ensure_claude()), extra_config + config)


def model_server(backend: str = "claude") -> type[FakeModelServer]:
    """The scripted server ``backend`` talks to (the same scripts play on both)."""
    if backend == "gemini":
        return GeminiModelServer
    if backend == "opencode":
        return ChatModelServer
    return ResponsesModelServer if backend == "codex" else FakeModelServer


#: The opencode backend's key in its katas (OPENAI_API_KEY, set only for opencode: codex
#: reads that variable too): hostile.py's BACKEND_SECRETS looks for it everywhere.
OPENCODE_CANARY_KEY = "sk-opencode-CANARY-4e9a1c-never-in-the-sandbox"

#: Secrets that must never appear in anything rgr writes (notes, logs, its files).
CANARY_ENV = {"ANTHROPIC_API_KEY": "sk-ant-api03-CANARY-7f3a9c-never-write-me",
              "CODEX_API_KEY": "sk-proj-CANARY-31c7e2-never-write-me",
              "GEMINI_API_KEY": "AIza-CANARY-9b2d4f-never-write-me",
              "RGR_TEST_CANARY_TOKEN": "canary-token-5d81e0-never-write-me"}


#: The test venv's pytest plugins (entry points) the katas do without.
UNUSED_PYTEST_PLUGINS = ("anyio", "randomly", "xdist", "xdist.looponfail", "pytest_mock",
                         "platformdirs")


def rgr_env(home: Path, url: str, backend: str = "claude",
            codex_url: str | None = None) -> dict[str, str]:
    """rgr's environment: ``url`` is the server of ``backend``; ``codex_url`` a
    Responses API server for agents that run on codex while the run's backend is
    claude (a mixed run)."""
    if backend == "gemini":
        env = gemini_env(home, url)
    elif backend == "opencode":
        env = opencode_env(home, url, {"OPENAI_API_KEY": OPENCODE_CANARY_KEY})
    elif backend == "codex":
        env = codex_env(home, url)
    else:
        env = claude_env(home, url)
        if codex_url is not None:
            env.update(codex_env(home, codex_url))
            env["ANTHROPIC_BASE_URL"] = url
            env["ANTHROPIC_API_KEY"] = claude_env(home, url)["ANTHROPIC_API_KEY"]
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # The katas' tests need none of the pytest plugins this venv has (xdist, anyio,
    # randomly...): loading them cost each of the suite's thousands of sealed kata test
    # runs about 0.17 s of CPU, half of its start. rgr keeps PYTEST_ADDOPTS in its test
    # runs (rgr.ecosystems.python.pytest_runner: runner_variables), as a user's own pytest reads it.
    env["PYTEST_ADDOPTS"] = " ".join(f"-p no:{name}" for name in UNUSED_PYTEST_PLUGINS)
    env["XDG_CACHE_HOME"] = str(home / "cache")  # crash logs, to be searched for canaries
    env.update(CANARY_ENV)
    return env


def assert_no_canary(repo: Path, home: Path, *outputs: str) -> None:
    """No canary secret in the notes, any ref's commits, rgr's files in the git dir,
    its crash logs, or what it printed."""
    values = [v.encode() for v in CANARY_ENV.values()]
    texts = [git(repo, "log", "--all", "--format=%H %B%n%N", "--notes=*").encode(),
             *(o.encode() for o in outputs)]
    places = [*(repo / ".git" / "rgr").rglob("*"), *(home / "cache").rglob("*")]
    for path in places:
        if path.is_file():
            texts.append(path.read_bytes())
    for text in texts:
        for value in values:
            assert value not in text, f"a canary secret was written: {text[:300]!r}"


def rgr(args: list[str], cwd: Path, env: dict[str, str],
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rgr", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def start_rgr(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """rgr in the background: stdout and stderr together, no stdin (as in CI)."""
    return subprocess.Popen([sys.executable, "-m", "rgr", *args], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def kill_when_hanging(proc: subprocess.Popen[str], server: FakeModelServer, sessions: int,
                      what: str, timeout: float = 120, settle: float = 1.0) -> None:
    """Wait until the server's queued scripts are used and ``sessions`` sessions have
    started (the last one scripted to hang), give it ``settle`` seconds to be inside
    claude, then SIGKILL rgr and everything under it."""
    deadline = time.monotonic() + timeout
    while server.remaining > 0 or len(server.sessions) < sessions:
        assert proc.poll() is None, proc.communicate()[0]
        assert time.monotonic() < deadline, f"{what} never started"
        time.sleep(0.2)
    time.sleep(settle)
    kill_tree(proc.pid)
    proc.wait()
    assert proc.returncode == -9


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


NOTES = "refs/notes/tdd-handoffs"


def kept_attempts(repo: Path) -> list[str]:
    """The refs of the rejected attempts rgr kept (``refs/rgr/attempts/``), read with git."""
    return git(repo, "for-each-ref", "--format=%(refname)", "refs/rgr/attempts/").split()


def notes_on_branch(repo: Path, rev: str = "HEAD") -> list[dict[str, object]]:
    """Every handoff on ``rev``'s history, oldest first, read with git's own CLI."""
    out = git(repo, "log", "--reverse", f"--notes={NOTES}", "--format=%x1e%H%n%N", rev)
    found = []
    for record in out.split("\x1e")[1:]:
        commit, _, note = record.partition("\n")
        if note.strip():
            found.append({"commit": commit, **json.loads(note)})
    return found


def assert_suite_green(repo: Path) -> None:
    """The project's own suite passes (its real pytest, nothing of rgr's)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                          cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (Linux /proc), children first."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found: list[int] = []
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and everything it started, as a power cut would."""
    for victim in [pid, *descendants(pid)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)
