"""The handoff note's model: what rgr writes as JSON under ``refs/notes/tdd-handoffs``.

The note's JSON is described once, in rgr.store.note_json (keys, types, the schema's
version); this model writes it, validates what only it can read, and is checked
against that description down to each value's type (``tests/store/test_note_json.py``).

Field names are camelCase on the wire, as in the seed specification, so that notes
written by other implementations of the same protocol read the same. Compatibility
rules:

* a note that holds only the seed's fields (``phase`` ... ``retryCount``) is valid:
  every field rgr added has a default;
* a reader keeps fields it does not know (``extra="allow"``): a newer rgr may add some,
  and rewriting such a note must not drop them;
* anything that is not a JSON object of this shape is an :class:`InvalidNote`, which
  callers report where it appears instead of crashing.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from typing import Literal, Self, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
)
from pydantic.alias_generators import to_camel
from typing_extensions import TypedDict  # pydantic needs it on 3.11

from rgr.base.backend_names import DEFAULT
from rgr.store import debt_text, handoff_read, json_checks, note_checks, note_json
from rgr.store.note_json import HistoryFields


def file_stamp(path: str) -> tuple[str, int, int]:
    info = os.stat(path)
    return path, info.st_size, info.st_mtime_ns


def _loaded_code() -> tuple[tuple[str, int, int], ...]:
    import pydantic.version
    import pydantic_core._pydantic_core as core

    return tuple(file_stamp(path) for path in (
        __file__, note_json.__file__, handoff_read.__file__, note_checks.__file__,
        json_checks.__file__, pydantic.version.__file__, str(core.__file__)))


#: The schema's code as this process loaded it: (path, size, mtime_ns) of this module,
#: the note's description (rgr.store.note_json), the fast reader's modules and
#: pydantic's. rgr.store.history.cache files history rows only while the files on disk
#: are still these (not after an upgrade under a running rgr), which needs
#: no clock: a wall clock stepped back made a start-time comparison misjudge.
LOADED_CODE = _loaded_code()

#: The schema's version, from the note's one description (rgr.store.note_json).
SCHEMA_VERSION = note_json.SCHEMA_VERSION


class Phase(StrEnum):
    PLAN = "PLAN"
    RED = "RED"
    GREEN = "GREEN"
    REFACTOR = "REFACTOR"
    COMPLETE = "COMPLETE"


NEEDS_ATTENTION = handoff_read.NEEDS_ATTENTION  # defined where pydantic is not needed


#: The fixed cycle. PLAN may also go to COMPLETE, which the orchestrator decides.
FOLLOWS = {
    Phase.PLAN: Phase.RED,
    Phase.RED: Phase.GREEN,
    Phase.GREEN: Phase.REFACTOR,
    Phase.REFACTOR: Phase.PLAN,
    Phase.COMPLETE: Phase.COMPLETE,
}


class TestResult(StrEnum):
    __test__ = False  # not a pytest test class, despite the name
    PASS = "PASS"
    FAIL = "FAIL"


_Model = TypeVar("_Model", bound=BaseModel)


def validated_update(model: _Model, **changes: object) -> _Model:
    """``model`` with ``changes`` (by field name), validated as a new model would be:
    ``model_copy(update=...)`` checks nothing, so a wrong type or a misspelt field went
    into the note unseen. An unknown name is a TypeError (the models keep unknown keys
    as extras, so validation alone would take it); a wrong value a ValidationError. The
    fields keep their order and the note's extra keys stay, so the JSON only differs by
    the changes."""
    cls = type(model)
    unknown = sorted(set(changes) - set(cls.model_fields))
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(unknown)}")
    data: dict[str, object] = {name: getattr(model, name) for name in cls.model_fields}
    return cls.model_validate({**data, **(model.model_extra or {}), **changes})


class CamelModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=True
    )

    def updated(self, **changes: object) -> Self:
        """This model with ``changes``, validated (see ``validated_update``)."""
        return validated_update(self, **changes)


class TestCase(CamelModel):
    """The one behaviour a cycle is about: chosen by the planner, tested in RED."""

    __test__ = False
    description: str
    test_file: str | None = None
    impl_file: str | None = None


class ErrorDetails(CamelModel):
    type: str
    message: str


class AgentSummary(CamelModel):
    """What the agent session of this phase cost and did. Never holds a prompt or a secret."""

    backend: str = DEFAULT
    session_id: str | None = None
    model: str | None = None
    num_turns: int | None = None
    cost_usd: float | None = None
    duration_ms: int | None = None
    input_tokens: int | None = None

    @field_validator("cost_usd")
    @classmethod
    def _no_float_noise(cls, value: float | None) -> float | None:
        return None if value is None else round(value, 6)

    output_tokens: int | None = None
    permission_denials: int = 0
    prompt_version: str | None = None


class TestRunSummary(CamelModel):
    """What the verification run of this phase saw."""

    __test__ = False
    command: list[str] = Field(default_factory=list)
    exit_code: int | None = None
    duration_s: float | None = None
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    failing: list[str] = Field(default_factory=list)
    #: Tests that failed in a first run of this tree and passed when it was run again
    #: (rgr.check.flaky).
    flaky: list[str] = Field(default_factory=list)


class BatchNote(CamelModel):
    """Refactor mode: the batch this note's commit applied (or failed)."""

    id: str
    goal: str
    index: int  # 0-based position in the plan
    total: int
    operations: list[str] = Field(default_factory=list)
    scope: list[str] = Field(default_factory=list)
    status: Literal["applied", "failed", "skipped"] = "applied"
    diff_lines: int = 0
    gate: Literal["fast", "full"] | None = None
    gate_commands: list[str] = Field(default_factory=list)
    by: Literal["agent", "rope"] = "agent"


