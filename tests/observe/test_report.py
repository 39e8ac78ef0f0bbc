"""The final report and the time split name backends by what the run recorded, never by
a name written in the message: a gemini run's sessions without a cost are gemini's, and
a backend that reports no model time has its sessions left unsplit, not called model
time."""

from __future__ import annotations

from rgr.observe.report import RunReport
from rgr.observe.report_text import lines


def _report(**changes: object) -> RunReport:
    base: dict[str, object] = dict(
        run_id="r1", feature="f", branch="rgr/f", start_branch="main", base_commit=None,
        marker=None, head="0" * 40, status="complete", next_phase=None, cycles=1,
        tests_done=["t"], tests_pending=[], commits=5, phases=4, started_at=None,
        finished_at=None, elapsed_s=60.0, phase_time_s=50.0, cost_usd=0.0,
        rejected_cost_usd=0.0, input_tokens=1000, output_tokens=100, agent_sessions=4,
        permission_denials=0, retries=0)
    base.update(changes)
    return RunReport(**base)  # type: ignore[arg-type]


def _row(report: RunReport, key: str) -> str:
    return dict(lines(report))[key]


def test_sessions_without_a_cost_name_the_backends_the_notes_recorded() -> None:
    cost = _row(_report(sessions_without_cost=4, backends_without_cost=["gemini"]), "cost")
    assert "(4 without a cost: gemini reports tokens only)" in cost
    mixed = _row(_report(sessions_without_cost=3, backends_without_cost=["codex", "gemini"]),
                 "cost")
    assert "(3 without a cost: codex, gemini report tokens only)" in mixed
    assert "without a cost" not in _row(_report(), "cost")


def test_a_backend_without_model_time_is_not_counted_as_model_time() -> None:
    split = {"wallS": 100.0, "agentModelS": 0.0, "agentOtherS": 0.0, "agentUnsplitS": 70.0,
             "testsS": 20.0, "rgrS": 10.0}
    row = _row(_report(time_split=split, model_time_unreported=["gemini"]), "time split")
    assert row == ("1m 40s of rgr runs: 0.0s model (as the agents report it), 0.0s agent "
                   "start-up and tools, 1m 10s in sessions of gemini, which report no model "
                   "time (model and tools together), 20s test runs, 10s rgr and git"), row
    split = {"wallS": 100.0, "agentModelS": 50.0, "agentOtherS": 20.0, "agentUnsplitS": 0.0,
             "testsS": 20.0, "rgrS": 10.0}
    assert "report no model time" not in _row(_report(time_split=split), "time split")
