"""RED's judgement and the mutation gate on the corpus of real projects (issue 34): the
ranges change and its cheats added to each corpus project as its users have it, judged as
rgr judges them, the gate's cost against the phase's own test run and its own
false-verdict rate.

Projects: the corpus (bench/corpus/projects.py: PyPI sdists, npm tarballs, Debian's Go,
Rust and Java sources), each built under a HOME of its own (its .venv, npm install, Go's
module cache, cargo's home, a Maven repository from Debian's); the change goes where
bench/corpus/placements.py puts it, its texts from bench/corpus/ranges.py (the one place
of the honest change and the cheats). For each project, a RED commit and a GREEN commit
on top of the release per change:

* ``honest``: ``clamp`` (raises/throws/panics on bounds the wrong way round) and
  ``span``, and six tests (inside, below, above, both bounds equal, the bad bounds,
  ``span``); right: no blocking verdict;
* ``weak``: RED's tests without the equal-bounds and bad-bounds cases, GREEN the honest
  code (what ``rgr run``'s scripted GREEN first writes after that RED); right: blocked by
  the gate as ranges.CHEATS names it (test-too-weak or over-implemented);
* ``over``: the six tests, GREEN the honest code with a branch no test asks for
  (``value == 1337``); right: blocked as over-implemented;
* where the style has them: ``constant`` and ``table`` (fake-it GREENs: right when the
  gate blocks or the fake-it ledger records open debt) and ``gap`` (the honest code, the
  equal-bounds test left out: right when ``test-too-weak``).

Each is judged as rgr judges it: RED's commit by the test guard against the release's run
(rgr.check.guards.check_tests), GREEN's by the guard against RED's run and then the
mutation gate (rgr.check.mutation.gate.measure, through the run's real Sealer: sandbox,
pristine checkouts, the coverage cache cleared every round) and the fake-it ledger.

    RGR_CORPUS_CACHE=/tmp/corpus-cache python bench/real_code_bench.py \
        [--only iniconfig,six] [--ecosystems python,javascript,go,rust,java] \
        [--changes honest,weak,over] [--rounds 3] [--jobs 2]

Prints one row per project and change: RED verdict, GREEN guard, the gate's decision
(``no gate yet`` where rgr has no mutator for the language), the mutants by kind (tried,
killed, decided equivalent by rule and by CrossHair, noise not mutated
(rgr.check.mutation.arid), not run for the budget, unviable, undecided (a remark),
blocking (the survivors of a blocking or sending-back decision)), the phase's own test
run of GREEN's commit, the gate's time, the ratio (median of the rounds' own ratios;
target <= 2x), fake-it debt, and whether the verdict was right; then the false-verdict
rate over the gate's survivors and verdicts, and the load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# tests/conftest.py (which fake_backend imports) imports the e2e harness.
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from bench.corpus.build import build, user_env  # noqa: E402
from bench.corpus.placements import PLACEMENTS, Placement  # noqa: E402
from bench.corpus.projects import PROJECTS, Project  # noqa: E402
from bench.corpus.ranges import CHEATS, STYLES  # noqa: E402
from rgr.base.config import AdequacyConfig  # noqa: E402
from rgr.check import flaky  # noqa: E402
from rgr.check.fakeit import ledger as fakeit_ledger  # noqa: E402
from rgr.check.guards import check_tests  # noqa: E402
from rgr.check.mutation.gate import measure, subject_of  # noqa: E402
from rgr.check.verify import TestReport  # noqa: E402
from rgr.ecosystems import traced as coverage_lines  # noqa: E402
from rgr.ecosystems.registry import resolve_test_command  # noqa: E402
from rgr.sandbox.sealer import open_sealer  # noqa: E402
from rgr.store import git  # noqa: E402
from rgr.store.handoff import AdequacyNote, Phase  # noqa: E402
from rgr.store.workspace import open_workspace  # noqa: E402
from tests.fake_backend import FakeBackend  # noqa: E402

#: change -> (the RED's test text key, the GREEN's code text key) in ranges.STYLES.
CHANGES = {"honest": ("tests", "honest"), "weak": ("weak", "honest"),
           "over": ("tests", "over"), "constant": ("first", "constant"),
           "table": ("tests", "table"), "gap": ("gap", "honest")}
DEFAULT_CHANGES = "honest,weak,over"
#: The gate's decisions that stop the cycle: a rejection, or RED sent back.
BLOCKING = frozenset({"over-implemented", "test-too-weak", "refactor-unpinned"})
#: A cheat's right verdicts from the gate: ranges.CHEATS less what is not the gate's
#: (``tests-fail``: a project's own coverage threshold failing the run first).
RIGHT = {"weak": frozenset(CHEATS["weak"]) & BLOCKING,
         "over": frozenset(CHEATS["over"]) & BLOCKING,
         "gap": frozenset({"test-too-weak"})}


def changes_of(placement: Placement, wanted: list[str]) -> list[str]:
    """The changes of ``wanted`` the placement's style has texts for."""
    texts = STYLES[placement.style]
    return [c for c in wanted if all(key in texts for key in CHANGES[c])]


