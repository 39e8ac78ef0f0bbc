"""Fake-it debt through the real kernel (git, the scratch copies, the notes and pytest
real; the one fake is the agent's session): a GREEN that returns the test's expected
value is accepted and noted as open debt; a planner that then calls the feature done
stops the run as needs-attention naming the debt and what pays it; a later test with
other values, passing once the constant is gone, pays it and the run completes."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from rgr.base.errors import ExitCode, NeedsAttention
from rgr.commands import show, status
from rgr.ecosystems.registry import resolve_test_command
from rgr.observe.report import collect
from rgr.observe.report_text import lines
from rgr.sandbox.sealer import Sealer
from rgr.store.handoff import HandoffState, Phase
from rgr.store.notes import NotesStore
from rgr.store.workspace import Workspace, open_workspace
from rgr.tdd.engine import Orchestrator
from tests.conftest import clean_env, committed_project
from tests.fake_backend import FakeBackend, one_cycle, plans

TEST_1 = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n"
TEST_2 = TEST_1 + "\n\ndef test_adds_other_numbers():\n    assert add(1, 1) == 2\n"
FAKE = "def add(a, b):\n    return 5\n"
REAL = "def add(a, b):\n    return a + b\n"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    command = shlex.join([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                          "-p", "no:xdist", "-p", "no:cacheprovider"])
    (root / "tdd.toml").write_text(f"test_command = {command!r}\n"
                                   "[adequacy]\nmode = \"off\"\n"
                                   # the examiner has tests of its own (tdd/test_examine)
                                   "[acceptance]\nmode = \"off\"\n")
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / "calc.py").write_text("def add(a, b):\n    return 0\n")
    (root / "test_other.py").write_text("def test_nothing_yet():\n    assert True\n")
    return committed_project(root, {}, "start")


def start(ws: Workspace) -> HandoffState:
    state = HandoffState(phase=Phase.REFACTOR, next_phase=Phase.PLAN, cycle_number=0,
                         run_id="r1", feature="add two numbers")
    ws.notes.write(str(ws.repo.head.target), state)
    return state


def orchestrator(ws: Workspace, backend: FakeBackend) -> Orchestrator:
    command = resolve_test_command(ws.config, ws.root)
    return Orchestrator(ws, backend, command, lambda line: None,
                        Sealer(ws, backend, command, None), backoff_base_s=0.0)


def head_state(ws: Workspace) -> HandoffState:
    note = NotesStore(ws.repo).read(str(ws.repo.head.target))
    assert note is not None and note.state is not None
    return note.state


def test_a_faked_green_is_noted_as_debt_and_the_run_stops_instead_of_completing(
        tmp_path: Path) -> None:
    ws = open_workspace(project(tmp_path), env=clean_env(tmp_path / "home"))
    backend = FakeBackend(
        *one_cycle("- [ ] adds two numbers\n", "adds two numbers", TEST_1, FAKE),
        plans("- [x] adds two numbers\n", None))
    with pytest.raises(NeedsAttention) as stopped:
        orchestrator(ws, backend).loop(start(ws))
    assert stopped.value.exit_code == ExitCode.NEEDS_ATTENTION
    assert "calc.py:2 add returns the constant 5" in stopped.value.message
    assert "a test of add with other values than (2, 3)" in stopped.value.message
    # the plan commit is noted as needs-attention, and carries the debt GREEN noted
    state = head_state(ws)
    assert state.resume_phase == Phase.PLAN and state.needs_attention
    assert state.phase != Phase.COMPLETE
    [debt] = state.fake_it_debt
    assert (debt.path, debt.line, debt.function, debt.kind, debt.value, debt.status) == (
        "calc.py", 2, "add", "constant", "5", "open")
    assert debt.test == "test_calc.py::test_adds" and debt.inputs == "(2, 3)"
    # the planner was told the debt before it answered
    plan_prompt = backend.requests[-1].prompt
    assert "Open fake-it debt" in plan_prompt
    assert "calc.py:2 add: constant 5 for inputs (2, 3)" in plan_prompt
    # the report and show say it
    report = collect(ws)
    assert report.status == "needs-attention"
    rows = dict(lines(report))
    assert rows["status"].startswith("needs attention before PLAN (cycle 2): the feature "
                                     "is not complete: fake-it debt is open")
    assert rows["fake-it debt"].startswith("open: calc.py:2 add returns the constant 5")
    assert "way out" not in rows
    shown = dict(show.rows(str(ws.repo.head.target), json.loads(state.to_json())))
    assert "needs a test of add with other values than (2, 3)" in shown["fake-it debt"]
    advice = status.collect(ws)["advice"]
    assert advice.startswith("needs attention: the feature is not complete: fake-it debt")
    # `rgr resume`: the planner is told why the run stopped and the debt; it plans a
    # triangulating test, GREEN generalises, the debt is paid and the run completes
    listing = "- [x] adds two numbers\n- [ ] adds other numbers\n"
    resumed = FakeBackend(
        *one_cycle(listing, "adds other numbers", TEST_2, REAL),
        plans(listing.replace("[ ]", "[x]"), None))
    final = orchestrator(ws, resumed).loop(state)
    assert "fake-it debt was open" in resumed.requests[0].prompt
    assert "Open fake-it debt" in resumed.requests[0].prompt
    assert final.phase == Phase.COMPLETE and final.fake_it_debt[0].paid_by is not None
    assert final.fake_it_debt[0].paid_by.startswith("GREEN cycle 2")
    assert [d.status for d in final.fake_it_debt] == ["paid"]


def test_a_later_test_with_other_values_pays_the_debt_and_the_run_completes(
        tmp_path: Path) -> None:
    ws = open_workspace(project(tmp_path), env=clean_env(tmp_path / "home"))
    backend = FakeBackend(
        *one_cycle("- [ ] adds two numbers\n", "adds two numbers", TEST_1, FAKE),
        *one_cycle("- [x] adds two numbers\n- [ ] adds other numbers\n",
                   "adds other numbers", TEST_2, REAL),
        plans("- [x] adds two numbers\n- [x] adds other numbers\n", None))
    final = orchestrator(ws, backend).loop(start(ws))
    assert final.phase == Phase.COMPLETE and not final.open_debt
    [debt] = final.fake_it_debt
    assert debt.status == "paid" and debt.paid_by is not None
    assert debt.paid_by.startswith("GREEN cycle 2")
    # the planner of cycle 2 was told the debt; the last planner was not
    assert "Open fake-it debt" in backend.requests[4].prompt
    assert "Open fake-it debt" not in backend.requests[-1].prompt
    report = collect(ws)
    assert report.status == "complete"
    assert dict(lines(report))["fake-it debt"].startswith(
        "paid: calc.py:2 add returns the constant 5 (from test_calc.py::test_adds), by "
        "GREEN cycle 2")
