"""RED's new test first seen skipped in GREEN's run goes back to RED (rgr.tdd.engine), through
the real kernel: git, the scratch copies, the notes, pytest and the mutation gate real; the
one fake is the agent's session.

RED's test file cannot load before GREEN writes the code (``from calc import mul``), so
RED's own run cannot see that the test skips itself (a plain ``skip("later")`` call, which
no line pattern reads). GREEN's run does: ``red-skipped``, blamed on RED. GREEN may not
edit tests, so a GREEN retry could never fix it: GREEN's commit stays, as for a survivor
on a line a test runs, and the cycle goes back to RED, told the test. A RED that leaves
it skipped is rejected by name; one that makes it run is held to the mutation gate on
GREEN's code, and the run completes."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from rgr.ecosystems.registry import resolve_test_command
from rgr.sandbox.sealer import Sealer
from rgr.store.handoff import HandoffState, Phase
from rgr.store.notes import NotesStore
from rgr.store.workspace import Workspace, open_workspace
from rgr.tdd.engine import Orchestrator
from tests.conftest import clean_env, committed_project
from tests.fake_backend import FakeBackend, commits, plans

START = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n"
SKIPPED = ("from pytest import skip\n\nfrom calc import mul\n\n\n"
           "def test_multiplies():\n    skip('later')\n    assert mul(2, 3) == 6\n")
STILL_SKIPPED = SKIPPED.replace("skip('later')", "skip('not yet')")
RUNS = SKIPPED.replace("    skip('later')\n", "").replace("from pytest import skip\n\n", "")
CODE = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
ITEM = "multiplies two numbers"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    command = shlex.join([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                          "-p", "no:xdist", "-p", "no:cacheprovider"])
    (root / "tdd.toml").write_text(f"test_command = {command!r}\n"
                                   "[acceptance]\nmode = \"off\"\n")
    (root / ".gitignore").write_text("__pycache__/\n")
    return committed_project(root, {"calc.py": "def add(a, b):\n    return a + b\n",
                                    "test_calc.py": START}, "start")


def start(ws: Workspace) -> HandoffState:
    state = HandoffState(phase=Phase.REFACTOR, next_phase=Phase.PLAN, cycle_number=0,
                         run_id="r1", feature="multiply two numbers")
    ws.notes.write(str(ws.repo.head.target), state)
    return state


def noted(ws: Workspace) -> list[HandoffState]:
    """The branch's notes, oldest first."""
    notes = NotesStore(ws.repo)
    states = []
    for commit in ws.repo.walk(ws.repo.head.target):
        note = notes.read(str(commit.id))
        if note is not None and note.state is not None:
            states.append(note.state)
    return states[::-1]


def test_reds_test_skipped_in_greens_run_goes_back_to_red_not_to_a_green_retry(
        tmp_path: Path) -> None:
    ws = open_workspace(project(tmp_path), env=clean_env(
        tmp_path / "home", {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}))
    backend = FakeBackend(
        plans(f"- [ ] {ITEM}\n", ITEM),
        commits({"test_mul.py": SKIPPED}, "test: " + ITEM),
        commits({"calc.py": CODE}, "feat: " + ITEM),
        # back in RED: first the test is left skipped (another reason), then it runs
        commits({"test_mul.py": STILL_SKIPPED}, "test: not yet"),
        commits({"test_mul.py": RUNS}, "test: run the test of " + ITEM),
        commits({}, "refactor: nothing"),
        plans(f"- [x] {ITEM}\n", None))
    said: list[str] = []
    command = resolve_test_command(ws.config, ws.root)
    final = Orchestrator(ws, backend, command, said.append,
                         Sealer(ws, backend, command, None), backoff_base_s=0.0,
                         ).loop(start(ws))
    assert final.phase == Phase.COMPLETE, said
    states = noted(ws)
    phases = [(s.phase, s.next_phase) for s in states]
    assert phases == [(Phase.REFACTOR, Phase.PLAN), (Phase.PLAN, Phase.RED),
                      (Phase.RED, Phase.GREEN), (Phase.GREEN, Phase.RED),
                      (Phase.RED, Phase.REFACTOR), (Phase.REFACTOR, Phase.PLAN),
                      (Phase.COMPLETE, None)], phases
    green, red = states[3], states[4]
    # GREEN was accepted at its first attempt: no retry it could not win
    assert green.retry_count == 0 and green.adequacy is not None
    assert green.adequacy.skipped_tests == ["test_mul.py::test_multiplies"], green.adequacy
    assert green.adequacy.decision == "test-too-weak" and green.adequacy.tried == 0
    assert "test_mul.py:6" in (green.adequacy.remark or ""), green.adequacy
    [blame] = [line for line in said if "red-skipped, blamed on RED" in line]
    assert "test_mul.py:6" in blame and "back to RED" in blame, blame
    # RED was told the test; the RED that left it skipped was rejected by name
    brief = backend.requests[3].prompt
    assert "test_mul.py::test_multiplies" in brief and "skipped" in brief, brief
    assert red.retry_count == 1, red
    assert any("red-skipped" in line and "still skipped" in line for line in said), said
    # the RED that made it run was held to the gate on GREEN's code, which it kills
    assert red.adequacy is not None and red.adequacy.tried > 0, red.adequacy
    assert red.adequacy.decision == "pass" and red.adequacy.killed == red.adequacy.tried
