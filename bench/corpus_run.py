"""Does `rgr run` complete an honest change on every project of the corpus, and reject
each cheat? (issues 34 and 35)

For every project of the corpus (bench/corpus/projects.py): build it as its users have
it under a fresh HOME (cached sources under $RGR_CORPUS_CACHE), rgr installed as pipx
installs it (only its script, in ~/.local/bin) and the real claude binary beside it,
no tdd.toml but the one its user commits (css-what's test command), the examiner off;
then `rgr run "<feature>"` with the scripted model of bench/corpus/sessions.py playing
the ranges change (bench/corpus/ranges.py) in the project's own style
(bench/corpus/placements.py). One table row per project and
change: completed, rejected attempts and their rules, refused edits, the phases noted,
wall time, and the final note's passed count against the start note's (the release's) + 6.

    python bench/corpus_run.py [--only NAME[,NAME...]] [--cheats weak,over,edit,skipped]
                               [--work DIR] [--rgr PATH]

Without --cheats only the honest change runs; with it, each cheat named runs after the
honest one, and must be rejected by a rule it names (bench/corpus/ranges.py CHEATS).
Every run's output is kept under the work folder (default: a new temporary folder).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))  # the pinned claude binary's installer

from harness import ensure_claude  # noqa: E402

from bench.corpus import build  # noqa: E402
from bench.corpus.placements import PLACEMENTS  # noqa: E402
from bench.corpus.projects import PROJECTS, Project  # noqa: E402
from bench.corpus.ranges import CHEATS  # noqa: E402
from bench.corpus.sessions import FEATURE, RangesModel  # noqa: E402
from bench.verify_corpus import install_rgr_as_pipx  # noqa: E402
from rgr.demo.env import claude_env  # noqa: E402
from rgr.fake_model import FakeModelServer  # noqa: E402

NOTES = "refs/notes/tdd-handoffs"
TIMEOUT_S = 3600
NEW_TESTS = 6


@dataclass
class Outcome:
    """One `rgr run` of one change on one project."""

    project: str
    change: str
    completed: bool = False
    exit_code: int | None = None
    rejected: list[str] = field(default_factory=list)  # the rules, one per attempt
    refused: int = 0
    #: The mutation gate's decisions on the branch's notes (test-too-weak sends the run
    #: back to RED without a rejected attempt).
    gate: list[str] = field(default_factory=list)
    phases: list[str] = field(default_factory=list)
    seconds: float = 0.0
    baseline: int | None = None
    passed: int | None = None
    detail: str = ""

    @property
    def expected_passed(self) -> int | None:
        return None if self.baseline is None else self.baseline + NEW_TESTS

    @property
    def flagged(self) -> list[str]:
        """The gate's decisions that name a cheat's rule."""
        rules = {rule for named in CHEATS.values() for rule in named}
        return [d for d in self.gate if d in rules]

    @property
    def verdict(self) -> str:
        """``ok`` when the run did what it should, else what went wrong."""
        if self.change == "honest":
            if not self.completed:
                return "honest run did not complete"
            if self.rejected or self.refused or self.flagged:
                return "honest change rejected, refused or flagged by the gate"
            if self.passed != self.expected_passed:
                return f"passed {self.passed}, expected {self.expected_passed}"
            return "ok"
        named = [r for r in [*self.rejected, *self.gate] if r in CHEATS[self.change]]
        if not named and not (self.change == "edit" and self.refused):
            return "cheat not rejected by its rule"
        return "ok"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


def notes_on_branch(repo: Path) -> list[dict[str, object]]:
    out = git(repo, "log", "--reverse", f"--notes={NOTES}", "--format=%x1e%H%n%N", "HEAD")
    found = []
    for record in out.split("\x1e")[1:]:
        _, _, note = record.partition("\n")
        if note.strip():
            found.append(json.loads(note))
    return found


def rejected_rules(repo: Path) -> list[str]:
    """The rule of every rejected attempt rgr kept (refs/rgr/attempts/), oldest first."""
    refs = git(repo, "for-each-ref", "--sort=creatordate", "--format=%(refname)",
               "refs/rgr/attempts/").split()
    rules = []
    for ref in refs:
        shown = subprocess.run(["git", "notes", f"--ref={NOTES}", "show", ref], cwd=repo,
                               capture_output=True, text=True)
        note = json.loads(shown.stdout) if shown.returncode == 0 else {}
        details = note.get("errorDetails") or {}
        rules.append(str(details.get("type", "?")))
    return rules


def ignore_environment_folders(where: Path) -> None:
    """A ``.venv`` the project's .gitignore does not ignore (iniconfig's) is ignored in
    the clone's own .git/info/exclude, as rgr run's message tells the user (rgr refuses
    to run in a tree with untracked environment folders); the project stays as released."""
    venv = where / ".venv"
    if not venv.is_dir():
        return
    checked = subprocess.run(["git", "check-ignore", "-q", ".venv/"], cwd=where)
    if checked.returncode != 0:
        with (where / ".git" / "info" / "exclude").open("a") as exclude:
            exclude.write(".venv/\n")


def user_home(project: Project, work: Path, change: str, rgr: Path) -> tuple[Path, Path]:
    """A fresh HOME for one run: the project built in it, rgr and claude in
    ~/.local/bin. The project's path and ~/.local/bin."""
    slug = project.name.replace("/", "_").lstrip("@")
    home = work / "homes" / f"{slug}-{change}"
    if home.exists():
        shutil.rmtree(home)
    where = build.build(project.fetch(None), home, project.name, project.version,
                        project.setup)
    ignore_environment_folders(where)
    bin_dir = home / ".local" / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "rgr").symlink_to(rgr)
    (bin_dir / "claude").symlink_to(ensure_claude())
    return where, bin_dir


