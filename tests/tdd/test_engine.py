"""The TDD loop's second look at a blame (rgr.tdd.engine.TddPhase._blame_again), called
directly on a real repository, real git and real pytest (no agent session runs: the
backend is never asked).

GREEN rejected as over-implemented for a survivor, then again for the same survivor:
before a third paid attempt the line is probed with the whole test command. One a test
reaches is RED's gap (the cycle goes back to RED); the first rejection, another phase, or
another decision leave the note as it was."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from rgr.ecosystems.registry import resolve_test_command
from rgr.sandbox.sealer import Sealer
from rgr.store import git as rgr_git
from rgr.store.handoff import AdequacyNote, HandoffState, MutantFinding, Phase
from rgr.store.workspace import open_workspace
from rgr.tdd.engine import Orchestrator, TddPhase
from tests.conftest import clean_env, committed_project, git
from tests.fake_backend import FakeBackend

STUB = "def fmt(value, digits):\n    raise NotImplementedError\n"
TEST = ("from fmt import fmt\n\n\ndef test_formats():\n"
        "    assert isinstance(fmt(1.25, 1), str)\n")
#: The width (line 13) runs in a worker thread, where rgr's tracer sees no test run it:
#: the first gate called its survivor uncovered.
FULL = ("import threading\n\n\ndef fmt(value, digits):\n    box = []\n"
        "    worker = threading.Thread(target=lambda: box.append(_one(value, digits)))\n"
        "    worker.start()\n    worker.join()\n    return box[0]\n\n\n"
        "def _one(value, digits):\n    return f'{value:.{digits}f}'.rjust(8)\n")


def width(status: str = "uncovered") -> MutantFinding:
    return MutantFinding.model_validate({
        "path": "fmt.py", "line": 13, "col": 40, "operator": "constant", "original": "8",
        "replacement": "9", "status": status, "tests": []})


def rejected(*mutants: MutantFinding) -> AdequacyNote:
    return AdequacyNote(phase="GREEN", mode="reject", tried=len(mutants),
                        uncovered=len(mutants), decision="over-implemented",
                        mutants=list(mutants))


def test_green_rejected_twice_for_a_line_a_test_runs_goes_back_to_red(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    command = shlex.join([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                          "-p", "no:xdist", "-p", "no:cacheprovider"])
    (root / "tdd.toml").write_text(f"test_command = {command!r}\n")
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    committed_project(root, {"fmt.py": STUB, "tests/test_fmt.py": TEST}, "test: fmt")
    base_id = git(root, "rev-parse", "HEAD").strip()
    (root / "fmt.py").write_text(FULL)
    git(root, "commit", "-qam", "feat: fmt")
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    backend = FakeBackend()  # no session: nothing here asks an agent
    said: list[str] = []
    tests = resolve_test_command(ws.config, ws.root)
    orchestrator = Orchestrator(ws, backend, tests, said.append,
                                Sealer(ws, backend, tests, None), backoff_base_s=0.0)
    base = rgr_git.resolve_commit(ws.repo, base_id)
    tip = rgr_git.head_commit(ws.repo)
    run = orchestrator.tests_at(tip)
    assert run.all_passed, run.output_excerpt
    prev = HandoffState(phase=Phase.RED, next_phase=Phase.GREEN, cycle_number=1,
                        run_id="r1", feature="fmt")
    green = TddPhase(orchestrator, prev, base, run, phase=Phase.GREEN, cycle=1)

    # The first rejection for a survivor stands: no probe, the note as it was.
    first = rejected(width())
    assert green._blame_again(first, tip, run) is first
    assert not any("blame examined again" in line for line in said)
    # Another decision, or the same survivor rejected in REFACTOR: nothing to examine.
    weak = first.updated(decision="test-too-weak")
    assert green._blame_again(weak, tip, run) is weak
    refactor = TddPhase(orchestrator, prev, base, run, phase=Phase.REFACTOR, cycle=1)
    assert refactor._blame_again(first, tip, run) is first

    # The second rejection for it: probed with every test, the line runs, so it is
    # RED's gap; a survivor rejected once only (line 99, no mutant of the file) stays.
    other = width().updated(line=99)
    again = green._blame_again(rejected(width(), other), tip, run)
    assert [(m.line, m.status) for m in again.mutants] == [(13, "survived"),
                                                           (99, "uncovered")], again
    assert again.decision == "over-implemented"  # line 99 still runs under no test
    [line] = [s for s in said if "blame examined again" in s]
    assert "rejected twice for 1 survivor(s)" in line, said
    # The third time, only the width: nothing left for GREEN to remove, back to RED.
    last = green._blame_again(rejected(width()), tip, run)
    assert last.decision == "test-too-weak" and last.survived == 1, last
    assert "examined again: a test runs this line" in (last.mutants[0].reason or "")
