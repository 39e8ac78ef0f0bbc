"""``rgr show [COMMIT]``: one handoff, readable: phase, test, verification, the agent
session's summary (session, turns, cost, tokens, denials, prompt version), the error."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from rgr.base.backend_names import DEFAULT
from rgr.base.errors import RepositoryError
from rgr.base.outcome import Fields, Outcome, Verbatim
from rgr.base.ui import duration, money, phase_label, short
from rgr.check.mutation.score import lines as adequacy_lines
from rgr.store import acceptance_text, git
from rgr.store.debt_text import line_of_account
from rgr.store.handoff_read import joined_note
from rgr.store.handoff_state import read_state

if TYPE_CHECKING:
    from rgr.store.note_json import NoteJson
    from rgr.store.workspace import Workspace


def _find(ws: Workspace, rev: str | None,
          full_state: bool) -> tuple[str, NoteJson, int, str | None]:
    """The noted commit, its state (JSON names), how far before the asked-for commit
    it lies (only HEAD, the default, falls back to the latest handoff before it), and
    what to say of a note git joined from several records (None for one record).
    ``full_state``: the model's complete dump; else a plainly valid note as it is."""
    commit = git.resolve_commit(ws.repo, rev or "HEAD")
    hex_id = str(commit.id)
    if rev is None:
        found = ws.notes.latest_reachable_text(hex_id)
        if found is None:
            raise RepositoryError("no rgr handoff on this branch yet",
                                  "start a run with `rgr run \"<feature>\"`")
        noted, text, distance = found
    else:
        note = ws.notes.read_text(hex_id)
        if note is None:
            raise RepositoryError(f"{short(hex_id)} has no rgr handoff note",
                                  "`rgr history` (or `rgr history --all`) lists noted commits")
        noted, text, distance = hex_id, note, 0
    state, problem = read_state(text, full=full_state)
    if state is None:
        raise RepositoryError(f"the note on {short(noted)} is not a handoff: "
                              f"{problem}", "run `rgr repair-notes`")
    return noted, state, distance, joined_note(text)


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def rows(commit: str, state: NoteJson) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    started, finished = _time(state.get("startedAt")), _time(state.get("finishedAt"))
    elapsed = (finished - started).total_seconds() if started and finished else None
    following = state.get("nextPhase")
    retries = state.get("retryCount", 0)
    test = state.get("currentTest")
    out += [
        ("commit", commit),
        ("phase", f"{phase_label(state['phase'], state.get('cycleNumber', 0))} "
                  f"(cycle {state.get('cycleNumber', 0)})"
                  + (f", next {following}" if following else "")),
        ("feature", state.get("feature") or "-"),
        ("run", f"{state.get('runId') or '-'} on {state.get('branch') or '-'}"),
        ("time", f"{started.isoformat() if started else '-'} → "
                 f"{finished.isoformat() if finished else '-'}"
                 f" ({duration(elapsed)})"),
        ("current test", test["description"] if test else "-"),
        ("test list", f"{len(state.get('completedTests') or [])} done, "
                      f"{len(state.get('pendingTests') or [])} to do"),
        ("result", f"{state.get('testResult') or '-'}, {retries} retr"
                   f"{'y' if retries == 1 else 'ies'}"),
    ]
    if summary := state.get("summary"):
        out.append(("summary", summary))
    fix = state.get("mergeFix")
    if fix is not None:  # the daemon's merge fixer (rgr.mergefix.engine)
        out.append(("merge fix", f"{fix.get('status')}: onto {fix.get('into')} at "
                                 f"{str(fix.get('baseTip'))[:8]}, conflicts in "
                                 f"{', '.join(fix.get('conflicts') or []) or '-'} (attempt "
                                 f"{fix.get('attempt')} of {fix.get('tries')})"))
    agent = state.get("agent")
    if agent is not None:
        ms = agent.get("durationMs")
        out += [
            ("agent", f"{agent.get('backend', DEFAULT)} session {agent.get('sessionId') or '-'}"
                      + (f", model {agent['model']}" if agent.get("model") else "")),
            ("turns", "-" if (turns := agent.get("numTurns")) is None else str(turns)),
            ("cost", money(cost) if (cost := agent.get("costUsd")) is not None else
                     f"cost not reported ({agent.get('backend', DEFAULT)} reports tokens "
                     "only)"),
            ("agent time", duration(ms / 1000 if ms is not None else None)),
            ("tokens", f"{agent.get('inputTokens') or 0:,} in, "
                       f"{agent.get('outputTokens') or 0:,} out"),
            ("denials", str(agent.get("permissionDenials", 0))),
            ("prompt", agent.get("promptVersion") or "-"),
        ]
    else:
        out.append(("agent", "- (no agent session: the start marker, or recovered by resume)"))
    tests = state.get("tests")
    if tests is not None:
        out.append(("tests", f"{tests.get('passed', 0)} passed, {tests.get('failed', 0)} "
                             f"failed, {tests.get('errors', 0)} errors, "
                             f"{tests.get('skipped', 0)} skipped; exit code "
                             f"{tests.get('exitCode')} ({duration(tests.get('durationS'))})"))
        out += [("failing", test_id) for test_id in tests.get("failing") or []]
        out += [("flaky", f"{test_id} (failed, then passed when run again)")
                for test_id in tests.get("flaky") or []]
    adequacy = state.get("adequacy")
    if adequacy is not None:  # the mutation gate (rgr.check.mutation)
        first, *more = adequacy_lines(adequacy)
        out.append(("mutation", first))
        out += [("mutant", line) for line in more]
    for debt in state.get("fakeItDebt") or []:  # rgr.check.fakeit
        out.append(("fake-it debt", line_of_account(debt)))
    acceptance = state.get("acceptance")
    if isinstance(acceptance, dict):  # the examiner (rgr.tdd.examine)
        out.append(("acceptance", acceptance_text.summary(acceptance)))
        out += [("acceptance test", line) for line in acceptance_text.test_lines(acceptance)]
        out.append(("acceptance file", acceptance_text.stored_line(acceptance)))
    if error := state.get("error"):
        out.append(("error", error))
        if details := state.get("errorDetails"):
            out.append(("error type", details["type"]))
    return out


def run(ws: Workspace, rev: str | None, full_state: bool) -> Outcome[dict[str, object]]:
    """The handoff at ``rev`` (HEAD's latest by default). ``full_state``: the data holds
    the model's complete dump (what --json prints); else a plainly valid note is read as
    it is, no pydantic (the text needs no more)."""
    commit, state, distance, joined = _find(ws, rev, full_state=full_state)
    data: dict[str, object] = {"commit": commit, "commitsAfter": distance}
    data.update(state)
    if joined is not None:
        data["noteProblem"] = joined
    said = text(commit, state, distance)
    if joined is not None:
        said.append(Verbatim(f"\nnote: {joined}"))
    return Outcome(said, data)


def text(commit: str, state: NoteJson, distance: int) -> list[Fields | Verbatim]:
    """What a person reads of the handoff ``state`` on ``commit``, ``distance`` commits
    before the one asked for."""
    out: list[Fields | Verbatim] = [Fields(rows(commit, state))]
    details = state.get("errorDetails")
    if details and details["message"] != state.get("error"):
        out.append(Verbatim(f"\nerror details\n{details['message']}"))
    if distance:
        out.append(Verbatim(f"\n(HEAD has {distance} commit(s) after this handoff)"))
    return out