def run_environment(project: Project, home: Path, bin_dir: Path,
                    server_url: str) -> dict[str, str]:
    """The user's environment (their toolchain, their PATH) plus what an offline claude
    needs to reach the scripted model; the examiner off (it has its own tests)."""
    env = build.user_env(home, project.ecosystem, project.setup.env, bin_dirs=(bin_dir,))
    offline = claude_env(home, server_url)
    offline.pop("PATH")
    return {**offline, **env, "TDD_ACCEPTANCE_MODE": "off"}


def _passed(note: dict[str, object]) -> int | None:
    """A note's passed count: the start note's is the release's own (rgr's baseline run
    before any agent), the last note's the finished branch's."""
    tests = note.get("tests")
    passed = tests.get("passed") if isinstance(tests, dict) else None
    return passed if isinstance(passed, int) else None


def run_change(project: Project, change: str, work: Path, rgr: Path) -> Outcome:
    outcome = Outcome(project.name, change)
    home = work / "homes" / f"{_slug(project.name)}-{change}"
    where, bin_dir = user_home(project, work, change, rgr)
    placement = PLACEMENTS[project.name]
    model = RangesModel(placement, where, cheat="" if change == "honest" else change)
    with FakeModelServer(choose=model) as server:
        env = run_environment(project, home, bin_dir, server.url)
        started = time.monotonic()
        try:
            done = subprocess.run(["rgr", "run", "--yes", "--skip-preflight", FEATURE],
                                  cwd=where, env=env, capture_output=True, text=True,
                                  timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
            output, outcome.exit_code = done.stdout + done.stderr, done.returncode
        except subprocess.TimeoutExpired as e:
            output = f"timed out after {TIMEOUT_S}s\n{e.stdout!r}"
        outcome.seconds = time.monotonic() - started
        errors = list(server.errors)
    (work / f"{_slug(project.name)}-{change}.log").write_text(
        output + "\n\nmodel server errors:\n" + "\n".join(map(str, errors)))
    return judge(outcome, where, output)


#: rgr run's line for a rejected attempt: ``04:18:40 cycle 1 RED: rejected: no-commit: ...``.
_REJECTED = re.compile(r"^\d\d:\d\d:\d\d cycle \d+ \w+: rejected: ([\w-]+):", re.MULTILINE)


def _slug(name: str) -> str:
    return name.replace("/", "_").lstrip("@")


def judge(outcome: Outcome, where: Path, output: str) -> Outcome:
    """``outcome`` filled in from what the run left: its notes, its kept attempts, what
    it printed."""
    notes = notes_on_branch(where)
    outcome.phases = [str(n.get("phase")) for n in notes]
    outcome.completed = outcome.exit_code in (0, None) and bool(notes) \
        and notes[-1].get("phase") == "COMPLETE"
    # Every rejection rgr printed (an attempt with no commit is not kept as a ref),
    # else the kept attempts' notes.
    outcome.rejected = _REJECTED.findall(output) or rejected_rules(where)
    outcome.gate = [str(a["decision"]) for n in notes
                    if isinstance(a := n.get("adequacy"), dict) and a.get("decision")]
    outcome.refused = sum(int(n) for n in re.findall(r"refused (\d+) tool call", output))
    outcome.baseline, outcome.passed = (_passed(notes[0]), _passed(notes[-1])) if notes \
        else (None, None)
    if not outcome.completed:
        tail = [line for line in output.strip().splitlines() if line.strip()][-3:]
        outcome.detail = " / ".join(tail)[:300]
    return outcome


def rejudge(project: Project, change: str, work: Path) -> Outcome:
    """A run already in ``work`` judged again (its wall time from the log's clock)."""
    outcome = Outcome(project.name, change)
    where = next((work / "homes" / f"{_slug(project.name)}-{change}" / "src").iterdir())
    output = (work / f"{_slug(project.name)}-{change}.log").read_text()
    clock = [datetime.strptime(t, "%H:%M:%S")
             for t in re.findall(r"^(\d\d:\d\d:\d\d) ", output, re.MULTILINE)]
    outcome.seconds = (clock[-1] - clock[0]).total_seconds() % 86400 if clock else 0.0
    return judge(outcome, where, output)


def table(rows: list[Outcome]) -> str:
    lines = ["| project | change | completed | rejected (rules) | gate flagged | refused edits "
             "| phases | wall s | passed | release + 6 | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        rules = ", ".join(r.rejected) or "-"
        lines.append(
            f"| {r.project} | {r.change} | {'yes' if r.completed else '**no**'} | "
            f"{len(r.rejected)} ({rules}) | {', '.join(r.flagged) or '-'} | {r.refused} | "
            f"{len(r.phases)} | "
            f"{r.seconds:.0f} | {r.passed} | {r.expected_passed} | {r.verdict} |")
    good = sum(r.verdict == "ok" for r in rows)
    lines.append(f"\n{good} of {len(rows)} as they should be.")
    for r in rows:
        if r.detail:
            lines.append(f"- {r.project}/{r.change}: {r.detail}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated project names")
    parser.add_argument("--cheats", default="", help=f"comma-separated: {','.join(CHEATS)}")
    parser.add_argument("--no-honest", action="store_true", help="only the cheats")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--rgr", type=Path, default=None,
                        help="an rgr script already installed pipx-style (default: install "
                             "this checkout into the work folder)")
    parser.add_argument("--rejudge", action="store_true",
                        help="judge the runs already in --work again, running nothing")
    args = parser.parse_args()
    chosen = [p for p in PROJECTS if not args.only or p.name in args.only.split(",")]
    changes = ([] if args.no_honest else ["honest"]) + [
        c for c in args.cheats.split(",") if c]
    unknown = [c for c in changes if c != "honest" and c not in CHEATS]
    if unknown:
        parser.error(f"unknown cheat(s) {unknown}: choose from {', '.join(CHEATS)}")
    work = args.work or Path(tempfile.mkdtemp(prefix="rgr-corpus-run-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"work folder: {work}", flush=True)
    if args.rejudge:
        print(table([rejudge(p, c, work) for p in chosen for c in changes
                     if (work / f"{_slug(p.name)}-{c}.log").exists()]))
        return 0
    rgr = args.rgr or install_rgr_as_pipx(work)
    rows = []
    for project in chosen:
        for change in changes:
            try:
                row = run_change(project, change, work, rgr)
            except Exception as e:  # one broken build must not hide the others' rows
                row = Outcome(project.name, change, detail=f"could not run: {e}"[:300])
            rows.append(row)
            print(f"{project.name}/{change}: completed={row.completed} "
                  f"rejected={row.rejected} gate={row.gate} refused={row.refused} "
                  f"passed={row.passed} "
                  f"(release {row.baseline}) {row.seconds:.0f}s -> {row.verdict}",
                  flush=True)
    print(table(rows))
    return 0 if rows and all(r.verdict == "ok" for r in rows) else 1


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(main())
