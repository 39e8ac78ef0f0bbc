"""Survivors inside a fake are GREEN's fake-it, not RED's weak test
(rgr.check.fakeit.blame)."""

from __future__ import annotations

from pathlib import Path

from rgr.check.fakeit.blame import fake_lines, survivors_of_fakes
from rgr.check.verify import TestReport
from rgr.ecosystems.registry import resolve_test_command
from rgr.sandbox.sealer import Sealer
from rgr.store import git as rgr_git
from rgr.store.handoff import AdequacyNote, FakeItDebt, HandoffState, MutantFinding, Phase
from rgr.store.workspace import open_workspace
from rgr.tdd.engine import Orchestrator, TddPhase
from tests.conftest import clean_env, committed_project, git
from tests.fake_backend import FakeBackend


def test_survivors_inside_a_fake_are_greens_debt_not_a_weak_test() -> None:
    """rgr.check.fakeit.blame: a test-too-weak gate whose survivors all lie in a function
    the new fake-it debt names is lifted (GREEN owes the debt); one survivor elsewhere
    keeps RED's gap."""
    source = ("package p\n\nfunc Add(a int) int {\n\treturn a + 1\n}\n\n"
              "func Count(name string) int {\n"
              '\treturn map[string]int{"a": 4, "c": 0}[name]\n}\n')
    debt = [FakeItDebt(path="p.go", line=8, function="Count", kind="input-table",
                       value='{"a", "c"}', test="p_test.go:9", inputs='"a"')]

    def note(*lines: int) -> AdequacyNote:
        return AdequacyNote(phase="GREEN", mode="reject", decision="test-too-weak",
                            survived=len(lines), mutants=[
                                MutantFinding(path="p.go", line=n, col=2, operator="constant",
                                              original='"c"', replacement='""',
                                              status="survived", tests=["TestCount"])
                                for n in lines])

    lifted = survivors_of_fakes(note(8), debt, {"p.go": source})
    assert lifted.decision == "pass" and "fake-it" in (lifted.remark or ""), lifted
    assert survivors_of_fakes(note(8, 4), debt, {"p.go": source}).decision == "test-too-weak"
    assert survivors_of_fakes(note(8), [], {"p.go": source}).decision == "test-too-weak"


def test_a_fakes_lines_are_its_functions_whole_in_python_too() -> None:
    source = ("def add(a, b):\n    return a + b\n\n\n"
              "def count(name):\n    table = {'a': 4}\n    return table[name]\n")
    debt = [FakeItDebt(path="tally.py", line=6, function="count", kind="input-table",
                       value="{'a'}", test="t.py::test_count", inputs="'a'")]
    assert fake_lines("tally.py", source, debt) == {5, 6, 7}
    assert fake_lines("other.py", source, debt) == set()


def test_the_loop_keeps_survivors_inside_greens_fake_as_its_debt(tmp_path: Path) -> None:
    """The rule where the TDD loop applies it (rgr.tdd.engine.TddPhase._fakes_first), on a
    real repository: GREEN's table keyed by the test's inputs, its default's survivor on
    the line the test runs, is the fake's (the gate passes, GREEN owes the debt, RED is
    not sent back); a survivor in another function stays RED's gap. No test runs here:
    the whole `rgr run` is tests/e2e/test_referee_blame.py's (full sweep)."""
    root = committed_project(tmp_path / "proj", {
        "calc.py": "def add(a, b):\n    raise NotImplementedError\n",
        "tdd.toml": "test_command = \"python -m pytest -q\"\n"}, "start")
    start = git(root, "rev-parse", "HEAD").strip()
    (root / "test_calc.py").write_text("from calc import add\n\n\ndef test_adds():\n"
                                       "    assert add(2, 3) == 5\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "test: add")
    red = git(root, "rev-parse", "HEAD").strip()
    (root / "calc.py").write_text("def add(a, b):\n    return {(2, 3): 5}.get((a, b), 0)\n"
                                  "\n\ndef sub(a, b):\n    return a - b\n")
    git(root, "commit", "-qam", "feat: add")
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    backend = FakeBackend()  # no session: nothing here asks an agent
    said: list[str] = []
    tests = resolve_test_command(ws.config, ws.root)
    orchestrator = Orchestrator(ws, backend, tests, said.append,
                                Sealer(ws, backend, tests, None), backoff_base_s=0.0)
    prev = HandoffState(phase=Phase.RED, next_phase=Phase.GREEN, cycle_number=1,
                        run_id="r1", feature="add", base_commit=start)
    unrun = TestReport(argv=("pytest",), exit_code=1, duration_s=0.1, timed_out=False,
                       outcomes={}, collection_errors=(), no_tests_collected=False,
                       output_excerpt="")
    base = rgr_git.resolve_commit(ws.repo, red)
    green = TddPhase(orchestrator, prev, base, unrun, phase=Phase.GREEN, cycle=1)
    tip = rgr_git.head_commit(ws.repo)

    def weak(line: int) -> AdequacyNote:
        return AdequacyNote(phase="GREEN", mode="reject", decision="test-too-weak",
                            tried=4, killed=3, survived=1, mutants=[MutantFinding(
                                path="calc.py", line=line, col=34, operator="constant",
                                original="0", replacement="1", status="survived",
                                tests=["test_calc.py::test_adds"])])

    lifted = green._fakes_first(weak(2), tip)
    assert lifted.decision == "pass", lifted
    assert "inside fake-it special cases (calc.py:2 add): GREEN's fake-it debt, not a " \
           "weak test" in (lifted.remark or ""), lifted
    assert any("GREEN's fake-it debt" in line for line in said), said
    [debt] = green._debt(tip)
    assert (debt.path, debt.line, debt.kind, debt.status) == ("calc.py", 2, "input-table",
                                                              "open")
    # a survivor in sub (no fake) keeps RED's gap: back to RED
    assert green._fakes_first(weak(6), tip).decision == "test-too-weak"
