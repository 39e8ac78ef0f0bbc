"""The attempt kernel's rules, driven in-process by a fake backend (the one boundary
mocked: the agent's session; git, the scratch copies, the notes and pytest are real):
retries with the failure brief, back-off on the backend's failures in every mode, the
limits before each session, rejection notes, the in-flight record, the judging of an
attempt whose rgr died and the honest way out (no retry, noted apart). The same kernel
runs a TDD phase, a refactor batch and a merge fix, so each rule is checked through
more than one of them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2
import pytest

from rgr.backends.base import AgentRequest, AgentResult
from rgr.base.errors import BackendError, ExitCode, NeedsAttention, PhaseFailed
from rgr.commands import status
from rgr.ecosystems.registry import resolve_test_command
from rgr.loop import retry
from rgr.loop.kernel import Accepted, Kernel
from rgr.mergefix.engine import MergeFixer, MergeFixFailed, MergeJob
from rgr.observe.events import (
    AttemptStarted,
    Event,
    GuardVerdict,
    PhaseDone,
    Retry,
    from_json,
    to_json,
)
from rgr.observe.limits import LimitReached, Limits
from rgr.observe.report import collect
from rgr.observe.summary import summarize
from rgr.refactor.engine import RefactorEngine
from rgr.sandbox.sealer import Sealer
from rgr.store import inflight, merging
from rgr.store.handoff import HandoffState, Phase, RefactorProgress, TestCase
from rgr.store.inflight import Inflight
from rgr.store.notes import NotesStore
from rgr.store.workspace import Workspace, open_workspace
from rgr.tdd.engine import Orchestrator
from tests.conftest import clean_env, git
from tests.fake_backend import FakeBackend, Session, answer


def commits(files: dict[str, str], message: str, cost: float = 0.01,
            summary: str = "done") -> Session:
    def session(request: AgentRequest) -> AgentResult:
        for name, text in files.items():
            (request.cwd / name).parent.mkdir(parents=True, exist_ok=True)
            (request.cwd / name).write_text(text)
        git(request.cwd, "add", "-A")
        git(request.cwd, "commit", "-q", "-m", message)
        return answer(request, cost, summary=summary)
    return session


def fails(kind: str, retryable: bool) -> Session:
    def session(request: AgentRequest) -> AgentResult:
        raise BackendError(kind, f"the API answered {kind}", retryable=retryable)
    return session


FAILING_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


#: The project's own test command: runs every ``test_*`` function of the ``test_*.py``
#: files and writes JUnit XML, which rgr's JUnit runner reads (``junit_xml``). The
#: standard library alone starts in milliseconds, where pytest's start would be most of
#: these tests' time (the kernel's own work is a tenth of a second an attempt).
RUNNER = """import importlib, pathlib, sys, traceback
from xml.sax.saxutils import quoteattr
cases = []
for path in sorted(pathlib.Path(".").glob("test_*.py")):
    module = importlib.import_module(path.stem)
    for name in sorted(n for n in vars(module) if n.startswith("test_")):
        try:
            getattr(module, name)()
            cases.append(f"<testcase classname={quoteattr(path.stem)} name={quoteattr(name)}/>")
        except Exception:
            text = quoteattr(traceback.format_exc())
            cases.append(f"<testcase classname={quoteattr(path.stem)} name={quoteattr(name)}>"
                         f"<failure message={text}/></testcase>")
failed = sum("<failure" in c for c in cases)
pathlib.Path("report.xml").write_text(
    f"<testsuite tests='{len(cases)}' failures='{failed}'>{''.join(cases)}</testsuite>")
sys.exit(1 if failed else 0)
"""


def project(tmp_path: Path) -> Path:
    """A Python project whose one test fails for want of ``add``: GREEN's work."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "tdd.toml").write_text('test_command = "python3 -S run_tests.py"\n'
                                   'junit_xml = ["report.xml"]\n'
                                   # the examiner's own tests: tests/tdd/test_examine.py
                                   'acceptance = { mode = "off" }\n')
    (root / "run_tests.py").write_text(RUNNER)
    (root / ".gitignore").write_text("__pycache__/\nreport.xml\n")
    (root / "calc.py").write_text("def add(a, b):\n    return 0\n")
    (root / "test_calc.py").write_text(FAILING_TEST)
    (root / "test-list.md").write_text("- [ ] adds\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Dev")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "red: adds")
    return root


