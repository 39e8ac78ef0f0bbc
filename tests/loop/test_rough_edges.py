"""The rough edges a new user hit (issue 15): each one as the CLI shows it, rgr run as a
process of its own on a real repository (forked from a server that imported rgr once:
tests/forked_rgr.py). None of these reach an agent: each stops (or is
answered) before the first agent call, so no claude session is needed."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.conftest import Repo, RunRgr, clean_env, note_json
from tests.forked_rgr import ForkedRgr

TEST_ENV = {"TDD_TEST_COMMAND": "true"}


@pytest.fixture(scope="module")
def forked_rgr(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkedRgr]:
    server = ForkedRgr(clean_env(tmp_path_factory.mktemp("forked-rgr-home")))
    yield server
    server.close()


@pytest.fixture
def run_rgr(forked_rgr: ForkedRgr, tmp_path: Path) -> RunRgr:
    """tests/conftest.py's run_rgr (the same environment, stdin /dev/null, a process of
    its own), forked from a server that imported rgr once (tests/forked_rgr.py): this
    file's 43 rgr calls each spent 0.4-0.8 s of CPU importing the CLI."""
    home = tmp_path / "home"

    def run(args: list[str], cwd: Path, env: Mapping[str, str] | None = None,
            timeout: float = 60) -> tuple[int, str, str]:
        return forked_rgr(args, cwd, clean_env(home, env), timeout)

    return run


@pytest.mark.parametrize("args", [
    ["run", "add two numbers", "--branch", "bad..name", "--yes", "--skip-preflight"],
    ["show", "--json"]])
def test_a_forked_rgr_answers_as_a_started_one(forked_rgr: ForkedRgr, repo: Repo,
                                               tmp_path: Path, args: list[str]) -> None:
    """The fixture above answers for `python -m rgr`: the same code, stdout and stderr."""
    env = clean_env(tmp_path / "home", TEST_ENV)
    started = subprocess.run([sys.executable, "-m", "rgr", *args], cwd=repo.path, env=env,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=60)
    assert forked_rgr(args, repo.path, env) == (started.returncode, started.stdout,
                                                started.stderr)


def _refs(repo: Repo) -> str:
    return repo.git("for-each-ref", "--format=%(refname) %(objectname)")


def _notes(repo: Repo) -> str:
    return repo.git("notes", "--ref=refs/notes/tdd-handoffs", "list", check=False)


# ------------------------------------------------------------------ foreign owner --


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the repository away")
def test_a_repository_owned_by_another_user(run_rgr: RunRgr, repo: Repo) -> None:
    for path in [repo.path, *repo.path.rglob("*")]:
        os.chown(path, 65534, 65534, follow_symlinks=False)
    code, _, err = run_rgr(["status"], repo.path)
    assert code == 1, err
    assert "Traceback" not in err and "internal error" not in err
    assert f"git config --global --add safe.directory {repo.path}" in err


# ------------------------------------------------------------------ --branch names --


@pytest.mark.parametrize("name", ["bad..name", "has space", "", "-dash", "end.lock"])
@pytest.mark.parametrize("command", ["run", "refactor"])
def test_a_bad_branch_name_is_refused_before_anything(run_rgr: RunRgr, repo: Repo,
                                                      command: str, name: str) -> None:
    before = _refs(repo), _notes(repo)
    code, _, err = run_rgr([command, "add two numbers", "--branch", name, "--yes",
                            "--skip-preflight"], repo.path, env=TEST_ENV)
    assert code == 2, err
    assert "--branch" in err and "Traceback" not in err
    assert (_refs(repo), _notes(repo)) == before  # no start commit, no note, no branch


def test_branch_main_hints_at_here_not_git_switch(run_rgr: RunRgr, repo: Repo) -> None:
    code, _, err = run_rgr(["run", "add two numbers", "--branch", "main", "--yes"],
                           repo.path, env=TEST_ENV)
    assert code == 1
    assert "git switch main" not in err
    assert "--here" in err


