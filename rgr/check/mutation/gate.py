"""The mutation gate of one phase: mutate the changed lines, run the tests that run them.

    changed non-test lines (rgr.store.git.added_lines)  ──►  mutants of those lines
                                                      (``Language.tree_mutation``)
    one traced test run (lines, cached by tree)  ──►  which tests run each mutant's line
    a line no test runs                          ──►  ``uncovered``: survives, nothing run
    every other mutant                           ──►  its covering tests only, on a
                                                      pristine sealed checkout (one per
                                                      job), ``jobs`` at once, inside the
                                                      phase's time budget
    findings                                     ──►  rule.decide  ──►  the phase's verdict

JavaScript/TypeScript, Go and Rust (rgr.check.mutation.textual) have no tracer: each
mutant runs the tests that can see its file (rgr.ecosystems.test_scope: Go's package and
its importers, the JavaScript test files that load the module; Rust's and Maven's tests
written for the file first, the whole command when they pass; a survivor of a JavaScript
run that left files out runs again with every test; a JavaScript runner started directly
instead of through npm, rgr.ecosystems.javascript.direct, must first give the phase's own results
unmutated; so must a Java mutant's first step run without Maven, rgr.ecosystems.jvm.
direct) on checkouts kept open for the gate (a compiled project builds incrementally),
each within a few times the phase's own test run; then each
survivor's statement is probed (made to end the test process at once, which no test can
catch): when every test still passes, no test runs it, and its survivors are
``uncovered``. Java also has a reach marker (``MutationSyntax.reach_marker``): one run
of the whole suite, before any mutant, with a marker before each mutated statement says
which lines the tests reach, so a mutant of an unreached line is ``uncovered`` without
a run and a reached line's survivor needs no probe. A mutant that does not build is
``unviable``, counted apart, never killed.

A kill is a test outcome, never an exit code (rgr.check.mutation.kills): every command
a mutant runs (a narrowed suite, Go's or Rust's first step, the whole command) has its
unmutated run in the same gate as a baseline (``Baselines``: one run per command and
set of files left out; the whole command's is the phase's own run), and the mutant is
killed only when a test that passed there fails, errors or no longer runs (or the run
times out). A step that is no test (a coverage threshold over a narrowed suite, a lint)
decides nothing; a narrowed suite whose tests cannot pass unmutated gives way to the
whole command, and the note says so.

A mutant the mutator marks equivalent (rgr.check.mutation.boundary: a boundary that
cannot change what its branch gives) is not run: ``equivalent-by-rule``, counted apart
and listed, never killed, never a survivor.

Where rgr has no mutator (any other language) the gate says so in the findings (``not
measured``) instead of passing it silently. A mutant the budget leaves unrun is
``not-run``: reported, never counted as killed.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from rgr.base.config import AdequacyConfig, Config, TestCommand
from rgr.base.installed import install_extra
from rgr.check.fakeit.facts import facts_of
from rgr.check.mutation import kills, textual
from rgr.check.mutation.rule import decide, demonstrably_killable
from rgr.check.verify import Confinement, TestReport, run_tests
from rgr.ecosystems import registry
from rgr.ecosystems import traced as line_data
from rgr.ecosystems.base import MutationSyntax
from rgr.ecosystems.language import Prover, TreeMutation
from rgr.ecosystems.manifest_keys import MANIFESTS
from rgr.ecosystems.mutant import Mutant, apply
from rgr.ecosystems.test_scope import Scope, left_out, scope_of
from rgr.store import git
from rgr.store.handoff import AdequacyNote, MutantFinding
from rgr.store.objects import Commit, Oid, Repository

#: A pristine sealed checkout of the commit under judgement: (tree, confinement, env).
Checkout = tuple[Path, Confinement | None, dict[str, str]]
OpenCheckout = Callable[[str], AbstractContextManager[Checkout]]
#: Which test ran which line of the traced path, and the run that said it.
Coverage = line_data.Coverage[TestReport]
#: Lines per file (``{"calc.py": {3, 4}}``).
Lines = dict[str, set[int]]
#: What each language's code is like to the textual mutator, by its name.
_SYNTAX: dict[str, MutationSyntax] = {s.language: s for s in registry.mutation_syntax()}

#: A mutant's run may take this many times the traced run, plus a margin (a mutant that
#: loops forever is killed by its timeout, which counts as killed).
_TIMEOUT_FACTOR, _TIMEOUT_MARGIN_S = 3.0, 10.0


@dataclass(frozen=True)
class Subject:
    """What one gate looks at: the phase, its changed lines and their text at the tip."""

    phase: str
    changed: Lines
    sources: dict[str, str]  # path -> text at the tip, for the changed files
    tree: str  # the tip's tree id (the coverage cache's key)


def subject_of(repo: Repository, config: Config, phase: str, base: Commit,
               tip: Commit) -> Subject:
    """What the gate looks at in ``base..tip``: the non-test lines it added or changed."""
    changed = changed_code(repo, config, base.id, tip.id)
    sources = {path: git.file_text(repo, tip.id, path) or "" for path in changed}
    return Subject(phase, changed, sources, str(tip.tree.id))


def changed_code(repo: Repository, config: Config, base: Oid, tip: Oid) -> Lines:
    """The lines ``base..tip`` added or changed in files that are not tests."""
    return {path: lines for path, lines in git.added_lines(repo, base, tip).items()
            if not config.is_test_file(path)}


def _traced(path: str) -> bool:
    """Whether a mutant of ``path`` takes the traced path: its language is mutated by
    its own syntax tree and its tests followed by rgr's line tracer
    (rgr.ecosystems.language.Language.tree_mutation)."""
    return registry.tree_mutation(path) is not None


def _tree_mutation(path: str) -> TreeMutation:
    """How ``path``, on the traced path (``_traced``), is mutated and read."""
    found = registry.tree_mutation(path)
    assert found is not None, path
    return found


def _tracer(files: list[str]) -> line_data.LineTracer:
    """The line tracer of the traced path's ``files`` (``TreeMutation.tracer``): the
    first file's language's, as one tracer watches them all in one run (only one
    language, Python, takes the traced path)."""
    return _tree_mutation(files[0]).tracer


def _tree_mutants(path: str, source: str, lines: Collection[int],
                  operators: Collection[str], noise: bool = False) -> list[Mutant]:
    """The mutants of ``lines`` of ``path`` made by its language's syntax tree."""
    return _tree_mutation(path).mutants(path, source, lines, operators, noise)


def _tracer_runs_under() -> str:
    """The runners rgr's line tracer runs under, as a remark names them."""
    return " and ".join(sorted({runner for eco in registry.ECOSYSTEMS
                                for runner in eco.traced_runners}))


