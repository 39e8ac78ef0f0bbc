"""``rgr status``: the handoff state at HEAD, and whether ``rgr resume`` can continue."""

from __future__ import annotations

from typing import Any

from rgr import git
from rgr.handoff import Phase
from rgr.testlist import FILENAME as TEST_LIST
from rgr.testlist import parse_test_list
from rgr.ui import esc, make_console, phase_label, print_json, short
from rgr.workspace import Workspace


def collect(ws: Workspace) -> dict[str, Any]:
    head = git.head_commit(ws.repo)
    head_hex = str(head.id)
    found = ws.notes.latest_reachable(head_hex)
    tests = parse_test_list(git.file_text(ws.repo, head.id, TEST_LIST))
    data: dict[str, Any] = {
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
    record, distance = found
    data["handoffCommit"] = record.commit
    data["commitsSinceHandoff"] = distance
    if record.state is None:
        data["problem"] = f"the note on {short(record.commit)} is not a handoff: {record.problem}"
        data["advice"] = "run `rgr repair-notes` to see and set aside broken notes"
        return data
    state = record.state
    data["state"] = state.model_dump(mode="json", by_alias=True)
    if state.resume_phase == Phase.COMPLETE:
        data["advice"] = "the run is complete: nothing to resume"
    elif data["branch"] is None:
        data["advice"] = "HEAD is detached: check out the run's branch, then `rgr resume`"
    else:
        data["resumable"] = True
        extra = (
            f" ({distance} commit(s) after the last handoff will be verified first)"
            if distance else ""
        )
        data["advice"] = f"`rgr resume` continues with {state.resume_phase}{extra}"
    return data


def run(ws: Workspace, as_json: bool) -> int:
    data = collect(ws)
    if as_json:
        print_json(data)
        return 0
    out = make_console()
    state = data["state"] or {}
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
        test = state.get("currentTest") or {}
        rows += [
            ("feature", state.get("feature") or "-"),
            ("last phase", phase_label(state.get("phase"), state.get("cycleNumber"))),
            ("next phase", str(state.get("nextPhase") or "-")),
            ("cycle", str(state.get("cycleNumber"))),
            ("current test", test.get("description") or "-"),
        ]
        progress = state.get("refactor") or {}
        if state.get("mode") == "refactor" and progress:
            plan = progress.get("plan") or []
            at = progress.get("nextBatch", 0)
            following = f" (next: {plan[at].get('id')})" if at < len(plan) else ""
            failed = progress.get("failed") or []
            rows.append(("refactor", f"{len(progress.get('applied') or [])}/{len(plan)} "
                         f"batch(es) applied{following}"
                         + (f", failed: {', '.join(failed)}" if failed else "")))
        if state.get("error"):
            rows.append(("last error", f"{state['error']} (retries: {state.get('retryCount', 0)})"))
    total = data["testList"]["total"]
    rows.append(("test list", f"{data['testList']['done']}/{total} done" if total else "-"))
    if data["problem"]:
        rows.append(("problem", data["problem"]))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        out.print(f"[bold]{key:<{width}}[/bold]  {esc(value)}")
    out.print(f"\n{esc(data['advice'])}")
    return 0
