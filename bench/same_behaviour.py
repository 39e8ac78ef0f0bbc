"""Same behaviour? One scripted kata run through two versions of rgr, their events.jsonl
and handoff notes compared byte for byte once what must differ is masked.

    python bench/same_behaviour.py --before REF [--after REF ...] [--control] [--keep DIR]

``--before`` and each ``--after`` (repeatable; default: this checkout as it is,
uncommitted edits included) is checked out with ``git worktree add --detach`` into a
temporary folder, as bench/before_after.py does, and run with its own ``rgr`` first on
``PYTHONPATH`` (this venv's libraries). Every side plays the same kata, driven by this
checkout's e2e harness (tests/e2e/kata.py): the two-test slugify kata with its two
stumbles (a GREEN that edits the test, rejected and retried; a RED that meets an HTTP
529, retried), the real claude from tests/e2e/node against rgr's scripted model server,
real git and pytest (the kata's tests in a fixed order: ``PYTEST_INI``). Each side runs
in the same folder (emptied in between), so paths match without masks where they can.
``--control`` runs each after side a second time and compares it with itself: what
differs there is noise the masks missed, not a change of behaviour.

Compared: the run folder's events.jsonl, every note under refs/notes/tdd-handoffs (each
named by its commit), the prompts rgr gave each agent session (attempts/*/prompt.md and
system-prompt.md: a change there changes what the scripted model is sent, so its token
counts and costs), the refs rgr left and the run folder's file names. The masks are
listed in bench/behaviour_masks.py, each with why; ``--keep`` writes the raw and masked
artifacts of each side. Prints a verdict per after side (exit 0: all the same; 1:
differences, listed as fields only one side writes, then values that differ, then the
first diff lines).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "bench"))

from behaviour_masks import (  # noqa: E402
    MASKS,
    Masker,
    first_differences,
    masked_notes,
    schema_changes,
    value_changes,
)
from harness import ensure_claude  # noqa: E402
from kata import KataModel, make_project, rgr_env  # noqa: E402

from rgr.fake_model import FakeModelServer  # noqa: E402

FEATURE = "add a slugify function"
NOTES_REF = "refs/notes/tdd-handoffs"
#: The artifacts compared, in the order they are masked (the events first: they name
#: the commits, whose labels the notes then reuse).
ARTIFACTS = ("events", "notes", "prompts", "refs", "files")
#: The kata's pytest.ini: its test order fixed. pytest-randomly, installed in the venv
#: whose pytest the kata runs, shuffles the two tests per run, and rgr before b03f7a8
#: listed the impact hint's tests in the order they ran: two runs of one version then
#: sent GREEN different prompts. In pytest.ini, not the test command: the cheating GREEN
#: runs ``python -m pytest -q -p rgr_edit``, which must stay within the allowed command.
PYTEST_INI = "[pytest]\naddopts = -p no:randomly\n"


@dataclass
class Side:
    name: str
    ref: str | None  # None: this checkout as it is
    checkout: Path
    commit: str


@dataclass
class Run:
    exit_code: int
    raw: dict[str, str]
    masked: dict[str, str]
    output: str


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def _run_kata(side: Side, work: Path) -> Run:
    """The kata through ``side``'s rgr in ``work`` (made afresh), and what it left."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    with FakeModelServer(choose=KataModel()) as server:
        repo = make_project(work / "kata")
        (repo / "pytest.ini").write_text(PYTEST_INI)
        _git("commit", "-q", "--amend", "--no-edit", "--", "pytest.ini", cwd=repo)
        env = {**rgr_env(work / "home", server.url), "PYTHONPATH": str(side.checkout)}
        done = subprocess.run([sys.executable, "-m", "rgr", "run", "--yes", "--skip-preflight",
                               FEATURE], cwd=repo, env=env, capture_output=True, text=True,
                              timeout=900, stdin=subprocess.DEVNULL)
    output = done.stdout + done.stderr
    runs = sorted((repo / ".git" / "rgr" / "runs").glob("*/events.jsonl"))
    if len(runs) != 1:
        sys.exit(f"{side.name}: expected one run folder, found {len(runs)} "
                 f"(exit {done.returncode}):\n{output[-3000:]}")
    run_dir = runs[0].parent
    notes: dict[str, str] = {}
    listing = _git("notes", f"--ref={NOTES_REF}", "list", cwd=repo)
    for line in listing.splitlines():
        blob, commit = line.split()
        notes[commit] = _git("cat-file", "blob", blob, cwd=repo)
    commits = set(_git("rev-list", "--all", cwd=repo).split()) | set(notes)
    refs = _git("for-each-ref", "--format=%(objecttype) %(refname)", cwd=repo)
    files = "\n".join(sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob("*")))
    prompts = "".join(f"=== {p.relative_to(run_dir)}\n{p.read_text()}\n" for p in sorted(
        run_dir.glob("attempts/*/*prompt.md")))
    raw = {"events": runs[0].read_text(), "prompts": prompts, "refs": refs, "files": files}
    claude = ensure_claude()
    paths = {str(side.checkout): "<rgr>", str(work): "<work>",
             str(Path(sys.prefix)): "<venv>", sys.executable: "<python>",
             str(claude): "<claude>", str(claude.resolve()): "<claude>"}
    if side.checkout != ROOT:
        paths[str(ROOT)] = "<rgr-harness>"
    masker = Masker(paths, commits)
    masked = {"events": masker.mask(raw["events"])}
    masked["notes"] = masked_notes(masker, notes)
    raw["notes"] = "".join(f"=== note on {c}\n{n}\n" for c, n in sorted(notes.items()))
    masked["prompts"] = masker.mask(prompts)
    masked["refs"] = masker.mask(refs)
    masked["files"] = masker.mask(files)
    return Run(done.returncode, raw, masked, output)