class RefactorProgress(CamelModel):
    """Refactor mode: the validated plan and how far it got; on every refactor note, so
    the newest note alone is enough to resume."""

    goal: str
    plan: list[dict[str, object]] = Field(default_factory=list)  # rgr.refactor.plan.Batch dumps
    next_batch: int = 0
    applied: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)
    source_branch: str | None = None
    start_commit: str | None = None


class MergeFixNote(CamelModel):
    """The daemon's merge fix (``rgr fix-merge``): the job's branch merged onto the base
    branch's tip by a merge-fixer session, after the rebase conflicted."""

    into: str  # the base branch
    base_tip: str
    job_tip: str
    conflicts: list[str] = Field(default_factory=list)
    attempt: int = 1
    tries: int = 1
    status: Literal["resolved", "rejected"] = "resolved"


class LandingNote(CamelModel):
    """The integration of a finished run or job into its base branch (``--integrate
    merge|pr``, the daemon's landing): the integrated commit (this note's commit) and
    what rgr's own run of the suite and the ``[gate]`` commands saw on exactly that tree,
    sealed, before the base branch was allowed to move. ``verdict`` fail: it did not
    move."""

    into: str  # the base branch
    base_tip: str  # the base branch's tip the work was integrated onto
    job_tip: str  # the run's (job's) tip before it was integrated
    tip: str  # the integrated commit that was verified
    how: Literal["fast-forward", "rebase", "merge"] = "fast-forward"
    by: Literal["run", "daemon"] = "run"
    verdict: Literal["pass", "fail"] = "pass"
    tests: TestRunSummary = Field(default_factory=TestRunSummary)
    #: Test files that did not even load on that tree (a collection or compile error).
    not_loaded: list[str] = Field(default_factory=list)
    #: The ``[gate]`` commands run after the tests, and the first that failed.
    gate_commands: list[str] = Field(default_factory=list)
    failed_command: str | None = None
    verified_at: datetime | None = None
    #: The run's acceptance tests (rgr.tdd.examine) on the integrated tree: None when
    #: the run had none kept here; ``acceptance_missing``: what they found missing.
    acceptance: Literal["pass", "fail", "not-run"] | None = None
    acceptance_missing: list[str] = Field(default_factory=list)
    #: A commit rgr made while landing (the tidied test list, a merge) has no phase of
    #: its own: its note carries the handoff of this commit below it. None: the note is
    #: the commit's own (a phase's), with ``landing`` added.
    copied_from: str | None = None


#: What became of one mutant (rgr.check.mutation): ``killed`` (a test that runs its line
#: failed), ``survived`` (those tests passed), ``uncovered`` (no test runs its line: it
#: survives without a run), ``equivalent`` (an agent's claim, kept with its reason, never
#: a kill), ``not-run`` (the time budget ran out first: no verdict, never a pass),
#: ``unviable`` (the mutant did not build or load: no verdict, counted apart),
#: ``equivalent-by-rule`` (rgr decided it cannot change behaviour, so it was not run:
#: rgr.check.mutation.boundary; never a kill, never a survivor).
MutantStatus = Literal["killed", "survived", "uncovered", "equivalent", "not-run",
                       "unviable", "equivalent-by-rule", "equivalent-by-crosshair",
                       "undecided"]

