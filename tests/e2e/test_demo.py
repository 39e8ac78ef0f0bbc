"""`rgr demo` end to end with the real claude binary, then show, report, history and a
fast-forward merge read from the notes of that real run."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harness import ensure_claude
from kata import git

from rgr.demo.env import DUMMY_API_KEY, claude_env

pytestmark = pytest.mark.e2e

NOTES = "refs/notes/tdd-handoffs"
USER_KEY = "sk-ant-api03-THE-USERS-REAL-KEY-must-never-leave"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TDD_", "GIT_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_CACHE_HOME=str(home / ".cache"), COLUMNS="200",
               ANTHROPIC_API_KEY=USER_KEY, PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def _rgr(args: list[str], cwd: Path, env: dict[str, str],
         timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rgr", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


class Demo:
    def __init__(self, root: Path, home: Path, done: subprocess.CompletedProcess[str]) -> None:
        self.root, self.home, self.done = root, home, done
        self.kata = root / "kata"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    base = tmp_path_factory.mktemp("demo")
    home = base / "user-home"  # stands for the user's real HOME
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"model": "the-users-own"}\n')
    root = base / "throwaway"
    done = _rgr(["demo", "--dir", str(root), "--claude", str(ensure_claude())], base,
                _env(home))
    return Demo(root, home, done)


def test_demo_runs_the_whole_loop_and_says_it_is_a_replay(demo: Demo) -> None:
    out = demo.done.stdout
    assert demo.done.returncode == 0, out + demo.done.stderr
    assert "The model is a REPLAY" in out and "That was a replay." in out
    assert "feature complete after 3 cycle(s): 2 test(s) done" in out
    assert "rgr report:" in out and "2 of 2: lowercases a single word" in out
    assert "$ rgr history" in out and "$ git notes --ref=tdd-handoffs show" in out
    # rgr run's banner, rendered once through emit, word for word as before
    assert ("\nrgr run: add a slugify function that lowercases and joins words with dashes\n"
            f"  repository    {demo.kata}\n  branch        rgr/add-a-slugify-function-that-"
            "lower-6f6ffb (new, from main at ") in out, out
    assert ("  retries       3 per phase\n  loop          PLAN → RED → GREEN → REFACTOR, one "
            "agent session per phase\n") in out, out
    phases = [json.loads(git(demo.kata, "notes", f"--ref={NOTES}", "show", c))["phase"]
              for c in git(demo.kata, "log", "--reverse", "--format=%H", "main..HEAD").split()]
    assert phases == ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR",
                      "PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE"]
    assert git(demo.kata, "status", "--porcelain") == ""


def test_demo_never_touches_the_users_claude_config_nor_sends_their_key(demo: Demo) -> None:
    assert demo.done.returncode == 0
    assert sorted(p.name for p in (demo.home / ".claude").iterdir()) == ["settings.json"]
    assert (demo.home / ".claude" / "settings.json").read_text() == \
        '{"model": "the-users-own"}\n'
    assert not (demo.home / ".claude.json").exists()
    claude_home = demo.root / "claude-home"
    assert (claude_home / ".claude.json").exists()  # claude ran with the throwaway HOME
    for path in demo.root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert USER_KEY.encode() not in path.read_bytes(), path
    env = claude_env(claude_home, "http://127.0.0.1:9")
    assert env["ANTHROPIC_API_KEY"] == DUMMY_API_KEY and USER_KEY not in env.values()


def test_show_report_and_history_agree_with_the_notes_of_the_run(
        demo: Demo, tmp_path: Path) -> None:
    assert demo.done.returncode == 0
    env = _env(tmp_path / "home")
    kata = demo.kata
    note = json.loads(git(kata, "notes", f"--ref={NOTES}", "show", "HEAD~2"))
    shown = json.loads(_rgr(["show", "--json", "HEAD~2"], kata, env).stdout)
    assert {k: shown[k] for k in note} == note
    text = _rgr(["show", "HEAD~2"], kata, env).stdout
    agent = note["agent"]
    assert f"session {agent['sessionId']}" in text and f"${agent['costUsd']:.4f}" in text
    assert f"{agent['inputTokens']:,} in, {agent['outputTokens']:,} out" in text
    assert agent["promptVersion"] in text

    notes = [json.loads(git(kata, "notes", f"--ref={NOTES}", "show", c))
             for c in git(kata, "log", "--format=%H", "main..HEAD").split()]
    report = json.loads(_rgr(["report", "--json"], kata, env).stdout)
    costs = [n["agent"]["costUsd"] for n in notes if n["agent"]]
    assert report["costUsd"] == pytest.approx(sum(costs)) and sum(costs) > 0
    assert report["inputTokens"] == sum(n["agent"]["inputTokens"] for n in notes if n["agent"])
    assert report["phases"] == 9 and report["commits"] == 10 and report["retries"] == 0
    assert report["status"] == "complete" and report["startBranch"] == "main"

    rows = json.loads(_rgr(["history", "--json"], kata, env).stdout)
    assert all(r["startedAt"] for r in rows)
    table = _rgr(["history"], kata, env).stdout
    header = table.splitlines()[0].split()
    assert header[:8] == ["commit", "when", "phase", "cycle", "result", "took", "agent",
                          "cost"]
    for n in notes:
        if n["agent"]:
            assert f"${n['agent']['costUsd']:.4f}" in table
            assert n["agent"]["backend"] == "claude" and n["agent"]["model"]
    # The same sum to the cent's hundredth (two summing orders may round the last digit
    # apart: $0.5290 against $0.5291).
    shown = re.search(r"agent cost of the 9 phase\(s\) shown: \$(\d+\.\d{4})", table)
    assert shown is not None, table
    assert float(shown.group(1)) == pytest.approx(sum(costs), abs=1.01e-4)


README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_sample(command: str) -> list[str]:
    """The lines the README shows after ``$ <command>`` in its tour."""
    text = README.read_text(encoding="utf-8")
    after = text[text.index(f"$ {command}\n") + len(f"$ {command}\n"):]
    return after.split("\n$ ", 1)[0].split("```", 1)[0].rstrip("\n").splitlines()


def _shape(line: str) -> str:
    """A line without what differs from run to run: commit ids, times, durations and
    costs (and the padding around them)."""
    for pattern, stand_in in ((r"\b[0-9a-f]{8}\b", "<commit>"),
                              (r"\d\d-\d\d \d\d:\d\d", "<when>"),
                              (r"\b\d+(\.\d)?[sm]\b", "<took>"),
                              (r"\$\d+\.\d{4}", "<cost>")):
        line = re.sub(pattern, stand_in, line)
    return " ".join(line.split())


def test_the_readmes_samples_are_what_the_commands_print(demo: Demo) -> None:
    """The README's `rgr history` and `rgr status` are this run's, but for its commit
    ids, times and costs: a change to either command's output shows up here."""
    out = demo.done.stdout
    shown = out[out.index("$ rgr history\n") + len("$ rgr history\n"):].split("\n\n", 1)[0]
    assert [_shape(x) for x in _readme_sample("rgr history")] == \
        [_shape(x) for x in shown.splitlines()], shown
    status = _rgr(["status"], demo.kata, _env(demo.home))
    assert status.returncode == 0, status.stdout + status.stderr
    assert [_shape(x) for x in _readme_sample("rgr status")] == \
        [_shape(x) for x in status.stdout.rstrip("\n").splitlines()], status.stdout


