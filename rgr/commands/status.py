"""``rgr status``: the handoff state at HEAD, and whether ``rgr resume`` can continue."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rgr.base.outcome import Fields, Outcome, Verbatim
from rgr.base.ui import phase_label, short
from rgr.check.testlist import FILENAME as TEST_LIST
from rgr.check.testlist import parse_test_list
from rgr.store import git
from rgr.store.handoff_read import (
    ACCEPTANCE_STOP,
    DEBT_OPEN,
    NEEDS_ATTENTION,
    joined_note,
    resume_phase,
)
from rgr.store.handoff_state import read_state

if TYPE_CHECKING:
    from typing import NotRequired, TypedDict

    from rgr.store.note_json import NoteJson
    from rgr.store.workspace import Workspace

    class TestListCount(TypedDict):
        done: int
        total: int

    class StatusJson(TypedDict):
        """What ``rgr status --json`` prints: ``state`` is the note (NoteJson)."""

        branch: str | None
        head: str
        notesRef: str
        handoffCommit: str | None
        commitsSinceHandoff: int | None
        testList: TestListCount
        state: NoteJson | None
        problem: str | None
        resumable: bool
        advice: str
        noteProblem: NotRequired[str]


def collect(ws: Workspace, full_state: bool = True) -> StatusJson:
    """The status as data. ``full_state``: ``state`` is the model's complete dump (what
    --json prints); without it, a plainly valid note is read as it is, no pydantic."""
    head = git.head_commit(ws.repo)
    head_hex = str(head.id)
    found = ws.notes.latest_reachable_text(head_hex)
    tests = parse_test_list(git.file_text(ws.repo, head.id, TEST_LIST))
    data: StatusJson = {
        "branch": git.current_branch(ws.repo),
        "head": head_hex,
        "notesRef": ws.notes.ref,
        "handoffCommit": None,
        "commitsSinceHandoff": None,
        "testList": {"done": len(tests.done), "total": tests.total},
        "state": None,
        "problem": None,
        "resumable": False,
        "advice": "no rgr handoff on this branch yet: start with `rgr run \"<feature>\"`",
    }
    if found is None:
        return data
    commit, text, distance = found
    data["handoffCommit"] = commit
    data["commitsSinceHandoff"] = distance
    state, problem = read_state(text, full=full_state)
    if (joined := joined_note(text)) is not None:
        data["noteProblem"] = f"the note on {short(commit)}: {joined}"
    if state is None:
        data["problem"] = f"the note on {short(commit)} is not a handoff: {problem}"
        data["advice"] = "run `rgr repair-notes` to see and set aside broken notes"
        return data
    data["state"] = state
    following = resume_phase(state)
    if following == "COMPLETE":
        data["advice"] = "the run is complete: nothing to resume"
    elif data["branch"] is None:
        data["advice"] = "HEAD is detached: check out the run's branch, then `rgr resume`"
    else:
        data["resumable"] = True
        extra = (
            f" ({distance} commit(s) after the last handoff will be verified first)"
            if distance else ""
        )
        data["advice"] = f"`rgr resume` continues with {following}{extra}"
        details = state.get("errorDetails")
        if details and details["type"] == NEEDS_ATTENTION and \
                str(details["message"]).startswith(DEBT_OPEN):
            data["advice"] = (f"needs attention: the feature is not complete: "
                              f"{details['message']}; `rgr resume` asks the planner again "
                              f"(the debt is in its prompt)")
        elif details and details["type"] == NEEDS_ATTENTION and \
                str(details["message"]).startswith(ACCEPTANCE_STOP):
            data["advice"] = (f"needs attention: the feature is not complete: "
                              f"{details['message']}; decide who is right: `rgr resume` "
                              f"asks the planner again, `[acceptance] mode = \"report\"` "
                              f"if the examiner is wrong")
        elif details and details["type"] == NEEDS_ATTENTION:
            data["advice"] = (f"needs attention: an agent said its task cannot be done "
                              f"honestly ({details['message']}); decide who is "
                              f"right: `rgr resume` continues with {following} (telling "
                              f"the agent the reason), `rgr rollback` redoes an earlier "
                              f"phase")
    return data


def run(ws: Workspace, full_state: bool) -> Outcome[StatusJson]:
    """The status at HEAD; ``full_state``: see :func:`collect`."""
    data = collect(ws, full_state=full_state)
    return Outcome(text(data), data)


def text(data: StatusJson) -> list[Fields | Verbatim]:
    """What a person reads of the status ``data`` (see :func:`collect`)."""
    state = data["state"]
    rows: list[tuple[str, str]] = [
        ("branch", data["branch"] or "(detached HEAD)"),
        ("HEAD", short(data["head"])),
    ]
    if data["handoffCommit"]:
        since = data["commitsSinceHandoff"]
        where = short(data["handoffCommit"])
        if since:
            where += f" ({since} commit(s) before HEAD)"
        rows.append(("last handoff", where))
    if state:
        test = state.get("currentTest")
        rows += [
            ("feature", state.get("feature") or "-"),
            ("last phase", phase_label(state["phase"], state.get("cycleNumber"))),
            ("next phase", str(state.get("nextPhase") or "-")),
            ("cycle", str(state.get("cycleNumber", 0))),
            ("current test", (test["description"] if test else None) or "-"),
        ]
        progress = state.get("refactor")
        if state.get("mode") == "refactor" and progress:
            plan = progress.get("plan") or []
            at = progress.get("nextBatch", 0)
            following = f" (next: {plan[at].get('id')})" if at < len(plan) else ""
            failed = progress.get("failed") or []
            rows.append(("refactor", f"{len(progress.get('applied') or [])}/{len(plan)} "
                         f"batch(es) applied{following}"
                         + (f", failed: {', '.join(failed)}" if failed else "")))
        if error := state.get("error"):
            rows.append(("last error", f"{error} (retries: {state.get('retryCount', 0)})"))
    total = data["testList"]["total"]
    rows.append(("test list", f"{data['testList']['done']}/{total} done" if total else "-"))
    if data["problem"]:
        rows.append(("problem", data["problem"]))
    if data.get("noteProblem"):
        rows.append(("note", data["noteProblem"]))
    return [Fields(rows), Verbatim(f"\n{data['advice']}")]