def measure(subject: Subject, settings: AdequacyConfig, cmd: TestCommand,
            open_checkout: OpenCheckout, git_dir: Path, command_timeout: float,
            baseline_s: float | None = None, baseline: TestReport | None = None
            ) -> AdequacyNote:
    """The findings of ``subject`` (never raises for what the tests do). ``baseline_s``:
    how long the phase's own passing run of the same tree took, when the caller has one
    (the mutants' time limit follows from it); without it, the gate runs the unmutated
    suite once first to learn it. ``baseline``: that run's report, when the caller has
    it (a runner the gate starts directly must give the same results)."""
    started = time.monotonic()
    deadline = started + settings.budget
    traced = {p: ls for p, ls in subject.changed.items() if _traced(p)}
    probed = {p: ls for p, ls in subject.changed.items() if textual.language_of(p)}
    others = sorted(p for p in set(subject.changed) - set(traced) - set(probed)
                    if not _declares(p))
    remark = (f"not measured: {', '.join(others[:5])} (no mutator for this language yet)"
              if others else None)
    traced_mutants = [m for path, ls in sorted(traced.items())
                      for m in _tree_mutants(path, subject.sources.get(path, ""), ls,
                                             settings.operators)]
    probed_mutants = [m for path, ls in sorted(probed.items())
                      for m in textual.mutants_of(path, subject.sources.get(path, ""), ls,
                                                  settings.operators)]
    noise = _noise_skipped(subject, traced, probed, settings.operators,
                           len(traced_mutants) + len(probed_mutants))
    decided = [m for m in traced_mutants + probed_mutants if m.equivalent]
    traced_mutants = [m for m in traced_mutants if not m.equivalent]
    probed_mutants = [m for m in probed_mutants if not m.equivalent]
    mutants = traced_mutants + probed_mutants
    if not mutants and decided:
        return AdequacyNote(phase=subject.phase, mode=settings.mode, remark=remark,
                            decision="not-measured" if others else "pass",
                            equivalent_by_rule=len(decided), noise_skipped=noise,
                            mutants=[_finding(m, "equivalent-by-rule", [], m.equivalent)
                                     for m in decided],
                            duration_s=round(time.monotonic() - started, 3))
    if not mutants:
        return AdequacyNote(phase=subject.phase, mode=settings.mode, remark=remark,
                            decision="not-measured" if others else "pass",
                            noise_skipped=noise,
                            duration_s=round(time.monotonic() - started, 3))
    findings: dict[str, MutantFinding] = {}
    remarks = [remark]
    coverage: Coverage | None = None
    if traced_mutants:
        said, coverage = _measure_traced(subject, traced_mutants, sorted(traced), settings,
                                         cmd, open_checkout, git_dir, command_timeout,
                                         deadline, findings)
        remarks += [said, _settle_equivalence(subject, traced_mutants, coverage,
                                              open_checkout, deadline, findings)]
    if probed_mutants:
        remarks.append(_measure_probed(subject, probed_mutants, settings, cmd,
                                       open_checkout, command_timeout, deadline, findings,
                                       baseline_s, baseline))
        _tell_apart(subject, probed_mutants, open_checkout, deadline, findings)
    ordered = [_loaded_only(m, findings[m.id], subject.sources.get(m.path), coverage)
               for m in mutants]
    counts = {status: sum(1 for f in ordered if f.status == status)
              for status in ("killed", "survived", "uncovered", "not-run", "unviable",
                             "equivalent-by-crosshair", "undecided")}
    said = "; ".join(r for r in remarks if r) or None
    if time.monotonic() >= deadline - 1:  # mutants not run for want of time: say so
        said = _budget_remark(said, counts["not-run"], settings.budget)
    note = AdequacyNote(
        phase=subject.phase, mode=settings.mode,
        tried=len(ordered) - counts["unviable"], killed=counts["killed"],
        survived=counts["survived"], uncovered=counts["uncovered"],
        not_run=counts["not-run"], unviable=counts["unviable"],
        equivalent_by_rule=len(decided),
        equivalent_by_cross_hair=counts["equivalent-by-crosshair"],
        undecided=counts["undecided"], noise_skipped=noise,
        mutants=[f for f in ordered if f.status not in ("killed", "unviable")]
        + [_finding(m, "equivalent-by-rule", [], m.equivalent) for m in decided],
        duration_s=round(time.monotonic() - started, 3), remark=said)
    return note.updated(decision=decide(note))


def reexamine(subject: Subject, note: AdequacyNote, names: Collection[str],
              settings: AdequacyConfig, cmd: TestCommand, open_checkout: OpenCheckout,
              command_timeout: float, baseline: TestReport | None = None) -> AdequacyNote:
    """``note`` with the blame of its ``uncovered`` survivors named in ``names``
    (``MutantFinding.describe``) examined again, by the strongest evidence rgr has: the
    survivor's line probed with the whole test command in a fresh process (no tracer,
    no narrowing). A line a test reaches is no over-implementation: its survivor becomes
    ``survived`` (RED's gap), and the decision is made again. Asked when GREEN was
    rejected twice for the same survivor, before a third paid attempt."""
    started = time.monotonic()
    doubted = [m for m in note.mutants if m.status == "uncovered" and m.describe() in names]
    probes: dict[str, Mutant] = {}
    for finding in doubted:
        mutant = _mutant_of(subject, finding, settings)
        if mutant is None or mutant.module_level:
            continue
        source = subject.sources[mutant.path]
        probe = (_tree_mutation(mutant.path).probe(mutant.path, source, mutant.statement_line)
                 if _traced(mutant.path)
                 else textual.probe_of(mutant.path, source, mutant.statement_line,
                                       mutant.start))
        if probe is not None:
            probes[finding.describe()] = probe
    if not probes:
        return note
    unique = {(p.path, p.line, p.col): p for p in probes.values()}
    with _Checkouts(open_checkout, 1, Baselines(cmd, baseline)) as pool:
        reached = {(p.path, p.line, p.col): status for p, _tests, status in pool.run(
            [(p, []) for p in unique.values()], subject.sources, cmd,
            time.monotonic() + settings.budget, command_timeout)}
    moved = {name for name, p in probes.items()
             if reached.get((p.path, p.line, p.col)) == "killed"}
    if not moved:
        return note
    mutants = [m.updated(status="survived", reason="examined again: a test runs this line "
                         "(probed with every test), so the tests do not check its effect")
               if m.status == "uncovered" and m.describe() in moved else m
               for m in note.mutants]
    again = note.updated(mutants=mutants, uncovered=note.uncovered - len(moved),
                         survived=note.survived + len(moved),
                         duration_s=round(note.duration_s + time.monotonic() - started, 3))
    return again.updated(decision=decide(again))


