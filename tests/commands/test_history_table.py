"""`rgr history`'s table, answered before the CLI loads (rgr.history_quick) and by
the full command: the same bytes either way, N + 1 notes read, nothing from a note
reaching the terminal as a control sequence. Real repositories, real `rgr` processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rgr.commands.history_table import table_lines
from tests.conftest import Repo, RunRgr, fast_commits, make_repo, note_json
from tests.test_startup import imported_by

#: Set in the environment, any TDD_* variable sends `rgr history` to the full command
#: (it may change the config); this one changes nothing history shows.
FULL_COMMAND = {"TDD_MAX_RETRIES": "3"}


def noted_history(repo: Repo, notes: int, gap: int = 0) -> list[str]:
    """``notes`` noted commits, each after ``gap`` commits without a note; the noted
    ones, oldest first. Phases cycle, and every tenth note carries an error."""
    phases = ["PLAN", "RED", "GREEN", "REFACTOR"]
    noted = []
    for i in range(notes):
        commits = fast_commits(repo, gap + 1)
        fields: dict[str, object] = {
            "cycleNumber": i // 4 + 1, "retryCount": i % 3,
            "currentTest": {"description": f"behaviour {i} " + "word " * (i % 7)},
            "startedAt": "2026-11-21T10:00:00Z", "finishedAt": f"2026-11-21T10:{i % 60:02d}:30Z",
            "agent": {"sessionId": f"s{i}", "costUsd": 0.0125 * (i + 1), "model": "opus"},
        }
        if i % 10 == 9:
            fields["error"] = f"the tests of behaviour {i} still fail"
        repo.note_cli(commits[-1], note_json(phases[i % 4], **fields))
        noted.append(commits[-1])
    return noted


def both_ways(run_rgr: RunRgr, repo: Repo, *args: str) -> str:
    quick = run_rgr(["history", *args], repo.path)
    full = run_rgr(["history", *args], repo.path, env=FULL_COMMAND)
    assert quick[0] == full[0] == 0, quick[2] + full[2]
    assert quick[1] == full[1]
    return quick[1]


def test_the_quick_answer_is_the_full_commands_answer(run_rgr: RunRgr, repo: Repo) -> None:
    noted = noted_history(repo, 23)
    out = both_ways(run_rgr, repo)
    lines = out.splitlines()
    assert lines[0].split() == ["commit", "when", "phase", "cycle", "result", "took",
                                "agent", "cost", "test", "/", "error"]
    shown = [line for line in lines if line[:8] in {c[:8] for c in noted}]
    assert [line[:8] for line in shown] == [c[:8] for c in noted]  # oldest first, all 23
    assert "agent cost of the 23 phase(s) shown: $3.4500" in out
    assert "the tests of behaviour 19 still fail" in out
    assert "newest" not in out  # all of them fit in the default 50
    assert all(line == line.rstrip() for line in lines)

    limited = both_ways(run_rgr, repo, "--limit", "5")
    assert [line[:8] for line in limited.splitlines()[1:] if line[0] != " "][:5] == \
        [c[:8] for c in noted[-5:]]
    assert "(the newest 5 handoff(s) shown; --limit 0 shows all)" in limited
    assert both_ways(run_rgr, repo, "--limit=5") == limited


def test_the_quick_answer_loads_no_cli_models_or_renderer(repo: Repo, tmp_path: Path) -> None:
    noted_history(repo, 3)
    heavy = ("click", "pygit2", "pydantic", "pydantic_core", "rich", "rgr.cli",
             "rgr.store.handoff", "rgr.store.workspace", "rgr.base.config")
    quick = imported_by(["history", "--limit", "2"], repo.path, tmp_path)
    assert "rgr.commands.history_table" in quick
    assert not {m for m in quick if m.split(".")[0] in heavy or m in heavy}
    # The control: the same command sent to the full CLI does load them.
    full = imported_by(["history", "--limit", "2"], repo.path, tmp_path, FULL_COMMAND)
    assert {"click", "pygit2", "rgr.cli"} <= full


def test_notes_between_unnoted_commits_are_found_in_widening_reads(
        run_rgr: RunRgr, repo: Repo) -> None:
    # 120 commits without a note between notes: the first read (N + 1 commits) finds
    # fewer than N notes, and the reads after it widen until they have N + 1.
    noted = noted_history(repo, 4, gap=120)
    out = both_ways(run_rgr, repo, "--limit", "3")
    assert [line[:8] for line in out.splitlines()[1:4]] == [c[:8] for c in noted[-3:]]
    assert "the newest 3" in out
    everything = both_ways(run_rgr, repo, "--limit", "4")
    assert "newest" not in everything and noted[0][:8] in everything


def test_what_a_note_says_cannot_drive_the_terminal(run_rgr: RunRgr, repo: Repo) -> None:
    hostile = "clear\x1b[2J\x1b]0;pwned\x07 screen\nnext\x9b31m"
    repo.note_cli(repo.head(), note_json(
        "GREEN", currentTest={"description": hostile}, error="fails \x1b[31mred",
        agent={"sessionId": "s", "model": "m\x1b[1m", "costUsd": 0.5}))
    out = both_ways(run_rgr, repo)
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "clear?[2J?]0;pwned? screen?next?31m" in out and "fails ?[31mred" in out


def test_a_note_only_the_model_reads_goes_to_the_full_command(
        run_rgr: RunRgr, repo: Repo) -> None:
    noted = noted_history(repo, 3)
    repo.note_cli(noted[1], '{"phase": "SNACK"}')
    code, out, err = run_rgr(["history"], repo.path)
    assert code == 0, err
    assert out.count("invalid note") == 1 and noted[2][:8] in out


def test_a_tdd_toml_is_trusted_once_a_command_has_validated_those_bytes(
        run_rgr: RunRgr, tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=2)
    repo.note_cli(repo.head(), note_json("RED"), ref="refs/notes/elsewhere")
    config = repo.path / "tdd.toml"
    config.write_text('notes_ref = "refs/notes/elsewhere"\n')
    probe = tmp_path / "probe"

    # First: the full command validates the file (and marks it as seen).
    assert "rgr.cli" in imported_by(["history"], repo.path, probe)
    code, out, err = run_rgr(["history"], repo.path)
    assert code == 0, err
    assert repo.head()[:8] in out and "RED" in out
    # Then the same bytes are answered quickly, from the notes ref they name, also
    # from a subfolder.
    assert "rgr.cli" not in imported_by(["history"], repo.path, probe)
    (repo.path / "sub").mkdir()
    assert run_rgr(["history"], repo.path / "sub")[1] == out
    # An edit is new bytes: validated again, and a mistake is reported, not skipped.
    config.write_text('notes_ref = "refs/notes/elsewhere"\nmax_retries = "three"\n')
    code, _, err = run_rgr(["history"], repo.path)
    assert code != 0 and "max_retries" in err
    config.write_text('notes_ref = "refs/notes/elsewhere"\n')
    assert "rgr.cli" not in imported_by(["history"], repo.path, probe)


def test_a_forged_mark_cannot_point_history_elsewhere(run_rgr: RunRgr, tmp_path: Path) -> None:
    from rgr.base import config_seen

    repo = make_repo(tmp_path, commits=1)
    repo.note_cli(repo.head(), note_json("RED"))
    text = b'notes_ref = "refs/notes/tdd-handoffs"\n'
    (repo.path / "tdd.toml").write_bytes(text)
    config_seen.remember(str(repo.path / ".git"), text, "not a notes ref\n")
    code, out, err = run_rgr(["history"], repo.path)
    assert code == 0 and "RED" in out, err  # the full command read the file itself


def test_a_worktree_inside_the_repository_shows_its_own_branch(
        run_rgr: RunRgr, repo: Repo) -> None:
    noted = noted_history(repo, 2)
    repo.git("worktree", "add", "-q", "-b", "side", "inner", noted[0])
    inner = Repo(repo.path / "inner")
    side = inner.commit("on the side branch")
    repo.note_cli(side, note_json("RED", currentTest={"description": "the side one"}))
    code, out, err = run_rgr(["history"], inner.path)
    assert code == 0, err
    assert side[:8] in out and "the side one" in out
    assert noted[1][:8] not in out  # main's newer note is not on this branch


def test_packed_notes_refs_are_read(run_rgr: RunRgr, repo: Repo) -> None:
    noted = noted_history(repo, 2)
    repo.git("pack-refs", "--all")
    assert not (repo.path / ".git" / "refs" / "notes" / "tdd-handoffs").exists()
    out = both_ways(run_rgr, repo)
    assert noted[0][:8] in out and noted[1][:8] in out


def rows(count: int, error: str | None = None) -> list[dict[str, object]]:
    return [{"commit": f"{i:02d}" + "a" * 38, "reachable": i % 2 == 0,
             "time": "2026-11-21T10:00:30Z",
             "phase": "GREEN", "nextPhase": "REFACTOR", "cycleNumber": i, "testResult": "PASS",
             "retryCount": 0, "error": error, "startedAt": "2026-11-21T10:00:00Z",
             "currentTest": {"description": "a long behaviour description " * 4},
             "agent": None, "batch": None, "runId": None} for i in range(count)]


def test_on_a_terminal_the_last_column_wraps_and_errors_are_red() -> None:
    lines = table_lines(rows(3, error="tests still fail"), columns=100, styled=True)
    assert lines[0].startswith("\x1b[1mcommit")
    assert all(len(line) <= 100 for line in lines[1:] if "\x1b" not in line)
    assert sum("\x1b[31mtests still fail\x1b[0m" in line for line in lines) == 3
    plain = table_lines(rows(3, error="tests still fail"), columns=None, styled=False)
    assert len(plain) == 1 + 3 * 2  # one line per row, and its error under it
    assert not any("\x1b" in line for line in plain)
    assert plain[1].split()[0] == "00aaaaaa" and plain[3].split()[0] == "01aaaaaa*"


def test_on_a_narrow_terminal_the_last_column_goes_under_its_row() -> None:
    lines = table_lines(rows(2, error="tests still fail"), columns=70, styled=False)
    assert lines[1].startswith("00aaaaaa") and lines[1].endswith("-")  # the cost, last
    assert lines[2].startswith("    a long behaviour description")
    assert all(len(line) <= 70 for line in lines[2:] if line.startswith("    "))
    assert "    tests still fail" in lines


def test_wide_characters_take_two_cells() -> None:
    from rgr.commands.history_table import cells_of

    wide = rows(2)
    wide[0]["currentTest"] = {"description": "日本語のテストが二つのセルを使う " * 5}
    wide[1]["agent"] = {"sessionId": "s", "model": "模型", "costUsd": 0.5}
    lines = table_lines(wide, columns=100, styled=False)
    assert all(cells_of(line) <= 100 for line in lines)
    assert len(lines) > 3  # the description wrapped
    # The columns after the wide model name line up with the header's.
    header, last = lines[0], next(line for line in lines if "$0.5000" in line)
    assert cells_of(last[:last.index("$0.5000")]) + len("$0.5000") == \
        cells_of(header[:header.index("cost")]) + len("cost")
    assert cells_of("e\u0301") == 1 and cells_of("日本") == 4


@pytest.mark.parametrize("args", [["--limit", "0"], ["--all"], ["--json"]])
def test_anything_but_the_plain_table_goes_to_the_full_command(
        args: list[str], repo: Repo, tmp_path: Path) -> None:
    noted_history(repo, 2)
    assert "rgr.cli" in imported_by(["history", *args], repo.path, tmp_path)


@pytest.mark.parametrize("limit", ["x", "-1", ""])
def test_a_bad_limit_is_still_clicks_usage_error(limit: str, run_rgr: RunRgr,
                                                   repo: Repo) -> None:
    noted_history(repo, 1)
    code, _, err = run_rgr(["history", "--limit", limit], repo.path)
    assert code == 2 and "--limit" in err


def test_the_quick_path_shows_as_many_rows_as_the_full_command_by_default() -> None:
    # rgr.history_quick keeps its own copy (importing the table's would load json and
    # datetime before git starts): the two must agree.
    from rgr import history_quick as quick
    from rgr.commands import history_table as table

    assert quick._limit([]) == table.DEFAULT_TABLE_LIMIT