def workspace(root: Path) -> Workspace:
    return open_workspace(root, env=clean_env(root.parent / "home"))


def green_state(ws: Workspace) -> HandoffState:
    state = HandoffState(phase=Phase.RED, next_phase=Phase.GREEN, cycle_number=1,
                         run_id="r1", pending_tests=["adds"],
                         current_test=TestCase(description="adds", test_file="test_calc.py",
                                               impl_file="calc.py"))
    ws.notes.write(str(ws.repo.head.target), state)
    return state


def orchestrator(ws: Workspace, backend: FakeBackend, events: list[Event],
                 limits: Limits | None = None) -> Orchestrator:
    test_command = resolve_test_command(ws.config, ws.root)

    class Recorder:
        def emit(self, event: Event) -> None:
            events.append(event)
            if limits is not None:
                limits.emit(event)

    return Orchestrator(ws, backend, test_command, lambda line: None,
                        Sealer(ws, backend, test_command, None), backoff_base_s=0.5,
                        observer=Recorder(), limits=limits)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The back-off waits the retry policy asks for (the clock is the boundary)."""
    asked: list[float] = []
    monkeypatch.setattr(retry, "_sleep",
                        lambda seconds: asked.append(seconds) if seconds else None)
    return asked


def kept_refs(root: Path) -> list[str]:
    return git(root, "for-each-ref", "--format=%(refname)", "refs/rgr/attempts/").split()


# ------------------------------------------------------------------------- TDD phase


def test_a_rejected_attempt_is_kept_with_its_note_and_the_retry_gets_the_brief(
        tmp_path: Path, waits: list[float]) -> None:
    root = project(tmp_path)
    ws = workspace(root)
    prev = green_state(ws)
    base = str(ws.repo.head.target)
    backend = FakeBackend(
        commits({"test_calc.py": "def test_add():\n    pass\n"}, "feat: weaken the test"),
        commits({"calc.py": "def add(a, b):\n    return a + b\n"}, "feat: add"))
    events: list[Event] = []
    state = orchestrator(ws, backend, events).run_phase(prev)
    assert state.phase == Phase.GREEN and state.next_phase == Phase.REFACTOR
    assert state.retry_count == 1 and state.tests is not None and state.tests.passed == 1
    tip = str(ws.repo.head.target)
    assert git(root, "rev-parse", "HEAD~1") == base  # the accepted commit, on the base
    # the first attempt: kept under its ref, noted there with why, the branch never on it
    [kept] = kept_refs(root)
    note = NotesStore(ws.repo).read(git(root, "rev-parse", kept))
    assert note is not None and note.state is not None
    assert note.state.error is not None and "test_calc.py" in note.state.error
    assert note.state.next_phase == Phase.GREEN
    # the second session was told why the first was rejected; no back-off for that
    assert "test_calc.py" in backend.requests[1].prompt
    assert waits == []
    kinds = [type(e) for e in events]
    assert kinds.count(AttemptStarted) == 2 and kinds.count(GuardVerdict) == 2
    assert Retry in kinds and kinds[-1] is PhaseDone
    assert inflight.read(ws.git_dir) is None
    assert NotesStore(ws.repo).read(tip) is not None


def test_a_rate_limited_phase_backs_off_and_a_fatal_error_stops_with_a_note(
        tmp_path: Path, waits: list[float]) -> None:
    root = project(tmp_path)
    ws = workspace(root)
    prev = green_state(ws)
    backend = FakeBackend(fails("rate_limit", retryable=True),
                          fails("overloaded", retryable=True),
                          fails("not_logged_in", retryable=False))
    with pytest.raises(BackendError):
        orchestrator(ws, backend, []).run_phase(prev)
    assert waits == [0.5, 1.0]  # 1x, 2x the base before each retry
    note = NotesStore(ws.repo).read(str(ws.repo.head.target))
    assert note is not None and note.state is not None
    assert note.state.error_details is not None
    assert note.state.error_details.type == "agent-not_logged_in"
    assert inflight.read(ws.git_dir) is None


def test_the_budget_stops_before_the_next_session_and_says_so_on_the_base(
        tmp_path: Path, waits: list[float]) -> None:
    root = project(tmp_path)
    ws = workspace(root)
    prev = green_state(ws)
    limits = Limits(max_budget_usd=0.05)
    backend = FakeBackend(commits({"notes.txt": "x\n"}, "feat: nothing useful", cost=0.06))
    with pytest.raises(LimitReached) as stopped:
        orchestrator(ws, backend, [], limits).run_phase(prev)
    assert stopped.value.limit == "max-budget-usd" and len(backend.requests) == 1
    assert backend.requests[0].max_budget_usd == 0.05  # the session got what was left
    note = NotesStore(ws.repo).read(str(ws.repo.head.target))
    assert note is not None and note.state is not None and note.state.error_details
    assert note.state.error_details.type == "limit-max-budget-usd"


def test_out_of_tries_the_phase_fails_and_the_base_note_says_why(
        tmp_path: Path, waits: list[float]) -> None:
    root = project(tmp_path)
    with (root / "tdd.toml").open("a") as config:
        config.write("max_retries = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "red: config")
    ws = workspace(root)
    prev = green_state(ws)
    backend = FakeBackend(answer, answer)  # two sessions that commit nothing
    with pytest.raises(PhaseFailed):
        orchestrator(ws, backend, []).run_phase(prev)
    note = NotesStore(ws.repo).read(str(ws.repo.head.target))
    assert note is not None and note.state is not None and note.state.error
    assert "failed after 2 attempt(s)" in note.state.error and kept_refs(root) == []


class Died(Exception):
    """rgr's death between bringing the commits in and judging them."""


