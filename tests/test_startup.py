"""What each command imports before it answers: a budget of module names, not a timing
(timings are bench/startup_bench.py's job). A failure here means a command now loads
more than it needs; import the new dependency inside the function that uses it."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from rgr import help_text
from rgr.launch import render_help
from tests.conftest import REPO_ROOT, Repo, RunRgr, clean_env, note_json

#: Everything `rgr --version` and `rgr --help` may import beyond a bare interpreter.
STARTUP_BUDGET = {"__future__", "rgr", "rgr.launch", "rgr.base", "rgr.base.terminal",
                  "rgr.help_text", "zlib"}

#: Everything `rgr history` (the table, answered before the CLI: rgr.history_quick) may
#: import beyond a bare interpreter: rgr's reading and drawing modules, json and
#: _datetime (datetime's C half) to read notes, and what they bring (re, which the
#: console script imports anyway). Not typing, subprocess, hashlib or datetime's Python
#: half: 1-5 ms each, on a 25 ms path.
HISTORY_TABLE_BUDGET = STARTUP_BUDGET | {
    "rgr.base.errors", "rgr.base.backend_names", "rgr.store", "rgr.store.handoff_read",
    "rgr.store.json_checks", "rgr.store.note_checks",
    "rgr.store.history", "rgr.store.history.newest", "rgr.commands",
    "rgr.history_quick", "rgr.commands.history_table", "rgr.store.notes_log",
    "rgr.store.gitcli",
    "rgr.base.proc", "rgr.base.ui", "rgr.base.config_seen",
    "json", "json.decoder", "json.encoder", "json.scanner", "_json",
    "_datetime", "select",
    "re", "re._casefix", "re._compiler", "re._constants", "re._parser", "_sre", "copyreg",
    "enum", "types", "functools", "_functools", "collections", "_collections", "operator",
    "_operator", "itertools", "keyword", "reprlib",
}

#: Never loaded by `rgr status` / `rgr show` in a repository without tdd.toml: the
#: models, the config, the table renderer and the retry library all cost start-up time.
READ_PATH_FORBIDDEN = ("pydantic", "pydantic_core", "rich", "tenacity", "rgr.store.handoff",
                       "rgr.base.config", "rgr.commands.report")

#: Runs rgr's real entry point and writes the modules it added to sys.modules (taken at
#: exit, after the command ran) to the file named by argv[1]. A quick answer ends with
#: os._exit (rgr.launch.answered), which runs no atexit hook: the probe wraps it.
PROBE = """
import atexit, os, sys
before = set(sys.modules)
out, args = sys.argv[1], sys.argv[2:]

def dump():
    with open(out, "w") as f:
        f.write(repr(sorted(set(sys.modules) - before)))

real_exit = os._exit

def exit_after_dump(code):
    dump()
    real_exit(code)

