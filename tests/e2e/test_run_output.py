"""What a run leaves behind it: a test run of rgr's own (the baseline, a phase's
verification) that writes its JUnit report inside the repository (that file is rgr's,
never an agent's leftover), and on a terminal the screen a finished run leaves (the
summary, no frame of the live panel). The real rgr CLI and claude binary, real git and
pytest, a real terminal (tmux); only the model is scripted."""

from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path

import pytest
from kata import IMPL_1, TEST_FILE_1, git, green, make_project, plan, red, refactor, rgr, rgr_env
from toolchains import ensure_program

from rgr.base import proc
from rgr.fake_model import FakeModelServer

pytestmark = pytest.mark.e2e

RUNNER = ("import sys, pytest\n"
          "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', "
          "'--junitxml=reports/junit.xml']))\n")


def test_the_baseline_report_file_is_not_an_agent_leftover(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    (repo / "run_tests.py").write_text(RUNNER)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    toml = (repo / "tdd.toml").read_text().splitlines()
    toml[0] = f"test_command = {json.dumps([sys.executable, 'run_tests.py'])}"
    (repo / "tdd.toml").write_text("\n".join(toml) + '\njunit_xml = ["reports/junit.xml"]\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a runner that writes its report in the repository")
    with FakeModelServer([plan(0, first=True, total=1)]) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "--max-phases", "1", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout  # the report was read before it was removed
    assert "left uncommitted changes" not in done.stdout, done.stdout
    assert git(repo, "for-each-ref", "refs/rgr/leftovers/") == ""
    assert git(repo, "status", "--porcelain") == ""


def test_a_finished_run_on_a_terminal_leaves_the_summary_and_no_live_frame(
        tmp_path: Path) -> None:
    """A one-test kata to the end in a real terminal (tmux, 120x50): what stays on the
    screen is the log and the end-of-run report, whole; nothing of the live panel (its
    status line "checking the commit", its rows) is left under them."""
    tmux = ensure_program("tmux", "tmux", probe=("-V",))
    repo = make_project(tmp_path / "kata")
    done_flag = tmp_path / "exit-code"
    socket = f"rgr-test-{uuid.uuid4().hex[:8]}"  # a tmux server of this test's own
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True),
               green(IMPL_1, first=True), refactor(), plan(1, total=1)]
    with FakeModelServer(scripts) as server:
        env = {**rgr_env(tmp_path / "home", server.url), "TERM": "xterm-256color"}
        run_then_wait = (
            "import pathlib, subprocess, sys, time\n"
            "code = subprocess.call([sys.executable, '-m', 'rgr', 'run', '--yes', "
            "'--skip-preflight', 'slugify'])\n"
            f"pathlib.Path({str(done_flag)!r}).write_text(str(code))\n"
            "time.sleep(600)\n")  # the pane stays, as the user's terminal does
        # env -i: the pane gets rgr's environment, not the tmux server's.
        started = proc.run([tmux, "-L", socket, "new-session", "-d", "-x", "120", "-y", "50",
                            "-c", str(repo), "env", "-i",
                            *(f"{k}={v}" for k, v in env.items()),
                            sys.executable, "-c", run_then_wait], cwd=repo, timeout=30)
        assert started.returncode == 0, started.describe()
        try:
            deadline = time.monotonic() + 300
            while not done_flag.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(0.5)  # anything drawn after the exit would show by now
            # The whole pane, scrolled-off lines too, wrapped lines joined.
            shown = proc.run([tmux, "-L", socket, "capture-pane", "-p", "-J", "-S", "-",
                              "-t", "0"], cwd=repo, timeout=30)
        finally:
            proc.run([tmux, "-L", socket, "kill-server"], cwd=repo, timeout=30)
    screen = shown.stdout
    assert done_flag.exists() and done_flag.read_text() == "0", screen
    assert "feature complete after" in screen, screen
    # The end-of-run report, whole (the panel drew over its last lines), then the totals.
    end = screen[screen.index("feature complete after"):]
    for part in ("rgr report: slugify", "The decision is yours:", "  reject   rgr rollback",
                 "spent $", "run artifacts: "):
        assert part in end, f"{part!r} missing from the end of the run:\n{screen}"
        end = end[end.index(part):]
    # The live panel's rows and status line: drawn while the run went, gone at its end.
    for panel in ("checking the commit", "phase(s) done", "attempt 1  phase", "tests   "):
        assert panel not in screen, f"{panel!r} left on the screen:\n{screen}"
