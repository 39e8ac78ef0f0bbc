"""A flaky existing test never rejects honest work unrun (rgr.check.flaky), through the
real kernel: real git, the scratch copies and pristine checkouts, real pytest; the one
fake is the agent's session. The project's existing test fails on chosen runs of the
suite (a counter file outside the checkout, which the run may write: no sandbox here),
so each test fails without the re-run: a GREEN retry that writes the tree of a rejected
attempt was judged from that attempt's report, and every retry failed unrun."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from harness import sweep_only
from toolchains import ensure_go

from rgr.backends.base import AgentRequest, AgentResult
from rgr.branches.sealed_gate import sealed_gate
from rgr.commands import show
from rgr.ecosystems.registry import resolve_test_command
from rgr.sandbox.sealer import Sealer
from rgr.store.handoff import HandoffState, Phase, TestCase
from rgr.store.workspace import Workspace, open_workspace
from rgr.tdd.engine import Orchestrator
from tests.conftest import clean_env, committed_project, git
from tests.fake_backend import FakeBackend, Session, answer
from tests.loop.test_kernel import green_state

RED_TEST = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n"
REAL = "def add(a, b):\n    return a + b\n"
FLAKY_ID = "test_sometimes.py::test_sometimes"


def flaky_test(counter: Path, failing_runs: set[int]) -> str:
    """An existing test that fails on the suite's runs numbered ``failing_runs`` (0: the
    run of the phase's base, which rgr makes first)."""
    return (f"from pathlib import Path\n\nCOUNTER = Path({str(counter)!r})\n\n\n"
            "def test_sometimes():\n"
            "    run = int(COUNTER.read_text()) if COUNTER.exists() else 0\n"
            "    COUNTER.write_text(str(run + 1))\n"
            f"    assert run not in {sorted(failing_runs)!r}, f'run {{run}} fails'\n")


def red_project(tmp_path: Path, failing_runs: set[int],
                retries: int = 1) -> tuple[Workspace, Path]:
    root = tmp_path / "proj"
    root.mkdir()
    counter = tmp_path / "runs"
    command = shlex.join([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                          "-p", "no:xdist", "-p", "no:cacheprovider"])
    (root / "tdd.toml").write_text(f"test_command = {command!r}\n"
                                   f"max_retries = {retries}\n[adequacy]\nmode = \"off\"\n"
                                   "[acceptance]\nmode = \"off\"\n")
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / "calc.py").write_text("def add(a, b):\n    return 0\n")
    (root / "test_calc.py").write_text(RED_TEST)
    (root / "test_sometimes.py").write_text(flaky_test(counter, failing_runs))
    (root / "test-list.md").write_text("- [ ] adds\n")
    committed_project(root, {}, "test: adds")
    return open_workspace(root, env=clean_env(tmp_path / "home")), counter


def writes_add(request: AgentRequest) -> AgentResult:
    """An honest GREEN: the same tree on every try."""
    (request.cwd / "calc.py").write_text(REAL)
    git(request.cwd, "add", "-A")
    git(request.cwd, "commit", "-q", "-m", "feat: add")
    return answer(request)


def run_green(ws: Workspace, sessions: int, green: Session | None = None,
              state: HandoffState | None = None) -> tuple[HandoffState, list[str]]:
    said: list[str] = []
    command = resolve_test_command(ws.config, ws.root)
    backend = FakeBackend(*[green or writes_add] * sessions)
    orchestrator = Orchestrator(ws, backend, command, said.append,
                                Sealer(ws, backend, command, None), backoff_base_s=0.0)
    return orchestrator.run_phase(state or green_state(ws)), said


def test_a_test_that_fails_once_is_run_again_at_once_and_noted_flaky(
        tmp_path: Path) -> None:
    ws, counter = red_project(tmp_path, failing_runs={1})
    state, said = run_green(ws, sessions=1)
    # accepted on the first attempt: no paid retry for the machine's hiccup
    assert state.phase == Phase.GREEN and state.retry_count == 0
    assert counter.read_text() == "3"  # the base, GREEN's run, and the run again
    assert state.tests is not None and state.tests.passed == 2 and state.tests.failed == 0
    assert state.tests.flaky == [FLAKY_ID]  # noted, not hidden
    assert any(line.startswith("flaky (failed, then passed when run again; noted): "
                               + FLAKY_ID) for line in said)
    shown = show.rows(str(ws.repo.head.target), json.loads(state.to_json()))
    assert ("flaky", f"{FLAKY_ID} (failed, then passed when run again)") in shown


def test_a_retry_writing_a_rejected_tree_is_run_again_not_judged_from_its_report(
        tmp_path: Path) -> None:
    ws, counter = red_project(tmp_path, failing_runs={1, 2})
    state, said = run_green(ws, sessions=2)
    # the first attempt failed twice (rejected); the retry wrote the same tree, which
    # was run again rather than judged from the kept report, and passed
    assert state.phase == Phase.GREEN and state.retry_count == 1
    assert counter.read_text() == "4"
    assert state.tests is not None and state.tests.flaky == [FLAKY_ID]
    assert any(line.startswith(f"running tests again: {FLAKY_ID} failed in this tree's "
                               "last run") for line in said)