class DyingKernel(Kernel):
    def judge(self, *args: object, **kwargs: object) -> Accepted:
        raise Died


def test_an_attempt_interrupted_before_its_verdict_is_judged_on_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    ws = workspace(root)
    prev = green_state(ws)
    backend = FakeBackend(commits({"calc.py": "def add(a, b):\n    return a + b\n"},
                                  "feat: add"))
    o = orchestrator(ws, backend, [])
    monkeypatch.setattr(Orchestrator, "kernel", property(
        lambda self: DyingKernel(self.ws, self.backend, self.sealer, self.report)))
    with pytest.raises(Died):
        o.run_phase(prev)
    record = inflight.read(ws.git_dir)
    assert record is not None and record.mode == "tdd" and record.tip is not None
    assert str(ws.repo.head.target) == record.base  # the branch never moved
    monkeypatch.undo()
    state = orchestrator(ws, FakeBackend(), []).judge_interrupted(prev, record)
    assert state.next_phase == Phase.REFACTOR
    assert str(ws.repo.head.target) == record.tip and inflight.read(ws.git_dir) is None


# -------------------------------------------------------------------- refactor batch


def refactor_state(ws: Workspace, batch_scope: str = "calc.py") -> HandoffState:
    batch = {"id": "b1", "goal": "tidy add", "scope_globs": [batch_scope],
             "allowed_operations": ["simplify"], "diff_budget_loc": 20, "risk_score": 10,
             "verifier_level": "fast"}
    state = HandoffState(phase=Phase.PLAN, next_phase=Phase.REFACTOR, mode="refactor",
                         run_id="r2", refactor=RefactorProgress(goal="tidy", plan=[batch]))
    ws.notes.write(str(ws.repo.head.target), state)
    return state


def green_project(tmp_path: Path) -> Path:
    root = project(tmp_path)
    (root / "calc.py").write_text("def add(a, b):\n    result = a + b\n    return result\n")
    git(root, "commit", "-qam", "feat: add")
    return root


def engine(ws: Workspace, backend: FakeBackend, limits: Limits | None = None
           ) -> RefactorEngine:
    test_command = resolve_test_command(ws.config, ws.root)
    return RefactorEngine(ws, backend, test_command, lambda line: None,
                          Sealer(ws, backend, test_command, None), backoff_base_s=0.5,
                          observer=limits or Limits(), limits=limits)


def test_a_rate_limited_refactor_batch_backs_off_then_lands_with_its_note(
        tmp_path: Path, waits: list[float]) -> None:
    root = green_project(tmp_path)
    ws = workspace(root)
    prev = refactor_state(ws)
    backend = FakeBackend(
        fails("rate_limit", retryable=True),
        commits({"calc.py": "def add(a, b):\n    return a + b\n"}, "refactor(b1): tidy add"))
    state = engine(ws, backend).run_batch(prev)
    assert waits == [0.5]  # it used to retry a rate limit at once
    assert state.refactor is not None and state.refactor.applied == ["b1"]
    assert state.batch is not None and state.batch.status == "applied"
    assert git(root, "log", "-1", "--format=%s") == "refactor(b1): tidy add"
    assert inflight.read(ws.git_dir) is None