def _mutant_of(subject: Subject, finding: MutantFinding, settings: AdequacyConfig
               ) -> Mutant | None:
    """The mutant ``finding`` describes, made again from the subject's source."""
    source = subject.sources.get(finding.path)
    if source is None:
        return None
    if _traced(finding.path):
        made = _tree_mutants(finding.path, source, {finding.line}, settings.operators)
    else:
        made = textual.mutants_of(finding.path, source, {finding.line}, settings.operators)
    return next((m for m in made
                 if (m.line, m.col, m.operator, m.original, m.replacement)
                 == (finding.line, finding.col, finding.operator, finding.original,
                     finding.replacement)), None)


def _noise_skipped(subject: Subject, traced: Lines,
                   probed: Lines, operators: Collection[str],
                   made: int) -> int:
    """How many mutants of the changed lines rgr left out as noise (rgr.check.mutation.
    arid.ARID: messages, log calls, directives, docstrings, annotations): the mutators
    run again with the noise in, less the ``made`` mutants they gave without it. Only
    counted, so that the gate's account says what it did not try."""
    with_noise = sum(
        len(mutator(path, subject.sources.get(path, ""), ls, operators, noise=True))
        for files, mutator in ((traced, _tree_mutants), (probed, textual.mutants_of))
        for path, ls in files.items())
    return max(0, with_noise - made)


def _measure_traced(subject: Subject, mutants: list[Mutant], files: list[str],
                    settings: AdequacyConfig, cmd: TestCommand,
                    open_checkout: OpenCheckout, git_dir: Path, command_timeout: float,
                    deadline: float, findings: dict[str, MutantFinding]
                    ) -> tuple[str | None, Coverage]:
    """Fills ``findings`` for the traced path's ``mutants`` (Python's): rgr's tracer
    tells which tests run each line (under the runners
    ``Ecosystem.traced_runners`` names), so a mutant faces only those tests, and one of a line no
    test was seen running faces every test, in a fresh process, before it is
    ``uncovered``. Returns a remark (or None) and the line data."""
    key = line_data.cache_key(subject.tree, files)
    coverage: Coverage | None = None
    if registry.traced(cmd.runner):
        coverage = _fast_path(subject, mutants, files, settings, cmd, open_checkout,
                              command_timeout, deadline, findings)
        if coverage is not None and findings and coverage.report is not None \
                and coverage.report.all_passed:
            line_data.save(git_dir, key, coverage)
    if coverage is None:
        coverage = line_data.load(git_dir, key)
    per_mutant_timeout = command_timeout
    if coverage is None:
        with open_checkout("mutation-lines") as (tree, confinement, env):
            coverage = _tracer(files).collect(
                _test_run(cmd, tree, command_timeout, confinement), files, env=env,
                scratch=confinement.tmp if confinement else tree.parent)
        if coverage.traced and coverage.report is not None and coverage.report.all_passed:
            line_data.save(git_dir, key, coverage)
            per_mutant_timeout = _timeout_after(coverage.report.duration_s, command_timeout)
    to_run: list[tuple[Mutant, list[str]]] = []
    unseen: set[str] = set()  # no test seen running them, yet run with every test
    for mutant in mutants:
        if mutant.id in findings:
            continue
        if not coverage.traced:
            to_run.append((mutant, []))  # [] runs the whole suite
            continue
        tests = coverage.tests_for(mutant)
        if tests:
            to_run.append((mutant, tests))
        else:
            # The tracer starts itself from the changed code (it hooks the changed
            # files' imports, rgr.ecosystems.python.pytest_lines.hook_imports), whatever
            # command started its runner: a line no test was seen running may
            # still run in a way the hook misses, or only while the modules load or a
            # fixture sets up (each test's call is traced, not its fixtures). Its
            # mutant runs with every test, in a fresh process, before it is uncovered.
            unseen.add(mutant.id)
            to_run.append((mutant, []))
    whole = coverage.report if coverage.report is not None \
        and coverage.report.all_passed else None
    if to_run:
        with _Checkouts(open_checkout, min(settings.jobs, len(to_run)),
                        Baselines(cmd, whole)) as pool:
            for mutant, tests, status in pool.run(to_run, subject.sources, cmd, deadline,
                                                  per_mutant_timeout):
                findings[mutant.id] = _finding(mutant, status, tests)
    if coverage.traced:
        # A survivor no test was seen running is blamed by evidence, not by the
        # tracer's silence: its line is probed with every test (a function header's
        # default, evaluated at load, by the function's body), and only a line no
        # test reaches is uncovered (GREEN's); one a test runs is RED's gap.
        _probe_traced_survivors(subject, [m for m in mutants if m.id in unseen],
                                settings, cmd, open_checkout, deadline,
                                per_mutant_timeout, findings, whole)
        return None, coverage
    _probe_traced_survivors(subject, mutants, settings, cmd, open_checkout, deadline,
                            per_mutant_timeout, findings, whole)
    return (f"no per-test line data (rgr's tracer runs under {_tracer_runs_under()}, and "
            "did not report here): each mutant ran the whole suite, and each survivor's "
            "line was probed"), coverage


def _test_run(cmd: TestCommand, tree: Path, timeout: float,
              confinement: Confinement | None) -> Callable[[Mapping[str, str]], TestReport]:
    """The tracer's run of ``cmd`` in ``tree``, sealed, given its environment."""
    def run(env: Mapping[str, str]) -> TestReport:
        return run_tests(cmd, tree, timeout=timeout, env=env, confinement=confinement)

    return run


def _probe_traced_survivors(subject: Subject, mutants: list[Mutant],
                            settings: AdequacyConfig, cmd: TestCommand,
                            open_checkout: OpenCheckout, deadline: float, timeout: float,
                            findings: dict[str, MutantFinding],
                            whole: TestReport | None = None) -> None:
    """A survivor's line is probed as the other languages' are (``TreeMutation.probe``:
    Python's rgr.ecosystems.python.probe), without the tracer or where it saw no test
    run the line: a suite that passes with the probe before the line never runs it, so
    its survivors are ``uncovered`` (GREEN's over-implementation), not a weakness RED
    could mend. A probe that did not run leaves the line counted as run. ``whole``: the
    unmutated run of ``cmd``, where the caller has one."""
    def probe_for(mutant: Mutant) -> Mutant | None:
        if mutant.module_level:
            return None
        return _tree_mutation(mutant.path).probe(mutant.path, subject.sources[mutant.path],
                                                 mutant.statement_line)

    def run_probes(probes: list[Mutant]) -> list[tuple[Mutant, list[str], str]]:
        with _Checkouts(open_checkout, min(settings.jobs, len(probes)),
                        Baselines(cmd, whole)) as pool:
            return pool.run([(p, []) for p in probes], subject.sources, cmd, deadline,
                            timeout)

    _mark_unrun(mutants, findings, probe_for, run_probes)