@dataclass
class Row:
    project: str
    change: str
    red: str = "-"
    green: str = "-"
    gate: str = "-"
    tried: int = 0
    killed: int = 0
    equivalent: int = 0
    noise: int = 0
    not_run: int = 0
    unviable: int = 0
    undecided: int = 0
    blocking: int = 0
    gate_s: float = 0.0
    run_s: float = 0.0
    #: The median of each round's own gate/run ratio (less swayed by a noisy round than
    #: the ratio of the medians).
    ratio_median: float = 0.0
    rounds: int = 0
    debt: int = 0
    right: str = "-"
    load: str = ""
    detail: str = ""
    ratios: list[float] = field(default_factory=list)


def right_verdict(change: str, red: str, green: str, decision: str, debt: int) -> str:
    """``yes`` when the verdict is what ``change`` deserves, else what went wrong."""
    if decision == "not-measured":
        return "no gate yet"
    rejected = red != "ok" or green != "ok" or decision in BLOCKING
    if change == "honest":
        return "no: honest blocked" if rejected else "yes"
    if change in ("constant", "table"):
        return "yes" if rejected or debt else "no: cheat accepted"
    if decision in RIGHT[change]:
        return "yes"
    if rejected:
        return f"blocked, not by the gate ({red}/{green})" if decision not in BLOCKING \
            else f"no: {decision}"
    return "no: cheat accepted"


def count(row: Row, note: AdequacyNote) -> None:
    """``note``'s mutants by kind into ``row``."""
    row.gate = "no gate yet" if note.decision == "not-measured" else note.decision
    row.tried, row.killed = note.tried, note.killed
    row.equivalent = note.equivalent_by_rule + note.equivalent_by_cross_hair
    row.noise, row.not_run, row.unviable = note.noise_skipped, note.not_run, note.unviable
    row.undecided = note.undecided
    row.blocking = note.survived + note.uncovered if note.decision in BLOCKING else 0


def sh(cwd: Path, *argv: str) -> str:
    return subprocess.run(argv, cwd=cwd, check=True, capture_output=True, text=True).stdout


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
        sh(repo, "git", "add", "-f", name)
    sh(repo, "git", "commit", "-q", "-m", message)
    return sh(repo, "git", "rev-parse", "HEAD").strip()


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


