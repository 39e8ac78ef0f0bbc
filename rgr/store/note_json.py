"""The handoff note, described once: its JSON's keys, their types and which are
required, nested objects included, and the schema's version. Everything that reads a
note works from this description:

* the fast reader's checks (``rgr.store.note_checks``, behind
  ``rgr.store.handoff_read.read_plain``) are generated from it
  (``python -m rgr.store.note_checks_source --write``; ``tests/store/test_note_checks_source.py``
  fails when they are stale);
* what the readers return is a :class:`NoteJson` (``rgr show``, ``rgr status``,
  ``rgr report``, the web view), and a history row holds :class:`HistoryFields`, a
  projection of it (``rgr history``: the pydantic TypeAdapter of the full read, and the
  fast reader's projection, rgr.store.handoff_read.history_fields_of);
* the writer's model, ``rgr.store.handoff.HandoffState``, has the same keys under its
  aliases, the same required ones, choices, nullability and value types, all the way
  down (``tests/store/test_note_json.py``), and so does the manual's table (docs/handoff.md).

Every key is optional (``total=False``) except the model's required fields: the fast
reader hands on a note as written, and a note omits the fields an older rgr did not
know. Imported for type checking only by the fast readers (``rgr status`` and
``rgr show`` must not pay for ``typing`` at start-up)."""

# No ``from __future__ import annotations`` here: TypedDict on 3.11 sees ``Required``
# only in an evaluated annotation, and the tests read ``__required_keys__``.
# typing_extensions' TypedDict: pydantic's TypeAdapter (HistoryFields) needs it on 3.11.
from typing import Annotated, Literal, Required

from typing_extensions import TypedDict

#: Bumped when a field changes meaning. Notes without ``schemaVersion`` are from
#: seed-era writers and read as version 0.
SCHEMA_VERSION = 1

#: A date and time as the model writes a ``datetime`` (ISO 8601, UTC): a string in JSON.
#: The fast reader checks its spelling (rgr.store.json_checks.timestamp).
IsoTime = Annotated[str, "ISO 8601 date and time"]

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
    verifiedAt: IsoTime | None
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
    skippedTests: list[str]
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
    startedAt: IsoTime | None
    finishedAt: IsoTime | None
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


# ------------------------------------------------------------- a history row's part --
# What ``rgr history`` shows of a note: a projection of NoteJson (some keys, and of
# four nested objects some keys), each kept key typed as NoteJson types it
# (tests/store/test_note_json.py). Validated straight into a dict by pydantic (no model
# objects, no enum members): at 100,000 notes several times faster than a full
# HandoffState; a valid handoff always validates here.


class AgentShown(TypedDict, total=False):
    backend: str
    model: str | None
    sessionId: str | None
    costUsd: float | None
    durationMs: int | None


class BatchShown(TypedDict, total=False):
    id: Required[str]
    goal: Required[str]


class AdequacyShown(TypedDict, total=False):
    tried: int
    killed: int
    decision: DecisionName


class HistoryFields(TypedDict, total=False):
    """The fields of a note that a history listing shows, under their JSON names."""

    phase: Required[PhaseName]
    nextPhase: PhaseName | None
    cycleNumber: int
    currentTest: CurrentTestJson | None
    testResult: Literal["PASS", "FAIL"] | None
    error: str | None
    retryCount: int
    runId: str | None
    startedAt: IsoTime | None
    finishedAt: IsoTime | None
    agent: AgentShown | None
    batch: BatchShown | None  # refactor mode
    adequacy: AdequacyShown | None  # the mutation gate


class HistoryRow(TypedDict, total=False):
    """A row of ``rgr history`` (rgr.store.history.rows, .newest): the commit, whether
    HEAD reaches it and a time (the note's ``finishedAt``, else the commit's), then
    HistoryFields but ``finishedAt``, every one present (HISTORY_DEFAULTS fill what a
    note omits); or, for a note that is not a handoff, ``problem`` instead of them."""

    commit: Required[str]
    reachable: Required[bool]
    time: Required[str]
    problem: str
    phase: PhaseName
    nextPhase: PhaseName | None
    cycleNumber: int
    currentTest: CurrentTestJson | None
    testResult: Literal["PASS", "FAIL"] | None
    error: str | None
    retryCount: int
    runId: str | None
    startedAt: IsoTime | None
    agent: AgentShown | None
    batch: BatchShown | None
    adequacy: AdequacyShown | None