def test_an_existing_branch_without_a_run_is_not_offered_to_resume(
        run_rgr: RunRgr, repo: Repo) -> None:
    repo.git("branch", "other")
    code, _, err = run_rgr(["run", "add two numbers", "--branch", "other", "--yes"],
                           repo.path, env=TEST_ENV)
    assert code == 1
    assert "rgr resume" not in err and "--branch" in err


# ------------------------------------------------------------------ resume --


def _noted_run(repo: Repo) -> str:
    start = repo.head()
    repo.note_cli(start, note_json("PLAN"))
    return start


def test_resume_lists_the_users_commits_by_id(run_rgr: RunRgr, repo: Repo) -> None:
    _noted_run(repo)
    mine = repo.commit("my own work", {"mine.txt": "x\n"})
    code, _, err = run_rgr(["resume", "--yes", "--skip-preflight"], repo.path, env=TEST_ENV)
    assert code == 1
    assert "<pygit2." not in err
    assert mine[:8] in err


def test_resume_on_a_dirty_tree_suggests_set_aside(run_rgr: RunRgr, repo: Repo) -> None:
    _noted_run(repo)
    (repo.path / "scratch.txt").write_text("wip\n")
    code, _, err = run_rgr(["resume", "--yes", "--skip-preflight"], repo.path, env=TEST_ENV)
    assert code == 1
    assert "rgr resume --set-aside" in err


# ------------------------------------------------------------------ Start? [Y/n] --


