"""`rgr verify` runs the tests as a run does (sealed, on a pristine checkout of HEAD),
and `rgr doctor` says what the sandbox shows and why a command cannot run there: on a
real project with a real virtualenv under its own HOME, through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rgr.base.proc import run
from tests.conftest import clean_env, git

PY = sys.executable


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest and six as wheels, downloaded once: each project's venv installs from here
    without the network, as fast as a copy."""
    folder = tmp_path_factory.mktemp("wheels")
    done = run([PY, "-m", "pip", "download", "-q", "-d", str(folder), "pytest", "six"],
               cwd=folder, timeout=600)
    assert done.returncode == 0, done.describe()
    return folder


def venv_project(home: Path, wheels: Path, name: str = "project") -> Path:
    """A Python project under ``home/code``: its suite needs ``six``, which only its
    in-repository ``.venv`` has (ignored by git, as every such venv is)."""
    root = home / "code" / name
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "{name}"\nversion = "0"\n')
    (root / ".gitignore").write_text(".venv/\n__pycache__/\n")
    (root / "test_deps.py").write_text("import six\n\n\ndef test_six():\n    assert six.PY3\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Dev")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    for argv in ([PY, "-m", "venv", str(root / ".venv")],
                 [str(root / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q",
                  "--no-index", "--find-links", str(wheels), "pytest", "six"]):
        done = run(argv, cwd=root, timeout=300)
        assert done.returncode == 0, done.describe()
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, wheels: Path) -> Path:
    """One project for the tests that only read it (a venv costs seconds to make)."""
    return venv_project(tmp_path_factory.mktemp("user") / "home", wheels)


