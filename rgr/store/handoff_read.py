"""Read one handoff note without building the pydantic models.

``rgr status`` and ``rgr show`` run every few seconds and read one note; importing
pydantic and building :class:`rgr.store.handoff.HandoffState` costs them more than everything
else together (about 100 ms). :func:`read_plain` answers instead for the notes rgr
writes itself: plain JSON whose every known field already has the type the model wants,
so pydantic would accept it without changing a value. Anything else (a missing or
wrong field, a value pydantic would coerce, a date in another spelling) gets None, and
the caller asks the model (:func:`read_state`), which stays the one definition of a
valid note and of its error messages. ``tests/store/test_handoff_read.py`` checks that the
two agree and that every field of the model is known here.
"""

from __future__ import annotations

import json
import re

# typing.TYPE_CHECKING without typing's import (see rgr.base.proc): annotations only, as
# `rgr history` reads notes before much is loaded.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from datetime import UTC as UTC  # re-exported for rgr.store.history.newest
    from datetime import datetime as datetime
    from typing import Any, TypeGuard

    from rgr.store.note_json import NoteJson

    Check = Callable[[object], bool]
else:
    # The same classes, from the C module: CPython's datetime.py defines every class in
    # Python before replacing them with these (1 ms, on `rgr history`'s 25 ms path).
    # rgr.store.history.newest takes them from here too.
    try:
        from _datetime import UTC, datetime
    except ImportError:  # another Python: its own datetime
        from datetime import UTC, datetime  # noqa: F401 (UTC: for rgr.store.history.newest)

#: ``errorDetails.type`` of a note saying an agent took the honest way out (its task
#: cannot be done honestly; ``errorDetails.message`` is its reason): on the kept commits
#: of that attempt, if any, and on the last verified commit's note, where the run stopped.
NEEDS_ATTENTION = "needs-attention"

#: How the ``errorDetails.message`` of a needs-attention stop over open fake-it debt
#: begins: rgr's own stop (the planner found nothing left while debt is open), not an
#: agent's way out.
DEBT_OPEN = "fake-it debt is open: "
#: How a needs-attention message set by the examiner's acceptance tests starts.
ACCEPTANCE_STOP = "the acceptance tests stop the run: "

#: The phase that follows each phase when a note has no nextPhase (older writers).
FOLLOWS: Mapping[str, str] = {
    "PLAN": "RED", "RED": "GREEN", "GREEN": "REFACTOR", "REFACTOR": "PLAN",
    "COMPLETE": "COMPLETE",
}


def _str(value: object) -> bool:
    return isinstance(value, str)


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bool(value: object) -> bool:
    return isinstance(value, bool)


