"""Real projects, zero configuration (issue 23): what a user meets before the first
agent call, each seen through the real CLI (or the one function it rests on) on real
repositories. No agent runs: where a command reaches the agent CLI, a stand-in script
answers ``--version`` and refuses the login, which ends the run right there."""

from __future__ import annotations

import json
import re
import shutil
import stat
import sys
from pathlib import Path

import pytest

from rgr.backends import claude_release, locate
from rgr.backends.codex import PACKAGE as CODEX_PACKAGE
from rgr.backends.codex import VERIFIED_VERSIONS
from tests.conftest import Repo, RunRgr, note_json

#: A test command that passes without any test runner installed.
TEST_ENV = {"TDD_TEST_COMMAND": "true"}

STUB_CLAUDE = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "2.1.197 (Claude Code, stand-in)"; exit 0; fi
echo '{"type":"result","subtype":"success","is_error":true,"result":"Not logged in"}'
exit 1
"""


def _executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    # Executable by all, as npm installs a CLI: run by root, rgr runs agents as an
    # unprivileged user.
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _bare_path(tmp_path: Path) -> str:
    """A PATH with git, sh, bwrap and true only (the sandbox and its probe): no claude,
    no codex, no npm."""
    bin_dir = tmp_path / "bare-bin"
    bin_dir.mkdir(exist_ok=True)
    for name in ("git", "sh", "bwrap", "true"):
        found = shutil.which(name)
        assert found is not None
        if not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(found)
    return str(bin_dir)


# ------------------------------------------------------- the agent CLIs, found --


def test_a_bare_name_is_found_on_path_then_local_bin_then_npms_prefix(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"PATH": _bare_path(tmp_path), "HOME": str(home)}
    assert locate.find_cli("claude", env) is None
    # npm's prefix from ~/.npmrc (as `npm config set prefix ~/.npm-global` writes it)
    (home / ".npmrc").parent.mkdir(parents=True)
    (home / ".npmrc").write_text("fund=false\nprefix = ~/.npm-global\n")
    in_rc = _executable(home / ".npm-global" / "bin" / "claude", STUB_CLAUDE)
    assert locate.find_cli("claude", env) == str(in_rc)
    # NPM_CONFIG_PREFIX comes before the npmrc, as it does for npm
    in_env = _executable(tmp_path / "prefix" / "bin" / "claude", STUB_CLAUDE)
    assert locate.find_cli("claude", {**env, "NPM_CONFIG_PREFIX": str(tmp_path / "prefix")}) \
        == str(in_env)
    # ~/.local/bin (the README's install) comes before npm's prefix
    local = _executable(home / ".local" / "bin" / "claude", STUB_CLAUDE)
    assert locate.find_cli("claude", env) == str(local)
    # and PATH before everything
    on_path = _executable(tmp_path / "on-path" / "claude", STUB_CLAUDE)
    assert locate.find_cli("claude", {**env, "PATH": f"{on_path.parent}:{env['PATH']}"}) \
        == str(on_path)


def test_npm_is_asked_for_its_prefix_only_when_nothing_else_says(tmp_path: Path) -> None:
    """No variable, no npmrc line: `npm config get prefix` (a stand-in npm that logs
    each call) is asked once, and not at all when the CLI was found earlier."""
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = Path(_bare_path(tmp_path))
    log = tmp_path / "npm.log"
    prefix = tmp_path / "npm-global"
    _executable(bin_dir / "npm", f"#!/bin/sh\necho \"$@\" >> {log}\necho {prefix}\n")
    env = {"PATH": str(bin_dir), "HOME": str(home)}
    assert locate.find_cli("codex", env) is None
    assert log.read_text() == "config get prefix\n"
    codex = _executable(prefix / "bin" / "codex", "#!/bin/sh\n")
    assert locate.find_cli("codex", env) == str(codex)
    _executable(home / ".local" / "bin" / "codex", "#!/bin/sh\n")
    log.unlink()
    assert locate.find_cli("codex", env) == str(home / ".local" / "bin" / "codex")
    assert not log.exists()


@pytest.mark.parametrize("command", [["run", "slugify"], ["refactor", "tidy"], ["resume"]])
def test_run_resume_and_refactor_find_claude_in_local_bin(
        run_rgr: RunRgr, repo: Repo, tmp_path: Path, command: list[str]) -> None:
    if command == ["resume"]:  # a run's start note at HEAD
        repo.note_cli(repo.head(), note_json("REFACTOR", nextPhase="PLAN", cycleNumber=0,
                                             runId="run-1"))
    _executable(tmp_path / "home" / ".local" / "bin" / "claude", STUB_CLAUDE)
    code, out, err = run_rgr([command[0], "--yes", *command[1:]], repo.path,
                             {**TEST_ENV, "PATH": _bare_path(tmp_path)})
    assert code == 1, out + err
    assert "agent backend: claude 2.1.197 (Claude Code, stand-in)" in out, out + err
    if command[0] == "run":
        # run's sealed baseline comes before the login check (a paid request), and the
        # stand-in test command (`true`) reports no results: it stops there.
        assert "cannot see individual test results" in err, err
    else:
        assert "not logged in" in err.lower(), err


@pytest.mark.parametrize(("backend", "package", "version"), [
    ("claude", claude_release.PACKAGE, claude_release.PINNED),
    ("codex", CODEX_PACKAGE, VERIFIED_VERSIONS[0]),
])
def test_a_missing_agent_cli_names_where_it_looked_and_the_pinned_install(
        run_rgr: RunRgr, repo: Repo, tmp_path: Path, backend: str, package: str,
        version: str) -> None:
    code, out, err = run_rgr(["run", "--yes", "--backend", backend, "slugify"], repo.path,
                             {**TEST_ENV, "PATH": _bare_path(tmp_path)})
    assert code == 1, out + err
    assert f"`{backend}` is not on PATH, {tmp_path / 'home' / '.local' / 'bin'}" in err, err
    assert f"npm install -g --prefix ~/.local {package}@{version}" in err, err
    assert "Traceback" not in err


# ----------------------------------------------- environment folders, not work --


def test_a_fresh_venv_is_named_an_environment_and_ignoring_it_is_the_fix(
        run_rgr: RunRgr, repo: Repo, tmp_path: Path) -> None:
    import venv

    venv.create(repo.path / ".venv", with_pip=False)  # pyvenv.cfg, bin/python ...
    (repo.path / "node_modules" / "left-pad").mkdir(parents=True)
    (repo.path / "node_modules" / "left-pad" / "index.js").write_text("")
    code, out, err = run_rgr(["run", "--yes", "slugify"], repo.path, TEST_ENV)
    assert code == 1, out + err
    assert "untracked environment folders that git does not ignore (.venv/, " \
           "node_modules/)" in err, err
    assert "git stash -u` would stash them away" in err
    assert "bin/python" not in err  # the folder, not the thousands of files in it
    hint = err[err.index("`printf"):].split("`")[1]
    assert hint.startswith("printf '%s\\n' .venv/ node_modules/ >> .gitignore && ")
    # The fix, as given, makes the tree clean: rgr goes on to the agent's preflight.
    import subprocess

    subprocess.run(["sh", "-c", hint.replace("git commit", "git -c user.name=t -c "
                    "user.email=t@t commit")], cwd=repo.path, check=True, capture_output=True)
    assert (repo.path / ".venv").is_dir()
    code, out, err = run_rgr(["run", "--yes", "slugify"], repo.path,
                             {**TEST_ENV, "PATH": _bare_path(tmp_path)})
    assert code == 1 and "cannot run claude" in err, out + err


def test_a_virtualenv_of_any_name_and_pycache_next_to_real_work(
        run_rgr: RunRgr, repo: Repo) -> None:
    (repo.path / "tools-env").mkdir()
    (repo.path / "tools-env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (repo.path / "pkg").mkdir()
    (repo.path / "pkg" / "mod.py").write_text("x = 1\n")
    repo.git("add", "pkg/mod.py")
    repo.git("commit", "-qm", "pkg")
    (repo.path / "pkg" / "__pycache__").mkdir()
    (repo.path / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (repo.path / "notes.txt").write_text("my work\n")
    code, out, err = run_rgr(["run", "--yes", "slugify"], repo.path, TEST_ENV)
    assert code == 1, out + err
    assert "uncommitted changes (notes.txt) and untracked environment folders " \
           "(pkg/__pycache__/, tools-env/)" in err, err
    assert "printf '%s\\n' __pycache__/ /tools-env/ >> .gitignore" in err, err
    assert "then commit or stash the changes (`git stash -u`, which leaves ignored " \
           "folders alone)" in err, err


def test_real_work_alone_is_told_to_commit_or_stash(run_rgr: RunRgr, repo: Repo) -> None:
    (repo.path / "venv-notes.md").write_text("not an environment\n")
    (repo.path / "src").mkdir()
    (repo.path / "src" / "a.py").write_text("")
    code, out, err = run_rgr(["run", "--yes", "slugify"], repo.path, TEST_ENV)
    assert code == 1, out + err
    assert "uncommitted changes (src/a.py, venv-notes.md); rgr run needs a clean tree" in err
    assert "environment" not in err and "commit or stash the changes (`git stash -u`)" in err


# ------------------------------------------------------------ --json, honestly --


def _every_error_class() -> list[type]:
    import importlib
    import pkgutil

    import rgr
    from rgr.base.errors import RgrError

    for info in pkgutil.walk_packages(rgr.__path__, "rgr."):
        if not info.name.startswith(("rgr.fake_model", "rgr.__main__")):
            importlib.import_module(info.name)
    found: list[type] = []
    todo: list[type] = [RgrError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return found


def test_every_error_kind_is_one_of_the_documented_set() -> None:
    from rgr.base.errors import ERROR_KINDS
    from tests.conftest import REPO_ROOT

    classes = _every_error_class()
    assert len(classes) > 15
    for cls in classes:
        assert cls.category in ERROR_KINDS, cls  # type: ignore[attr-defined]
    reference = (REPO_ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    table = reference[reference.index("| `kind` | meaning |"):]
    table = table[: table.index("\n\n")]
    documented = [line.split("`")[1] for line in table.splitlines()[2:]]
    assert documented == list(ERROR_KINDS)


def test_not_a_terminal_is_its_own_kind_and_plan_json_keeps_stdout_clean(
        run_rgr: RunRgr, repo: Repo, tmp_path: Path) -> None:
    _executable(tmp_path / "home" / ".local" / "bin" / "claude", STUB_CLAUDE)
    code, out, err = run_rgr(["refactor", "--plan-only", "--json", "tidy"], repo.path,
                             TEST_ENV)
    assert code == 1, out + err
    error = json.loads(out)["error"]  # stdout: the JSON and nothing before it
    assert error["kind"] == "not-a-terminal" and "--yes" in error["hint"]
    assert "rgr refactor --plan-only: tidy" in err  # the header, for a person


def test_run_has_no_json_and_says_which_commands_do(run_rgr: RunRgr, repo: Repo) -> None:
    code, out, err = run_rgr(["run", "--json", "slugify"], repo.path)
    assert code == 2, out + err
    error = json.loads(out)["error"]
    assert error["kind"] == "usage" and error["exitCode"] == 2
    assert "rgr run has no --json" in error["message"] and "rgr report --json" in err
    named = error["message"].split("Commands with --json: ")[1].split(", ")
    assert named == ["rgr doctor", "rgr eval", "rgr history", "rgr queue",
                     "rgr refactor --plan-only",
                     "rgr repair-notes", "rgr report", "rgr show", "rgr status",
                     "rgr verify"]
    code, out, err = run_rgr(["resume", "--json"], repo.path)
    assert code == 2 and "rgr resume has no --json" in err
    code, out, err = run_rgr(["refactor", "--json", "tidy"], repo.path)
    assert code == 2 and json.loads(out)["error"]["kind"] == "usage"
    assert "--json goes with --plan-only" in err


# ------------------------------------------------- the daemon's queue, no dead ends --


def _jobs(run_rgr: RunRgr, repo: Repo) -> dict[int, dict[str, object]]:
    code, out, err = run_rgr(["queue", "--json"], repo.path)
    assert code == 0, err
    return {job["id"]: job["state"] for job in json.loads(out)}


def test_queue_add_refuses_a_base_that_is_not_there(run_rgr: RunRgr, repo: Repo,
                                                    tmp_path: Path) -> None:
    code, out, err = run_rgr(["queue", "add", "--base", "nosuchbranch", "x"], repo.path)
    assert code == 1, out + err
    assert "--base nosuchbranch: there is no branch nosuchbranch in this repository" in err
    assert "`git branch` lists them" in err
    bare = tmp_path / "hub.git"
    repo.git("clone", "-q", "--bare", str(repo.path), str(bare))
    repo.git("remote", "add", "hub", str(bare))
    repo.git("branch", "only-here")
    code, out, err = run_rgr(["queue", "add", "--remote", "hub", "--base", "only-here", "x"],
                             repo.path)
    assert code == 1 and "the remote hub has no branch only-here" in err, out + err
    assert "git push hub only-here" in err
    assert repo.git("for-each-ref", "refs/rgr") == ""
    assert Repo(bare).git("for-each-ref", "refs/rgr") == ""
    empty = tmp_path / "empty"
    repo.git("init", "-q", "-b", "main", str(empty))
    code, out, err = run_rgr(["queue", "add", "x"], empty)
    assert code == 1 and "this repository has no commit yet" in err, out + err
    assert Repo(empty).git("for-each-ref") == ""


def test_a_job_whose_base_is_gone_fails_says_why_and_the_queue_goes_on(
        run_rgr: RunRgr, repo: Repo, tmp_path: Path) -> None:
    # No claude anywhere: a job that does start stops at once, saying so.
    env = {**TEST_ENV, "PATH": _bare_path(tmp_path)}
    repo.git("branch", "feature")
    assert run_rgr(["queue", "add", "--base", "feature", "one"], repo.path)[0] == 0
    assert run_rgr(["queue", "add", "two"], repo.path)[0] == 0
    repo.git("branch", "-D", "feature")  # after `queue add` checked it
    code, out, err = run_rgr(["daemon", "--poll", "0.2"], repo.path, env, timeout=120)
    assert code == 1, out + err  # jobs failed under this daemon
    assert "Traceback" not in err and "fatal:" not in out + err
    assert "job 1 failed: cannot start: its base branch feature no longer exists" in out
    assert "job 2 failed: cannot run claude ('claude'): `claude` is not on PATH" in out, out
    jobs = _jobs(run_rgr, repo)
    assert jobs[1]["state"] == "failed" and jobs[2]["state"] == "failed"
    assert "rgr queue retry 1" in str(jobs[1]["message"])
    # Fixed, retried: job 1 starts this time (and stops where job 2 did).
    repo.git("branch", "feature")
    code, out, err = run_rgr(["queue", "retry", "1"], repo.path)
    assert code == 0 and "job 1 queued again" in out, out + err
    assert _jobs(run_rgr, repo)[1]["state"] == "queued"
    code, out, err = run_rgr(["daemon", "--poll", "0.2"], repo.path, env, timeout=120)
    assert code == 1 and "job 1 failed: cannot run claude" in out, out + err
    assert "job 2" not in out.replace("2 failed", "")  # an old failure is left alone


def test_old_failures_in_the_queue_do_not_fail_a_clean_daemon(
        run_rgr: RunRgr, repo: Repo) -> None:
    from rgr.daemon.hub import LocalHub
    from rgr.daemon.queue import JobSpec, JobState, Queue
    from rgr.store.gitcli import Git, git_env

    g = Git(repo.path, git_env())
    queue = Queue(g, LocalHub(g))
    queue.add(JobSpec(0, "run", "old", "main", "rgr/old"),
              JobState("failed", message="rgr: error: it went wrong last week"))
    code, out, err = run_rgr(["daemon", "--poll", "0.2"], repo.path, timeout=60)
    assert code == 0, out + err
    assert "daemon done: 1 failed" in out


@pytest.mark.parametrize(("state", "why"), [
    ("queued", "it runs when a daemon gets to it"),
    ("complete", "it is done"),
    ("cancelled", "queue it again with `rgr queue add`"),
])
def test_retry_refuses_a_job_that_did_not_fail(run_rgr: RunRgr, repo: Repo, state: str,
                                               why: str) -> None:
    from rgr.daemon.hub import LocalHub
    from rgr.daemon.queue import JobSpec, JobState, Queue
    from rgr.store.gitcli import Git, git_env

    g = Git(repo.path, git_env())
    Queue(g, LocalHub(g)).add(JobSpec(0, "run", "x", "main", "rgr/x"), JobState(state))
    code, out, err = run_rgr(["queue", "retry", "1"], repo.path)
    assert code == 1, out + err
    assert f"job 1 is {state}: only a failed job or one that needs attention can be " \
           "retried" in err and why in err
    assert _jobs(run_rgr, repo)[1]["state"] == state
    code, out, err = run_rgr(["queue", "retry", "9"], repo.path)
    assert code == 1 and "there is no job 9" in err


def test_a_terminal_sees_why_a_job_failed() -> None:
    import io

    from rich.console import Console

    from rgr.daemon.view import DaemonView
    from rgr.daemon.worker import reason

    child = ("07:13:11 agent backend: ...\nrgr: error: the test suite is not green before "
             "rgr starts: 1 failed\n  fix: TDD starts from green: fix or remove the "
             "failing tests, then run again\n")
    assert reason(child) == ("the test suite is not green before rgr starts: 1 failed "
                             "fix: TDD starts from green: fix or remove the failing tests, "
                             "then run again")
    assert reason("killed\n\n") == "killed"
    out = io.StringIO()
    view = DaemonView(1, Console(file=out, width=200, force_terminal=True), live=True)
    with view:
        view.report(1, "job 3: GREEN", job=3, phase="GREEN")
        view.report(1, f"job 3 failed: {reason(child)}", outcome=True)
        view.report(1, "idle", job=None)  # the row moves on; the reason stays printed
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert "worker 1: job 3 failed: the test suite is not green" in shown, shown


def test_the_daemons_jobs_find_claude_in_local_bin(run_rgr: RunRgr, repo: Repo,
                                                   tmp_path: Path) -> None:
    """A daemon started where claude is not on PATH (cron, a service): its jobs find
    the one in ~/.local/bin, run it as every phase runs it, and fail with its answer."""
    _executable(tmp_path / "home" / ".local" / "bin" / "claude", STUB_CLAUDE)
    env = {"TDD_TEST_COMMAND": f"{sys.executable} -m pytest -q", "PATH": _bare_path(tmp_path)}
    assert run_rgr(["queue", "add", "one"], repo.path)[0] == 0
    code, out, err = run_rgr(["daemon", "--poll", "0.2"], repo.path, env, timeout=180)
    assert code == 1, out + err
    log = (repo.path / ".git" / "rgr" / "jobs" / "1.log").read_text()
    assert "agent backend: claude 2.1.197 (Claude Code, stand-in)" in log, log
    assert "job 1 failed:" in out and "not logged in" in out.lower(), out