#: What the mutation gate decided (rgr.check.mutation.rule).
AdequacyDecision = Literal["pass", "over-implemented", "test-too-weak", "refactor-unpinned",
                           "report-only", "not-measured", "incomplete"]


class MutantFinding(CamelModel):
    """One mutant of a changed line that was not killed, and where it is."""

    path: str
    line: int
    col: int
    operator: str
    original: str
    replacement: str
    status: MutantStatus
    #: The tests that run the mutant's line (the ones its run used).
    tests: list[str] = Field(default_factory=list)
    #: Why an agent says it is equivalent (``status == "equivalent"``), why rgr
    #: decided so (``equivalent-by-rule``), or why CrossHair could not decide
    #: (``undecided``, rgr.ecosystems.python.equivalence).
    reason: str | None = None
    #: An input CrossHair found that tells the mutant from the original, and what each
    #: returns (given to the RED that strengthens the test).
    telling_input: str | None = None

    def describe(self) -> str:
        return (f"{self.path}:{self.line}:{self.col} {self.original!r} -> "
                f"{self.replacement!r} ({self.operator})")


class AdequacyNote(CamelModel):
    """The mutation gate's account of one phase: what it tried and what it decided."""

    phase: str
    mode: Literal["reject", "report", "off"] = "reject"
    tried: int = 0
    killed: int = 0
    survived: int = 0
    uncovered: int = 0
    equivalent: int = 0
    not_run: int = 0
    #: Mutants that did not build or load (a token-level mutant of a compiled
    #: language): neither killed nor survived, and not in ``tried``.
    unviable: int = 0
    #: Mutants rgr decided equivalent by rule and did not run (rgr.check.mutation.
    #: boundary): neither killed nor survived, and not in ``tried``; each one is listed.
    equivalent_by_rule: int = 0
    #: Survivors CrossHair proved equivalent (every path explored, no difference):
    #: not failures; each one is listed (rgr.ecosystems.python.equivalence).
    equivalent_by_cross_hair: int = 0
    #: Survivors CrossHair could not decide and no test of the item demonstrably should
    #: kill (rgr.check.mutation.rule): a remark, not a rejection; each one is listed.
    undecided: int = 0
    #: Mutants of the changed lines rgr did not make because they would change only
    #: noise (rgr.check.mutation.arid.ARID: messages, log calls, directives, docstrings,
    #: annotations): neither tried, killed nor survivors; counted so the account says
    #: what the gate left out.
    noise_skipped: int = 0
    #: RED's new tests that first ran in GREEN's run and were skipped there (``file:line
    #: id``): GREEN cannot un-skip a test, so the cycle goes back to RED with them
    #: (decision ``test-too-weak``, no mutant run: a skipped test pins nothing).
    skipped_tests: list[str] = Field(default_factory=list)
    decision: AdequacyDecision = "pass"
    #: Why something was not measured, or what cut the run short (the budget).
    remark: str | None = None
    duration_s: float = 0.0
    #: The mutants that were not killed (killed ones are only counted).
    mutants: list[MutantFinding] = Field(default_factory=list)

    @property
    def survivors(self) -> list[MutantFinding]:
        return [m for m in self.mutants if m.status in ("survived", "uncovered")]


DEBT_OPEN = handoff_read.DEBT_OPEN  # defined where pydantic is not needed
ACCEPTANCE_STOP = handoff_read.ACCEPTANCE_STOP


class FakeItDebt(CamelModel):
    """A special case GREEN left in production code that answers a test's own values
    (rgr.check.fakeit): paid once a later test with other values passes without it."""

    path: str
    line: int
    function: str
    kind: Literal["constant", "input-table", "input-branch"]
    value: str  # the constant, the table's keys or the branch's inputs
    test: str  # the test whose values it answers
    inputs: str  # that test's arguments
    status: Literal["open", "paid"] = "open"
    paid_by: str | None = None  # the phase, cycle and commit that paid it

    def describe(self) -> str:
        return debt_text.describe(self._as_json())

    def payment(self) -> str:
        return debt_text.payment(self._as_json())

    def line_of_account(self) -> str:
        return debt_text.line_of_account(self._as_json())

    def _as_json(self) -> dict[str, object]:
        return self.model_dump(mode="json", by_alias=True)