def test_a_refactor_session_is_held_to_the_budget_by_the_kernel(
        tmp_path: Path, waits: list[float]) -> None:
    root = green_project(tmp_path)
    ws = workspace(root)
    prev = refactor_state(ws)
    limits = Limits(max_budget_usd=0.02)
    backend = FakeBackend(commits({"test_calc.py": "def test_add():\n    pass\n"},
                                  "refactor(b1): out of scope", cost=0.03))
    with pytest.raises(LimitReached):
        engine(ws, backend, limits).run_batch(prev)
    assert len(backend.requests) == 1 and backend.requests[0].max_budget_usd == 0.02
    [kept] = kept_refs(root)  # the rejected batch attempt, noted
    note = NotesStore(ws.repo).read(git(root, "rev-parse", kept))
    assert note is not None and note.state is not None and note.state.batch is not None
    assert note.state.batch.status == "failed"


def test_an_interrupted_refactor_batch_is_judged_on_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = green_project(tmp_path)
    ws = workspace(root)
    prev = refactor_state(ws)
    backend = FakeBackend(commits({"calc.py": "def add(a, b):\n    return a + b\n"},
                                  "refactor(b1): tidy add"))
    e = engine(ws, backend)
    monkeypatch.setattr(RefactorEngine, "kernel", property(
        lambda self: DyingKernel(self.ws, self.backend, self.sealer, self.report)))
    with pytest.raises(Died):
        e.run_batch(prev)
    monkeypatch.undo()
    record = inflight.read(ws.git_dir)
    assert isinstance(record, Inflight) and record.mode == "refactor"
    state = engine(ws, FakeBackend()).settle_interrupted(prev, record)
    assert state.refactor is not None and state.refactor.next_batch == 1
    assert str(ws.repo.head.target) == record.tip


# ------------------------------------------------------------------------ merge fix


