"""Same behaviour? One scripted kata run through two versions of rgr, their events.jsonl
and handoff notes compared byte for byte once what must differ is masked.

    python bench/same_behaviour.py --before REF [--after REF] [--control] [--keep DIR]

``--before`` (and ``--after``; default: this checkout as it is, uncommitted edits
included) is checked out with ``git worktree add --detach`` into a temporary folder, as
bench/before_after.py does, and run with its own ``rgr`` first on ``PYTHONPATH`` (this
venv's libraries). Both sides play the same kata, driven by this checkout's e2e harness
(tests/e2e/kata.py): the two-test slugify kata with its two stumbles (a GREEN that edits
the test, rejected and retried; a RED that meets an HTTP 529, retried), the real claude
from tests/e2e/node against rgr's scripted model server, real git and pytest. Each side
runs in the same folder (emptied in between), so paths match without masks where they
can. ``--control`` runs the after side a second time and compares it with itself: what
differs there is noise the masks missed, not a change of behaviour.

Compared: the run folder's events.jsonl, every note under refs/notes/tdd-handoffs (each
named by its commit), the prompts rgr gave each agent session (attempts/*/prompt.md and
system-prompt.md: a change there changes what the scripted model is sent, so its token
counts and costs), the refs rgr left and the run folder's file names. The masks are
listed in bench/behaviour_masks.py, each with why; ``--keep`` writes the raw and masked
artifacts of each side. Prints a verdict (exit 0: the same; 1: differences, listed as
fields only one side writes, then values that differ, then the first diff lines).
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


def compare(before: Run, after: Run, limit: int) -> bool:
    same = before.exit_code == after.exit_code
    if not same:
        print(f"exit code: {before.exit_code} -> {after.exit_code}")
    for artifact in ARTIFACTS:
        old, new = before.masked[artifact], after.masked[artifact]
        if old == new:
            print(f"{artifact:<7} identical ({len(new.encode())} bytes masked)")
            continue
        same = False
        print(f"{artifact:<7} DIFFERENT")
        if artifact in ("events", "notes"):
            for line in schema_changes(old, new, artifact):
                print(f"  fields: {line}")
            for line in value_changes(old, new, artifact)[:limit]:
                print(f"  value:  {line}")
        for line in first_differences(old, new, limit):
            print(f"  | {line}")
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the older commit (any git ref; required)")
    parser.add_argument("--after", help="the newer commit (default: this checkout as it is)")
    parser.add_argument("--control", action="store_true",
                        help="also run the after side twice and compare it with itself")
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
        base = Path(tmp)
        sides: list[Side] = []
        try:
            for name, ref in (("before", opts.before), ("after", opts.after)):
                if ref is None:
                    sides.append(Side(name, None, ROOT, _git("rev-parse", "--short", "HEAD")
                                      + ("+edits" if _git("status", "--porcelain", "rgr")
                                         else "")))
                    continue
                into = base / name
                _git("worktree", "add", "--detach", "--quiet", str(into), ref)
                sides.append(Side(name, ref, into, _git("rev-parse", "--short", ref)))
            runs: dict[str, Run] = {}
            plan = [(s.name, s) for s in sides]
            if opts.control:
                plan.append(("control", sides[1]))
            for label, side in plan:
                print(f"running the kata on {label} ({side.commit}) ...", flush=True)
                runs[label] = _run_kata(side, base / "run")
                if opts.keep:
                    _keep(opts.keep, label, runs[label])
        finally:
            for side in sides:
                if side.ref is not None:
                    _git("worktree", "remove", "--force", str(side.checkout))
    print(f"\nbefore = {sides[0].commit}, after = {sides[1].commit}; masks: "
          + ", ".join(rule.name for rule in MASKS) + ", renamed uuids and commit ids, paths")
    verdicts = []
    if opts.control:
        print("\n-- control: after against itself (noise the masks leave) --")
        verdicts.append(("control", compare(runs["after"], runs["control"], opts.limit)))
    print("\n-- before against after --")
    verdicts.append(("before/after", compare(runs["before"], runs["after"], opts.limit)))
    print()
    for label, same in verdicts:
        print(f"verdict {label}: {'SAME behaviour' if same else 'DIFFERENT'}")
    return 0 if all(same for _, same in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
