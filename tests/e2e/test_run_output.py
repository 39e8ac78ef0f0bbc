"""A test run of rgr's own (the baseline, a phase's verification) that writes its JUnit
report inside the repository: that file is rgr's, never an agent's leftover. The real
rgr CLI and claude binary, real git and pytest; only the model is scripted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from kata import git, make_project, plan, rgr, rgr_env

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