#: What the examiner's acceptance tests decided (rgr.tdd.examine): ``pass`` (every
#: test passed), ``fail`` (a behaviour of the feature is missing: back to PLAN, told in
#: words), ``error`` (the tests did not run: the examiner's fault, never the code's),
#: ``declined`` (the examiner said the feature cannot be examined honestly),
#: ``disputed`` (still failing after the planner's rounds, or the planner says the
#: tests contradict the feature: a person decides, both sides shown).
AcceptanceVerdict = Literal["pass", "fail", "error", "declined", "disputed"]


class AcceptanceTestNote(CamelModel):
    """One acceptance test: its name, the behaviour it checks in words (never its code
    or its values), and its outcome on the last examination."""

    __test__ = False
    name: str
    behaviour: str
    outcome: Literal["passed", "failed", "error", "skipped", "missing"] = "missing"
    #: A test that did not pass: the production lines (``path:line``) its code returned
    #: or raised from last, from rgr's tracer (Python: pytest, unittest); empty where
    #: the runner has no tracer. Never the test's own code or values.
    ran_last: list[str] = Field(default_factory=list)


class AcceptanceNote(CamelModel):
    """The examiner's acceptance tests for this run (rgr.tdd.examine): written once by
    a sealed session that saw only the feature text and the public interface, kept
    outside the repository (``stored``: its key in rgr's state folder, never a path,
    as every scratch copy reads the notes; ``sha256`` of the file as run), run on a
    pristine checkout before COMPLETE. Carried from note to note."""

    mode: Literal["on", "report"] = "on"
    verdict: AcceptanceVerdict = "pass"
    #: How many times the tests were run this run (1 = the first examination).
    round: int = 1
    file: str  # where the file was placed in the checkout (a path in the project)
    stored: str  # where rgr keeps it, outside the repository and every sandbox
    sha256: str
    commit: str  # the commit examined last
    tests: list[AcceptanceTestNote] = Field(default_factory=list)
    #: The public interface the examiner was shown (names and signatures).
    interface: list[str] = Field(default_factory=list)
    #: Why the verdict is error, declined or disputed, in words.
    reason: str | None = None
    #: Every examiner session of the run (usually one), and what they cost.
    sessions: int = 0
    cost_usd: float | None = None

    @field_validator("cost_usd")
    @classmethod
    def _no_float_noise(cls, value: float | None) -> float | None:
        return None if value is None else round(value, 6)

    @property
    def missing(self) -> list[AcceptanceTestNote]:
        return [t for t in self.tests if t.outcome != "passed"]


class ShownPath(CamelModel):
    path: str
    why: str
    inside: str | None = None  # a dependency folder: also at this path in working copies


class SandboxNote(CamelModel):
    """Start notes: how agents and test runs were confined, and what of the machine
    the sandbox showed them, with why (rgr.sandbox.toolchain)."""

    enabled: bool
    bubblewrap: str | None = None
    shown: list[ShownPath] = Field(default_factory=list)
    env: list[str] = Field(default_factory=list)  # names of the variables set inside
    path_prefix: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    home_files: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    #: Writable copies rgr applied itself to the run's test runs (the suite's only
    #: failure was a write into them: rgr.loop.fix_trials); a resumed run applies them.
    writable_copy: list[str] = Field(default_factory=list)


