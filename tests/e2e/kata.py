"""A slugify kata as scripted agent sessions, and a runner for rgr against it.

Each function returns the SessionScript one phase's claude session plays: the real
claude executes the tool calls (Write, Read, Bash git commit) in the real repository.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import ClassVar

from harness import claude_env, ensure_claude

from rgr.fake_model import HttpError, SessionScript, Step, Text, bash, read, structured, write

TEST_1 = "lowercases a single word"
TEST_2 = "joins words with dashes"

ASSERT_1 = 'assert slugify("Hello") == "hello"'
ASSERT_2 = 'assert slugify("Hello World") == "hello-world"'

TEST_FILE_1 = f"""def test_lowercases_a_single_word():
    from slug import slugify

    {ASSERT_1}
"""
TEST_FILE_2 = TEST_FILE_1 + f"""

def test_joins_words_with_dashes():
    from slug import slugify

    {ASSERT_2}
"""
IMPL_1 = "def slugify(text):\n    return text.lower()\n"
IMPL_2 = 'def slugify(text):\n    return "-".join(text.lower().split())\n'


def _list(done: int) -> str:
    items = [TEST_1, TEST_2]
    return "# Test list\n\n" + "".join(
        f"- [{'x' if i < done else ' '}] {item}\n" for i, item in enumerate(items)
    )


def commit(message: str, *paths: str) -> Step:
    added = " ".join(paths) if paths else "-A"
    return bash(f"git add {added} && git commit -q -m {json.dumps(message)}")


def plan(done: int, first: bool = False, total: int = 2) -> SessionScript:
    items = [TEST_1, TEST_2][:total]
    text = "# Test list\n\n" + "".join(
        f"- [{'x' if i < done else ' '}] {item}\n" for i, item in enumerate(items))
    steps: list[Step] = [] if first else [read("test-list.md")]
    steps += [write("test-list.md", text), commit(f"plan: {done} of {total} done",
                                                  "test-list.md")]
    if done >= total:
        steps.append(structured({"currentTest": None}))
    else:
        steps.append(structured({"currentTest": {
            "description": items[done], "testFile": "tests/test_slug.py",
            "implFile": "slug.py"}}))
    return SessionScript(steps, expect_system_contains="You are the PLANNER", name=f"plan{done}")


def red(content: str, first: bool, message: str = "test: add a failing test") -> SessionScript:
    steps: list[Step] = [] if first else [read("tests/test_slug.py")]
    steps += [write("tests/test_slug.py", content), commit(message, "tests/test_slug.py"),
              structured({"summary": "added one failing test"})]
    return SessionScript(steps, expect_system_contains="You are the TESTER", name="red")


def green(content: str, first: bool, extra: list[Step] | None = None) -> SessionScript:
    steps: list[Step] = [] if first else [read("slug.py")]
    steps += [write("slug.py", content), *(extra or []), commit("feat: make it pass", "-A"),
              structured({"summary": "implemented slugify"})]
    return SessionScript(steps, expect_system_contains="You are the IMPLEMENTER", name="green")


def refactor() -> SessionScript:
    return SessionScript(
        [bash('git commit -q --allow-empty -m "refactor: no changes needed"'),
         structured({"summary": "nothing to improve"})],
        expect_system_contains="You are the REFACTORER", name="refactor")


def two_test_kata() -> list[SessionScript]:
    return [
        plan(0, first=True), red(TEST_FILE_1, first=True), green(IMPL_1, first=True),
        refactor(),
        plan(1), red(TEST_FILE_2, first=False), green(IMPL_2, first=False), refactor(),
        plan(2),
    ]


def one_test_kata_tail() -> list[SessionScript]:
    """After a good RED for test 1 of a one-test list: GREEN, REFACTOR, final PLAN."""
    return [green(IMPL_1, first=True), refactor(), plan(1, total=1)]


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
                return green(IMPL_1, first=True, extra=[read("tests/test_slug.py"),
                                                        write("tests/test_slug.py", weakened)])
            return green(IMPL_1 if number == 1 else IMPL_2, first=number == 1)
        return refactor()


def text_only() -> SessionScript:
    return SessionScript([Text("I think I am done."), Text("Really done.")], name="no-output")


def make_project(root: Path) -> Path:
    """A Python project with no tests yet, committed on main."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    for key, value in (("user.name", "Kata Dev"), ("user.email", "dev@example.com"),
                       ("commit.gpgsign", "false")):
        subprocess.run(["git", "config", key, value], cwd=root, check=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / "tdd.toml").write_text(
        f"test_command = {json.dumps([sys.executable, '-m', 'pytest', '-q'])}\n"
        f"agent_binary = {json.dumps(str(ensure_claude()))}\n"
        "max_retries = 3\n"
        "agent_timeout = 120\n"
        "command_timeout = 60\n"
    )
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "initial"], cwd=root, check=True)
    return root


#: Secrets that must never appear in anything rgr writes (notes, logs, its files).
CANARY_ENV = {"ANTHROPIC_API_KEY": "sk-ant-api03-CANARY-7f3a9c-never-write-me",
              "RGR_TEST_CANARY_TOKEN": "canary-token-5d81e0-never-write-me"}


def rgr_env(home: Path, url: str) -> dict[str, str]:
    env = claude_env(home, url)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
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


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


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