class Judge:
    """One built project: the release's run and each RED's run made once, shared by
    the changes."""

    def __init__(self, project: Project, placement: Placement, where: Path) -> None:
        self.project, self.placement, self.where = project, placement, where
        self.release = sh(where, "git", "rev-parse", "HEAD").strip()
        self.ws = open_workspace(where)
        self.cmd = resolve_test_command(self.ws.config, self.ws.root)
        self.sealer = open_sealer(self.ws, FakeBackend(), self.cmd,  # type: ignore[arg-type]
                                  lambda line: None)
        release = git.resolve_commit(self.ws.repo, self.release)
        # As rgr run reads its start and its attempts (rgr.check.flaky): a test that fails
        # and then passes is flaky (commons-codec's memory-hungry Base64 test), not red.
        self.before = flaky.start_once_more(self.sealer.run_tests(release),
                                            lambda: self.sealer.run_tests(release),
                                            lambda line: None, noted=False)
        self.reds: dict[str, tuple[str, TestReport]] = {}

    def red(self, test_key: str) -> str:
        """RED's commit for the tests ``test_key`` on the release (made once)."""
        if test_key not in self.reds:
            sh(self.where, "git", "checkout", "-q", "-B", f"bench-red-{test_key}",
               self.release)
            sha = commit(self.where, {self.placement.tests: self.placement.text(test_key)},
                         f"test: ranges ({test_key})")
            red_c = git.resolve_commit(self.ws.repo, sha)
            report = self.sealer.run_tests(red_c)
            if flaky.newly_failing(self.before, report):  # as for GREEN, below
                report = flaky.second_run(report, self.sealer.run_tests(red_c))
            self.reds[test_key] = (sha, report)
        return self.reds[test_key][0]

    def green_files(self, code_key: str) -> dict[str, str]:
        p = self.placement
        files = {p.code: p.text(code_key)}
        if p.crate_root:  # Rust: the new module declared in the crate's root
            root = (self.where / p.crate_root).read_text()
            if "pub mod ranges;" not in root:
                files[p.crate_root] = root.rstrip("\n") + "\n\npub mod ranges;\n"
        return files

    def judge(self, change: str, rounds: int, jobs: int) -> Row:
        row = Row(self.project.name, change, load=load())
        test_key, code_key = CHANGES[change]
        red_sha = self.red(test_key)
        red_report = self.reds[test_key][1]
        sh(self.where, "git", "checkout", "-q", "-B", f"bench-{change}", red_sha)
        green_sha = commit(self.where, self.green_files(code_key), f"feat: ranges ({change})")
        repo = self.ws.repo
        red_c, green_c = git.resolve_commit(repo, red_sha), git.resolve_commit(repo, green_sha)
        red_rules = check_tests(Phase.RED, self.before, red_report)
        row.red = "ok" if not red_rules else ",".join(sorted({v.rule for v in red_rules}))
        runs, gates = [], []
        note = None
        for _ in range(rounds):
            shutil.rmtree(self.ws.git_dir / coverage_lines.FOLDER, ignore_errors=True)
            started = time.perf_counter()
            green_report = self.sealer.run_tests(green_c)
            hidden = red_report if red_report.collection_errors else None
            held_to = self.before if hidden else red_report
            if flaky.newly_failing(held_to, green_report):  # as rgr run's tests_at does
                started = time.perf_counter()
                green_report = flaky.second_run(green_report,
                                                self.sealer.run_tests(green_c))
            runs.append(time.perf_counter() - started)
            green_rules = check_tests(Phase.GREEN, held_to, green_report, red_report=hidden)
            row.green = "ok" if not green_rules else ",".join(sorted({v.rule
                                                                    for v in green_rules}))
            if green_rules:
                row.detail = green_rules[0].message[:200]
                break
            subject = subject_of(repo, self.ws.config, "GREEN", red_c, green_c)
            started = time.perf_counter()
            note = measure(subject, AdequacyConfig(jobs=jobs, budget=600), self.cmd,
                           lambda label: self.sealer.checkout(green_c, label),
                           self.ws.git_dir, self.ws.config.command_timeout,
                           baseline_s=green_report.duration_s, baseline=green_report)
            gates.append(time.perf_counter() - started)
        release_c = git.resolve_commit(repo, self.release)
        row.debt = len(fakeit_ledger.account(repo, self.ws.config, [], release_c, red_c,
                                             green_c, "GREEN"))
        decision = note.decision if note is not None else "-"
        if note is not None:
            count(row, note)
            row.rounds = len(gates)
            row.gate_s, row.run_s = statistics.median(gates), statistics.median(runs)
            row.ratios = [g / r for g, r in zip(gates, runs, strict=False) if r]
            row.ratio_median = statistics.median(row.ratios or [0.0])
            row.detail = "; ".join(
                f"{m.status} {m.original!r}->{m.replacement!r}"
                + (f" told apart by {m.telling_input}" if m.telling_input else "")
                + (f" ({m.reason})" if m.status == "undecided" else "")
                for m in note.mutants if m.status != "equivalent-by-rule")[:400]
            if note.remark:  # e.g. a runner started directly that gave way to the command
                row.detail = f"{row.detail}; remark: {note.remark}".lstrip("; ")[:600]
        elif runs:
            row.run_s = statistics.median(runs)
        row.right = right_verdict(change, row.red, row.green, decision, row.debt)
        if not self.before.all_passed:  # nothing to judge against: said, not counted
            row.right = "not judged: the release's own run fails here"
            row.detail = self.before.output_excerpt[-200:]
        sh(self.where, "git", "checkout", "-q", self.release)
        return row


def prepare(project: Project, home: Path) -> Path:
    """``project`` built under ``home`` as its users have it, this process's environment
    made the user's (the sealer passes it on as rgr run would)."""
    where = build(project.fetch(None), home, project.name, project.version, project.setup)
    ignore_environment_folders(where)
    os.environ.update(user_env(home, project.ecosystem, project.setup.env))
    return where


