"""The examiner through the real kernel (git, the scratch copies, the notes and pytest
real; the one fake is the agent's session): before COMPLETE a session that sees only
the feature text and the public interface writes acceptance tests; rgr keeps them
outside the repository and runs them on a pristine checkout. A feature built in part
goes back to PLAN with the missing behaviour in words (never the tests' code or
values) and then completes; an honest run passes; a behaviour still missing after the
rounds stops the run with both sides shown."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from rgr.backends.base import AgentRequest, AgentResult
from rgr.base.errors import NeedsAttention
from rgr.branches import landing
from rgr.branches.landing import Integration
from rgr.commands import show, status
from rgr.ecosystems.registry import resolve_test_command
from rgr.observe.report import collect
from rgr.observe.report_text import lines
from rgr.sandbox.sealer import Sealer
from rgr.store import acceptance_store
from rgr.store.handoff import HandoffState, Phase
from rgr.store.workspace import Workspace, open_workspace
from rgr.tdd.engine import Orchestrator
from tests.conftest import clean_env, committed_project, git
from tests.fake_backend import FakeBackend, Session, answer, one_cycle, plans

FEATURE = ("add(a, b) returns the sum of two numbers; it also accepts numbers written as "
           "strings, so add('2', '3') == 5")
TEST_1 = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n"
TEST_2 = TEST_1 + "\n\ndef test_adds_strings():\n    assert add('2', '3') == 5\n"
INTS = "def add(a, b):\n    return a + b\n"
BOTH = "def add(a, b):\n    return int(a) + int(b)\n"
#: The examiner's file: values of its own (4173, 9158), a marker to hunt for.
MARK = "EXAMINER-SECRET-7c1d"
ACCEPTANCE = (f"# {MARK}\nfrom calc import add\n\n\ndef test_sums_integers():\n"
              "    assert add(4173, 9158) == 13331\n\n\n"
              "def test_sums_numbers_written_as_strings():\n"
              "    assert add('4173', '9158') == 13331\n")
BEHAVIOURS = [("test_sums_integers", "add returns the sum of two integers"),
              ("test_sums_numbers_written_as_strings",
               "add accepts numbers written as strings and returns their sum")]


def project(tmp_path: Path, rounds: int = 2) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    command = shlex.join([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                          "-p", "no:xdist", "-p", "no:cacheprovider"])
    (root / "tdd.toml").write_text(f"test_command = {command!r}\n"
                                   f"[adequacy]\nmode = \"off\"\n"
                                   f"[acceptance]\nrounds = {rounds}\n")
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / "calc.py").write_text("def add(a, b):\n    return 0\n")
    return committed_project(root, {}, "start")


SEEN: dict[str, object] = {}


def examiner(text: str = ACCEPTANCE, tests: list[tuple[str, str]] | None = None) -> Session:
    """The examiner: records what its folder held, writes its file, names its tests."""
    def session(request: AgentRequest) -> AgentResult:
        SEEN["files"] = sorted(p.name for p in request.cwd.iterdir())
        SEEN["prompt"] = request.prompt
        SEEN["tools"] = request.tools
        (request.cwd / "test_rgr_acceptance.py").write_text(text)
        return answer(request, cost=0.002, tests=[{"name": n, "behaviour": b}
                                                  for n, b in (tests or BEHAVIOURS)])
    return session


def orchestrator(ws: Workspace, backend: FakeBackend) -> Orchestrator:
    command = resolve_test_command(ws.config, ws.root)
    return Orchestrator(ws, backend, command, lambda line: None,
                        Sealer(ws, backend, command, None), backoff_base_s=0.0)


def start(ws: Workspace) -> HandoffState:
    state = HandoffState(phase=Phase.REFACTOR, next_phase=Phase.PLAN, cycle_number=0,
                         run_id="r1", feature=FEATURE)
    ws.notes.write(str(ws.repo.head.target), state)
    return state


def all_git_objects(root: Path) -> bytes:
    """Every object's content in the repository (loose and packed), notes included."""
    listed = git(root, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    return subprocess.run(["git", "cat-file", "--batch"], cwd=root, input=listed.encode(),
                          capture_output=True, check=True).stdout


def test_a_feature_built_in_part_goes_back_to_plan_in_words_then_completes(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    ws = open_workspace(project(tmp_path), env=clean_env(home))
    backend = FakeBackend(
        *one_cycle("- [ ] adds two numbers\n", "adds two numbers", TEST_1, INTS),
        plans("- [x] adds two numbers\n", None), examiner(),
        *one_cycle("- [x] adds two numbers\n- [ ] adds strings\n", "adds strings", TEST_2,
                   BOTH),
        plans("- [x] adds two numbers\n- [x] adds strings\n", None))
    final = orchestrator(ws, backend).loop(start(ws))
    assert final.phase == Phase.COMPLETE and backend.sessions == []
    # the examiner saw an empty folder, the feature and the signature, never a body
    assert SEEN["files"] == [] and SEEN["tools"] == ("Write",)
    prompt = str(SEEN["prompt"])
    assert "def add(a, b)" in prompt and FEATURE in prompt
    assert "return a + b" not in prompt and "add(2, 3)" not in prompt
    assert "test_rgr_acceptance.py" in prompt
    # the planner after the first examination was told the missing behaviour in words
    told = backend.requests[6].prompt
    assert "Acceptance tests you cannot see found these behaviours missing" in told
    assert "add accepts numbers written as strings and returns their sum" in told
    assert "4173" not in told and "13331" not in told and MARK not in told
    assert "test_sums" not in told  # not even the tests' names
    assert "(the code it ran last: calc.py:2)" in told
    # the examiner wrote once; the second examination ran the same kept file
    assert [r.tools for r in backend.requests].count(("Write",)) == 1
    note = final.acceptance
    assert note is not None and (note.verdict, note.round, note.sessions) == ("pass", 2, 1)
    assert [(t.name, t.outcome) for t in note.tests] == [
        ("test_sums_integers", "passed"), ("test_sums_numbers_written_as_strings", "passed")]
    assert note.file == "test_rgr_acceptance.py" and note.cost_usd == 0.002
    assert note.interface == ["# calc.py (module calc)", "def add(a, b)"]
    # kept outside the repository, under HOME, owner-only; never in a git object
    # the note (readable by every scratch copy) keeps a key, never the store's path
    assert not note.stored.startswith("/") and str(home) not in note.stored
    stored = acceptance_store.state_root({"HOME": str(home)}) / "acceptance" / note.stored
    assert stored.is_relative_to(home) and not stored.is_relative_to(ws.root)
    assert (stored / "tests.txt").read_text() == ACCEPTANCE
    assert (stored.stat().st_mode & 0o777) == 0o700
    assert MARK.encode() not in all_git_objects(ws.root)
    assert not list(ws.root.rglob("test_rgr_acceptance.py"))
    # the note on the plan commit sent back says why, and the report and show say it
    notes = [json.loads(t) for t in ws.notes.all_texts().values()]
    sent_back = [n for n in notes if n["phase"] == n["nextPhase"] == "PLAN"]
    assert len(sent_back) == 1 and sent_back[0]["acceptance"]["verdict"] == "fail"
    # (carried on from note to note until the next examination)
    # with the production line the failing test's code returned from last (rgr's tracer
    # on the acceptance run), never the test's own file, code or values
    assert sent_back[0]["summary"].endswith(
        "add accepts numbers written as strings and returns their sum (the code it ran "
        "last: calc.py:2)")
    assert [(t["outcome"], t.get("ranLast")) for t in sent_back[0]["acceptance"]["tests"]
            ] == [("passed", []), ("failed", ["calc.py:2"])]
    rows = dict(lines(collect(ws)))
    assert rows["acceptance"].startswith("pass: 2 of 2 acceptance test(s) passed")
    assert "$0.0020" in rows["acceptance"]
    shown = dict(show.rows(str(ws.repo.head.target), json.loads(final.to_json())))
    assert shown["acceptance"].startswith("pass: 2 of 2")
    # landing: an integrated tree whose suite is green but that lost the strings again
    # (the base's side dropped them) is held by the acceptance tests: it does not land
    job_tip = str(ws.repo.head.target)
    (ws.root / "calc.py").write_text(INTS)
    (ws.root / "test_calc.py").write_text(TEST_1)
    git(ws.root, "commit", "-qam", "merge: main's side")
    said: list[str] = []
    command = resolve_test_command(ws.config, ws.root)
    landed = landing.judge(ws, lambda: Sealer(ws, backend, command, None),
                           Integration("main", job_tip, job_tip, "merge", "run"), said.append)
    assert not landed.ok and landed.note.acceptance == "fail"
    assert landed.note.tests.failed == 0  # the suite alone would have let it land
    assert landed.problem().startswith("the run's acceptance tests fail on the integrated "
                                       "tree: missing add accepts numbers written as strings")


def test_a_behaviour_still_missing_after_the_rounds_stops_with_both_sides(
        tmp_path: Path) -> None:
    ws = open_workspace(project(tmp_path, rounds=2), env=clean_env(tmp_path / "home"))
    backend = FakeBackend(
        *one_cycle("- [ ] adds two numbers\n", "adds two numbers", TEST_1, INTS),
        plans("- [x] adds two numbers\n", None), examiner(),
        plans("- [x] adds two numbers\n", None))  # the planner insists it is done
    with pytest.raises(NeedsAttention) as stopped:
        orchestrator(ws, backend).loop(start(ws))
    message = stopped.value.message
    assert "the acceptance tests stop the run" in message
    assert "add accepts numbers written as strings and returns their sum" in message
    assert f"The feature text: {FEATURE}" in message
    assert "4173" not in message
    note = ws.notes.read(str(ws.repo.head.target))
    assert note is not None and note.state is not None
    state = note.state
    assert state.needs_attention and state.resume_phase == Phase.PLAN
    assert state.acceptance is not None and state.acceptance.verdict == "disputed"
    report = collect(ws)
    assert report.status == "needs-attention"
    assert report.needs_attention is not None
    assert report.needs_attention["by"] == "acceptance tests"
    advice = status.collect(ws)["advice"]
    assert advice.startswith("needs attention: the feature is not complete: the acceptance "
                             "tests stop the run")


def test_acceptance_tests_that_do_not_load_are_the_examiners_error(tmp_path: Path) -> None:
    ws = open_workspace(project(tmp_path), env=clean_env(tmp_path / "home"))
    broken = "from calc import subtract\n\n\ndef test_sums_integers():\n    assert True\n"
    backend = FakeBackend(
        *one_cycle("- [ ] adds two numbers\n", "adds two numbers", TEST_1, INTS),
        plans("- [x] adds two numbers\n", None), examiner(broken))
    with pytest.raises(NeedsAttention) as stopped:
        orchestrator(ws, backend).loop(start(ws))
    assert "the examination could not judge (error)" in stopped.value.message
    assert "did not load" in stopped.value.message


def test_report_mode_notes_a_failing_examination_and_completes(tmp_path: Path) -> None:
    root = project(tmp_path)
    ws = open_workspace(root, env=clean_env(tmp_path / "home",
                                            {"TDD_ACCEPTANCE_MODE": "report"}))
    backend = FakeBackend(
        *one_cycle("- [ ] adds two numbers\n", "adds two numbers", TEST_1, INTS),
        plans("- [x] adds two numbers\n", None), examiner())
    final = orchestrator(ws, backend).loop(start(ws))
    assert final.phase == Phase.COMPLETE
    assert final.acceptance is not None
    assert (final.acceptance.mode, final.acceptance.verdict) == ("report", "fail")
    kept = acceptance_store.load(ws.env, ws.git_dir, "r1")
    assert kept is not None and kept.text == ACCEPTANCE