def rgr(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "rgr", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def user_env(home: Path, activate: Path | None = None) -> dict[str, str]:
    env = clean_env(home)
    if activate is not None:
        env["VIRTUAL_ENV"] = str(activate)
        env["PATH"] = f"{activate / 'bin'}{os.pathsep}{env['PATH']}"
    return env


def _venv_files(venv: Path) -> dict[str, tuple[int, int]]:
    """Each file of ``venv`` with its size and modification time."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in venv.rglob("*")
            if p.is_file() and not p.is_symlink()}


def test_verify_runs_the_venvs_pytest_sealed_on_head(project: Path) -> None:
    home = project.parent.parent
    (project / "scratch.txt").write_text("not committed\n")
    before = _venv_files(project / ".venv")
    done = rgr(["verify", "--json"], project, user_env(home, activate=project / ".venv"))
    (project / "scratch.txt").unlink()
    # The sealed run used the venv's pytest and wrote nothing into it (no bytecode, no
    # cache): the user's venv is shown read-only.
    assert _venv_files(project / ".venv") == before
    # HEAD's tests pass; `rgr run` would still stop at the uncommitted file: said in its
    # words, and not ok. The progress lines go to stderr: stdout is the JSON.
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert not report["ok"] and report["tests"]["passed"] == 1
    assert report["commit"] == git(project, "rev-parse", "HEAD").strip()
    assert report["uncommittedPaths"] == 1  # checked as committed, and said so
    [stop] = report["startRefusals"]
    assert stop["problem"].startswith("the working tree has uncommitted changes (scratch.txt)")
    assert "rgr verify: `" in done.stderr and "on a sealed checkout of HEAD" in done.stderr
    shown = {s["path"]: s for s in report["sandbox"]["shown"]}
    assert shown[str(project / ".venv")]["inside"] == ".venv"
    assert report["sandbox"]["enabled"] is True


def test_verify_and_doctor_say_what_run_would_refuse_in_its_words(project: Path) -> None:
    """An untracked virtualenv git does not ignore: `rgr run` stops before its baseline;
    `rgr verify` and `rgr doctor` say so first, with the same message and fix."""
    home = project.parent.parent
    stray = project / "env2"
    stray.mkdir()
    (stray / "pyvenv.cfg").write_text("home = /usr/bin\n")
    env = {**user_env(home, activate=project / ".venv"), "COLUMNS": "300"}
    try:
        verified = rgr(["verify"], project, env)
        doctored = rgr(["doctor"], project, env)
        ran = rgr(["run", "--yes", "--skip-preflight", "anything"], project, env)
    finally:
        stray.joinpath("pyvenv.cfg").unlink()
        stray.rmdir()
    refusal = "echo /env2/ >> .gitignore && git add .gitignore"
    assert ran.returncode == 1 and refusal in ran.stderr, ran.stdout + ran.stderr
    for done in (verified, doctored):
        assert done.returncode == 1, done.stdout + done.stderr
        assert "`rgr run` would stop here before its baseline:" in done.stdout
        assert "untracked environment folders that git does not ignore (env2/)" in done.stdout
        assert refusal in done.stdout, done.stdout
    assert "tests: 1 passed, 0 failed" in verified.stdout


def test_an_unactivated_project_venv_is_found_too(project: Path) -> None:
    home = project.parent.parent
    done = rgr(["doctor", "--json"], project, user_env(home))
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    test_program = next(p for p in report["programs"] if p["role"] == "test")
    assert test_program["inside"] == str(project / ".venv" / "bin" / "pytest")
    assert report["sandbox"]["pathPrefix"] == [str(project / ".venv" / "bin")]


def test_a_hidden_toolchain_is_named_with_the_setting_that_shows_it(
        tmp_path: Path, wheels: Path) -> None:
    home = tmp_path / "home"
    project = venv_project(home, wheels)
    (project / "tdd.toml").write_text("[sandbox]\ndetect = false\n")
    git(project, "add", "tdd.toml")
    git(project, "commit", "-q", "-m", "no detection")
    env = user_env(home, activate=project / ".venv")
    done = rgr(["doctor", "--json"], project, env)
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    (problem,) = report["problems"]
    assert f"{project}/.venv/bin/pytest".replace(str(home), "~") in problem["problem"]
    assert "detect = false" in problem["problem"]
    assert 'share = [".venv"]' in problem["fix"]
    # verify says the same, not a generic runner hint.
    done = rgr(["verify"], project, env)
    assert done.returncode == 1
    assert "cannot run inside the sandbox: pytest is at ~/code/project/.venv/bin/pytest" \
        in done.stdout, done.stdout
    assert 'share = [".venv"]' in done.stdout
    # The human doctor lists what it shows and why.
    done = rgr(["doctor"], project, {**env, "COLUMNS": "200"})
    assert "pytest → NOT FOUND inside" in done.stdout, done.stdout


def test_doctor_lists_what_it_shows_and_why(project: Path) -> None:
    home = project.parent.parent
    (home / ".rustup").mkdir(exist_ok=True)
    env = {**user_env(home, activate=project / ".venv"), "COLUMNS": "200"}
    done = rgr(["doctor"], project, env)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "~/code/project/.venv  a virtualenv of the repository (.venv)" in out, out
    # Only the toolchains of the ecosystems the project uses; the others' homes are not
    # shown and not talked about (the JSON keeps them).
    assert "variables set inside: " in out
    assert "RUSTUP_HOME" not in out and ".rustup" not in out, out
    assert "test   pytest → ~/code/project/.venv/bin/pytest" in out
    assert "tests: 1 passed, 0 failed" in out
    # a Python project: whether CrossHair judges its survivors
    assert "  equivalence   CrossHair " in out, out
    done = rgr(["doctor", "--json"], project, env)
    skipped = json.loads(done.stdout)["sandbox"]["skipped"]
    assert any(".rustup" in line and "the project uses no Rust" in line
               for line in skipped), skipped


def test_doctor_on_a_project_that_is_not_python_says_nothing_of_crosshair(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = home / "code" / "shell"
    root.mkdir(parents=True)
    (root / "tdd.toml").write_text('test_command = "true"\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-q",
        "-m", "config")
    done = rgr(["doctor"], root, {**user_env(home), "COLUMNS": "200"})
    assert "test command  true" in done.stdout, done.stdout + done.stderr
    assert "CrossHair" not in done.stdout and "crosshair" not in done.stdout
