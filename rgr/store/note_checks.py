"""The fast reader's checks of a handoff note, by JSON key (rgr.store.handoff_read):
GENERATED from rgr.store.note_json by ``python -m rgr.store.note_checks_source --write``.
Do not edit; change rgr.store.note_json and write this again."""

from __future__ import annotations

from rgr.store.json_checks import (
    boolean,
    dictionary,
    integer,
    list_of,
    number,
    object_of,
    one_of,
    optional,
    string,
    timestamp,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    from collections.abc import Mapping

    from rgr.store.json_checks import Check


CURRENT_TEST: Mapping[str, Check] = {
    "description": string,
    "testFile": optional(string),
    "implFile": optional(string),
}


ERROR_DETAILS: Mapping[str, Check] = {
    "type": string,
    "message": string,
}


AGENT: Mapping[str, Check] = {
    "backend": string,
    "sessionId": optional(string),
    "model": optional(string),
    "numTurns": optional(integer),
    "costUsd": optional(number),
    "durationMs": optional(integer),
    "inputTokens": optional(integer),
    "outputTokens": optional(integer),
    "permissionDenials": integer,
    "promptVersion": optional(string),
}


VERIFICATION: Mapping[str, Check] = {
    "command": list_of(string),
    "exitCode": optional(integer),
    "durationS": optional(number),
    "passed": integer,
    "failed": integer,
    "errors": integer,
    "skipped": integer,
    "failing": list_of(string),
    "flaky": list_of(string),
}


SHOWN_PATH: Mapping[str, Check] = {
    "path": string,
    "why": string,
    "inside": optional(string),
}


SANDBOX: Mapping[str, Check] = {
    "enabled": boolean,
    "bubblewrap": optional(string),
    "shown": list_of(object_of(SHOWN_PATH, ("path", "why"))),
    "env": list_of(string),
    "pathPrefix": list_of(string),
    "aliases": list_of(string),
    "homeFiles": list_of(string),
    "skipped": list_of(string),
    "writableCopy": list_of(string),
}


BATCH: Mapping[str, Check] = {
    "id": string,
    "goal": string,
    "index": integer,
    "total": integer,
    "operations": list_of(string),
    "scope": list_of(string),
    "status": one_of("applied", "failed", "skipped"),
    "diffLines": integer,
    "gate": optional(one_of("fast", "full")),
    "gateCommands": list_of(string),
    "by": one_of("agent", "rope"),
}


REFACTOR: Mapping[str, Check] = {
    "goal": string,
    "plan": list_of(dictionary),
    "nextBatch": integer,
    "applied": list_of(string),
    "failed": list_of(string),
    "sourceBranch": optional(string),
    "startCommit": optional(string),
}


MERGE_FIX: Mapping[str, Check] = {
    "into": string,
    "baseTip": string,
    "jobTip": string,
    "conflicts": list_of(string),
    "attempt": integer,
    "tries": integer,
    "status": one_of("resolved", "rejected"),
}


MUTANT: Mapping[str, Check] = {
    "path": string,
    "line": integer,
    "col": integer,
    "operator": string,
    "original": string,
    "replacement": string,
    "status": one_of("killed", "survived", "uncovered", "equivalent", "not-run", "unviable",
        "equivalent-by-rule", "equivalent-by-crosshair", "undecided"),
    "tests": list_of(string),
    "reason": optional(string),
    "tellingInput": optional(string),
}


ADEQUACY: Mapping[str, Check] = {
    "phase": string,
    "mode": one_of("reject", "report", "off"),
    "tried": integer,
    "killed": integer,
    "survived": integer,
    "uncovered": integer,
    "equivalent": integer,
    "notRun": integer,
    "unviable": integer,
    "equivalentByRule": integer,
    "equivalentByCrossHair": integer,
    "undecided": integer,
    "noiseSkipped": integer,
    "skippedTests": list_of(string),
    "decision": one_of("pass", "over-implemented", "test-too-weak", "refactor-unpinned",
        "report-only", "not-measured", "incomplete"),
    "remark": optional(string),
    "durationS": number,
    "mutants": list_of(object_of(MUTANT, ("path", "line", "col", "operator", "original",
        "replacement", "status"))),
}


LANDING: Mapping[str, Check] = {
    "into": string,
    "baseTip": string,
    "jobTip": string,
    "tip": string,
    "how": one_of("fast-forward", "rebase", "merge"),
    "by": one_of("run", "daemon"),
    "verdict": one_of("pass", "fail"),
    "tests": object_of(VERIFICATION, ()),
    "notLoaded": list_of(string),
    "gateCommands": list_of(string),
    "failedCommand": optional(string),
    "verifiedAt": optional(timestamp),
    "acceptance": optional(one_of("pass", "fail", "not-run")),
    "acceptanceMissing": list_of(string),
    "copiedFrom": optional(string),
}


FAKE_IT_DEBT: Mapping[str, Check] = {
    "path": string,
    "line": integer,
    "function": string,
    "kind": one_of("constant", "input-table", "input-branch"),
    "value": string,
    "test": string,
    "inputs": string,
    "status": one_of("open", "paid"),
    "paidBy": optional(string),
}


ACCEPTANCE_TEST: Mapping[str, Check] = {
    "name": string,
    "behaviour": string,
    "outcome": one_of("passed", "failed", "error", "skipped", "missing"),
    "ranLast": list_of(string),
}


ACCEPTANCE: Mapping[str, Check] = {
    "mode": one_of("on", "report"),
    "verdict": one_of("pass", "fail", "error", "declined", "disputed"),
    "round": integer,
    "file": string,
    "stored": string,
    "sha256": string,
    "commit": string,
    "tests": list_of(object_of(ACCEPTANCE_TEST, ("name", "behaviour"))),
    "interface": list_of(string),
    "reason": optional(string),
    "sessions": integer,
    "costUsd": optional(number),
}


HANDOFF: Mapping[str, Check] = {
    "phase": one_of("PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE"),
    "nextPhase": optional(one_of("PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE")),
    "cycleNumber": integer,
    "currentTest": optional(object_of(CURRENT_TEST, ("description",))),
    "completedTests": list_of(string),
    "pendingTests": list_of(string),
    "testResult": optional(one_of("PASS", "FAIL")),
    "error": optional(string),
    "errorDetails": optional(object_of(ERROR_DETAILS, ("type", "message"))),
    "retryCount": integer,
    "schemaVersion": integer,
    "mode": one_of("tdd", "refactor"),
    "runId": optional(string),
    "feature": optional(string),
    "branch": optional(string),
    "startBranch": optional(string),
    "baseCommit": optional(string),
    "startedAt": optional(timestamp),
    "finishedAt": optional(timestamp),
    "agent": optional(object_of(AGENT, ())),
    "tests": optional(object_of(VERIFICATION, ())),
    "rgrVersion": optional(string),
    "summary": optional(string),
    "configSource": optional(string),
    "sandbox": optional(object_of(SANDBOX, ("enabled",))),
    "batch": optional(object_of(BATCH, ("id", "goal", "index", "total"))),
    "refactor": optional(object_of(REFACTOR, ("goal",))),
    "mergeFix": optional(object_of(MERGE_FIX, ("into", "baseTip", "jobTip"))),
    "adequacy": optional(object_of(ADEQUACY, ("phase",))),
    "landing": optional(object_of(LANDING, ("into", "baseTip", "jobTip", "tip"))),
    "fakeItDebt": list_of(object_of(FAKE_IT_DEBT, ("path", "line", "function", "kind", "value",
        "test", "inputs"))),
    "acceptance": optional(object_of(ACCEPTANCE, ("file", "stored", "sha256", "commit"))),
}


#: Every nested object's table, by the NoteJson key that holds it.
NESTED: Mapping[str, Mapping[str, Check]] = {
    "currentTest": CURRENT_TEST,
    "errorDetails": ERROR_DETAILS,
    "agent": AGENT,
    "tests": VERIFICATION,
    "sandbox": SANDBOX,
    "batch": BATCH,
    "refactor": REFACTOR,
    "mergeFix": MERGE_FIX,
    "adequacy": ADEQUACY,
    "landing": LANDING,
    "fakeItDebt": FAKE_IT_DEBT,
    "acceptance": ACCEPTANCE,
}


#: note_json.HistoryFields: what a history row holds for each key a note
#: omits (its required keys are never omitted).
HISTORY_DEFAULTS: Mapping[str, object] = {
    "nextPhase": None,
    "cycleNumber": 0,
    "currentTest": None,
    "testResult": None,
    "error": None,
    "retryCount": 0,
    "runId": None,
    "startedAt": None,
    "finishedAt": None,
    "agent": None,
    "batch": None,
    "adequacy": None,
}


#: note_json.HistoryFields: the keys it keeps of each nested object.
HISTORY_NESTED: Mapping[str, tuple[str, ...]] = {
    "currentTest": ("description", "testFile", "implFile"),
    "agent": ("backend", "model", "sessionId", "costUsd", "durationMs"),
    "batch": ("id", "goal"),
    "adequacy": ("tried", "killed", "decision"),
}
