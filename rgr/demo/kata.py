"""The slugify kata as scripted agent sessions: what ``rgr demo`` replays.

Each function returns the SessionScript one phase's claude session plays: the real
claude executes the tool calls (Write, Read, Bash git commit) in the real repository.
The end-to-end tests drive rgr with the same scripts (tests/e2e/kata.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rgr.base.errors import RgrError
from rgr.base.proc import run
from rgr.ecosystems.python.demo_kata import PROJECT_FILES
from rgr.fake_model import SessionScript, Step, Text, bash, read, structured, write
from rgr.fake_model.responses import FAKE_MODEL
from rgr.store.gitcli import argv

FEATURE = "add a slugify function that lowercases and joins words with dashes"

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


def green(content: str, first: bool, extra: Sequence[Step] | None = None) -> SessionScript:
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


def codex_config(binary: str, model: str = FAKE_MODEL) -> str:
    """tdd.toml lines that run the kata's agents on codex against the scripted
    Responses API server: the binary, a model whose tools the server scripts, codex's own
    retries cut to one so that a scripted failure surfaces in about a second."""
    # Dotted keys, not a [codex] table: keys appended to the file later stay top-level.
    return (f"backend = \"codex\"\ncodex_binary = {json.dumps(binary)}\n"
            f"codex.model = {json.dumps(model)}\ncodex.request_max_retries = 1\n"
            "codex.stream_max_retries = 1\ncodex.stream_idle_timeout_ms = 30000\n")


def make_project(root: Path, test_command: Sequence[str], agent_binary: str,
                 extra_config: str = "") -> Path:
    """A Python project with no tests yet (rgr.ecosystems.python.demo_kata's files),
    committed on main, with its own identity (claude's git commits run with a throwaway
    HOME, so no global git config).
    ``extra_config`` is appended to its tdd.toml (top-level keys first, then tables)."""
    root.mkdir(parents=True, exist_ok=True)
    _git(root.parent, "init", "-q", "-b", "main", str(root))
    for key, value in (("user.name", "Kata Dev"), ("user.email", "dev@example.com"),
                       ("commit.gpgsign", "false")):
        _git(root, "config", key, value)
    for name, text in PROJECT_FILES.items():
        (root / name).write_text(text)
    (root / "tdd.toml").write_text(
        f"test_command = {json.dumps(list(test_command))}\n"
        f"agent_binary = {json.dumps(agent_binary)}\n"
        "max_retries = 3\n"
        "agent_timeout = 120\n"
        "command_timeout = 60\n"
        + extra_config
    )
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "initial")
    return root


def _git(cwd: Path, *args: str) -> None:
    # Only the kata's own repository, with a fixed environment-free config: the user's
    # global hooks or signing settings must not break the demo.
    done = run(argv(*args), cwd=cwd, timeout=60)
    if done.returncode != 0:
        raise RgrError(f"git {' '.join(args)} failed in the demo's kata: {done.describe()}")
