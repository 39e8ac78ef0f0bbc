"""A handoff note's JSON, as types: what ``rgr.store.handoff_read.read_plain`` and
``rgr.store.handoff_state.read_state`` return, and what ``rgr show``, ``rgr status``,
the history and the web view read. The keys and their types are
``rgr.store.handoff.HandoffState``'s aliases (camelCase) and field types, nested models
included; ``tests/store/test_note_json.py`` checks that the two agree, so they cannot drift.

Every key is optional (``total=False``) except the model's required fields: the fast
reader hands on a note as written, and a note omits the fields an older rgr did not
know. Imported for type checking only by the fast readers (``rgr status`` and
``rgr show`` must not pay for ``typing`` at start-up)."""

# No ``from __future__ import annotations`` here: TypedDict on 3.11 sees ``Required``
# only in an evaluated annotation, and the test reads ``__required_keys__``.
from typing import Literal, Required, TypedDict

PhaseName = Literal["PLAN", "RED", "GREEN", "REFACTOR", "COMPLETE"]


# (No class name starts with "Test": pytest would try to collect it where imported.)


class CurrentTestJson(TypedDict, total=False):
    description: Required[str]
    testFile: str | None
    implFile: str | None


class ErrorDetailsJson(TypedDict, total=False):
    type: Required[str]
    message: Required[str]


class AgentJson(TypedDict, total=False):
    backend: str
    sessionId: str | None
    model: str | None
    numTurns: int | None
    costUsd: float | None
    durationMs: int | None
    inputTokens: int | None
    outputTokens: int | None
    permissionDenials: int
    promptVersion: str | None


class VerificationJson(TypedDict, total=False):
    command: list[str]
    exitCode: int | None
    durationS: float | None
    passed: int
    failed: int
    errors: int
    skipped: int
    failing: list[str]
    flaky: list[str]


class LandingJson(TypedDict, total=False):
    into: Required[str]
    baseTip: Required[str]
    jobTip: Required[str]
    tip: Required[str]
    how: Literal["fast-forward", "rebase", "merge"]
    by: Literal["run", "daemon"]
    verdict: Literal["pass", "fail"]
    tests: VerificationJson
    notLoaded: list[str]
    gateCommands: list[str]
    failedCommand: str | None
    verifiedAt: str | None
    acceptance: Literal["pass", "fail", "not-run"] | None
    acceptanceMissing: list[str]
    copiedFrom: str | None


class FakeItDebtJson(TypedDict, total=False):
    path: Required[str]
    line: Required[int]
    function: Required[str]
    kind: Required[Literal["constant", "input-table", "input-branch"]]
    value: Required[str]
    test: Required[str]
    inputs: Required[str]
    status: Literal["open", "paid"]
    paidBy: str | None


class BatchJson(TypedDict, total=False):
    id: Required[str]
    goal: Required[str]
    index: Required[int]
    total: Required[int]
    operations: list[str]
    scope: list[str]
    status: Literal["applied", "failed", "skipped"]
    diffLines: int
    gate: Literal["fast", "full"] | None
    gateCommands: list[str]
    by: Literal["agent", "rope"]


class RefactorJson(TypedDict, total=False):
    goal: Required[str]
    plan: list[dict[str, object]]
    nextBatch: int
    applied: list[str]
    failed: list[str]
    sourceBranch: str | None
    startCommit: str | None


class MergeFixJson(TypedDict, total=False):
    into: Required[str]
    baseTip: Required[str]
    jobTip: Required[str]
    conflicts: list[str]
    attempt: int
    tries: int
    status: Literal["resolved", "rejected"]


class ShownPathJson(TypedDict, total=False):
    path: Required[str]
    why: Required[str]
    inside: str | None


class SandboxJson(TypedDict, total=False):
    enabled: Required[bool]
    bubblewrap: str | None
    shown: list[ShownPathJson]
    env: list[str]
    pathPrefix: list[str]
    aliases: list[str]
    homeFiles: list[str]
    skipped: list[str]
    writableCopy: list[str]


MutantStatusName = Literal["killed", "survived", "uncovered", "equivalent", "not-run",
                           "unviable", "equivalent-by-rule", "equivalent-by-crosshair",
                           "undecided"]
DecisionName = Literal["pass", "over-implemented", "test-too-weak", "refactor-unpinned",
                       "report-only", "not-measured", "incomplete"]


class MutantJson(TypedDict, total=False):
    path: Required[str]
    line: Required[int]
    col: Required[int]
    operator: Required[str]
    original: Required[str]
    replacement: Required[str]
    status: Required[MutantStatusName]
    tests: list[str]
    reason: str | None
    tellingInput: str | None


class AdequacyJson(TypedDict, total=False):
    phase: Required[str]
    mode: Literal["reject", "report", "off"]
    tried: int
    killed: int
    survived: int
    uncovered: int
    equivalent: int
    notRun: int
    unviable: int
    equivalentByRule: int
    equivalentByCrossHair: int
    undecided: int
    noiseSkipped: int
    decision: DecisionName
    remark: str | None
    durationS: float
    mutants: list[MutantJson]


class AcceptanceTestJson(TypedDict, total=False):
    name: Required[str]
    behaviour: Required[str]
    outcome: Literal["passed", "failed", "error", "skipped", "missing"]
    ranLast: list[str]


class AcceptanceJson(TypedDict, total=False):
    mode: Literal["on", "report"]
    verdict: Literal["pass", "fail", "error", "declined", "disputed"]
    round: int
    file: Required[str]
    stored: Required[str]
    sha256: Required[str]
    commit: Required[str]
    tests: list[AcceptanceTestJson]
    interface: list[str]
    reason: str | None
    sessions: int
    costUsd: float | None


class NoteJson(TypedDict, total=False):
    """A handoff note (``HandoffState``) as JSON. Dates are strings here (ISO 8601)."""

    phase: Required[PhaseName]
    nextPhase: PhaseName | None
    cycleNumber: int
    currentTest: CurrentTestJson | None
    completedTests: list[str]
    pendingTests: list[str]
    testResult: Literal["PASS", "FAIL"] | None
    error: str | None
    errorDetails: ErrorDetailsJson | None
    retryCount: int
    schemaVersion: int
    mode: Literal["tdd", "refactor"]
    runId: str | None
    feature: str | None
    branch: str | None
    startBranch: str | None
    baseCommit: str | None
    startedAt: str | None
    finishedAt: str | None
    agent: AgentJson | None
    tests: VerificationJson | None
    rgrVersion: str | None
    summary: str | None
    configSource: str | None
    sandbox: SandboxJson | None
    batch: BatchJson | None
    refactor: RefactorJson | None
    mergeFix: MergeFixJson | None
    adequacy: AdequacyJson | None
    landing: LandingJson | None
    fakeItDebt: list[FakeItDebtJson]
    acceptance: AcceptanceJson | None
