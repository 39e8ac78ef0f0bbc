"""Real projects, zero configuration (issue 23): what a user meets before the first
agent call, each seen through the real CLI (or the one function it rests on) on real
repositories. No agent runs: where a command reaches the agent CLI, a stand-in script
answers ``--version`` and refuses the login, which ends the run right there."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest
from conftest import Repo, RunRgr, note_json

from rgr.backends import claude_release, locate
from rgr.backends.codex import PACKAGE as CODEX_PACKAGE
from rgr.backends.codex import VERIFIED_VERSIONS

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
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _bare_path(tmp_path: Path) -> str:
    """A PATH with git and sh only: no claude, no codex, no npm."""
    bin_dir = tmp_path / "bare-bin"
    bin_dir.mkdir(exist_ok=True)
    for name in ("git", "sh"):
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
    from rgr.errors import RgrError

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
    from conftest import REPO_ROOT

    from rgr.errors import ERROR_KINDS

    classes = _every_error_class()
    assert len(classes) > 15
    for cls in classes:
        assert cls.category in ERROR_KINDS, cls  # type: ignore[attr-defined]
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| `kind` | meaning |"):]
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
    assert named == ["rgr history", "rgr queue", "rgr refactor --plan-only",
                     "rgr repair-notes", "rgr report", "rgr show", "rgr status",
                     "rgr verify"]
    code, out, err = run_rgr(["resume", "--json"], repo.path)
    assert code == 2 and "rgr resume has no --json" in err
    code, out, err = run_rgr(["refactor", "--json", "tidy"], repo.path)
    assert code == 2 and json.loads(out)["error"]["kind"] == "usage"
    assert "--json goes with --plan-only" in err
