"""``rgr show [COMMIT]``: one handoff, readable: phase, test, verification, the agent
session's summary (session, turns, cost, tokens, denials, prompt version), the error."""

from __future__ import annotations

from typing import Any

from rgr import git
from rgr.commands.report import duration, money
from rgr.errors import RepositoryError
from rgr.handoff import HandoffState
from rgr.ui import esc, make_console, print_json, short
from rgr.workspace import Workspace


def _find(ws: Workspace, rev: str | None) -> tuple[str, HandoffState, int]:
    """The noted commit, its state, and how far before the asked-for commit it lies
    (only HEAD, the default, falls back to the latest handoff before it)."""
    commit = git.resolve_commit(ws.repo, rev or "HEAD")
    hex_id = str(commit.id)
    if rev is None:
        found = ws.notes.latest_reachable(hex_id)
        if found is None:
            raise RepositoryError("no rgr handoff on this branch yet",
                                  "start a run with `rgr run \"<feature>\"`")
        record, distance = found
    else:
        noted = ws.notes.read(hex_id)
        if noted is None:
            raise RepositoryError(f"{short(hex_id)} has no rgr handoff note",
                                  "`rgr history` (or `rgr history --all`) lists noted commits")
        record, distance = noted, 0
    if record.state is None:
        raise RepositoryError(f"the note on {short(record.commit)} is not a handoff: "
                              f"{record.problem}", "run `rgr repair-notes`")
    return record.commit, record.state, distance


def rows(commit: str, state: HandoffState) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    elapsed = (state.finished_at - state.started_at).total_seconds() \
        if state.started_at and state.finished_at else None
    out += [
        ("commit", commit),
        ("phase", f"{state.phase} (cycle {state.cycle_number})"
                  + (f", next {state.next_phase}" if state.next_phase else "")),
        ("feature", state.feature or "-"),
        ("run", f"{state.run_id or '-'} on {state.branch or '-'}"),
        ("time", f"{state.started_at.isoformat() if state.started_at else '-'} → "
                 f"{state.finished_at.isoformat() if state.finished_at else '-'}"
                 f" ({duration(elapsed)})"),
        ("current test", state.current_test.description if state.current_test else "-"),
        ("test list", f"{len(state.completed_tests)} done, {len(state.pending_tests)} to do"),
        ("result", f"{state.test_result or '-'}, {state.retry_count} retr"
                   f"{'y' if state.retry_count == 1 else 'ies'}"),
    ]
    if state.summary:
        out.append(("summary", state.summary))
    agent = state.agent
    if agent is not None:
        out += [
            ("agent", f"{agent.backend} session {agent.session_id or '-'}"
                      + (f", model {agent.model}" if agent.model else "")),
            ("turns", "-" if agent.num_turns is None else str(agent.num_turns)),
            ("cost", money(agent.cost_usd) if agent.cost_usd is not None else
                     f"cost not reported ({agent.backend} reports tokens only)"),
            ("agent time", duration(agent.duration_ms / 1000 if agent.duration_ms is not None
                                    else None)),
            ("tokens", f"{agent.input_tokens or 0:,} in, {agent.output_tokens or 0:,} out"),
            ("denials", str(agent.permission_denials)),
            ("prompt", agent.prompt_version or "-"),
        ]
    else:
        out.append(("agent", "- (no agent session: the start marker, or recovered by resume)"))
    tests = state.tests
    if tests is not None:
        out.append(("tests", f"{tests.passed} passed, {tests.failed} failed, {tests.errors} "
                             f"errors, {tests.skipped} skipped; exit code {tests.exit_code} "
                             f"({duration(tests.duration_s)})"))
        out += [("failing", test_id) for test_id in tests.failing]
    if state.error:
        out.append(("error", state.error))
        if state.error_details:
            out.append(("error type", state.error_details.type))
    return out


def run(ws: Workspace, rev: str | None, as_json: bool) -> int:
    commit, state, distance = _find(ws, rev)
    if as_json:
        data: dict[str, Any] = {"commit": commit, "commitsAfter": distance}
        data.update(state.model_dump(mode="json", by_alias=True))
        print_json(data)
        return 0
    out = make_console()
    table = rows(commit, state)
    width = max(len(k) for k, _ in table)
    for key, value in table:
        out.print(f"[bold]{key:<{width}}[/bold]  {esc(value)}")
    if state.error_details and state.error_details.message != state.error:
        out.print(f"\n[bold]error details[/bold]\n{esc(state.error_details.message)}")
    if distance:
        out.print(f"\n(HEAD has {distance} commit(s) after this handoff)")
    return 0