def test_merge_of_the_real_run_fast_forwards_main(demo: Demo, tmp_path: Path) -> None:
    assert demo.done.returncode == 0
    kata = tmp_path / "kata"
    shutil.copytree(demo.kata, kata, symlinks=True)
    head = git(kata, "rev-parse", "HEAD").strip()
    done = _rgr(["report", "--integrate", "merge"], kata, _env(tmp_path / "home"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(kata, "rev-parse", "main").strip() == head
    assert git(kata, "symbolic-ref", "--short", "HEAD").strip() == "main"


def test_demo_without_claude_says_how_to_install_it(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # git and python, no claude
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    env = _env(tmp_path / "home", PATH=str(bin_dir))
    done = _rgr(["demo", "--dir", str(tmp_path / "d")], tmp_path, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "`claude` CLI (Claude Code), and `claude` is not on PATH" in done.stderr
    assert "npm install -g @anthropic-ai/claude-code@2.1.197" in done.stderr
    assert not (tmp_path / "d").exists()  # nothing was created
    done = _rgr(["demo", "--claude", str(tmp_path / "nope" / "claude")], tmp_path, env)
    assert done.returncode == 1 and "no Claude Code binary at" in done.stderr
    pinned = json.loads((Path(__file__).parent / "node" / "package.json").read_text())
    assert pinned["dependencies"]["@anthropic-ai/claude-code"] == "2.1.197"
