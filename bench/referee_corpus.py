"""The referee on the wider corpus (issue 44, items 1 and 5): each change of
bench/corpus/changes.py (parsing that raises, formatting with options, a class with
state) and each of its cheats committed on a real project as its users have it, judged
as ``rgr run`` judges a phase, and the gate's false-kill rate measured against the
project's own tests.

For each project, change and variant (bench/corpus/changes.py ``VARIANTS``): RED's
commit on the release (the tests) and GREEN's on RED's (the code; the ``edit`` cheat
also rewrites the tests), each judged in phase order, stopping at the first phase
rejected, as a run would:

* RED: its scope (rgr.check.guards.check_scope: skip markers, the files it may touch,
  cheat idioms) and its tests against the release's run (check_tests);
* GREEN: its scope, its tests against RED's run, the mutation gate
  (rgr.check.mutation.gate.measure, through the run's real Sealer) and the fake-it
  ledger (open debt is a finding: a special case answering a test's own values).

The verdict row says which rules fired, the phase they blame (the gate's
``test-too-weak`` is RED's, ``over-implemented`` GREEN's), the ``file:line`` named, and
whether that is right: honest changes must meet no rule; each cheat must meet one of its
rules, blamed on its phase, with a line.

False kills: every mutant the gate counted killed (made again from the same source:
the gate's mutants less those its note lists) is applied to GREEN's tree and the
project's own whole test command runs on it in the same sandbox; the runner's per-test
outcomes are compared with GREEN's unmutated run. A kill is confirmed when a test that
passed unmutated fails, errors or is gone, or the run times out; a mutant that does not
build is counted apart (unviable); anything else is a false kill, printed with its
mutant. The rate is printed per ecosystem.

    RGR_CORPUS_CACHE=/tmp/corpus-cache python bench/referee_corpus.py \
        [--only iniconfig,@fastify/error,github.com/google/uuid] \
        [--changes duration,percent,tally] [--variants honest,weak,...] \
        [--kills honest,weak,over] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from bench.corpus.changes import TEXTS, VARIANTS, placed, variants_of  # noqa: E402
from bench.corpus.placements import PLACEMENTS  # noqa: E402
from bench.corpus.projects import Project, by_name  # noqa: E402
from bench.real_code_bench import commit, prepare, sh  # noqa: E402
from rgr.base.config import AdequacyConfig  # noqa: E402
from rgr.check import flaky  # noqa: E402
from rgr.check.fakeit import blame as fake_blame  # noqa: E402
from rgr.check.fakeit import ledger as fakeit_ledger  # noqa: E402
from rgr.check.guards import check_scope, check_tests, step_fails  # noqa: E402
from rgr.check.mutation import textual  # noqa: E402
from rgr.check.mutation.gate import measure, subject_of  # noqa: E402
from rgr.check.verify import TestReport  # noqa: E402
from rgr.ecosystems.mutant import Mutant, apply  # noqa: E402
from rgr.ecosystems.python.mutants import mutants_of  # noqa: E402
from rgr.ecosystems.registry import resolve_test_command  # noqa: E402
from rgr.sandbox.sealer import open_sealer  # noqa: E402
from rgr.store import git  # noqa: E402
from rgr.store.handoff import AdequacyNote, Phase  # noqa: E402
from rgr.store.workspace import open_workspace  # noqa: E402
from tests.fake_backend import FakeBackend  # noqa: E402

#: One project per ecosystem whose test command is more than a runner: iniconfig
#: (pytest), @fastify/error (``c8 --100 node --test`` then a type test), google/uuid,
#: semver (tests/ with the crate's own helpers, a build script, doc tests), minitest
#: (Minitest testing itself, Debian's bundled gem), json-simple (Maven offline from
#: Debian's repository, JUnit 4).
DEFAULT_PROJECTS = ("iniconfig", "@fastify/error", "github.com/google/uuid", "semver",
                    "minitest", "json-simple")
#: The gate's decisions that stop a cycle, and the phase each blames.
GATE_BLAME = {"test-too-weak": "RED", "over-implemented": "GREEN",
              "refactor-unpinned": "REFACTOR"}
#: GREEN's findings that are RED's doing (a new test RED wrote skipped, first run in
#: GREEN's run because its file did not load in RED's).
RED_RULES = frozenset({"red-skipped"})


@dataclass
class Verdict:
    project: str
    ecosystem: str
    change: str
    variant: str
    rules: list[str] = field(default_factory=list)
    blamed: str = "-"
    where: str = "-"
    gate: str = "-"
    killed: int = 0
    right: str = "-"
    detail: str = ""


@dataclass
class Kills:
    """The gate's kills of one gate run, checked against the project's own tests."""

    project: str
    ecosystem: str
    change: str
    variant: str
    claimed: int = 0
    #: The mutants the gate counted unviable (made again and run with the kills: each
    #: must not build in the whole run either, or be killed there).
    claimed_unviable: int = 0
    confirmed: int = 0
    unviable: int = 0
    false: list[str] = field(default_factory=list)


def gate_mutants(subject_sources: dict[str, str], changed: dict[str, frozenset[int]],
                 operators: list[str]) -> list[Mutant]:
    """The mutants the gate makes of the changed lines, less those decided equivalent by
    rule (the gate's own making: rgr.check.mutation.gate.measure)."""
    made: list[Mutant] = []
    for path, lines in sorted(changed.items()):
        source = subject_sources.get(path, "")
        if path.endswith(".py"):
            made += mutants_of(path, source, lines, operators)
        elif textual.language_of(path):
            made += textual.mutants_of(path, source, lines, operators)
    return [m for m in made if not m.equivalent]


def killed_mutants(made: list[Mutant], note: AdequacyNote) -> list[Mutant]:
    """The mutants of ``made`` the gate counted killed or unviable: those its note does
    not list (the note lists every other status)."""
    listed = {(f.path, f.line, f.col, f.operator, f.replacement) for f in note.mutants}
    return [m for m in made
            if (m.path, m.line, m.col, m.operator, m.replacement) not in listed]


def really_killed(baseline: TestReport, mutated: TestReport) -> str:
    """``killed`` when a test that passed unmutated fails, errors or is gone in the
    mutated whole run (or the run timed out), ``unviable`` when nothing ran (the mutant
    did not build or load), else ``survived``: read from the runner's per-test
    outcomes, never from the exit code."""
    if mutated.timed_out:
        return "killed"
    passed = {t for t, o in baseline.outcomes.items() if o.status == "passed"}
    if not mutated.outcomes and (mutated.collection_errors or mutated.report_error):
        return "unviable"
    after = {t for t, o in mutated.outcomes.items() if o.status == "passed"}
    if passed - after:
        return "killed"
    if mutated.collection_errors:  # a test file that no longer loads
        return "killed"
    return "survived"


class Referee:
    """One built project: its release's run, and each change's RED run, made once."""

    def __init__(self, project: Project, where: Path) -> None:
        self.project, self.where = project, where
        self.placement = PLACEMENTS[project.name]
        self.release = sh(where, "git", "rev-parse", "HEAD").strip()
        self.ws = open_workspace(where)
        self.cmd = resolve_test_command(self.ws.config, self.ws.root)
        self.sealer = open_sealer(self.ws, FakeBackend(), self.cmd,  # type: ignore[arg-type]
                                  lambda line: None)
        release = git.resolve_commit(self.ws.repo, self.release)
        self.before = flaky.start_once_more(self.sealer.run_tests(release),
                                            lambda: self.sealer.run_tests(release),
                                            lambda line: None, noted=False)

    def paths(self, change: str) -> tuple[str, str, str]:
        p = self.placement
        return placed(p.code, change), placed(p.tests, change), placed(p.module, change)

    def text(self, change: str, key: str) -> str:
        module = self.paths(change)[2]
        return (TEXTS[change][self.placement.style][key]
                .replace("{module}", module).replace("{package}", module))

    def run(self, sha: str) -> TestReport:
        found = git.resolve_commit(self.ws.repo, sha)
        return self.sealer.run_tests(found)

    def judge(self, change: str, variant: str, jobs: int, check_kills: bool
              ) -> tuple[Verdict, Kills | None]:
        v = VARIANTS[variant]
        code_path, tests_path, _ = self.paths(change)
        verdict = Verdict(self.project.name, self.project.ecosystem, change, variant)
        repo, config = self.ws.repo, self.ws.config
        sh(self.where, "git", "checkout", "-q", "-B", f"referee-{change}-{variant}",
           self.release)
        red_sha = commit(self.where, {tests_path: self.text(change, v.tests)},
                         f"test: {change} ({variant})")
        red_report = self.run(red_sha)
        base, red_oid = git.resolve_commit(repo, self.release), git.resolve_commit(repo, red_sha)
        red_found = check_scope(repo, config, Phase.RED, base.id, red_oid.id) + check_tests(
            Phase.RED, self.before, red_report)
        kills = None
        if red_found:
            self._blame(verdict, "RED", [(x.rule, x.path, x.line) for x in red_found])
        else:
            files = {code_path: self.text(change, v.code)}
            root = self.placement.crate_root
            if root:  # Rust: GREEN declares the new module in the crate's root
                released = sh(self.where, "git", "show", f"{self.release}:{root}")
                files[root] = released.rstrip("\n") + f"\n\npub mod {change};\n"
            if v.edits_tests:
                files[tests_path] = self.text(change, "weak")
            green_sha = commit(self.where, files, f"feat: {change} ({variant})")
            green_oid = git.resolve_commit(repo, green_sha)
            green_report = self.run(green_sha)
            # RED's tests that did not compile hid the package's others (Go, Rust):
            # GREEN is then held to the release's run, as rgr run holds it
            hidden = red_report if red_report.collection_errors else None
            held_to = self.before if hidden else red_report
            if flaky.newly_failing(held_to, green_report):
                green_report = flaky.second_run(green_report, self.run(green_sha))
            found = [(x.rule, x.path, x.line) for x in
                     check_scope(repo, config, Phase.GREEN, red_oid.id, green_oid.id)
                     + check_tests(Phase.GREEN, held_to, green_report, red_report=hidden,
                                   read=lambda path: git.file_text(repo, green_oid.id, path))]
            if found:
                # RED's new test first seen skipped in GREEN's run is RED's doing
                self._blame(verdict, "RED" if all(rule in RED_RULES for rule, _, _ in found)
                            else "GREEN", found)
            else:
                subject = subject_of(repo, config, "GREEN", red_oid, green_oid)
                settings = AdequacyConfig(jobs=jobs, budget=600)
                note = measure(subject, settings, self.cmd,
                               lambda label: self.sealer.checkout(green_oid, label),
                               self.ws.git_dir, config.command_timeout,
                               baseline_s=green_report.duration_s, baseline=green_report)
                debt = fakeit_ledger.account(repo, config, [], base, red_oid, green_oid,
                                             "GREEN")
                note = fake_blame.survivors_of_fakes(note, debt, subject.sources)
                verdict.gate, verdict.killed = note.decision, note.killed
                verdict.detail = "; ".join(f"{m.status} {m.describe()}"
                                           for m in note.mutants)[:400]
                if note.decision in GATE_BLAME:
                    blocking = [m for m in note.mutants
                                if m.status in ("survived", "uncovered")]
                    self._blame(verdict, GATE_BLAME[note.decision],
                                [(note.decision, m.path, m.line) for m in blocking])
                    verdict.detail = "; ".join(
                        m.describe() + (f" (told apart by {m.telling_input})"
                                        if m.telling_input else "")
                        for m in blocking)[:400]
                if debt and not verdict.rules:
                    self._blame(verdict, "GREEN", [("fake-it", d.path, d.line) for d in debt])
                    verdict.detail = "; ".join(f"{d.kind} {d.value}" for d in debt)[:300]
                # a step of the command that is not a test failed with every test
                # passing: said after the gate's evidence, as rgr run says it
                steps = step_fails(green_report)
                if steps and not verdict.rules:
                    self._blame(verdict, "GREEN", [(x.rule, x.path, x.line) for x in steps])
                if check_kills and note.killed:
                    kills = self.check_kills(verdict, subject.sources,
                                             dict(subject.changed), settings, note,
                                             green_sha, green_report)
        verdict.right = right(variant, verdict)
        sh(self.where, "git", "checkout", "-q", self.release)
        return verdict, kills

    @staticmethod
    def _blame(verdict: Verdict, phase: str,
               found: list[tuple[str, str | None, int | None]]) -> None:
        verdict.rules = sorted({rule for rule, _, _ in found})
        verdict.blamed = phase
        lines = [f"{path}:{line}" for _, path, line in found if path and line]
        files = [str(path) for _, path, _ in found if path]
        verdict.where = ", ".join(dict.fromkeys(lines or files)) or "-"

    def check_kills(self, verdict: Verdict, sources: dict[str, str],
                    changed: dict[str, frozenset[int]], settings: AdequacyConfig,
                    note: AdequacyNote, green_sha: str, baseline: TestReport) -> Kills:
        made = gate_mutants(sources, changed, list(settings.operators))
        claimed = killed_mutants(made, note)
        kills = Kills(verdict.project, verdict.ecosystem, verdict.change, verdict.variant,
                      claimed=note.killed, claimed_unviable=note.unviable)
        if len(claimed) != note.killed + note.unviable:
            kills.false.append(f"(made again: {len(claimed)} mutants, the note counts "
                               f"{note.killed} killed and {note.unviable} unviable)")
        for mutant in claimed:
            sh(self.where, "git", "checkout", "-q", "-B", "referee-mutant", green_sha)
            mutated = commit(self.where, {mutant.path: apply(sources[mutant.path], mutant)},
                             f"mutant {mutant.describe()}")
            status = really_killed(baseline, self.run(mutated))
            if status == "killed":
                kills.confirmed += 1
            elif status == "unviable":
                kills.unviable += 1
            else:
                kills.false.append(mutant.describe())
        return kills


def right(variant: str, verdict: Verdict) -> str:
    """``yes`` when the verdict is what ``variant`` deserves, else what went wrong."""
    v = VARIANTS[variant]
    if variant == "honest":
        return "yes" if not verdict.rules else f"no: honest rejected ({verdict.rules})"
    if not verdict.rules:
        return "no: cheat accepted"
    if not set(verdict.rules) & set(v.rules):
        return f"no: caught by {verdict.rules}, not by {list(v.rules)}"
    if verdict.blamed != v.blamed:
        return f"no: blamed {verdict.blamed}, not {v.blamed}"
    if v.located == "line" and ":" not in verdict.where:
        return "caught, no line named"
    if verdict.where == "-":
        return "caught, no file named"
    return "yes"


def print_tables(verdicts: list[Verdict], kills: list[Kills]) -> None:
    print("| project | change | variant | rules | blamed | where | gate | killed | right |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in verdicts:
        print(f"| {r.project} | {r.change} | {r.variant} | {','.join(r.rules) or '-'} | "
              f"{r.blamed} | {r.where} | {r.gate} | {r.killed} | {r.right} |")
    wrong = [r for r in verdicts if r.right != "yes"]
    print(f"\nright verdicts: {len(verdicts) - len(wrong)} of {len(verdicts)}")
    for r in wrong:
        print(f"  {r.project}/{r.change}/{r.variant}: {r.right} {r.detail}")
    by_ecosystem: dict[str, list[Kills]] = defaultdict(list)
    for k in kills:
        by_ecosystem[k.ecosystem].append(k)
    print("\n| ecosystem | gates checked | kills claimed | confirmed | unviable | "
          "false kills | rate |")
    print("|---|---|---|---|---|---|---|")
    for eco, rows in sorted(by_ecosystem.items()):
        claimed = sum(k.claimed for k in rows)
        false = sum(len(k.false) for k in rows)
        rate = f"{false}/{claimed}" + (f" ({false / claimed:.1%})" if claimed else "")
        print(f"| {eco} | {len(rows)} | {claimed} | {sum(k.confirmed for k in rows)} | "
              f"{sum(k.unviable for k in rows)} | {false} | {rate} |")
    for k in kills:
        for case in k.false:
            print(f"  false kill: {k.project}/{k.change}/{k.variant}: {case}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(DEFAULT_PROJECTS))
    parser.add_argument("--changes", default=",".join(TEXTS))
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--kills", default="honest,weak,over",
                        help="the variants whose gate's kills are checked one by one")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    try:
        projects = [by_name(n) for n in args.only.split(",") if n]
    except KeyError as error:
        parser.error(str(error))
    changes = [c for c in args.changes.split(",") if c]
    wanted = [v for v in args.variants.split(",") if v]
    if set(changes) - set(TEXTS) or set(wanted) - set(VARIANTS):
        parser.error(f"changes are {', '.join(TEXTS)}; variants {', '.join(VARIANTS)}")
    check = set(args.kills.split(","))
    verdicts: list[Verdict] = []
    kills: list[Kills] = []
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="rgr-referee-") as tmp:
        for project in projects:
            os.environ.clear()
            os.environ.update(saved)
            slug = project.name.replace("/", "_").lstrip("@")
            try:
                referee = Referee(project, prepare(project, Path(tmp) / slug))
            except (subprocess.CalledProcessError, RuntimeError) as error:
                print(f"{project.name}: did not build: {error}", file=sys.stderr)
                continue
            style = referee.placement.style
            for change in changes:
                for variant in variants_of(change, style):
                    if variant not in wanted:
                        continue
                    verdict, checked = referee.judge(change, variant, args.jobs,
                                                     variant in check)
                    verdicts.append(verdict)
                    if checked is not None:
                        kills.append(checked)
                    print(verdict, checked, file=sys.stderr, flush=True)
    os.environ.clear()
    os.environ.update(saved)
    print(f"rgr referee on the wider corpus: {' '.join(sys.argv[1:]) or '(defaults)'}")
    print_tables(verdicts, kills)


if __name__ == "__main__":
    main()