def _mark_unrun(mutants: list[Mutant], findings: dict[str, MutantFinding],
                probe_for: Callable[[Mutant], Mutant | None],
                run_probes: Callable[[list[Mutant]], list[tuple[Mutant, list[str], str]]]
                ) -> None:
    """Probes each survivor's place (``probe_for``: None where none can stand), one run
    per place, and marks ``uncovered`` the survivors whose probe "survived": every test
    passed with the place made to end the test process, so no test runs it. Anything
    else (a test failed, the probe did not build, the budget ran out) leaves the line
    counted as run."""
    probes: dict[tuple[str, int, int], Mutant] = {}
    probed_at: dict[str, tuple[str, int, int]] = {}
    for mutant in mutants:
        finding = findings.get(mutant.id)
        if finding is None or finding.status != "survived":
            continue
        probe = probe_for(mutant)
        if probe is not None:
            place = (probe.path, probe.line, probe.col)
            probes.setdefault(place, probe)
            probed_at[mutant.id] = place
    if not probes:
        return
    reached = {(probe.path, probe.line, probe.col): status
               for probe, _tests, status in run_probes(list(probes.values()))}
    for mutant_id, place in probed_at.items():
        if reached.get(place) == "survived":
            findings[mutant_id] = findings[mutant_id].updated(status="uncovered")


def _settle_equivalence(subject: Subject, mutants: list[Mutant], coverage: Coverage,
                        open_checkout: OpenCheckout, deadline: float,
                        findings: dict[str, MutantFinding]) -> str | None:
    """Each traced survivor on a line a test runs, first called with the covering tests'
    own calls, one argument varied (``TreeMutation.telling``: Python's
    rgr.ecosystems.python.telling): an input that tells it apart is proof it is not
    equivalent, kept for the strengthening RED. The others are
    put to their language's prover (``Language.prover``: Python's CrossHair,
    rgr.ecosystems.python.equivalence) when it is installed: proved equivalent ->
    ``equivalent-by-crosshair``; an input that tells it apart -> it stays a survivor,
    the input kept; undecided -> a survivor all the same when a test runs its line
    (RED's gap: nothing proves the change harmless), ``undecided`` (a remark) only
    where no test is known to run it. All in a sealed checkout of their own. Returns a
    remark, or None."""
    survivors = [m for m in mutants if findings[m.id].status == "survived"
                 and not m.module_level]
    if not survivors:
        return None
    provers = {m.id: prover for m in survivors if (prover := _prover_of(m.path))}
    name = " and ".join(sorted({prover.name for prover in provers.values()}))
    undecided = unsettled = 0
    with open_checkout("mutation-equivalence") as (tree, confinement, env):
        for mutant in survivors:
            left = deadline - time.monotonic()
            if left < 2:
                break
            source = subject.sources[mutant.path]
            finding = findings[mutant.id]
            search = _tree_mutation(mutant.path)
            told = search.telling(mutant.path, source, apply(source, mutant), mutant.line,
                                  _test_sources(tree, finding.tests), tree, confinement, env,
                                  min(search.telling_seconds, max(1.0, left - 1)))
            if told is not None:
                findings[mutant.id] = finding.updated(telling_input=told)
        if not all(prover.available() for prover in provers.values()):
            return (f"{name} is not installed, so no survivor was checked for "
                    f"equivalence ({install_extra('equivalence')})")
        for mutant in survivors:
            prover = provers.get(mutant.id)
            if prover is None or findings[mutant.id].telling_input:
                continue
            left = deadline - time.monotonic()
            if left < 2:
                return _remark_undecided(undecided, name) or (
                    f"the time budget ran out before {name} saw every survivor")
            source = subject.sources[mutant.path]
            function = prover.function_at(source, mutant.line)
            traced = coverage.types_of(mutant.path, function) if function else None
            answer = prover.decide(
                mutant.path, source, apply(source, mutant), mutant.line, tree, confinement,
                env, traced, min(prover.seconds, max(1.0, left - 1)))
            finding = findings[mutant.id]
            if answer.kind == "equivalent":
                findings[mutant.id] = finding.updated(
                    status="equivalent-by-crosshair",
                    reason=f"{prover.name} explored every path and found no difference")
            elif answer.kind == "differs":
                findings[mutant.id] = finding.updated(telling_input=answer.detail)
            elif finding.tests or demonstrably_killable(mutant, source, finding):
                # a line the tests run, its change unnoticed, and no proof it is
                # equivalent: RED's gap, whatever the prover could not decide
                unsettled += 1
            else:
                findings[mutant.id] = finding.updated(status="undecided",
                                                      reason=answer.detail)
                undecided += 1
    return "; ".join(r for r in (_remark_undecided(undecided, name),
                                 _remark_unsettled(unsettled, name)) if r) or None


def _prover_of(path: str) -> Prover | None:
    """The equivalence prover of ``path``'s language, or None."""
    language = registry.language_of(path)
    return None if language is None else language.prover