def ignore_environment_folders(where: Path) -> None:
    """A ``.venv`` the project's .gitignore does not ignore, ignored in the clone's own
    .git/info/exclude (as bench/corpus_run.py does, as rgr's message tells a user)."""
    if (where / ".venv").is_dir() and subprocess.run(
            ["git", "check-ignore", "-q", ".venv/"], cwd=where).returncode != 0:
        with (where / ".git" / "info" / "exclude").open("a") as exclude:
            exclude.write(".venv/\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="", help="comma-separated corpus project names")
    parser.add_argument("--ecosystems", default="python,javascript,go,rust,java")
    parser.add_argument("--changes", default=DEFAULT_CHANGES,
                        help=f"comma-separated: {','.join(CHANGES)} (each where the "
                             "project's style has its texts)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    unknown = only - {p.name for p in PROJECTS}
    wanted = [c for c in args.changes.split(",") if c]
    if unknown or set(wanted) - set(CHANGES):
        parser.error(f"unknown project(s) {sorted(unknown)} or change(s) "
                     f"{sorted(set(wanted) - set(CHANGES))}: projects are "
                     f"{', '.join(p.name for p in PROJECTS)}; changes {', '.join(CHANGES)}")
    ecosystems = set(args.ecosystems.split(","))
    rows: list[Row] = []
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="rgr-real-code-") as tmp:
        for project in PROJECTS:
            if (only and project.name not in only) or project.ecosystem not in ecosystems:
                continue
            placement = PLACEMENTS[project.name]
            os.environ.clear()
            os.environ.update(saved)
            slug = project.name.replace("/", "_").lstrip("@")
            try:
                judge = Judge(project, placement, prepare(project, Path(tmp) / slug))
                for change in changes_of(placement, wanted):
                    rows.append(judge.judge(change, args.rounds, args.jobs))
                    print(rows[-1], file=sys.stderr, flush=True)
            except Exception as error:  # a project that does not build: said, not hidden
                rows.append(Row(project.name, "setup", load=load(),
                                detail=f"{type(error).__name__}: {error}"[:300]))
                print(rows[-1], file=sys.stderr, flush=True)
    os.environ.clear()
    os.environ.update(saved)
    print_table(rows, args)


def print_table(rows: list[Row], args: argparse.Namespace) -> None:
    print(f"rgr real-code bench: {' '.join(sys.argv[1:]) or '(defaults)'}; median of "
          f"{args.rounds}, jobs {args.jobs}")
    print("| project | change | RED | GREEN guard | gate | tried | killed | equiv | noise "
          "skipped | not run | unviable | undecided | blocking | run s | gate s | ratio "
          "(median of rounds) | fake-it debt | right | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = f"{r.ratio_median:.2f}x" if r.rounds and r.gate != "no gate yet" else "-"
        print(f"| {r.project} | {r.change} | {r.red} | {r.green} | {r.gate} | {r.tried} | "
              f"{r.killed} | {r.equivalent} | {r.noise} | {r.not_run} | {r.unviable} | "
              f"{r.undecided} | {r.blocking} | {r.run_s:.2f} | {r.gate_s:.2f} | {ratio} | "
              f"{r.debt} | {r.right} | {r.load} |")
    # A row whose release's own run failed (a flaky test of the project's) is said, not
    # counted either way: there was nothing to judge the verdict against.
    judged = [r for r in rows if r.rounds and r.gate != "no gate yet"
              and not r.right.startswith("not judged")]
    wrong = [r for r in judged if r.right.startswith("no:")]
    unjudged = [r for r in rows if r.right.startswith("not judged")]
    if unjudged:
        print("not judged (the release's own run failed): "
              + ", ".join(f"{r.project}/{r.change}" for r in unjudged))
    print(f"\nfalse verdicts: {len(wrong)} of {len(judged)} changes judged by a gate"
          + "".join(f"; {r.project}/{r.change}: {r.right}" for r in wrong))
    before = [r for r in rows if r.right.startswith("blocked")]
    if before:
        print("blocked before the gate: " + ", ".join(f"{r.project}/{r.change} ({r.green})"
                                                       for r in before))
    total = {key: sum(getattr(r, key) for r in judged)
             for key in ("tried", "killed", "equivalent", "noise", "not_run", "undecided",
                         "blocking")}
    print("mutants, all changes: " + ", ".join(f"{v} {k}" for k, v in total.items()))
    honest = [r for r in judged if r.change == "honest"]
    print(f"honest changes: {sum(r.blocking for r in honest)} blocking survivors, "
          f"{sum(r.undecided for r in honest)} undecided (remarks), "
          f"{sum(r.equivalent for r in honest)} decided equivalent, "
          f"{sum(r.noise for r in honest)} noise not mutated")
    over = [r for r in rows if r.change == "honest" and r.rounds and r.ratio_median > 2]
    print("honest changes over 2x: " + (", ".join(f"{r.project} {r.ratio_median:.2f}x"
                                                   for r in over) or "none"))
    for r in rows:
        if r.detail:
            print(f"  {r.project}/{r.change}: {r.detail}")


if __name__ == "__main__":
    main()
