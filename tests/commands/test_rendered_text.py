"""The text that status, show, repair-notes, verify's result and refactor's plan and
accept/reject print, pinned byte for byte: each command builds its result and renders it
once (rgr.base.render, from rgr.cli.main), and these pins prove the rendering unchanged. Run in
process on real repositories (no rgr subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgr.base.errors import RgrError
from rgr.base.outcome import Fields, Heading, Outcome, Verbatim
from rgr.base.render import render
from rgr.check.gate import CommandResult, GateResult
from rgr.check.verify import TestReport
from rgr.commands import refactor, repair_notes, show, status, verify
from rgr.ecosystems.base import TestOutcome
from rgr.refactor.plan import Batch, RefactorPlanOutput
from rgr.store.workspace import open_workspace
from tests.conftest import NOTES_REF, Repo, make_repo, note_json


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    monkeypatch.setenv("NO_COLOR", "1")  # plain keys whatever runs the tests
    monkeypatch.setenv("COLUMNS", "200")
    return make_repo(tmp_path, commits=2)


def text_of(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out


def test_status_without_a_handoff(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    assert render(status.run(open_workspace(repo.path), False)) == 0
    assert text_of(capsys) == (
        "branch     main\n"
        f"HEAD       {repo.head()[:8]}\n"
        "test list  -\n"
        "\n"
        "no rgr handoff on this branch yet: start with `rgr run \"<feature>\"`\n")


def test_status_of_a_refactor_that_needs_attention(
        repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    noted = repo.head()
    repo.note_cli(noted, note_json(
        "REFACTOR", cycleNumber=3, mode="refactor", feature="tidy [bold]up[/bold]",
        error="agent gave up", retryCount=2,
        errorDetails={"type": "needs-attention", "message": "the task is contradictory"},
        refactor={"goal": "tidy", "plan": [{"id": "b1"}, {"id": "b2"}], "nextBatch": 1,
                  "applied": ["b1"], "failed": []}))
    repo.commit("after", {"test-list.md": "- [x] adds\n- [ ] subtracts\n"})
    assert render(status.run(open_workspace(repo.path), False)) == 0
    assert text_of(capsys) == (
        "branch        main\n"
        f"HEAD          {repo.head()[:8]}\n"
        f"last handoff  {noted[:8]} (1 commit(s) before HEAD)\n"
        "feature       tidy [bold]up[/bold]\n"
        "last phase    REFACTOR\n"
        "next phase    PLAN\n"
        "cycle         3\n"
        "current test  adds two numbers\n"
        "refactor      1/2 batch(es) applied (next: b2)\n"
        "last error    agent gave up (retries: 2)\n"
        "test list     1/2 done\n"
        "\n"
        "needs attention: an agent said its task cannot be done honestly (the task is "
        "contradictory); decide who is right: `rgr resume` continues with PLAN (telling "
        "the agent the reason), `rgr rollback` redoes an earlier phase\n")


def test_status_of_a_note_that_is_not_a_handoff(
        repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.git("notes", f"--ref={NOTES_REF}", "add", "-m", "hi")
    render(status.run(open_workspace(repo.path), False))
    out = text_of(capsys)
    assert out.startswith("branch        main\n"), out
    assert f"\nproblem       the note on {repo.head()[:8]} is not a handoff: " in out
    assert out.endswith("\n\nrun `rgr repair-notes` to see and set aside broken notes\n")


def test_show_of_an_agents_phase(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    noted = repo.head()
    repo.note_cli(noted, note_json(
        "GREEN", cycleNumber=2, feature="a calculator", summary="made it pass",
        startedAt="2026-11-27T03:00:00+00:00", finishedAt="2026-11-27T03:01:05+00:00",
        error="tests failed", retryCount=1,
        errorDetails={"type": "tests_failed", "message": "tests failed:\n  test_adds"},
        agent={"backend": "claude", "sessionId": "s-1", "model": "m", "numTurns": 4,
               "costUsd": 0.0123, "durationMs": 6000, "inputTokens": 1200,
               "outputTokens": 34, "permissionDenials": 1, "promptVersion": "p1"},
        tests={"passed": 3, "failed": 1, "errors": 0, "skipped": 0, "exitCode": 1,
               "durationS": 0.5, "failing": ["t::test_adds"]}))
    repo.commit("after")
    assert render(show.run(open_workspace(repo.path), None, False)) == 0
    assert text_of(capsys) == (
        f"commit        {noted}\n"
        "phase         GREEN (cycle 2), next REFACTOR\n"
        "feature       a calculator\n"
        "run           - on -\n"
        "time          2026-11-27T03:00:00+00:00 → 2026-11-27T03:01:05+00:00 (1m 05s)\n"
        "current test  adds two numbers\n"
        "test list     0 done, 1 to do\n"
        "result        PASS, 1 retry\n"
        "summary       made it pass\n"
        "agent         claude session s-1, model m\n"
        "turns         4\n"
        "cost          $0.0123\n"
        "agent time    6.0s\n"
        "tokens        1,200 in, 34 out\n"
        "denials       1\n"
        "prompt        p1\n"
        "tests         3 passed, 1 failed, 0 errors, 0 skipped; exit code 1 (0.5s)\n"
        "failing       t::test_adds\n"
        "error         tests failed\n"
        "error type    tests_failed\n"
        "\n"
        "error details\n"
        "tests failed:\n"
        "  test_adds\n"
        "\n"
        "(HEAD has 1 commit(s) after this handoff)\n")


def test_repair_notes_lists_what_it_found(repo: Repo,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    ws = open_workspace(repo.path)
    assert render(repair_notes.run(ws, False)) == 0
    assert text_of(capsys) == f"{NOTES_REF}: no problems found\n"
    repo.git("notes", f"--ref={NOTES_REF}", "add", "-m", "[not] json")
    assert render(repair_notes.run(open_workspace(repo.path), False)) == 1
    out = text_of(capsys)
    assert out.startswith(f"[found] invalid: {repo.head()}: "), out
    assert out.endswith("\n\nrun `rgr repair-notes --apply` to fix these (nothing is "
                        "deleted)\n")
    assert render(repair_notes.run(open_workspace(repo.path), True)) == 0
    assert text_of(capsys).startswith(f"[fixed] invalid: {repo.head()}: ")


def _report(passed: int, failed: int) -> TestReport:
    outcomes = {f"t::p{i}": TestOutcome(f"t::p{i}", "t.py", "passed", "")
                for i in range(passed)}
    outcomes |= {f"t::f{i}": TestOutcome(f"t::f{i}", "t.py", "failed", "no")
                 for i in range(failed)}
    return TestReport(argv=("pytest",), exit_code=1 if failed else 0, duration_s=1.25,
                      timed_out=False, outcomes=outcomes, collection_errors=(),
                      no_tests_collected=False, output_excerpt="E   assert [1] == 2\n")


def test_verify_prints_the_tests_and_each_gate_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    result = GateResult("full", _report(2, 1), [
        CommandResult("ruff check .", 0, 0.5, False, ""),
        CommandResult("mypy [x]", 1, 2.0, False, "error: [x]\n")])
    render(Outcome(verify.result_lines(result, None)))
    assert text_of(capsys) == (
        "tests: 2 passed, 1 failed, 0 errors, 0 skipped in 1.2s\n"
        "ok: ruff check . (0.5s)\n"
        "FAILED: mypy [x] (2.0s)\n"
        "error: [x]\n\n")
    refused = RgrError("no [green] start", "fix")
    render(Outcome(verify.result_lines(GateResult("fast", _report(1, 1)), refused)))
    assert text_of(capsys) == (
        "tests: 1 passed, 1 failed, 0 errors, 0 skipped in 1.2s\n"
        "E   assert [1] == 2\n\n"
        "error: no [green] start\n  fix: fix\n")


def _plan() -> RefactorPlanOutput:
    return RefactorPlanOutput(summary="split [the] parser", batches=[Batch(
        id="b1", goal="move the lexer", scope_globs=["src/*.py"],
        allowed_operations=["move"], diff_budget_loc=80, risk_score=10)])


def test_refactor_prints_its_plan(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    render(refactor.plan_outcome(_plan()))
    out = text_of(capsys)
    assert "refactor plan: split [the] parser" in out
    assert "│ 1 │ b1 │ move the lexer │ src/*.py │ move       │ 80     │ 10   │ fast │" in out
    assert out.endswith("--plan-only: nothing was changed\n")
    render(refactor.plan_outcome(_plan()), as_json=True)
    assert json.loads(text_of(capsys))["batches"][0]["id"] == "b1"


def test_text_items_render_as_they_read_on_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    """Brackets in a line are text, not rich markup (doctor's "[sandbox] show_generated"
    line lost its "[sandbox]" when it was printed as markup)."""
    render(Outcome([Heading("rgr doctor", ": /r/[x]"), "ignored by git; [sandbox] show",
                  Fields([("a", "[b]"), ("long key", "c")]), Verbatim("as [is]\n")]))
    assert text_of(capsys) == ("rgr doctor: /r/[x]\nignored by git; [sandbox] show\n"
                               "a         [b]\nlong key  c\nas [is]\n\n")