def _test_sources(tree: Path, tests: Collection[str]) -> list[str]:
    """The text of the files holding ``tests`` (node ids, ``path::name``) in ``tree``."""
    out = []
    for path in sorted({t.split("::", 1)[0] for t in tests}):
        file = tree / path
        try:
            # a plain file inside the checkout (a link could lead out of it)
            if file.is_file() and not file.is_symlink() \
                    and file.resolve().is_relative_to(tree.resolve()) \
                    and file.stat().st_size < 1_000_000:
                out.append(file.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return out


def _remark_unsettled(count: int, prover: str) -> str | None:
    if not count:
        return None
    return (f"{count} survivor(s) on lines the tests run {prover} could neither prove "
            "equivalent nor tell apart: survivors all the same")


def _remark_undecided(count: int, prover: str) -> str | None:
    if not count:
        return None
    return (f"{count} survivor(s) {prover} could not decide (listed as undecided): a "
            "remark, not a rejection")


def _measure_probed(subject: Subject, mutants: list[Mutant], settings: AdequacyConfig,
                    cmd: TestCommand, open_checkout: OpenCheckout, command_timeout: float,
                    deadline: float, findings: dict[str, MutantFinding],
                    baseline_s: float | None, baseline: TestReport | None = None
                    ) -> str | None:
    """Fills ``findings`` for JavaScript, Go and Rust ``mutants``: each runs the tests
    that can see its file (rgr has no per-test line data there: ``_Checkouts.scopes``)
    on checkouts kept open for the gate (a
    compiled project's first mutant builds it, the others build incrementally); then
    each survivor's statement is probed (a statement that ends the test process at once,
    inserted before it: rgr.check.mutation.textual.probe_of). Tests that still all pass
    never reach that line: its survivors are ``uncovered``. Returns a remark, or None."""
    jobs = max(1, min(settings.jobs, len(mutants)))
    baselines = Baselines(cmd, baseline)
    with _Checkouts(open_checkout, jobs, baselines) as pool:
        warm = baseline_s if baseline_s is not None else pool.warm(
            cmd, min(command_timeout, max(1.0, deadline - time.monotonic())))
        if warm is None:
            for mutant in mutants:
                findings[mutant.id] = _finding(mutant, "not-run", [])
            return ("the suite did not pass in a checkout of its own, so no mutant was "
                    "run")
        timeout = _timeout_after(warm, command_timeout)
        first_tree = pool.trees()[0]
        scopes = {path: scope_of(cmd, first_tree, path)
                  for path in sorted({m.path for m in mutants})}
        failed: set[str] = set()  # paths whose narrowed suite fails unmutated
        # Where the language records which lines the tests reach (Java), one run says it
        # for every changed line: a mutant of a line no test reaches is ``uncovered``
        # without a run, and a survivor of a reached line needs no probe.
        left = deadline - time.monotonic()
        reached = pool.reached(mutants, subject.sources, cmd, min(timeout, left)) \
            if left > 1 else {}
        for mutant in mutants:
            marked, hit = reached.get(mutant.path, (set(), set()))
            if mutant.statement_line in marked and mutant.statement_line not in hit:
                findings[mutant.id] = _finding(mutant, "uncovered", [])
        mutants = [m for m in mutants if m.id not in findings]

        def check(checkout: Checkout) -> None:
            """A runner started directly (rgr.ecosystems.javascript.direct,
            rgr.ecosystems.jvm.direct) must, unmutated, give the phase's own results
            (``baseline``, where the caller has it) before its kills count; Java's
            direct first step must pass unmutated too. Its unmutated run is the
            mutants' baseline (every narrowed run has one: ``Baselines``, where a
            narrowed suite that cannot pass unmutated gives way to the whole command).
            Run by the first free checkout, beside the first mutants."""
            tree, confinement, env = checkout
            for path, scope in scopes.items():
                if not scope.direct:
                    continue
                report = baselines.of(tree, confinement, env, scope.checked_in,
                                      () if scope.plain_first is not None
                                      else scope.left_out, timeout)
                if (scope.plain_first is not None and not kills.judges(report)) or (
                        kills.judges(report)
                        and not agrees_with_phase(report, baseline, scope)):
                    failed.add(path)

        # Java's direct runs need a checkout a Maven run has built (the reach run built
        # the first): only those take the mutants, since building another costs a
        # Maven run, more than several direct runs. None built: Maven runs them all.
        built = [n for n, tree in enumerate(pool.trees())
                 if all(s.first_ready(tree)
                        for s in scopes.values() if s.plain_first is not None)]
        if not built:
            scopes = {path: scope.undirected(cmd) if scope.plain_first is not None else scope
                      for path, scope in scopes.items()}
        for mutant, _tests, status in pool.run([(m, []) for m in mutants], subject.sources,
                                               cmd, deadline, timeout, scopes, check,
                                               built or None):
            findings[mutant.id] = _finding(mutant, status, [])
        # A survivor of a run that left tests out faces every test before it counts:
        # the tests left out were chosen by reading the code, which can miss a killer.
        # Where the narrowed suite failed unmutated, every mutant runs again whole
        # (Java's: with Maven's own first step).
        again: list[tuple[Mutant, list[str]]] = [
            (m, []) for m in mutants if m.path in failed or (
                findings[m.id].status == "survived" and not scopes[m.path].exact)]
        gave_way = sorted(path for path in failed if scopes[path].direct)
        went_without = " or ".join(dict.fromkeys(scopes[path].instead_of
                                                 for path in gave_way))
        scopes = {path: scope if path not in failed else scope.undirected(cmd)
                  for path, scope in scopes.items()}
        # The user's command, its script's hooks looked past where they stopped the run
        # before any test reported (``Ecosystem.without_hooks``: npm's); a Java direct
        # first step that gave way: Maven's own first step, then the whole suite.
        whole = Scope(cmd, hookless=registry.without_hooks(cmd, first_tree))
        again_scopes = {path: scope if path in failed and scope.first is not None
                        else whole for path, scope in scopes.items()}
        for mutant, _tests, status in pool.run(again, subject.sources, cmd, deadline,
                                               timeout, again_scopes):
            findings[mutant.id] = _finding(mutant, status, [])
        # One probe per place: before a line's statement, or inside the one-line body
        # of an ``if`` that holds the survivor (textual.probe_of), run within the scopes
        # that are exact (a narrowed JavaScript run could miss the test that runs it).
        # Where the lines reached are known, only a one-line ``if``'s body is probed.
        # Elsewhere the user's command, its hooks left out where it has any: a probe
        # asks whether a test reaches the line, and a lint the probe upsets is no test.
        # A probe ends the test process, which is no failing test: a first run that
        # needs one (cargo's) could never decide it, so probes skip it.
        probing = Scope(whole.hookless or cmd)
        probe_scopes = {
            path: (replace(scope, first=None) if scope.first_needs_a_failing_test
                   else scope) if scope.exact else probing
            for path, scope in scopes.items()}

        def probe_for(mutant: Mutant) -> Mutant | None:
            probe = textual.probe_of(mutant.path, subject.sources[mutant.path],
                                     mutant.statement_line, mutant.start)
            marked = reached.get(mutant.path, (set(), set()))[0]
            if probe is not None and mutant.statement_line in marked and probe.col == 1:
                return None  # the marker saw a test reach it
            return probe

        _mark_unrun(
            mutants, findings, probe_for,
            lambda probes: pool.run([(p, []) for p in probes], subject.sources, cmd,
                                    deadline, timeout, probe_scopes))
    said = [baselines.remark()]
    if gave_way:
        said.append(f"the tests started directly (without {went_without}) did not give the "
                    f"phase's own results unmutated, so the mutants of "
                    f"{', '.join(gave_way)} ran with the test command as it is")
    return "; ".join(r for r in said if r) or None


#: How many survivors of one gate get a telling search where it costs test runs (Go:
#: two builds each); the brief names the first ones first.
_TOLD = 3


def _tell_apart(subject: Subject, mutants: list[Mutant], open_checkout: OpenCheckout,
                deadline: float, findings: dict[str, MutantFinding]) -> None:
    """Each survivor on a line a test runs, in a language with a telling search
    (``MutationSyntax.telling``: Go's, rgr.ecosystems.go.telling), gets the input that
    tells it apart, found from the calls the tests beside its file compare (their
    fake-it facts) in a sealed checkout of its own, for the strengthening RED."""
    searches = {s.language: s.telling for s in registry.mutation_syntax() if s.telling}
    survivors = [m for m in mutants if findings[m.id].status == "survived"
                 and (textual.language_of(m.path) or "") in searches][:_TOLD]
    # a line no test runs makes it GREEN's over-implementation: no RED is sent back to
    # be told anything, and each search costs builds
    unrun = any(findings[m.id].status == "uncovered" for m in mutants)
    if not survivors or unrun or deadline - time.monotonic() < 5:
        return
    with open_checkout("mutation-telling") as (tree, confinement, env):
        for mutant in survivors:
            left = deadline - time.monotonic()
            if left < 5:
                return
            source = subject.sources[mutant.path]
            search = searches[textual.language_of(mutant.path) or ""]
            told = search(mutant.path, source, apply(source, mutant), mutant.line,
                          _facts_beside(tree, mutant.path), tree,
                          confinement.launcher if confinement else None, env,
                          min(120.0, left - 1))
            if told:
                findings[mutant.id] = findings[mutant.id].updated(telling_input=told)


def _facts_beside(tree: Path, path: str) -> list[tuple[str, tuple[str, ...]]]:
    """(callee, literal arguments) of each call compared with a value in the files of
    ``path``'s language beside it (its tests among them)."""
    language = textual.language_of(path)
    folder = (tree / path).parent
    found: list[tuple[str, tuple[str, ...]]] = []
    for file in sorted(folder.iterdir()) if folder.is_dir() else []:
        if file.is_file() and textual.language_of(file.name) == language:
            relative = file.relative_to(tree).as_posix()
            found += [(f.callee, f.args) for f in
                      facts_of(relative, file.read_text(encoding="utf-8", errors="replace"))]
    return found


def agrees_with_phase(report: TestReport, baseline: TestReport | None, scope: Scope) -> bool:
    """Whether a direct run's unmutated ``report`` gives the phase's own results: each
    test of the files it kept, with the same status. Where the ids name no file (Mocha
    before 10) and files were left out, the kept ones cannot be told apart: then every
    test it ran must be one the phase ran, with the same status. Without the phase's
    report only its passing, which the caller checks, is asked."""
    if baseline is None:
        return True
    got = {key: o.status for key, o in report.outcomes.items()}
    if scope.plain_first is not None and scope.first is not None \
            and scope.test_files is not None:
        # Java: the direct run ran the test classes written for the changed class
        kept = scope.test_files(scope.first)
        return got == {key: o.status for key, o in baseline.outcomes.items()
                       if o.file in kept}
    dropped = set(scope.left_out)
    if dropped and any(o.file is None for o in baseline.outcomes.values()):
        return all(baseline.outcomes.get(key) is not None
                   and baseline.outcomes[key].status == status
                   for key, status in got.items())
    return got == {key: o.status for key, o in baseline.outcomes.items()
                   if o.file not in dropped}


def _loaded_only(mutant: Mutant, finding: MutantFinding, source: str | None,
                 coverage: Coverage | None) -> MutantFinding:
    """A survivor of a module-level statement (``PRECISION = 2`` beside the changed
    function) is ``uncovered``: the line runs only when the module loads, and unless a
    test runs a function that reads what it sets, no test asks for it; code no test asks
    for is GREEN's over-implementation. When a test does run such a function (Python,
    by the tests' traced lines: ``_UNITS = {"h": 3600}`` read by ``parse_duration``,
    which a test calls), the value is on the tests' path, unchecked: a survivor, RED's
    gap, never "remove it". Its ``tests`` stay the ones its run used."""
    if not (mutant.module_level and finding.status == "survived"):
        return finding
    if source is not None and coverage is not None \
            and _read_where_tests_run(mutant, source, coverage):
        return finding
    return finding.updated(status="uncovered")


def _read_where_tests_run(mutant: Mutant, source: str,
                          coverage: Coverage) -> bool:
    """Whether a function of ``source`` that a test runs reads a name the module-level
    statement of ``mutant`` binds (the functions are the language's reading:
    ``TreeMutation.readers``)."""
    language = registry.tree_mutation(mutant.path)
    return language is not None and any(
        coverage.tests_running(mutant.path, body)
        for body in language.readers(source, mutant.line))


def _declares(path: str) -> bool:
    """A manifest, lock file or text: no code to mutate (its keys are judged by
    rgr.ecosystems.manifest_keys), so nothing "not measured" either."""
    name = path.rsplit("/", 1)[-1]
    return name in MANIFESTS or name.endswith((".lock", ".sum", ".md", ".txt"))


def _timeout_after(duration_s: float, command_timeout: float) -> float:
    """A mutant's time limit: a few times the unmutated run, never over the command's."""
    return min(command_timeout, _TIMEOUT_FACTOR * duration_s + _TIMEOUT_MARGIN_S)


def _fast_path(subject: Subject, mutants: list[Mutant], files: list[str],
               settings: AdequacyConfig, cmd: TestCommand, open_checkout: OpenCheckout,
               command_timeout: float, deadline: float,
               findings: dict[str, MutantFinding]) -> Coverage | None:
    """pytest and unittest: ``jobs`` sealed sessions at once (no more than the CPUs the
    load leaves idle), each tracing the suite and then running its share of the
    mutants, each in a child forked from it (unittest's through rgr's reporter,
    rgr.ecosystems.python.unittest_reporter). Fills ``findings`` for the mutants the sessions
    answered for (the others run the slow way); returns the line data (None: no session
    traced, so the slow path must not trust any)."""
    jobs = max(1, min(settings.jobs, len(mutants), idle_cpus()))
    shares = [mutants[n::jobs] for n in range(jobs)]
    wall_deadline = time.time() + deadline - time.monotonic()

    def session(number: int) -> Coverage:
        batch = {m.id: (m, apply(subject.sources[m.path], m)) for m in shares[number]}
        with open_checkout(f"mutation-{number}") as (tree, confinement, env):
            return _tracer(files).collect(
                _test_run(cmd, tree, command_timeout + settings.budget, confinement),
                files, env=env,
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
    if set(results) <= {m.id for m in mutants}:
        # A mutant without a result (its fork could not patch the loaded code) runs
        # the slow way, in a process of its own.
        for mutant in mutants:
            if mutant.id in results:
                findings[mutant.id] = _finding(mutant, results[mutant.id],
                                               coverage.tests_for(mutant))
    return coverage


def idle_cpus() -> int:
    """The CPUs the 1-minute load average leaves idle, at least 1. Each session of the
    fast path traces the whole suite before its share of the mutants: a second session
    pays only when it runs beside the first, not after it on a busy machine (measured on
    Python-Markdown at load 6 on 2 CPUs: 1.2x the phase's run with one session, 1.6x
    with two)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cpus
    return max(1, round(cpus - busy))


def _finding(mutant: Mutant, status: str, tests: list[str], reason: str = ""
             ) -> MutantFinding:
    return MutantFinding.model_validate({
        "path": mutant.path, "line": mutant.line, "col": mutant.col,
        "operator": mutant.operator, "original": mutant.original,
        "replacement": mutant.replacement, "status": status, "tests": tests,
        "reason": reason or None})


def _budget_remark(remark: str | None, not_run: int, budget: float) -> str | None:
    if not not_run:
        return remark
    said = (f"the time budget ({budget:g}s, [adequacy] budget) ran out with {not_run} "
            "mutant(s) not run: they count as neither killed nor survived")
    return f"{remark}; {said}" if remark else said


class _Checkouts:
    """``jobs`` pristine sealed checkouts, open for the whole gate (a compiled project
    builds incrementally from one mutant to the next), working through one queue."""

    def __init__(self, open_checkout: OpenCheckout, jobs: int, baselines: Baselines
                 ) -> None:
        self._open, self._jobs = open_checkout, max(1, jobs)
        self.baselines = baselines
        self._stack = ExitStack()
        self._open_ones: list[Checkout] = []
        #: Checkouts whose build took a mutated constant (Scope.first_in).
        self._tainted: set[Path] = set()

    def __enter__(self) -> _Checkouts:
        with ThreadPoolExecutor(max_workers=self._jobs) as pool:
            self._open_ones = list(pool.map(
                lambda n: self._stack.enter_context(self._open(f"mutation-{n}")),
                range(self._jobs)))
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def warm(self, cmd: TestCommand, timeout: float) -> float | None:
        """Runs the unmutated suite in every checkout; the slowest run's seconds, or None
        when any did not pass (then no mutant's result would mean anything)."""
        def one(checkout: Checkout) -> TestReport:
            tree, confinement, env = checkout
            return run_tests(cmd, tree, timeout=timeout, env=env, confinement=confinement)

        with ThreadPoolExecutor(max_workers=self._jobs) as pool:
            reports = list(pool.map(one, self._open_ones))
        if not all(r.all_passed and not r.no_tests_collected for r in reports):
            return None
        self.baselines.seed(cmd, (), reports[0])  # the mutants' whole runs' yardstick
        return max(r.duration_s for r in reports)

    def reached(self, mutants: list[Mutant], sources: dict[str, str], cmd: TestCommand,
                timeout: float) -> dict[str, tuple[set[int], set[int]]]:
        """The lines of each mutated file that the whole suite reaches, read from one
        run in the first checkout with a marker before each mutant's statement
        (textual.reach_of): path -> (the lines marked, those reached), for the files
        whose language has a marker.
        Empty when the run fails, does not build, or no marker was written at all (a
        sandbox or a build that does not let it write must not read as "no test
        reaches any line"): then every mutant runs and survivors are probed."""
        tree, confinement, env = self._open_ones[0]
        folder = confinement.tmp if confinement else tree.parent
        marked: dict[str, tuple[str, set[int], Path]] = {}
        for number, path in enumerate(sorted({m.path for m in mutants})):
            marker = folder / f"rgr-reached-{number}.txt"
            lines = {m.statement_line for m in mutants if m.path == path}
            instrumented = textual.reach_of(path, sources[path], lines, str(marker))
            if instrumented is not None:
                marked[path] = (*instrumented, marker)
        if not marked:
            return {}
        try:
            for path, (text, _lines, marker) in marked.items():
                marker.unlink(missing_ok=True)
                (tree / path).write_text(text, encoding="utf-8")
            report = run_tests(cmd, tree, timeout=timeout, env=env, confinement=confinement)
        finally:
            for path in marked:
                (tree / path).write_text(sources[path], encoding="utf-8")
        found = {path: (lines, textual.reached_lines(marker.read_text(encoding="utf-8"))
                        if marker.is_file() else set())
                 for path, (_text, lines, marker) in marked.items()}
        for _text, _lines, marker in marked.values():
            marker.unlink(missing_ok=True)
        if not report.all_passed or report.no_tests_collected \
                or not any(hit for _lines, hit in found.values()):
            return {}
        return found

    def trees(self) -> list[Path]:
        return [tree for tree, _confinement, _env in self._open_ones]

    def run(self, to_run: list[tuple[Mutant, list[str]]], sources: dict[str, str],
            cmd: TestCommand, deadline: float, timeout: float,
            scopes: dict[str, Scope] | None = None,
            before: Callable[[Checkout], None] | None = None,
            only: list[int] | None = None
            ) -> list[tuple[Mutant, list[str], str]]:
        """Each mutant's status (``killed``, ``survived``, ``unviable``, or ``not-run``
        once ``deadline`` has passed), each run within ``scopes[mutant.path]`` (the
        whole command where none is given). ``before``: run once, by the first
        checkout free, before its mutants. ``only``: the checkouts (by number) to use."""
        pending: queue.Queue[tuple[Mutant, list[str]]] = queue.Queue()
        for item in to_run:
            pending.put(item)
        results: list[tuple[Mutant, list[str], str]] = []
        lock = threading.Lock()

        claimed = [before is None]

        def worker(checkout: Checkout) -> None:
            tree, confinement, env = checkout
            with lock:
                mine, claimed[0] = not claimed[0], True
            if mine and before is not None:
                before(checkout)
            while True:
                try:
                    mutant, tests = pending.get_nowait()
                except queue.Empty:
                    return
                left = deadline - time.monotonic()
                scope = (scopes or {}).get(mutant.path) or Scope(cmd)
                status = "not-run" if left <= 1 else _run_one(
                    mutant, tests, sources, scope, tree, confinement, env,
                    min(timeout, left), self._tainted, self.baselines)
                with lock:
                    results.append((mutant, tests, status))

        used = [c for n, c in enumerate(self._open_ones) if only is None or n in only]
        with ThreadPoolExecutor(max_workers=self._jobs) as pool:
            for future in [pool.submit(worker, c) for c in used]:
                future.result()
        return results


def _run_one(mutant: Mutant, tests: list[str], sources: dict[str, str], scope: Scope,
             tree: Path, confinement: Confinement | None, env: dict[str, str],
             timeout: float, tainted: set[Path], baselines: Baselines) -> str:
    """The status of ``mutant`` run within ``scope`` in the checkout ``tree``: each of
    its runs judged per test against the same command's unmutated run (``baselines``,
    rgr.check.mutation.kills), never by the exit code. A narrowed command whose
    unmutated run cannot judge (a test fails there, none passes) gives way to the whole
    command (``baselines.cmd``), as the note says."""
    target = tree / mutant.path
    original = sources[mutant.path]
    mutated = apply(original, mutant)
    first = scope.first_in(tree, original, (mutant.statement_line, mutant.line), tainted)

    def judged(command_of: Callable[[Path], TestCommand], kept_out: tuple[str, ...],
               selection: list[str] | None = None) -> tuple[TestReport, TestReport]:
        """The mutant's run of the command ``command_of`` gives in ``tree`` (its
        ``kept_out`` files out), and that command's unmutated run."""
        baseline = baselines.of(tree, confinement, env, command_of, kept_out, timeout)
        target.write_text(mutated, encoding="utf-8")
        try:
            with left_out(tree, kept_out):
                command = _selecting(command_of(tree), selection or [])
                report = run_tests(command, tree, timeout=timeout, env=env,
                                   confinement=confinement)
        finally:
            target.write_text(original, encoding="utf-8")
        return report, baseline

    selected = bool(tests) and _selecting(scope.cmd, tests) is not scope.cmd
    if first is not None:  # the changed package first: most mutants end there
        narrower: TestCommand = first
        report, baseline = judged(lambda _tree: narrower, ())
        if kills.judges(baseline) and first_settles(scope, report, baseline):
            return _status_of(mutant, report, baseline, selected=False)
    report, baseline = judged(scope.command_in, scope.left_out, tests)
    if not kills.judges(baseline) and not kills.empty(baseline) and (
            scope.narrowed or scope.cmd != baselines.cmd):
        # The narrowed command cannot pass unmutated (a coverage threshold over the
        # files left out, a test needing one of them): the whole command, per test.
        baselines.gave_way(mutant.path, baseline)
        report, baseline = judged(lambda _tree: baselines.cmd, (), tests)
        scope = Scope(baselines.cmd, hookless=scope.hookless)
    if scope.hookless is not None and not report.all_passed and not report.outcomes \
            and not report.timed_out:
        # No test reported: the run stopped first, in a hook (a lint failing on the
        # mutant) or while the tests loaded. Only the tests may kill: again without
        # the hooks (a test file that cannot load fails there too).
        hookless = scope.hookless
        report, baseline = judged(lambda _tree: hookless, scope.left_out)
    if kills.empty(baseline):
        return "survived"  # no test in this run: none noticed it
    if not kills.judges(baseline):
        return "not-run"  # no unmutated run of it passes: nothing could kill the mutant
    return _status_of(mutant, report, baseline, selected=selected)


def _status_of(mutant: Mutant, report: TestReport, baseline: TestReport, *,
               selected: bool) -> str:
    syntax = _SYNTAX.get(textual.language_of(mutant.path) or "")
    if syntax is not None and report.collection_errors \
            and not report.outcomes and not report.timed_out and (
                syntax.may_not_build or "SyntaxError" in report.output_excerpt):
        # A token-level mutant that does not build or parse: no verdict. (JavaScript
        # that parses but throws while its module loads is behaviour the tests noticed;
        # every Python mutant parses, so a run that no longer loads noticed it.)
        return "unviable"
    return "killed" if kills.noticed(baseline, report, selected=selected) else "survived"


def first_settles(scope: Scope, report: TestReport, baseline: TestReport) -> bool:
    """Whether a mutant's first, narrower run (``scope.first``), judged against its own
    unmutated run ``baseline``, decides it; else ``scope.cmd`` runs. A first run where
    no test that passed unmutated failed never does. Where the first run can fail for
    reasons of its own (``Scope.first_needs_a_failing_test``: cargo refusing a target),
    only a failing test or a timeout (a mutant that loops forever) decides: a build
    error or a run of no test gives way to the whole command, whose own verdict (an
    unviable mutant included) is the mutant's."""
    return kills.noticed(baseline, report,
                         failing_test_only=scope.first_needs_a_failing_test)


class Baselines:
    """The unmutated runs a gate's mutant runs are judged against: one per command and
    set of test files left out, run once per gate by the first checkout that needs it
    (before its mutant is written; every checkout is the same commit). ``cmd``: the
    user's whole command, whose unmutated run is the phase's own where the caller has
    it (``whole``)."""

    def __init__(self, cmd: TestCommand, whole: TestReport | None = None) -> None:
        self.cmd = cmd
        self._reports: dict[tuple[TestCommand, tuple[str, ...]], TestReport] = {}
        if whole is not None:
            self._reports[(cmd, ())] = whole
        self._lock = threading.Lock()
        #: path -> why its narrowed command could not judge (the note says it).
        self.fell_back: dict[str, str] = {}
        #: How many unmutated runs the gate paid for.
        self.runs = 0

    def of(self, tree: Path, confinement: Confinement | None, env: dict[str, str],
           command_of: Callable[[Path], TestCommand], kept_out: tuple[str, ...],
           timeout: float) -> TestReport:
        with self._lock:  # a checkout waiting for a baseline another is running waits
            with left_out(tree, kept_out):
                command = command_of(tree)
                key = (command, kept_out)
                if key not in self._reports:
                    self.runs += 1
                    self._reports[key] = run_tests(command, tree, timeout=timeout,
                                                   env=env, confinement=confinement)
            return self._reports[key]

    def seed(self, command: TestCommand, kept_out: tuple[str, ...],
             report: TestReport) -> None:
        with self._lock:
            self._reports.setdefault((command, kept_out), report)

    def gave_way(self, path: str, baseline: TestReport) -> None:
        with self._lock:
            self.fell_back.setdefault(path, kills.why_not(baseline))

    def remark(self) -> str | None:
        if not self.fell_back:
            return None
        said = "; ".join(f"{path}: {why}" for path, why in sorted(self.fell_back.items()))
        return ("the narrowed suite did not pass unmutated (" + said + "), so those "
                "mutants ran with the whole test command, judged per test")


def _selecting(cmd: TestCommand, tests: list[str]) -> TestCommand:
    """``cmd`` limited to ``tests`` where its ecosystem knows how; otherwise the whole
    command, which is slower but as honest."""
    return registry.select_tests(cmd, tests)