def test_a_test_that_keeps_failing_still_rejects_after_one_run_again(
        tmp_path: Path) -> None:
    """The run again is once per attempt, never a way round a real failure."""
    ws, counter = red_project(tmp_path, failing_runs=set(range(1, 100)), retries=0)
    with pytest.raises(Exception, match="GREEN failed 1 time"):
        run_green(ws, sessions=1)
    # the base; the attempt's run and its run again; no third
    assert counter.read_text() == "3"


GO_FLAKY = """package calc

import (
	"os"
	"strconv"
	"testing"
)

func TestSometimes(t *testing.T) {
	seen, _ := os.ReadFile(COUNTER)
	run, _ := strconv.Atoi(string(seen))
	os.WriteFile(COUNTER, []byte(strconv.Itoa(run+1)), 0o644)
	if run == 1 {
	\tt.Fatal("run 1 fails")
	}
}
"""
GO_RED = ('package calc\n\nimport "testing"\n\n'
          'func TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal("d")\n\t}\n}\n')


def writes_double(request: AgentRequest) -> AgentResult:
    (request.cwd / "calc" / "calc.go").write_text(
        "package calc\n\nfunc Double(n int) int { return 2 * n }\n")
    git(request.cwd, "add", "-A")
    git(request.cwd, "commit", "-q", "-m", "feat: double")
    return answer(request)


@sweep_only("tests/check/test_flaky.py", "a Go module: three cold go test runs")
def test_a_flaky_test_hidden_by_reds_compile_error_is_run_again_in_green(
        tmp_path: Path) -> None:
    """Go (as Java): RED's test of code not written yet stops its package compiling, so
    RED's run has none of the package's tests; GREEN is held to the run before RED, and
    the flaky test that passed there is run again rather than rejecting GREEN."""
    ensure_go()
    root = tmp_path / "proj"
    counter = tmp_path / "runs"
    committed_project(root, {
        "tdd.toml": "max_retries = 0\n[adequacy]\nmode = \"off\"\n"
                    "[acceptance]\nmode = \"off\"\n",
        "go.mod": "module example.com/m\n\ngo 1.19\n", "calc/calc.go": "package calc\n",
        "calc/sometimes_test.go": GO_FLAKY.replace("COUNTER", json.dumps(str(counter))),
        "test-list.md": "- [ ] doubles\n"}, "start")
    start = git(root, "rev-parse", "HEAD")
    (root / "calc" / "double_test.go").write_text(GO_RED)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "test: doubles")
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    state = HandoffState(phase=Phase.RED, next_phase=Phase.GREEN, cycle_number=1,
                         run_id="r1", pending_tests=["doubles"], base_commit=start,
                         current_test=TestCase(description="doubles",
                                               test_file="calc/double_test.go",
                                               impl_file="calc/calc.go"))
    ws.notes.write(str(ws.repo.head.target), state)
    done, _ = run_green(ws, sessions=1, green=writes_double, state=state)
    assert done.phase == Phase.GREEN and done.retry_count == 0
    assert counter.read_text() == "3"  # the run before RED, GREEN's, and once more
    assert done.tests is not None and done.tests.flaky == ["example.com/m/calc::TestSometimes"]


def test_a_baseline_that_fails_a_test_once_is_run_again_before_the_run_starts(
        tmp_path: Path) -> None:
    ws, counter = red_project(tmp_path, failing_runs={0})
    said: list[str] = []
    command = resolve_test_command(ws.config, ws.root)
    backend = FakeBackend()
    orchestrator = Orchestrator(ws, backend, command, said.append,
                                Sealer(ws, backend, command, None), backoff_base_s=0.0)
    baseline = orchestrator.baseline()
    assert counter.read_text() == "2"
    assert baseline.flaky == (FLAKY_ID,) and FLAKY_ID not in baseline.failing_ids
    # RED's own failing test (the project is at RED) fails twice: red, not flaky
    assert baseline.failing_ids == ("test_calc.py::test_adds",)


def test_verify_runs_a_start_that_fails_a_test_once_again_as_a_run_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `rgr verify` is a run's baseline: the same second run, the same verdict
    ws, counter = red_project(tmp_path, failing_runs={0})
    (ws.root / "calc.py").write_text(REAL)
    (ws.root / "tdd.toml").write_text((ws.root / "tdd.toml").read_text()
                                      + "[sandbox]\nenabled = false\n")
    git(ws.root, "commit", "-qam", "feat: add")
    _sealer, result, refused = sealed_gate(open_workspace(ws.root, env=ws.env), "fast")
    assert counter.read_text() == "2"
    assert refused is None and result.ok
    assert result.tests.flaky == (FLAKY_ID,)
    said = capsys.readouterr().out
    assert f"flaky (failed, then passed when run again): {FLAKY_ID}" in said, said
