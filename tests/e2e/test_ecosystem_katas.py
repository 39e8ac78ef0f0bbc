"""`rgr run` end to end in each ecosystem: the real rgr CLI, the real claude binary, real
git and the real toolchain (Vitest, Jest, TypeScript through Vitest, cargo, go, Maven,
rspec, rake and Minitest); only the model is scripted (rgr.fake_model on 127.0.0.1).

Each ecosystem has two runs: the honest two-test kata, and the same kata in which
cycle 1's first RED writes a test that passes at once (``red-passes``: rejected, kept,
retried) and its GREEN also rewrites the test (refused by rgr's PreToolUse hook, so only
the implementation is committed; the commit-level ``green-touches-tests`` check behind
the hook is runner-independent and exercised in tests/e2e/test_tdd_loop.py), before the
run completes honestly. Every test run runs one of the eighteen, always the same (Rust with
the rejections: a compiled language, libtest's stdout parsed, rustup's homes outside HOME;
about 1.5 minutes on 2 cores). Vitest runs end to end in every test run through
tests/e2e/test_real_projects.py (an npm project through the daemon), and every runner's
parser in tests/ecosystems/test_runners.py against the real runner. ``RGR_FULL_SWEEP=1`` runs all
eighteen:

    RGR_FULL_SWEEP=1 .venv/bin/python -m pytest tests/e2e/test_ecosystem_katas.py

A toolchain that cannot be installed or cannot run here is reported NOT VERIFIED by
name (tests/e2e/toolchains.py), among the skipped: never counted as passed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from ecosystems import ECOSYSTEMS, Ecosystem, kata_scripts, make_project
from harness import ensure_claude, full_sweep, sweep
from kata import git, notes_on_branch, rgr, rgr_env

from rgr.fake_model import FakeModelServer

pytestmark = pytest.mark.e2e

#: What every test run does without RGR_FULL_SWEEP: libtest's parsed stdout, with both
#: rejections and an honest finish (87-90 s on a shared 2-core machine at a load of 10;
#: Vitest's, with its JSON report, took as long: it runs in the full sweep).
CI_SAMPLE = {("rust", True)}

ALL_CASES = [(name, rejections) for name in ECOSYSTEMS for rejections in (False, True)]
CASES = sweep(ALL_CASES, lambda case: full_sweep() or case in CI_SAMPLE,
              "tests/e2e/test_ecosystem_katas.py",
              ids=[f"{name}-{'rejections' if rejections else 'honest'}"
                   for name, rejections in ALL_CASES])

PHASES = ["REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR", "PLAN", "RED", "GREEN", "REFACTOR",
          "COMPLETE"]


def _run_kata(eco: Ecosystem, rejections: bool, tmp_path: Path) -> None:
    home = tmp_path / "home"
    toolchain = eco.setup(home)
    repo = make_project(eco, tmp_path / "kata", str(ensure_claude()), toolchain)
    eco.link(repo)
    scripts = kata_scripts(eco, rejections)
    with FakeModelServer(scripts) as server:
        env = {**rgr_env(home, server.url), **toolchain.env}
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo, env, timeout=1200)
        output = done.stdout + done.stderr
        assert done.returncode == 0, output
        assert server.errors == [], server.errors
        assert server.remaining == 0
    assert "sandbox: " in done.stdout  # sealed: agents and test runs inside bubblewrap
    # rgr detected the runner itself and read per-test results from it
    assert f"({eco.runner}" in done.stdout or "detected from" in done.stdout, done.stdout
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == PHASES, output
    red_notes = [n for n in notes if n["phase"] == "RED"]
    assert all(n["testResult"] == "FAIL" for n in red_notes)
    final = notes[-1]
    assert final["completedTests"] == ["lowercases a single word", "joins words with dashes"]
    assert final["tests"]["passed"] == 2 and final["tests"]["failed"] == 0, final["tests"]  # type: ignore[index]
    attempts = git(repo, "for-each-ref", "--format=%(refname)", "refs/rgr/attempts/").split()
    if rejections:
        assert "red-passes" in output, output
        rules = [json.loads(git(repo, "notes", "--ref=refs/notes/tdd-handoffs", "show",
                                ref))["errorDetails"]["type"] for ref in attempts]
        assert rules == ["red-passes"]
        first_red = next(n for n in notes if n["phase"] == "RED")
        assert first_red["retryCount"] == 1
        # GREEN's rewrite of the test never reached the file: rgr's hook refused it
        assert "refused 1 tool call(s): Write: " in output and eco.test_file in output
    else:
        assert attempts == []
    # the honest assertion survived, and the project's own test command passes on it
    assert (repo / eco.test_file).read_text() == eco.test_2
    check = subprocess.run(eco.check, cwd=repo, env=env, capture_output=True, text=True,
                           timeout=600)
    assert check.returncode == 0, check.stdout + check.stderr
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize(("name", "rejections"), CASES)
def test_kata_in_each_ecosystem(name: str, rejections: bool, tmp_path: Path) -> None:
    _run_kata(ECOSYSTEMS[name], rejections, tmp_path)


def test_a_runner_rgr_cannot_read_stops_the_run_before_the_first_phase(tmp_path: Path) -> None:
    """Refuse to referee blind: an npm script rgr cannot see into ran (exit code 0) but
    gave no per-test results, so rgr stops before any agent session, naming the fix."""
    eco = ECOSYSTEMS["vitest"]
    repo = make_project(eco, tmp_path / "kata", str(ensure_claude()))
    (repo / "package.json").write_text(json.dumps({"scripts": {"test": "node check.js"}}))
    (repo / "check.js").write_text("console.log('2 tests passed');\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a test script rgr cannot see into")
    head = git(repo, "rev-parse", "HEAD")
    with FakeModelServer([]) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert not server.sessions  # no agent session started
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cannot see individual test results from `npm test`" in done.stderr, done.stderr
    assert "junit_xml" in done.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "branch", "--list", "rgr/*") == ""
    assert git(repo, "notes", "--ref=refs/notes/tdd-handoffs", "list") == ""