atexit.register(dump)
os._exit = exit_after_dump
from rgr.launch import main
main(args)
"""


def imported_by(args: list[str], cwd: Path, tmp_path: Path,
                env: Mapping[str, str] | None = None) -> set[str]:
    out = tmp_path / "modules.txt"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args], cwd=cwd,
        env=clean_env(tmp_path / "home", env), capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    modules = ast.literal_eval(out.read_text())
    assert isinstance(modules, list)
    return set(modules)


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["-h"]])
def test_version_and_help_stay_within_the_import_budget(
    args: list[str], tmp_path: Path
) -> None:
    extra = imported_by(args, tmp_path, tmp_path) - STARTUP_BUDGET
    assert not extra, f"`rgr {' '.join(args)}` now imports {sorted(extra)}"


def test_a_command_still_loads_the_cli(tmp_path: Path) -> None:
    # The probe sees imports: a command that is not a quick answer reaches click.
    modules = imported_by(["status", "--help"], tmp_path, tmp_path)
    assert "click" in modules and "rgr.cli" in modules


@pytest.mark.parametrize("config", [None, 'notes_ref = "refs/notes/tdd-handoffs"\n'])
def test_the_history_table_stays_within_its_import_budget(
    config: str | None, run_rgr: RunRgr, repo: Repo, tmp_path: Path
) -> None:
    repo.note_cli(repo.head(), note_json("RED", feature="a calculator"))
    if config is not None:  # validated once by the full command, then trusted
        (repo.path / "tdd.toml").write_text(config)
        assert run_rgr(["status"], repo.path)[0] == 0
    modules = imported_by(["history"], repo.path, tmp_path)
    assert "rgr.history_quick" in modules and "rgr.cli" not in modules
    extra = modules - HISTORY_TABLE_BUDGET
    assert not extra, f"`rgr history` now imports {sorted(extra)}"


@pytest.mark.parametrize("command", [["status"], ["show"]])
def test_status_and_show_read_without_models_or_rich(
    command: list[str], repo: Repo, tmp_path: Path
) -> None:
    repo.note_cli(repo.head(), note_json("RED", feature="a calculator"))
    modules = imported_by(command, repo.path, tmp_path)
    loaded = sorted(m for m in modules
                    if any(m == f or m.startswith(f + ".") for f in READ_PATH_FORBIDDEN))
    assert not loaded, f"`rgr {command[0]}` now imports {loaded}"


def test_the_saved_help_is_what_click_prints() -> None:
    assert render_help() == help_text.TEXT, (
        "rgr/cli.py's help changed: run `python -m rgr.launch --write-help` and commit "
        "rgr/help_text.py")


def test_the_saved_help_is_tied_to_this_cli_source() -> None:
    from rgr.launch import _source_crc

    assert _source_crc() == help_text.SOURCE_CRC, (
        "rgr/cli.py changed since rgr/help_text.py was written (rgr --help now asks "
        "click, slowly): run `python -m rgr.launch --write-help` and commit it")


def test_a_stale_help_text_falls_back_to_click(tmp_path: Path) -> None:
    """Copy the package, change cli.py's help without renewing the copy: the answer
    must be click's (new text), never the saved one."""
    import shutil

    package = tmp_path / "pkg" / "rgr"
    shutil.copytree(REPO_ROOT / "rgr", package)
    cli = package / "cli.py"
    cli.write_text(cli.read_text().replace(
        "rgr holds an AI coding agent to strict test-driven development.",
        "rgr, changed after the help was saved."))
    proc = subprocess.run(
        [sys.executable, "-m", "rgr", "--help"], cwd=tmp_path / "pkg",
        env=clean_env(tmp_path / "home", {"PYTHONPATH": str(tmp_path / "pkg")}),
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "rgr, changed after the help was saved." in proc.stdout


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["history"]])
def test_quick_answers_reach_a_pipe_whole(args: list[str], repo: Repo, tmp_path: Path) -> None:
    # A quick answer ends with os._exit (no interpreter teardown), so what it wrote must
    # be flushed first. With Python's usual buffered stdout: this machine sets
    # PYTHONUNBUFFERED, which would hide a missing flush.
    from rgr import __version__

    repo.note_cli(repo.head(), note_json("RED", feature="a calculator"))
    env = clean_env(tmp_path / "home", {"COLUMNS": "100"})
    env.pop("PYTHONUNBUFFERED", None)
    proc = subprocess.run([sys.executable, "-m", "rgr", *args], cwd=repo.path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    if args == ["history"]:
        assert proc.stdout.startswith("commit ") and repo.head()[:8] in proc.stdout
        assert proc.stdout.endswith("\n")
    else:
        assert proc.stdout == (f"rgr, version {__version__}\n" if args == ["--version"]
                               else help_text.TEXT)


def test_a_narrow_terminal_gets_clicks_wrapping(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "rgr", "--help"], cwd=tmp_path,
        env=clean_env(tmp_path / "home", {"COLUMNS": "60"}),
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert max(len(line) for line in proc.stdout.splitlines()) <= 60
    assert proc.stdout != help_text.TEXT


def test_the_process_wrapper_imports_nothing_heavy() -> None:
    # rgr.store.history.newest reads through rgr.base.proc before click loads: importing the module
    # must stay cheap (subprocess and friends load when a process is started).
    probe = ("import sys; before = set(sys.modules); import rgr.base.proc; "
             "print(' '.join(sorted(set(sys.modules) - before)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    heavy = {"subprocess", "threading", "ctypes", "dataclasses", "inspect", "pathlib",
             "typing", "signal"}
    assert not heavy & set(done.stdout.split()), done.stdout