def _keep(folder: Path, name: str, run: Run) -> None:
    target = folder / name
    target.mkdir(parents=True, exist_ok=True)
    for artifact in ARTIFACTS:
        (target / f"{artifact}.raw").write_text(run.raw[artifact])
        (target / f"{artifact}.masked").write_text(run.masked[artifact])
    (target / "output.txt").write_text(run.output)


def compare(before: Run, after: Run, limit: int) -> set[str]:
    """Prints what differs; returns the artifacts that differ ("exit" for the code)."""
    differing = set() if before.exit_code == after.exit_code else {"exit"}
    if differing:
        print(f"exit code: {before.exit_code} -> {after.exit_code}")
    for artifact in ARTIFACTS:
        old, new = before.masked[artifact], after.masked[artifact]
        if old == new:
            print(f"{artifact:<7} identical ({len(new.encode())} bytes masked)")
            continue
        differing.add(artifact)
        print(f"{artifact:<7} DIFFERENT")
        if artifact in ("events", "notes"):
            for line in schema_changes(old, new, artifact):
                print(f"  fields: {line}")
            for line in value_changes(old, new, artifact)[:limit]:
                print(f"  value:  {line}")
        for line in first_differences(old, new, limit):
            print(f"  | {line}")
    return differing


def _side(name: str, ref: str | None, into: Path) -> Side:
    if ref is None:
        edited = "+edits" if _git("status", "--porcelain", "rgr", "prompts", "agents") else ""
        return Side(name, None, ROOT, _git("rev-parse", "--short", "HEAD") + edited)
    _git("worktree", "add", "--detach", "--quiet", str(into), ref)
    return Side(name, ref, into, _git("rev-parse", "--short", ref))


def _runs(opts: argparse.Namespace, base: Path) -> tuple[list[Side], dict[str, Run]]:
    """The kata once on the before side, then on each after side (twice with
    ``--control``), each in the same folder."""
    sides: list[Side] = []
    runs: dict[str, Run] = {}
    try:
        sides.append(_side("before", opts.before, base / "before"))
        for n, ref in enumerate(opts.after or [None], start=1):
            sides.append(_side(f"after{n}", ref, base / f"after{n}"))
        for side in sides:
            for label in ([side.name, f"{side.name}-control"]
                          if opts.control and side.name != "before" else [side.name]):
                print(f"running the kata on {label} ({side.commit}) ...", flush=True)
                runs[label] = _run_kata(side, base / "run")
                if opts.keep:
                    _keep(opts.keep, label, runs[label])
    finally:
        for side in sides:
            if side.ref is not None:
                _git("worktree", "remove", "--force", str(side.checkout))
    return sides, runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the older commit (any git ref; required)")
    parser.add_argument("--after", action="append", help="a newer commit; repeat it to "
                        "compare several with one before run (default: this checkout as "
                        "it is)")
    parser.add_argument("--control", action="store_true",
                        help="also run each after side twice and compare it with itself")
    parser.add_argument("--keep", type=Path, help="write each side's raw and masked "
                        "artifacts and rgr's output under this folder")
    parser.add_argument("--limit", type=int, default=40, help="differences shown per artifact")
    parser.add_argument("--list-masks", action="store_true", help="print the masks and exit")
    opts = parser.parse_args()
    if opts.list_masks:
        for rule in MASKS:
            print(f"{rule.name:<12} {rule.why}")
        return 0
    if not opts.before:
        parser.error("--before REF is required (the older commit to compare with)")
    os.environ.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory(prefix="rgr-same-") as tmp:
        sides, runs = _runs(opts, Path(tmp))
    print("\nmasks: " + ", ".join(rule.name for rule in MASKS)
          + ", paths; uuids and commit ids renamed by first appearance")
    verdicts: list[str] = []
    failed = False
    before = sides[0]
    for side in sides[1:]:
        noise: set[str] = set()
        if opts.control:
            print(f"\n-- control: {side.commit} against itself (noise the masks leave) --")
            noise = compare(runs[side.name], runs[f"{side.name}-control"], opts.limit)
            verdicts.append(f"control {side.commit}: " + (
                f"NOISE in {', '.join(sorted(noise))} (a difference there may be noise, "
                "not behaviour)" if noise else "SAME (the masks leave no noise)"))
        print(f"\n-- before {before.commit} against after {side.commit} --")
        changed = compare(runs["before"], runs[side.name], opts.limit)
        verdicts.append(f"{before.commit} -> {side.commit}: " + (
            f"DIFFERENT in {', '.join(sorted(changed))}" if changed else "SAME behaviour"))
        failed = failed or bool(changed or noise)
    print()
    for line in verdicts:
        print(f"verdict {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