def _answer_on_a_terminal(args: list[str], cwd: Path, home: Path, answer: bytes,
                          ) -> tuple[int, str]:
    """Run rgr with a pseudo-terminal as stdin/stdout and type ``answer`` at the prompt."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rgr", *args], cwd=cwd,
                            env=clean_env(home, TEST_ENV), stdin=slave, stdout=slave,
                            stderr=slave, close_fds=True)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    answered = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if not answered and b"Start?" in seen:
                os.write(master, answer)
                answered = True
        elif proc.poll() is not None:
            break
    code = proc.wait(timeout=30)
    os.close(master)
    return code, seen.decode(errors="replace")


def test_answering_no_says_nothing_was_started(repo: Repo, tmp_path: Path) -> None:
    before = _refs(repo)
    code, out = _answer_on_a_terminal(["run", "add two numbers"], repo.path,
                                      tmp_path / "home", b"n\n")
    assert code == 1, out
    after_prompt = out.split("Start?", 1)[1]
    assert "not started" in after_prompt, out
    assert _refs(repo) == before


# ------------------------------------------------------------------ verify --


def test_verify_fast_and_full_exclude_each_other(run_rgr: RunRgr, repo: Repo) -> None:
    code, _, err = run_rgr(["verify", "--fast", "--full"], repo.path, env=TEST_ENV)
    assert code == 2, err
    assert "--fast" in err and "--full" in err


# ------------------------------------------------------------------ report, history --


def test_report_does_not_count_commits_the_user_set_aside(run_rgr: RunRgr,
                                                          tmp_path: Path) -> None:
    from tests.commands.test_report import RUN_ID, make_run, report_json

    repo, ids = make_run(tmp_path, complete=False)
    before = report_json(run_rgr, repo)
    # What `rgr resume --unnoted set-aside` does with the user's own commit: a ref under
    # the run's attempts prefix, no note.
    mine = repo.commit("my own work", {"mine.txt": "x\n"})
    repo.git("update-ref", f"refs/rgr/attempts/{RUN_ID}/unnoted-{mine[:8]}", mine)
    repo.git("reset", "-q", "--hard", ids["green"])
    after = report_json(run_rgr, repo)
    assert after["rejections"] == before["rejections"]
    assert after["rejectionsByRule"] == before["rejectionsByRule"]
    assert after["setAside"] == [f"refs/rgr/attempts/{RUN_ID}/unnoted-{mine[:8]}"]
    code, out, _ = run_rgr(["report"], repo.path)
    assert code == 0 and "unverified" not in out and "set aside" in out


def test_the_start_marker_shows_as_start(run_rgr: RunRgr, tmp_path: Path) -> None:
    from tests.commands.test_report import make_run

    repo, ids = make_run(tmp_path, complete=False)
    code, out, _ = run_rgr(["history"], repo.path)
    assert code == 0
    marker_row = next(line for line in out.splitlines() if line.startswith(ids["marker"][:8]))
    assert "REFACTOR" not in marker_row and "START" in marker_row
    code, out, _ = run_rgr(["show", ids["marker"]], repo.path)
    assert code == 0 and "REFACTOR" not in out and "START" in out


def test_piped_history_rows_have_no_trailing_spaces(run_rgr: RunRgr, tmp_path: Path) -> None:
    from tests.commands.test_report import make_run

    repo, _ = make_run(tmp_path)
    code, out, _ = run_rgr(["history"], repo.path)
    assert code == 0 and len(out.splitlines()) > 4
    assert all(line == line.rstrip() for line in out.splitlines()), out


def test_cost_carries_no_floating_point_noise() -> None:
    from rgr.backends.base import AgentRequest
    from rgr.backends.claude import to_result
    from rgr.loop.outputs import PhaseOutput
    from rgr.store.handoff import AgentSummary

    noisy = 0.1 + 0.2  # 0.30000000000000004
    request = AgentRequest(prompt="p", system_prompt_file=Path("p.md"),
                           output_model=PhaseOutput, tools=(), allowed_tools=(),
                           disallowed_tools=(), max_turns=1, model=None, cwd=Path("."),
                           timeout_s=1, session_id="s")
    result = to_result({"type": "result", "subtype": "success", "is_error": False,
                        "structured_output": {"summary": "x"}, "total_cost_usd": noisy},
                       request)
    assert result.cost_usd == 0.3
    dumped = AgentSummary(cost_usd=noisy).model_dump(by_alias=True)
    assert dumped["costUsd"] == 0.3


# ------------------------------------------------------------------ slugs, --brief --


def test_slugs_keep_letters_and_never_collapse() -> None:
    from rgr.loop.starting import slugify

    assert slugify("Añadir función de búsqueda") == "anadir-funcion-de-busqueda"
    assert slugify("Größe prüfen") == "große-prufen"
    chinese, japanese = slugify("添加两个数字"), slugify("二つの数を足す")
    assert "添加两个数字" in chinese and chinese != japanese
    assert slugify("!!!") != slugify("???") and slugify("!!!").startswith("feature-")
    long_a = "add a function that parses the configuration file and reports errors"
    long_b = "add a function that parses the configuration file and reports warnings"
    assert slugify(long_a) != slugify(long_b) and len(slugify(long_a)) <= 40


def _header_branch(run_rgr: RunRgr, repo: Repo, *args: str) -> str:
    """The branch `rgr run` would create: it is in the header, printed before the
    confirmation that a non-terminal stdin refuses."""
    code, out, err = run_rgr(["run", *args], repo.path, env=TEST_ENV)
    assert code == 1 and "not a terminal" in err, (out, err)
    return next(line.split()[1] for line in out.splitlines() if line.strip().startswith("branch"))


def test_the_branch_of_an_accented_or_non_latin_feature(run_rgr: RunRgr, repo: Repo) -> None:
    assert _header_branch(run_rgr, repo, "Añadir función") == "rgr/anadir-funcion"
    assert _header_branch(run_rgr, repo, "添加数字") == "rgr/添加数字"


def test_a_branch_of_another_feature_with_the_same_slug_is_not_reused(
        run_rgr: RunRgr, repo: Repo) -> None:
    repo.git("branch", "rgr/add-numbers")
    repo.note_cli(repo.rev("rgr/add-numbers"), note_json("PLAN", feature="add numbers"))
    same = run_rgr(["run", "add numbers", "--yes"], repo.path, env=TEST_ENV)
    assert same[0] == 1 and "rgr resume" in same[2]  # the same feature: resume it
    other = _header_branch(run_rgr, repo, "Add numbers!")
    assert other.startswith("rgr/add-numbers-") and other != "rgr/add-numbers"


def test_a_long_feature_is_not_echoed_whole_and_can_come_from_a_file(
        run_rgr: RunRgr, repo: Repo, tmp_path: Path) -> None:
    feature = "Add a parser for the legacy format. " + "Details follow. " * 1250
    brief = tmp_path / "brief.md"
    brief.write_text(feature)
    code, out, err = run_rgr(["run", "--brief", str(brief)], repo.path, env=TEST_ENV)
    assert code == 1 and "not a terminal" in err
    assert len(out) < 2000, len(out)
    assert "Add a parser for the legacy format." in out and "characters)" in out
    code, _, err = run_rgr(["run", "x", "--brief", str(brief)], repo.path, env=TEST_ENV)
    assert code == 2 and "not both" in err
    code, _, err = run_rgr(["run"], repo.path, env=TEST_ENV)
    assert code == 2 and "--brief" in err


# ------------------------------------------------------------------ config messages --


def test_a_hint_names_the_variable_that_set_the_value(run_rgr: RunRgr, repo: Repo) -> None:
    env = {**TEST_ENV, "TDD_AGENT_BINARY": "/nowhere/claude"}
    code, _, err = run_rgr(["run", "add two numbers", "--yes"], repo.path, env=env)
    assert code == 1
    fix = err.split("fix:", 1)[1]
    assert "TDD_AGENT_BINARY" in fix and "tdd.toml" not in fix, err


@pytest.mark.parametrize(("toml", "needles"), [
    ('[gate]\nfsat = ["ruff check"]\n', ["[gate].fsat", "did you mean 'fast'"]),
    ('[refactor]\non_failure = "skp"\n', ["[refactor].on_failure", "did you mean 'skip'"]),
    ('[gate]\nfull_every = "often"\n', ["[gate].full_every must be an integer >= 1",
                                        "'often'"]),
    ('[gate]\nfast = "ruff check"\n', ["[gate].fast must be a list of commands"]),
])
def test_config_mistakes_read_as_sentences(run_rgr: RunRgr, repo: Repo, toml: str,
                                           needles: list[str]) -> None:
    (repo.path / "tdd.toml").write_text(toml)
    code, _, err = run_rgr(["status"], repo.path)
    assert code == 1
    for needle in needles:
        assert needle in err, err
    assert "Input should be" not in err  # pydantic's own wording


# ------------------------------------------------------------------ --json errors --


@pytest.mark.parametrize("command", [["status", "--json"], ["history", "--json"],
                                     ["show", "--json"], ["report", "--json"],
                                     ["repair-notes", "--json"], ["verify", "--json"]])
def test_json_commands_answer_errors_in_json(run_rgr: RunRgr, tmp_path: Path,
                                             command: list[str]) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    code, out, err = run_rgr(command, plain)
    assert code == 1 and "not a git repository" in err
    error = json.loads(out)["error"]
    assert error["exitCode"] == 1 and "not a git repository" in error["message"]
    assert error["hint"] and error["kind"] == "repository"


def test_a_json_usage_error_is_json_too(run_rgr: RunRgr, repo: Repo) -> None:
    code, out, _ = run_rgr(["verify", "--json", "--fast", "--full"], repo.path)
    assert code == 2
    assert json.loads(out)["error"]["exitCode"] == 2


def test_report_does_not_count_a_limit_stop_as_a_rejected_attempt(run_rgr: RunRgr,
                                                                  tmp_path: Path) -> None:
    from tests.commands.test_report import RUN_ID, make_run, report_json

    repo, ids = make_run(tmp_path, complete=False)
    before = report_json(run_rgr, repo)["retries"]
    # What a --max-cycles stop writes on the last verified note before `rgr resume`
    stopped = json.loads(repo.show_note(ids["green"]))
    stopped.update(error="stopped before REFACTOR (cycle 1): the limit of 1 cycle(s) is "
                         "reached", errorDetails={"type": "limit-max-cycles",
                                                  "message": "the limit is reached"})
    repo.note_cli(ids["green"], json.dumps(stopped))
    assert stopped["runId"] == RUN_ID
    assert report_json(run_rgr, repo)["retries"] == before