def _float(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _one_of(*choices: str) -> Check:
    return lambda value: value in choices


def _optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _list_of(check: Check) -> Check:
    return lambda value: isinstance(value, list) and all(check(v) for v in value)


#: The spelling pydantic writes (and rgr stores): second precision or microseconds,
#: UTC as Z or an offset. Other spellings are valid too, but left to the model.
_DATETIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?(Z|[+-]\d\d:\d\d)?")


def _datetime(value: object) -> bool:
    if not isinstance(value, str) or not _DATETIME.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _object(fields: Mapping[str, Check], required: tuple[str, ...] = ()) -> Check:
    def check(value: object) -> bool:
        if not isinstance(value, dict) or any(name not in value for name in required):
            return False
        for name, item in value.items():
            known = fields.get(name)
            if known is None:
                # Unknown keys are kept by the model (extra="allow"), unless one is a
                # field's Python name (populate_by_name): that case is the model's.
                if "_" in name:
                    return False
            elif not known(item):
                return False
        return True
    return check


_STR = _optional(_str)
_INT = _optional(_int)
_STRINGS = _list_of(_str)
_PHASE = _one_of(*FOLLOWS)

TEST_CASE = {"description": _str, "testFile": _STR, "implFile": _STR}
ERROR_DETAILS = {"type": _str, "message": _str}
AGENT = {
    "backend": _str, "sessionId": _STR, "model": _STR, "numTurns": _INT,
    "costUsd": _optional(_float), "durationMs": _INT, "inputTokens": _INT,
    "outputTokens": _INT, "permissionDenials": _int, "promptVersion": _STR,
}
TESTS = {
    "command": _STRINGS, "exitCode": _INT, "durationS": _optional(_float), "passed": _int,
    "failed": _int, "errors": _int, "skipped": _int, "failing": _STRINGS,
    "flaky": _STRINGS,
}
BATCH = {
    "id": _str, "goal": _str, "index": _int, "total": _int, "operations": _STRINGS,
    "scope": _STRINGS, "status": _one_of("applied", "failed", "skipped"), "diffLines": _int,
    "gate": _optional(_one_of("fast", "full")), "gateCommands": _STRINGS,
    "by": _one_of("agent", "rope"),
}
REFACTOR = {
    "goal": _str, "plan": _list_of(lambda v: isinstance(v, dict)), "nextBatch": _int,
    "applied": _STRINGS, "failed": _STRINGS, "sourceBranch": _STR, "startCommit": _STR,
}
MERGE_FIX = {
    "into": _str, "baseTip": _str, "jobTip": _str, "conflicts": _STRINGS, "attempt": _int,
    "tries": _int, "status": _one_of("resolved", "rejected"),
}
SANDBOX = {
    "enabled": _bool, "bubblewrap": _STR,
    "shown": _list_of(_object({"path": _str, "why": _str, "inside": _STR}, ("path", "why"))),
    "env": _STRINGS, "pathPrefix": _STRINGS, "aliases": _STRINGS, "homeFiles": _STRINGS,
    "skipped": _STRINGS, "writableCopy": _STRINGS,
}
MUTANT = {
    "path": _str, "line": _int, "col": _int, "operator": _str, "original": _str,
    "replacement": _str,
    "status": _one_of("killed", "survived", "uncovered", "equivalent", "not-run",
                      "unviable", "equivalent-by-rule", "equivalent-by-crosshair",
                      "undecided"),
    "tests": _STRINGS, "reason": _STR, "tellingInput": _STR,
}
ADEQUACY = {
    "phase": _str, "mode": _one_of("reject", "report", "off"), "tried": _int, "killed": _int,
    "survived": _int, "uncovered": _int, "equivalent": _int, "notRun": _int,
    "unviable": _int, "equivalentByRule": _int, "equivalentByCrossHair": _int,
    "undecided": _int, "noiseSkipped": _int,
    "decision": _one_of("pass", "over-implemented", "test-too-weak", "refactor-unpinned",
                        "report-only", "not-measured", "incomplete"),
    "remark": _STR, "durationS": _float,
    "mutants": _list_of(_object(MUTANT, ("path", "line", "col", "operator", "original",
                                         "replacement", "status"))),
}
FAKE_IT_DEBT = {
    "path": _str, "line": _int, "function": _str,
    "kind": _one_of("constant", "input-table", "input-branch"), "value": _str, "test": _str,
    "inputs": _str, "status": _one_of("open", "paid"), "paidBy": _STR,
}
LANDING = {
    "into": _str, "baseTip": _str, "jobTip": _str, "tip": _str,
    "how": _one_of("fast-forward", "rebase", "merge"), "by": _one_of("run", "daemon"),
    "verdict": _one_of("pass", "fail"), "tests": _object(TESTS), "notLoaded": _STRINGS,
    "gateCommands": _STRINGS, "failedCommand": _STR, "verifiedAt": _optional(_datetime),
    "acceptance": _optional(_one_of("pass", "fail", "not-run")),
    "acceptanceMissing": _STRINGS, "copiedFrom": _STR,
}
ACCEPTANCE_TEST = {
    "name": _str, "behaviour": _str,
    "outcome": _one_of("passed", "failed", "error", "skipped", "missing"),
    "ranLast": _STRINGS,
}
ACCEPTANCE = {
    "mode": _one_of("on", "report"),
    "verdict": _one_of("pass", "fail", "error", "declined", "disputed"), "round": _int,
    "file": _str, "stored": _str, "sha256": _str, "commit": _str,
    "tests": _list_of(_object(ACCEPTANCE_TEST, ("name", "behaviour"))),
    "interface": _STRINGS, "reason": _STR, "sessions": _int, "costUsd": _optional(_float),
}
HANDOFF = {
    "phase": _PHASE, "nextPhase": _optional(_PHASE), "cycleNumber": _int,
    "currentTest": _optional(_object(TEST_CASE, ("description",))),
    "completedTests": _STRINGS, "pendingTests": _STRINGS,
    "testResult": _optional(_one_of("PASS", "FAIL")), "error": _STR,
    "errorDetails": _optional(_object(ERROR_DETAILS, ("type", "message"))),
    "retryCount": _int, "schemaVersion": _int, "mode": _one_of("tdd", "refactor"),
    "runId": _STR, "feature": _STR, "branch": _STR, "startBranch": _STR,
    "baseCommit": _STR, "startedAt": _optional(_datetime), "finishedAt": _optional(_datetime),
    "agent": _optional(_object(AGENT)), "tests": _optional(_object(TESTS)),
    "rgrVersion": _STR, "summary": _STR, "configSource": _STR,
    "sandbox": _optional(_object(SANDBOX, ("enabled",))),
    "batch": _optional(_object(BATCH, ("id", "goal", "index", "total"))),
    "refactor": _optional(_object(REFACTOR, ("goal",))),
    "mergeFix": _optional(_object(MERGE_FIX, ("into", "baseTip", "jobTip"))),
    "landing": _optional(_object(LANDING, ("into", "baseTip", "jobTip", "tip"))),
    "adequacy": _optional(_object(ADEQUACY, ("phase",))),
    "fakeItDebt": _list_of(_object(FAKE_IT_DEBT, ("path", "line", "function", "kind",
                                                  "value", "test", "inputs"))),
    "acceptance": _optional(_object(ACCEPTANCE, ("file", "stored", "sha256", "commit"))),
}

#: Every nested object above, by the HandoffState field that holds it (for the test
#: that keeps these tables complete).
NESTED: Mapping[str, Mapping[str, Check]] = {
    "currentTest": TEST_CASE, "errorDetails": ERROR_DETAILS, "agent": AGENT, "tests": TESTS,
    "batch": BATCH, "refactor": REFACTOR, "mergeFix": MERGE_FIX, "sandbox": SANDBOX,
    "adequacy": ADEQUACY, "fakeItDebt": FAKE_IT_DEBT, "landing": LANDING,
    "acceptance": ACCEPTANCE,
}

_is_handoff = _object(HANDOFF, ("phase",))


def is_plain_note(data: object) -> TypeGuard[NoteJson]:
    """Is ``data`` plainly a valid handoff, every field of the type the model wants?"""
    return _is_handoff(data)


def read_plain(text: str | bytes) -> NoteJson | None:
    """The note as its JSON (``NoteJson``: JSON names, fields it omits left out) when it
    is plainly a valid handoff; None when only the model can tell. A joined note
    (:func:`records`) is read as its last record."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        joined = records(text)
        if len(joined) < 2:
            return None
        data = joined[-1]
    return data if is_plain_note(data) else None


def records(text: str | bytes) -> list[object]:
    """The JSON values a note holds, in order: one for every note rgr writes; more for
    a note that git joined before rgr kept a note one record (a rebase copying a note
    onto a commit that had one, notes.rewriteMode=concatenate, rgr.daemon.workcopy; a
    notes merge of two versions of one commit's note, rgr.daemon.remote); none when
    the text is not a sequence of JSON values (a note whose lines a merge sorted)."""
    try:
        whole = text.decode("utf-8") if isinstance(text, bytes) else text
    except UnicodeDecodeError:
        return []
    decoder = json.JSONDecoder()
    found: list[object] = []
    at = 0
    while True:
        while at < len(whole) and whole[at].isspace():
            at += 1
        if at == len(whole):
            return found
        try:
            value, at = decoder.raw_decode(whole, at)
        except ValueError:
            return []
        found.append(value)


def joined_note(text: str | bytes) -> str | None:
    """What a reader says of a note holding several records (see :func:`records`):
    which one it read, and the fix; None for a note of one record."""
    try:
        json.loads(text)
        return None
    except (ValueError, UnicodeDecodeError):
        count = len(records(text))
    if count < 2:
        return None
    return (f"this note holds {count} handoff records that git joined (an older rgr's "
            f"rebase or notes merge gave one commit two notes); the last valid one is "
            f"read; `rgr repair-notes --apply` keeps it alone")


#: rgr.store.handoff.HistoryFields, the note's fields a history listing shows: their defaults,
#: and which keys of the nested objects it keeps (tests/store/history/test_rows.py checks both
#: against the TypedDicts).
HISTORY_DEFAULTS: Mapping[str, Any] = {
    "nextPhase": None, "cycleNumber": 0, "currentTest": None, "testResult": None,
    "error": None, "retryCount": 0, "runId": None, "startedAt": None, "finishedAt": None,
    "agent": None, "batch": None, "adequacy": None,
}
HISTORY_NESTED: Mapping[str, tuple[str, ...]] = {
    "currentTest": ("description", "testFile", "implFile"),
    "agent": ("backend", "model", "sessionId", "costUsd", "durationMs"),
    "batch": ("id", "goal"),
    "adequacy": ("tried", "killed", "decision"),
}


def history_fields_of(plain: Mapping[str, Any]) -> dict[str, Any]:
    """What rgr.store.handoff.history_fields() gives for a note :func:`read_plain` accepted."""
    fields: dict[str, Any] = {}
    for key in ("phase", *HISTORY_DEFAULTS):
        if key not in plain:
            continue
        value = plain[key]
        keep = HISTORY_NESTED.get(key)
        if keep is not None and value is not None:
            value = {name: value[name] for name in keep if name in value}
            if key == "agent" and value.get("costUsd") is not None:
                value["costUsd"] = float(value["costUsd"])  # the model's type
        fields[key] = value
    return fields


def resume_phase(state: NoteJson) -> str:
    """``nextPhase``, or for notes that omit it the phase that follows ``phase``."""
    following = state.get("nextPhase")
    return str(following) if following else FOLLOWS[str(state["phase"])]