class HandoffState(CamelModel):
    """The state after one phase, as noted on that phase's last commit."""

    # --- the seed's fields -------------------------------------------------------
    phase: Phase
    next_phase: Phase | None = None
    cycle_number: int = 0
    current_test: TestCase | None = None
    completed_tests: list[str] = Field(default_factory=list)
    pending_tests: list[str] = Field(default_factory=list)
    test_result: TestResult | None = None
    error: str | None = None
    error_details: ErrorDetails | None = None
    retry_count: int = 0
    # --- what an auditor needs besides -------------------------------------------
    schema_version: int = 0
    mode: Literal["tdd", "refactor"] = "tdd"
    run_id: str | None = None
    feature: str | None = None
    branch: str | None = None
    start_branch: str | None = None  # the branch the run started from (integrate's target)
    base_commit: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    agent: AgentSummary | None = None
    tests: TestRunSummary | None = None
    rgr_version: str | None = None
    summary: str | None = None  # the agent's one-line account of what it did
    #: Start notes: where tdd.toml and .rgr/ were read from (the committed tree).
    config_source: str | None = None
    #: Start notes: the sandbox and what it showed.
    sandbox: SandboxNote | None = None
    # --- refactor mode (mode == "refactor") -----------------------------------------
    batch: BatchNote | None = None
    refactor: RefactorProgress | None = None
    # --- the daemon's merge fix ---------------------------------------------------
    merge_fix: MergeFixNote | None = None
    # --- integration: what was verified on the tree the base branch moved to --------
    landing: LandingNote | None = None
    # --- the mutation gate after GREEN and REFACTOR (rgr.check.mutation) -----------
    adequacy: AdequacyNote | None = None
    # --- fake-it debt, carried from note to note (rgr.check.fakeit) ------------------
    fake_it_debt: list[FakeItDebt] = Field(default_factory=list)
    # --- the examiner's acceptance tests before COMPLETE (rgr.tdd.examine) --------
    acceptance: AcceptanceNote | None = None

    @property
    def open_debt(self) -> list[FakeItDebt]:
        return [d for d in self.fake_it_debt if d.status == "open"]

    def to_json(self) -> str:
        """Pretty JSON with a trailing newline, so ``git notes show`` reads well."""
        data = self.model_dump(mode="json", by_alias=True, exclude_none=False)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    @property
    def resume_phase(self) -> Phase:
        """The phase to run next: ``nextPhase``, or for notes that omit it (older
        writers), the phase that follows ``phase`` in the cycle."""
        if self.next_phase is not None:
            return self.next_phase
        return FOLLOWS[self.phase]

    @property
    def is_error(self) -> bool:
        return self.error is not None

    @property
    def needs_attention(self) -> bool:
        """Did an agent stop the run by saying its task cannot be done honestly?"""
        return self.error_details is not None and self.error_details.type == NEEDS_ATTENTION


class NoteUpdate(TypedDict, total=False):
    """The fields an attempt's note changes of the state it continues from, typed as
    HandoffState has them (``HandoffState.updated(**update)``): what the attempt kernel
    writes on every note and what a mode adds to it. A key left out keeps the previous
    note's value; a key given as None clears it."""

    phase: Phase
    next_phase: Phase | None
    cycle_number: int
    current_test: TestCase | None
    completed_tests: list[str]
    pending_tests: list[str]
    test_result: TestResult | None
    error: str | None
    error_details: ErrorDetails | None
    retry_count: int
    schema_version: int
    base_commit: str | None
    started_at: datetime | None
    finished_at: datetime | None
    agent: AgentSummary | None
    tests: TestRunSummary | None
    rgr_version: str | None
    summary: str | None
    batch: BatchNote | None
    refactor: RefactorProgress | None
    merge_fix: MergeFixNote | None
    adequacy: AdequacyNote | None
    fake_it_debt: list[FakeItDebt]
    acceptance: AcceptanceNote | None


@cache
def history_fields() -> TypeAdapter[HistoryFields]:
    """The validator of a history row's part of a note (note_json.HistoryFields)."""
    return TypeAdapter(HistoryFields)


HISTORY_DEFAULTS = handoff_read.HISTORY_DEFAULTS  # defined where pydantic is not needed


class InvalidNote(ValueError):
    """A note under the handoff ref that is not a handoff: says why, in one line."""


def parse_note(text: str | bytes) -> HandoffState:
    """Parse one note's text. Raises :class:`InvalidNote` with a one-line reason. A note
    of several records joined by git (handoff_read.records) is read as its last valid
    record (handoff_read.joined_note says so)."""
    try:
        data: object = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        joined = handoff_read.records(text)
        if len(joined) < 2:
            raise InvalidNote(f"not JSON ({exc})") from None
        for record in reversed(joined):
            try:
                return parse_note(json.dumps(record))
            except InvalidNote:
                continue
        raise InvalidNote(f"{len(joined)} records joined in one note, none of them a valid "
                          f"handoff") from None
    if not isinstance(data, dict):
        raise InvalidNote(f"JSON {type(data).__name__}, expected an object")
    try:
        return HandoffState.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise InvalidNote(f"{where}: {first['msg']} ({exc.error_count()} problem(s))") from None


def now_utc() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
