"""The mutation gate of one phase: mutate the changed lines, run the tests that run them.

    changed non-test lines (rgr.store.git.added_lines)  ──►  mutants of those lines (mutants)
    one traced test run (lines, cached by tree)  ──►  which tests run each mutant's line
    a line no test runs                          ──►  ``uncovered``: survives, nothing run
    every other mutant                           ──►  its covering tests only, on a
                                                      pristine sealed checkout (one per
                                                      job), ``jobs`` at once, inside the
                                                      phase's time budget
    findings                                     ──►  rule.decide  ──►  the phase's verdict

Where rgr has no mutator (any file that is not Python, for now) the gate says so in the
findings (``not measured``) instead of passing it silently. A mutant the budget leaves
unrun is ``not-run``: reported, never counted as killed.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from rgr.base.config import AdequacyConfig, Config, TestCommand
from rgr.check.mutation import lines as coverage_lines
from rgr.check.mutation.mutants import Mutant, apply, mutants_of
from rgr.check.mutation.rule import decide
from rgr.check.verify import Confinement, run_tests
from rgr.store import git
from rgr.store.handoff import AdequacyNote, MutantFinding
from rgr.store.objects import Commit, Repository

#: A pristine sealed checkout of the commit under judgement: (tree, confinement, env).
Checkout = tuple[Path, Confinement | None, dict[str, str]]
OpenCheckout = Callable[[str], AbstractContextManager[Checkout]]

#: A mutant's run may take this many times the traced run, plus a margin (a mutant that
#: loops forever is killed by its timeout, which counts as killed).
_TIMEOUT_FACTOR, _TIMEOUT_MARGIN_S = 3.0, 10.0


@dataclass(frozen=True)
class Subject:
    """What one gate looks at: the phase, its changed lines and their text at the tip."""

    phase: str
    changed: coverage_lines.Lines
    sources: dict[str, str]  # path -> text at the tip, for the changed files
    tree: str  # the tip's tree id (the coverage cache's key)


def subject_of(repo: Repository, config: Config, phase: str, base: Commit,
               tip: Commit) -> Subject:
    """What the gate looks at in ``base..tip``: the non-test lines it added or changed."""
    changed = coverage_lines.changed_code(repo, config, base.id, tip.id)
    sources = {path: git.file_text(repo, tip.id, path) or "" for path in changed}
    return Subject(phase, changed, sources, str(tip.tree.id))


def measure(subject: Subject, settings: AdequacyConfig, cmd: TestCommand,
            open_checkout: OpenCheckout, git_dir: Path, command_timeout: float
            ) -> AdequacyNote:
    """The findings of ``subject`` (never raises for what the tests do)."""
    started = time.monotonic()
    deadline = started + settings.budget
    python = {p: ls for p, ls in subject.changed.items() if p.endswith(".py")}
    others = sorted(set(subject.changed) - set(python))
    remark = (f"not measured: {', '.join(others[:5])} (no mutator for this language yet)"
              if others else None)
    mutants = [m for path, ls in sorted(python.items())
               for m in mutants_of(path, subject.sources.get(path, ""), ls,
                                   settings.operators)]
    base = AdequacyNote(phase=subject.phase, mode=settings.mode, remark=remark)
    if not mutants:
        decision = "not-measured" if others else "pass"
        return base.model_copy(update={"decision": decision,
                                       "duration_s": round(time.monotonic() - started, 3)})
    files = sorted(python)
    key = coverage_lines.cache_key(subject.tree, files)
    findings: dict[str, MutantFinding] = {}
    coverage = None
    if cmd.runner == "pytest":
        coverage = _fast_path(subject, mutants, files, settings, cmd, open_checkout,
                              command_timeout, deadline, findings)
        if coverage is not None and findings and coverage.report is not None \
                and coverage.report.all_passed:
            coverage_lines.save(git_dir, key, coverage)
    if coverage is None:
        coverage = coverage_lines.load(git_dir, key)
    per_mutant_timeout = command_timeout
    if coverage is None:
        with open_checkout("mutation-lines") as (tree, confinement, env):
            coverage = coverage_lines.collect(
                cmd, tree, files, timeout=command_timeout, env=env,
                confinement=confinement, scratch=confinement.tmp if confinement else tree.parent)
        if coverage.traced and coverage.report is not None and coverage.report.all_passed:
            coverage_lines.save(git_dir, key, coverage)
            per_mutant_timeout = min(command_timeout, _TIMEOUT_FACTOR
                                     * coverage.report.duration_s + _TIMEOUT_MARGIN_S)
    to_run: list[tuple[Mutant, list[str]]] = []
    for mutant in mutants:
        if mutant.id in findings:
            continue
        if not coverage.traced:
            to_run.append((mutant, []))  # [] runs the whole suite
            continue
        tests = coverage.tests_running(mutant.path, (mutant.line, mutant.statement_line))
        if tests:
            to_run.append((mutant, tests))
        else:
            findings[mutant.id] = _finding(mutant, "uncovered", [])
    if not coverage.traced:
        untraced = ("no per-test line data (rgr's tracer works with pytest only): each "
                    "mutant ran the whole suite, and no survivor could be told uncovered")
        remark = f"{remark}; {untraced}" if remark else untraced
        base = base.model_copy(update={"remark": remark})
    for mutant, tests, status in _run_all(to_run, subject, settings, cmd, open_checkout,
                                          deadline, per_mutant_timeout):
        findings[mutant.id] = _finding(mutant, status, tests)
    ordered = [findings[m.id] for m in mutants]
    counts = {status: sum(1 for f in ordered if f.status == status)
              for status in ("killed", "survived", "uncovered", "not-run")}
    note = base.model_copy(update={
        "tried": len(ordered), "killed": counts["killed"], "survived": counts["survived"],
        "uncovered": counts["uncovered"], "not_run": counts["not-run"],
        "mutants": [f for f in ordered if f.status != "killed"],
        "duration_s": round(time.monotonic() - started, 3),
        "remark": _budget_remark(remark, counts["not-run"], settings.budget)})
    return note.model_copy(update={"decision": decide(note)})


def _fast_path(subject: Subject, mutants: list[Mutant], files: list[str],
               settings: AdequacyConfig, cmd: TestCommand, open_checkout: OpenCheckout,
               command_timeout: float, deadline: float,
               findings: dict[str, MutantFinding]) -> coverage_lines.Coverage | None:
    """pytest: ``jobs`` sealed sessions at once, each tracing the suite and then running
    its share of the mutants, each in a child forked from it. Fills ``findings`` when
    every session answered for every mutant; returns the line data (None: no session
    traced, so the slow path must not trust any)."""
    jobs = max(1, min(settings.jobs, len(mutants)))
    shares = [mutants[n::jobs] for n in range(jobs)]
    wall_deadline = time.time() + deadline - time.monotonic()

    def session(number: int) -> coverage_lines.Coverage:
        batch = {m.id: (m, apply(subject.sources[m.path], m)) for m in shares[number]}
        with open_checkout(f"mutation-{number}") as (tree, confinement, env):
            return coverage_lines.collect(
                cmd, tree, files, timeout=command_timeout + settings.budget, env=env,
                confinement=confinement,
                scratch=confinement.tmp if confinement else tree.parent, mutants=batch,
                deadline=wall_deadline, per_mutant_timeout=command_timeout)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        answers = list(pool.map(session, range(jobs)))
    if not all(a.traced for a in answers):
        return None
    results: dict[str, str] = {}
    for answer in answers:
        results.update(answer.mutants or {})
    coverage = answers[0]
    if set(results) == {m.id for m in mutants}:
        for mutant in mutants:
            tests = coverage.tests_running(mutant.path, (mutant.line, mutant.statement_line))
            findings[mutant.id] = _finding(mutant, results[mutant.id], tests)
    return coverage


def _finding(mutant: Mutant, status: str, tests: list[str]) -> MutantFinding:
    return MutantFinding.model_validate({
        "path": mutant.path, "line": mutant.line, "col": mutant.col,
        "operator": mutant.operator, "original": mutant.original,
        "replacement": mutant.replacement, "status": status, "tests": tests})


def _budget_remark(remark: str | None, not_run: int, budget: float) -> str | None:
    if not not_run:
        return remark
    said = (f"the time budget ({budget:g}s, [adequacy] budget) ran out with {not_run} "
            "mutant(s) not run: they count as neither killed nor survived")
    return f"{remark}; {said}" if remark else said


def _run_all(to_run: list[tuple[Mutant, list[str]]], subject: Subject,
             settings: AdequacyConfig, cmd: TestCommand, open_checkout: OpenCheckout,
             deadline: float, timeout: float) -> Iterator[tuple[Mutant, list[str], str]]:
    """Each mutant's status, ``settings.jobs`` checkouts working through one queue."""
    if not to_run:
        return
    pending: queue.Queue[tuple[Mutant, list[str]]] = queue.Queue()
    for item in to_run:
        pending.put(item)
    results: list[tuple[Mutant, list[str], str]] = []
    lock = threading.Lock()

    def worker(number: int) -> None:
        with open_checkout(f"mutation-{number}") as (tree, confinement, env):
            while True:
                try:
                    mutant, tests = pending.get_nowait()
                except queue.Empty:
                    return
                left = deadline - time.monotonic()
                status = "not-run" if left <= 1 else _run_one(
                    mutant, tests, subject, cmd, tree, confinement, env, min(timeout, left))
                with lock:
                    results.append((mutant, tests, status))

    jobs = max(1, min(settings.jobs, len(to_run)))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for future in [pool.submit(worker, n) for n in range(jobs)]:
            future.result()
    yield from results


def _run_one(mutant: Mutant, tests: list[str], subject: Subject, cmd: TestCommand,
             tree: Path, confinement: Confinement | None, env: dict[str, str],
             timeout: float) -> str:
    target = tree / mutant.path
    original = subject.sources[mutant.path]
    target.write_text(apply(original, mutant), encoding="utf-8")
    try:
        report = run_tests(_selecting(cmd, tests), tree, timeout=timeout, env=env,
                           confinement=confinement)
    finally:
        target.write_text(original, encoding="utf-8")
    # A failing, erroring or hanging covering test notices the mutant; so does a run
    # that no longer loads.
    return "survived" if report.all_passed and not report.no_tests_collected else "killed"


def _selecting(cmd: TestCommand, tests: list[str]) -> TestCommand:
    """``cmd`` limited to ``tests`` where rgr knows how (pytest's node ids on a command
    line of its own); otherwise the whole command, which is slower but as honest."""
    if cmd.runner != "pytest" or cmd.shell or not tests:
        return cmd
    return TestCommand(cmd.argv + tuple(tests), cmd.runner, cmd.junit_globs, cmd.shell,
                       cmd.source)
