"""A slugify kata as scripted agent sessions, and a runner for rgr against it.

Each function returns the SessionScript one phase's claude session plays: the real
claude executes the tool calls (Write, Read, Bash git commit) in the real repository.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from harness import claude_env, ensure_claude

from rgr.fake_model import SessionScript, Step, Text, bash, read, structured, write

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


def rgr_env(home: Path, url: str) -> dict[str, str]:
    env = claude_env(home, url)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


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