def conflicting_job(tmp_path: Path) -> tuple[Workspace, MergeJob]:
    """A finished job whose change to calc.py conflicts with main's newer one."""
    root = green_project(tmp_path)
    git(root, "switch", "-q", "-c", "job")
    (root / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(root, "commit", "-qam", "feat: job's add")
    job_tip = git(root, "rev-parse", "HEAD")
    git(root, "switch", "-q", "main")
    (root / "calc.py").write_text("def add(a, b):\n    return a + b  # main\n")
    git(root, "commit", "-qam", "feat: main's add")
    git(root, "switch", "-q", "job")
    ws = workspace(root)
    state = HandoffState(phase=Phase.COMPLETE, run_id="r3", feature="add")
    ws.notes.write(job_tip, state)
    repo = ws.repo
    base_tip = repo.revparse_single("main").peel(pygit2.Commit)
    tip = repo.revparse_single("job").peel(pygit2.Commit)
    merged = merging.auto_merge(repo, base_tip.id, tip.id)
    assert list(merged.conflicts) == ["calc.py"]
    return ws, MergeJob("job", "main", base_tip, tip, state, merged)


def resolves(request: AgentRequest) -> AgentResult:
    (request.cwd / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    git(request.cwd, "add", "calc.py")
    subprocess.run(["git", "commit", "-q", "--no-edit"], cwd=request.cwd, check=True,
                   env=clean_env(request.cwd.parent / "h", {
                       "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
                       "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}))
    return answer(request, 0.02, summary="kept both")


def fixer(ws: Workspace, backend: FakeBackend, budget: float | None = None) -> MergeFixer:
    test_command = resolve_test_command(ws.config, ws.root)
    return MergeFixer(ws, backend, test_command, Sealer(ws, backend, test_command, None),
                      lambda line: None, backoff_base_s=0.5, max_budget_usd=budget)


def test_a_rate_limited_merge_fix_backs_off_then_lands(
        tmp_path: Path, waits: list[float]) -> None:
    ws, job = conflicting_job(tmp_path)
    backend = FakeBackend(fails("overloaded", retryable=True), resolves)
    fix = fixer(ws, backend)
    head = fix.fix(job, tries=2)
    assert waits == [0.5]
    assert [str(p) for p in head.parent_ids] == [str(job.base_tip.id), str(job.job_tip.id)]
    note = NotesStore(ws.repo).read(str(head.id))
    assert note is not None and note.state is not None and note.state.merge_fix is not None
    assert note.state.merge_fix.status == "resolved" and fix.spent_usd == pytest.approx(0.02)
    assert str(ws.repo.head.target) == str(head.id)


def test_the_merge_fixers_budget_is_the_kernels_limit(
        tmp_path: Path, waits: list[float]) -> None:
    ws, job = conflicting_job(tmp_path)
    backend = FakeBackend(commits({"other.txt": "x\n"}, "fix: nothing merged", cost=0.05))
    with pytest.raises(MergeFixFailed) as failed:
        fixer(ws, backend, budget=0.04).fix(job, tries=3)
    assert "--max-budget-usd is spent" in failed.value.message
    assert len(backend.requests) == 1 and backend.requests[0].max_budget_usd == 0.04
    assert str(ws.repo.head.target) == str(job.job_tip.id)  # the job's branch unmoved


# ------------------------------------------------------------------ the honest way out


CONTRADICTION = "test_add wants add(1, 2) == 3 but the feature says add concatenates"


def declines(reason: str = CONTRADICTION, files: dict[str, str] | None = None,
             cost: float = 0.01) -> Session:
    """A session that says its task cannot be done honestly (after committing
    ``files``, if any)."""
    def session(request: AgentRequest) -> AgentResult:
        if files:
            for name, text in files.items():
                (request.cwd / name).write_text(text)
            git(request.cwd, "add", "-A")
            git(request.cwd, "commit", "-q", "-m", "feat: half of it")
        return answer(request, cost, summary="stopped", cannotBeDoneHonestly=reason)
    return session


def test_the_way_out_stops_the_phase_at_once_noted_and_counted_apart(
        tmp_path: Path, waits: list[float]) -> None:
    root = project(tmp_path)
    ws = workspace(root)
    prev = green_state(ws)
    base = str(ws.repo.head.target)
    # A rejected attempt first, then the way out: a third session is never asked for.
    backend = FakeBackend(
        commits({"test_calc.py": "def test_add():\n    pass\n"}, "feat: weaken the test"),
        declines(files={"calc.py": "def add(a, b):\n    return str(a) + str(b)\n"}),
        commits({"calc.py": "def add(a, b):\n    return a + b\n"}, "feat: add"))
    events: list[Event] = []
    with pytest.raises(NeedsAttention) as stopped:
        orchestrator(ws, backend, events).run_phase(prev)
    assert len(backend.requests) == 2 and waits == []
    assert stopped.value.exit_code == ExitCode.NEEDS_ATTENTION == 4
    assert CONTRADICTION in stopped.value.message and "rgr resume" in (stopped.value.hint or "")
    assert str(ws.repo.head.target) == base and inflight.read(ws.git_dir) is None
    # the base's note: the reason, its own kind, nextPhase unchanged (resume redoes GREEN)
    note = NotesStore(ws.repo).read(base)
    assert note is not None and note.state is not None and note.state.needs_attention
    assert note.state.error_details is not None
    assert note.state.error_details.type == "needs-attention"
    assert note.state.error_details.message == CONTRADICTION
    assert note.state.resume_phase == Phase.GREEN and note.state.retry_count == 1
    # both attempts' commits kept; the declining one noted as its own kind
    kept = {git(root, "rev-parse", ref): ref for ref in kept_refs(root)}
    rules = sorted(n.state.error_details.type for c in kept
                   if (n := NotesStore(ws.repo).read(c)) and n.state and n.state.error_details)
    assert rules == ["green-touches-tests", "needs-attention"]
    # events and the summary: one rejection, one way out, one retry (before attempt 2)
    records = [to_json(e) for e in events]  # as events.jsonl records them
    kinds = [r["type"] for r in records]
    assert kinds.count("guard_verdict") == 1 and kinds.count("needs_attention") == 1
    assert kinds.count("retry") == 1 and "phase_done" not in kinds
    totals = summarize([from_json(r) for r in records])["totals"]
    assert (totals["guardRejections"], totals["needsAttention"], totals["retries"]) == (1, 1, 1)
    [phase] = summarize([from_json(r) for r in records])["phases"]
    assert phase["outcome"] == "needs-attention"
    # the report: status needs-attention, the reason, 1 rejected attempt (not 2)
    report = collect(ws)
    assert report.status == "needs-attention" and report.retries == 1
    assert [r.rule for r in report.rejections] == ["green-touches-tests"]
    assert report.needs_attention is not None
    assert report.needs_attention["reason"] == CONTRADICTION
    assert report.needs_attention["phase"] == "GREEN"
    assert report.needs_attention["kept"] in kept.values()
    assert report.agent_sessions == 2 and report.cost_usd == pytest.approx(0.02)
    # `rgr status`: what to do next
    advice = status.collect(ws)["advice"]
    assert advice.startswith("needs attention") and CONTRADICTION in advice
    assert "`rgr resume` continues with GREEN" in advice


def test_a_resumed_phase_tells_the_agent_the_reason_it_stopped(
        tmp_path: Path, waits: list[float]) -> None:
    root = project(tmp_path)
    ws = workspace(root)
    prev = green_state(ws)
    with pytest.raises(NeedsAttention):
        orchestrator(ws, FakeBackend(declines()), []).run_phase(prev)
    note = NotesStore(ws.repo).read(str(ws.repo.head.target))
    assert note is not None and note.state is not None
    backend = FakeBackend(commits({"calc.py": "def add(a, b):\n    return a + b\n"},
                                  "feat: add"))
    state = orchestrator(ws, backend, []).run_phase(note.state)
    assert state.error is None and state.next_phase == Phase.REFACTOR
    prompt = backend.requests[0].prompt
    assert CONTRADICTION in prompt and "cannot be done honestly" in prompt


def test_a_way_out_without_commits_keeps_nothing_and_an_interrupted_one_stops_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    ws = workspace(root)
    prev = green_state(ws)
    o = orchestrator(ws, FakeBackend(declines("add of what?")), [])
    monkeypatch.setattr(Orchestrator, "kernel", property(
        lambda self: DyingKernel(self.ws, self.backend, self.sealer, self.report)))
    with pytest.raises(Died):
        o.run_phase(prev)
    monkeypatch.undo()
    record = inflight.read(ws.git_dir)
    assert record is not None and record.output is not None
    with pytest.raises(NeedsAttention, match="add of what"):
        orchestrator(ws, FakeBackend(), []).judge_interrupted(prev, record)
    assert kept_refs(root) == [] and inflight.read(ws.git_dir) is None
    note = NotesStore(ws.repo).read(str(ws.repo.head.target))
    assert note is not None and note.state is not None and note.state.error_details
    assert note.state.error_details.type == "needs-attention"


def test_a_refactor_batch_that_takes_the_way_out_stops_without_skipping(
        tmp_path: Path, waits: list[float]) -> None:
    root = green_project(tmp_path)
    with (root / "tdd.toml").open("a") as config:
        config.write('[refactor]\non_failure = "skip"\n')
    git(root, "commit", "-qam", "feat: skip failed batches")
    ws = workspace(root)
    prev = refactor_state(ws)
    backend = FakeBackend(declines("the goal needs test_calc.py changed"),
                          commits({"calc.py": "def add(a, b):\n    return a + b\n"},
                                  "refactor(b1): tidy add"))
    with pytest.raises(NeedsAttention, match="batch b1 needs attention"):
        engine(ws, backend).run_batch(prev)
    assert len(backend.requests) == 1  # on_failure = skip does not apply: a person decides
    note = NotesStore(ws.repo).read(str(ws.repo.head.target))
    assert note is not None and note.state is not None and note.state.refactor is not None
    assert note.state.refactor.next_batch == 0 and note.state.needs_attention


def test_a_merge_fixer_that_takes_the_way_out_is_not_retried(
        tmp_path: Path, waits: list[float]) -> None:
    ws, job = conflicting_job(tmp_path)
    backend = FakeBackend(declines("both sides' tests cannot pass together"),
                          resolves)
    with pytest.raises(MergeFixFailed, match="cannot be merged onto main honestly"):
        fixer(ws, backend).fix(job, tries=2)
    assert len(backend.requests) == 1
    assert str(ws.repo.head.target) == str(job.job_tip.id)
