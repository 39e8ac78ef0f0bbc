"""Bad input gets a clear message naming the problem and a fix, with the documented exit
code: 1 for expected failures, 2 for usage errors, 3 (and a crash log) for bugs, 130 for
Ctrl-C."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Repo, RunRgr, clean_env, git, make_repo, note_json


def assert_error(result: tuple[int, str, str], *needles: str) -> str:
    code, _, err = result
    assert code == 1, result
    assert err.startswith("rgr: error: "), err
    assert "fix: " in err, err  # every expected failure says how to fix it
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def test_help_and_version(run_rgr: RunRgr, tmp_path: Path) -> None:
    code, out, _ = run_rgr(["--help"], tmp_path)
    assert code == 0
    for command in ("status", "history", "rollback", "repair-notes"):
        assert command in out
    code, out, _ = run_rgr(["--version"], tmp_path)
    assert code == 0 and re.search(r"rgr, version \d+\.\d+", out)


def test_not_a_git_repository(run_rgr: RunRgr, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    # precondition: nothing above tmp_path is a repository either
    probe = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=plain, capture_output=True)
    assert probe.returncode != 0
    for command in (["status"], ["repair-notes"]):
        assert_error(run_rgr(command, plain), "not a git repository", "git init")


def test_a_root_that_does_not_exist(run_rgr: RunRgr, tmp_path: Path) -> None:
    assert_error(run_rgr(["status"], tmp_path, env={"TDD_PROJECT_ROOT": "nowhere"}),
                 "TDD_PROJECT_ROOT", "nowhere")


def test_a_bare_repository(run_rgr: RunRgr, tmp_path: Path) -> None:
    source = make_repo(tmp_path, commits=1)
    git(tmp_path, "clone", "-q", "--bare", str(source.path), "bare.git")
    assert_error(run_rgr(["status"], tmp_path / "bare.git"), "bare repository", "git clone")


@pytest.mark.parametrize("command", [["status"], ["history"], ["rollback", "HEAD"]])
def test_an_empty_repository(run_rgr: RunRgr, tmp_path: Path, command: list[str]) -> None:
    repo = make_repo(tmp_path, commits=0)
    assert_error(run_rgr(command, repo.path), "no commits", "first commit")


def test_rollback_on_a_detached_head(run_rgr: RunRgr, repo: Repo) -> None:
    target = repo.rev("HEAD~1")
    repo.note_cli(target, note_json("PLAN"))
    repo.git("switch", "-q", "--detach", "HEAD")
    assert_error(run_rgr(["rollback", target, "--yes"], repo.path), "detached", "git switch")
    assert repo.git("rev-parse", "HEAD") != target


def test_tdd_toml_with_an_unknown_key(run_rgr: RunRgr, repo: Repo) -> None:
    (repo.path / "tdd.toml").write_text('max_retires = 3\ntest_command = "pytest -q"\n')
    err = assert_error(run_rgr(["status"], repo.path), "tdd.toml", "max_retires")
    assert "max_retries" in err  # the suggestion


def test_tdd_toml_with_a_wrong_type(run_rgr: RunRgr, repo: Repo) -> None:
    (repo.path / "tdd.toml").write_text('max_retries = "three"\n')
    err = assert_error(run_rgr(["history"], repo.path), str(repo.path / "tdd.toml"),
                       "max_retries", "integer", "three")
    assert "edit " in err


def test_tdd_toml_that_is_not_toml(run_rgr: RunRgr, repo: Repo) -> None:
    (repo.path / "tdd.toml").write_text("model = sonnet\n")
    assert_error(run_rgr(["status"], repo.path), "tdd.toml", "not valid TOML", "line 1")


@pytest.mark.parametrize("args", [["--badflag"], ["status", "--badflag"],
                                  ["rollback"], ["history", "--limit", "-1"]])
def test_usage_errors_exit_2(run_rgr: RunRgr, repo: Repo, args: list[str]) -> None:
    code, _, err = run_rgr(args, repo.path)
    assert code == 2, err
    assert "Usage:" in err or "Error:" in err
    assert "Traceback" not in err


# ---------------------------------------------------------------------- crashes

SECRET = "sk-test-do-not-log-4f7a1c"

#: Runs rgr's real entry point after replacing one command with a function that raises:
#: the only controlled way to reach the "this is a bug" path without a real bug.
INJECT = (
    "import sys, rgr.commands.status as s\n"
    "def boom(ws, as_json):\n"
    "    raise {exc}('injected failure')\n"
    "s.run = boom\n"
    "from rgr.cli import main\n"
    "main()\n"
)


def run_injected(repo: Repo, tmp_path: Path, exc: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(tmp_path / "home", {"ANTHROPIC_API_KEY": SECRET, "RGR_SECRET": SECRET})
    return subprocess.run(
        [sys.executable, "-c", INJECT.format(exc=exc), "status", "--json"],
        cwd=repo.path, env=env, capture_output=True, text=True, timeout=60,
    )


def test_an_internal_error_exits_3_and_writes_a_crash_log_without_the_environment(
    repo: Repo, tmp_path: Path
) -> None:
    proc = run_injected(repo, tmp_path, "RuntimeError")
    assert proc.returncode == 3, proc.stderr
    assert "internal error: RuntimeError: injected failure" in proc.stderr
    match = re.search(r"crash log is at (\S+?):? ", proc.stderr)
    assert match, proc.stderr
    log = Path(match.group(1))
    assert log.is_file()
    assert log.is_relative_to(tmp_path / "home" / ".cache")  # XDG_CACHE_HOME honoured
    text = log.read_text()
    assert "injected failure" in text and "Traceback" in text
    assert "status --json" in text and "rgr " in text and "pygit2" in text
    assert SECRET not in text
    assert "ANTHROPIC_API_KEY" not in text and "PATH=" not in text
    assert SECRET not in proc.stderr


def test_ctrl_c_exits_130(repo: Repo, tmp_path: Path) -> None:
    proc = run_injected(repo, tmp_path, "KeyboardInterrupt")
    assert proc.returncode == 130, proc.stderr
    assert "interrupted" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "home" / ".cache" / "rgr").exists()  # not a crash
