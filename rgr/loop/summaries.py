"""What a handoff note says of a test run and of an agent session: the summaries every
mode, the landing check and the commands write into notes, made in one place."""

from __future__ import annotations

from pathlib import Path

from rgr.backends.base import AgentResult
from rgr.check.verify import TestReport
from rgr.store.agents import AgentSpec, prompt_path, prompt_version
from rgr.store.handoff import AgentSummary, TestRunSummary


def tests_summary(report: TestReport) -> TestRunSummary:
    return TestRunSummary(
        command=list(report.argv), exit_code=report.exit_code,
        duration_s=round(report.duration_s, 3), passed=report.passed, failed=report.failed,
        errors=report.errors, skipped=report.skipped, failing=list(report.failing_ids[:50]),
        flaky=list(report.flaky[:50]),
    )


def agent_summary(result: AgentResult | None, spec: AgentSpec | None,
                  root: Path) -> AgentSummary | None:
    """What a note says of the session that made (or failed) its commit."""
    if result is None:
        return None
    version = prompt_version(prompt_path(root, spec.prompt)) if spec else None
    return AgentSummary(
        backend=result.backend,
        session_id=result.session_id,
        model=result.model,
        num_turns=result.num_turns,
        # None: the backend reports no cost (codex), which is not the same as $0.
        cost_usd=result.cost_usd,
        duration_ms=result.duration_ms,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        permission_denials=len(result.permission_denials),
        prompt_version=version,
    )
