"""RED's judgement and the mutation gate on real projects (issue 34): an honest change and
two cheats added to real open-source projects as their users have them, judged as rgr
judges them.

Projects come from the corpus fetchers (bench.corpus: PyPI sdists, npm tarballs, Debian's
Go sources), built under a HOME of their own (the project's .venv, npm install, Go's
module cache). For each project, three changes, each a RED commit and a GREEN commit on
top of the release:

* ``honest``: a module with two functions (``clamp``, which raises/throws/panics on
  bounds the wrong way round, and ``span``) and six tests in the project's style (inside,
  below, above, both bounds equal, the bad bounds, ``span``);
* ``constant``: RED's first test only, GREEN returns the constant it expects;
* ``table``: the six tests, GREEN a lookup table keyed by the tests' inputs.

Each is judged as rgr judges it: RED's commit by the test guard against the release's run
(rgr.check.guards.check_tests), GREEN's by the guard against RED's run and then the
mutation gate (rgr.check.mutation.gate.measure, through the run's real Sealer, as
bench/mutation_bench.py does) and the fake-it ledger (rgr.check.fakeit: a special case
for the tests' own values is recorded as open debt, which keeps the run from completing).

    RGR_CORPUS_CACHE=~/.cache/rgr-corpus python bench/real_code_bench.py \
        [--only iniconfig,six] [--ecosystems python,javascript,go] [--rounds 1] [--jobs 2]

Java (Maven, the corpus's Debian-built projects; JUnit 4 has the ``honest`` and ``gap``
changes only): ``--ecosystems java --changes honest,gap``.

Prints one row per project and change: RED verdict, GREEN guard, gate verdict, mutants
tried/killed/equivalent (by rule + by CrossHair)/undecided/survived (noise lines are
never mutated: rgr.check.mutation.arid), the gate's time, the phase's own test run, their
ratio (target <= 2x), fake-it debt, and whether the verdict is false (an honest change
rejected, a cheat accepted with neither a blocking gate nor open fake-it debt).
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
# tests/conftest.py (which fake_backend imports) imports the e2e harness.
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from fake_backend import FakeBackend  # noqa: E402

from bench.corpus import fetch  # noqa: E402
from bench.corpus.build import Setup, build, user_env  # noqa: E402
from bench.corpus.cache import cache_root  # noqa: E402
from bench.corpus.projects import by_name  # noqa: E402
from bench.corpus.ranges import STYLES  # noqa: E402
from rgr.base.config import AdequacyConfig  # noqa: E402
from rgr.check.fakeit import ledger as fakeit_ledger  # noqa: E402
from rgr.check.guards import check_tests  # noqa: E402
from rgr.check.mutation import lines as coverage_lines  # noqa: E402
from rgr.check.mutation.gate import measure, subject_of  # noqa: E402
from rgr.check.mutation.verdicts import violations_of  # noqa: E402
from rgr.ecosystems.registry import resolve_test_command  # noqa: E402
from rgr.loop.attempt import open_sealer  # noqa: E402
from rgr.store import git  # noqa: E402
from rgr.store.handoff import Phase  # noqa: E402
from rgr.store.workspace import open_workspace  # noqa: E402


@dataclass(frozen=True)
class Case:
    """One real project and where the change goes in it."""

    name: str
    version: str
    fetch: Callable[[], Path]
    setup: Setup
    style: str  # python, cjs, esm, go
    code: str  # the new module's path
    tests: str  # the new test file's path
    module: str  # how the tests import it (Python module, JS path, Go package)
    #: tdd.toml, where rgr's detection would run something that is not the tests
    #: (proxyquire's `npm test` lints first).
    tdd_toml: str = ""

    @property
    def ecosystem(self) -> str:
        return self.setup.ecosystem


PY_IGNORES = ("*.pyc", "__pycache__/", "*.egg-info/", "build/", "dist/", ".venv/")
JS_IGNORES = ("node_modules/", "coverage/", "package-lock.json")


def _pypi(name: str, version: str) -> Callable[[], Path]:
    return lambda: fetch.pypi_sdist(name, version)


def _npm(name: str, version: str) -> Callable[[], Path]:
    return lambda: fetch.npm_package(name, version)


def _go(package: str, module: str) -> Callable[[], Path]:
    return lambda: fetch.debian_go_module(package, module)


def _corpus(name: str, placement: tuple[str, str, str]) -> Case:
    """The corpus's project ``name`` (bench/corpus/projects.py: how it is fetched and
    built), the change placed at (code, tests, package)."""
    project = by_name(name)
    return Case(name, project.version, lambda: project.fetch(cache_root()), project.setup,
                "junit4", *placement)


CASES = (
    Case("iniconfig", "2.3.1", _pypi("iniconfig", "2.3.1"),
         Setup("python", pip_install=("-e", ".", "pytest")), "python",
         "src/iniconfig/ranges.py", "testing/test_ranges.py", "iniconfig.ranges"),
    Case("six", "1.17.0", _pypi("six", "1.17.0"),
         Setup("python", pip_install=("-e", ".", "pytest"), gitignore=PY_IGNORES), "python",
         "ranges.py", "test_ranges.py", "ranges"),
    Case("pluggy", "1.6.0", _pypi("pluggy", "1.6.0"),
         Setup("python", pip_install=("-e", ".", "pytest")), "python",
         "src/pluggy/_ranges.py", "testing/test_ranges.py", "pluggy._ranges"),
    # Its devDependency native-hello-world builds with node-gyp, which downloads Node's
    # headers (not reachable here): installed without install scripts, and the one test
    # that loads the native module left out (it fails on the release itself here).
    Case("proxyquire", "2.1.3", _npm("proxyquire", "2.1.3"),
         Setup("javascript", gitignore=JS_IGNORES,
               env={"npm_config_ignore_scripts": "true"}), "cjs", "lib/ranges.js",
         "test/proxyquire-ranges.js", "../lib/ranges",
         tdd_toml='test_command = ["npx", "mocha", "--grep", "native module", "--invert"]\n'),
    Case("chai-string", "2.0.0", _npm("chai-string", "2.0.0"),
         Setup("javascript", gitignore=JS_IGNORES), "esm", "ranges.js",
         "test/ranges.test.js", "../ranges.js"),
    Case("uuid", "1.3.0", _go("golang-github-google-uuid-dev", "github.com/google/uuid"),
         Setup("go"), "go", "ranges.go", "ranges_test.go", "uuid"),
    Case("go-cmp", "0.5.9", _go("golang-github-google-go-cmp-dev", "github.com/google/go-cmp"),
         Setup("go"), "go", "cmp/ranges.go", "cmp/ranges_test.go", "cmp"),
    Case("testify", "1.8.1",
         _go("golang-github-stretchr-testify-dev", "github.com/stretchr/testify"),
         Setup("go"), "go", "assert/ranges.go", "assert/ranges_test.go", "assert"),
    _corpus("json-simple", ("src/main/java/org/json/simple/Ranges.java",
                            "src/test/java/org/json/simple/RangesTest.java",
                            "org.json.simple")),
    _corpus("commons-codec", ("src/main/java/org/apache/commons/codec/Ranges.java",
                              "src/test/java/org/apache/commons/codec/RangesTest.java",
                              "org.apache.commons.codec")),
)

#: change -> (the RED's test text key, the GREEN's code text key). ``gap``: the honest
#: code with the equal-bounds test left out, a real gap (``low > high`` -> ``low >= high``
#: survives); the right verdict is test-too-weak, with CrossHair's telling input in Python.
CHANGES = {"honest": ("tests", "honest"), "constant": ("first", "constant"),
           "table": ("tests", "table"), "gap": ("gap", "honest")}


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
    undecided: int = 0
    survived: int = 0
    gate_s: float = 0.0
    run_s: float = 0.0
    #: The median of each round's own gate/run ratio (less swayed by a noisy round than
    #: the ratio of the medians).
    ratio_median: float = 0.0
    debt: int = 0
    false: str = ""
    detail: str = ""


def sh(cwd: Path, *argv: str) -> str:
    return subprocess.run(argv, cwd=cwd, check=True, capture_output=True, text=True).stdout


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
        sh(repo, "git", "add", "-f", name)
    sh(repo, "git", "commit", "-q", "-m", message)
    return sh(repo, "git", "rev-parse", "HEAD").strip()


def fill(text: str, case: Case) -> str:
    return text.replace("{module}", case.module).replace("{package}", case.module)


def judge(case: Case, change: str, project: Path, rounds: int, jobs: int) -> Row:
    row = Row(case.name, change)
    release = sh(project, "git", "rev-parse", "HEAD").strip()
    branch = f"bench-{change}"
    sh(project, "git", "checkout", "-q", "-B", branch, release)
    texts = STYLES[case.style]
    test_key, code_key = CHANGES[change]
    red = commit(project, {case.tests: fill(texts[test_key], case)}, f"test: ranges ({change})")
    green = commit(project, {case.code: fill(texts[code_key], case)}, f"feat: ranges ({change})")
    ws = open_workspace(project)
    cmd = resolve_test_command(ws.config, ws.root)
    sealer = open_sealer(ws, FakeBackend(), cmd, lambda line: None)  # type: ignore[arg-type]
    commits = {name: git.resolve_commit(ws.repo, sha)
               for name, sha in (("release", release), ("red", red), ("green", green))}
    before = sealer.run_tests(commits["release"])
    red_report = sealer.run_tests(commits["red"])
    red_rules = check_tests(Phase.RED, before, red_report)
    row.red = "ok" if not red_rules else ",".join(sorted({v.rule for v in red_rules}))
    runs, gates = [], []
    note = None
    for _ in range(rounds):
        shutil.rmtree(ws.git_dir / coverage_lines.FOLDER, ignore_errors=True)
        started = time.perf_counter()
        green_report = sealer.run_tests(commits["green"])
        runs.append(time.perf_counter() - started)
        hidden = red_report if red_report.collection_errors else None
        green_rules = check_tests(Phase.GREEN, before if hidden else red_report, green_report,
                                  red_report=hidden)
        row.green = "ok" if not green_rules else ",".join(sorted({v.rule for v in green_rules}))
        if green_rules:
            row.detail = green_rules[0].message[:200]
            break
        subject = subject_of(ws.repo, ws.config, "GREEN", commits["red"], commits["green"])
        started = time.perf_counter()
        note = measure(subject, AdequacyConfig(jobs=jobs, budget=600), cmd,
                       lambda label: sealer.checkout(commits["green"], label), ws.git_dir,
                       ws.config.command_timeout, baseline_s=green_report.duration_s,
                       baseline=green_report)
        gates.append(time.perf_counter() - started)
    debt = fakeit_ledger.account(ws.repo, ws.config, [], commits["release"], commits["red"],
                                 commits["green"], "GREEN")
    row.debt = len(debt)
    if note is not None:
        row.gate = note.decision
        row.tried, row.killed = note.tried, note.killed
        row.equivalent = note.equivalent_by_rule + note.equivalent_by_cross_hair
        row.undecided, row.survived = note.undecided, note.survived + note.uncovered
        row.gate_s, row.run_s = statistics.median(gates), statistics.median(runs)
        row.ratio_median = statistics.median(
            [g / r for g, r in zip(gates, runs, strict=False) if r] or [0.0])
        blocking = bool(violations_of(note)) or note.decision == "test-too-weak"
        row.detail = "; ".join(
            f"{m.status} {m.original!r}->{m.replacement!r}"
            + (f" told apart by {m.telling_input}" if m.telling_input else "")
            + (f" ({m.reason})" if m.status == "undecided" else "")
            for m in note.mutants if m.status != "equivalent-by-rule")[:400]
        if note.remark:  # e.g. a runner started directly that gave way to the command
            row.detail = f"{row.detail}; remark: {note.remark}".lstrip("; ")[:600]
    else:
        blocking = True
    rejected = row.red != "ok" or row.green != "ok" or blocking
    if change == "honest" and rejected:
        row.false = "honest rejected"
    if change in ("constant", "table") and not rejected and not row.debt:
        row.false = "cheat accepted"
    if change == "gap" and row.gate != "test-too-weak":
        row.false = "gap missed"
    sh(project, "git", "checkout", "-q", release)
    return row


def prepare(case: Case, home: Path) -> Path:
    source = case.fetch()
    project = build(source, home, case.name, case.version, case.setup)
    env = user_env(home, case.setup.ecosystem, case.setup.env)
    os.environ.update(env)
    if case.tdd_toml:
        commit(project, {"tdd.toml": case.tdd_toml}, "rgr: the test command")
    return project


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="", help="comma-separated project names")
    parser.add_argument("--ecosystems", default="python,javascript,go")
    parser.add_argument("--changes", default="honest,constant,table,gap")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    ecosystems = set(args.ecosystems.split(","))
    rows: list[Row] = []
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="rgr-real-code-") as tmp:
        for case in CASES:
            if (only and case.name not in only) or case.ecosystem not in ecosystems:
                continue
            os.environ.clear()
            os.environ.update(saved)
            try:
                project = prepare(case, Path(tmp) / case.name / "home")
            except Exception as error:  # a project that does not build: said, not hidden
                rows.append(Row(case.name, "setup", detail=str(error)[:300]))
                print(rows[-1], flush=True)
                continue
            for change in args.changes.split(","):
                rows.append(judge(case, change, project, args.rounds, args.jobs))
                print(rows[-1], file=sys.stderr, flush=True)
    os.environ.clear()
    os.environ.update(saved)
    print_table(rows, args)


def print_table(rows: list[Row], args: argparse.Namespace) -> None:
    print(f"rgr real-code bench: {' '.join(sys.argv[1:]) or '(defaults)'}; median of "
          f"{args.rounds}, jobs {args.jobs}")
    print("| project | change | RED | GREEN guard | gate | tried | killed | equiv | "
          "undecided | survived | gate s | run s | ratio | ratio, median of rounds | "
          "fake-it debt | false verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = f"{r.gate_s / r.run_s:.2f}x" if r.run_s else "-"
        print(f"| {r.project} | {r.change} | {r.red} | {r.green} | {r.gate} | {r.tried} | "
              f"{r.killed} | {r.equivalent} | {r.undecided} | {r.survived} | "
              f"{r.gate_s:.2f} | {r.run_s:.2f} | {ratio} | {r.ratio_median:.2f}x | {r.debt} | "
              f"{r.false or '-'} |")
    falses = [r for r in rows if r.false]
    print(f"false verdicts: {len(falses)} of {len(rows)}")
    for r in rows:
        if r.detail:
            print(f"  {r.project}/{r.change}: {r.detail}")


if __name__ == "__main__":
    main()
