"""Scripted work for the attempt kernel's other two modes, shared by the kill sweep of
refactor batches and merge fixes (test_kill_kernel.py) and the back-off tests
(test_kernel_backoff.py):

- a refactor of the messy shop (tests/e2e/messy.py) in two agent batches, whose first
  dedupe attempt breaks a test (rejected and kept), so the rejection path has crash
  points too; every session is chosen from its prompt, so a batch redone after a kill
  gets the same script again;
- a job branch that conflicts with main, carrying a finished run's handoff note, for
  ``rgr fix-merge`` (what the daemon runs in a job's clone), and its merge-fixer script.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

from daemon_kata import MERGED_ALPHA, impl_file, merge_fix, test_file
from harness import ensure_claude
from kata import NOTES, git, notes_on_branch
from messy import (
    DEDUPE,
    ORDERS_SIMPLE,
    PRICING_BROKEN,
    PRICING_DRY,
    SIMPLIFY,
    patcher,
    planner,
)

from rgr.fake_model import HttpError, SessionScript
from rgr.sandbox.sealer import work_root
from rgr.store.handoff import HandoffState, Phase, TestResult

__all__ = ["BATCH_IDS", "GOAL", "MERGED_ALPHA", "RefactorModel", "all_notes", "assert_no_scratch",
           "batch_notes", "fix_merge_args", "make_merge_job", "merge_fix_notes",
           "merge_fixer", "refused"]

GOAL = "tidy the shop"
BATCH_IDS = ["dedupe-pricing", "simplify-orders"]
_BATCH = re.compile(r"Batch \d+ of \d+: ([a-z0-9-]+)")


def refused(status: int) -> SessionScript:
    """A whole session the API refuses: 429 rate limited or 529 overloaded, more times
    than claude retries by itself (CLAUDE_CODE_MAX_RETRIES=1 in the tests), so the
    failure reaches rgr as the session's result."""
    kind, message = {429: ("rate_limit_error", "Rate limited"),
                     529: ("overloaded_error", "Overloaded")}[status]
    return SessionScript([HttpError(status, kind, message, times=5)], name=f"refused-{status}")


class RefactorModel:
    """The planner plans two batches; the first patcher session of dedupe-pricing drops
    the quantity (a test fails: rejected, kept under refs/rgr/attempts/), the next one
    dedupes honestly; simplify-orders is honest at once. ``refuse`` makes the first
    patcher session of dedupe-pricing meet that HTTP status instead (no broken one)."""

    def __init__(self, stumble: bool = True, refuse: int | None = None) -> None:
        self.stumble = stumble
        self.refuse = refuse
        self.served: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, system: str, prompt: str) -> SessionScript:
        if "You are the REFACTOR PLANNER" in system:
            return planner(DEDUPE, SIMPLIFY, summary="tidy the shop")
        found = _BATCH.search(prompt)
        assert "You are the PATCHER" in system and found, (system[:200], prompt[:300])
        batch = found.group(1)
        with self.lock:
            seen = self.served[batch]
            self.served[batch] += 1
        if batch == "simplify-orders":
            return patcher(batch, SIMPLIFY["goal"], ORDERS_SIMPLE, path="shop/orders.py")
        assert batch == "dedupe-pricing", batch
        if seen == 0 and self.refuse is not None:
            return refused(self.refuse)
        if seen == 0 and self.stumble:
            return patcher(batch, DEDUPE["goal"], PRICING_BROKEN)
        return patcher(batch, DEDUPE["goal"], PRICING_DRY)


def batch_notes(repo: Path, rev: str = "HEAD") -> list[str]:
    """The batch ids of the notes on ``rev``'s history, oldest first."""
    return [n["batch"]["id"] for n in notes_on_branch(repo, rev)  # type: ignore[index]
            if n.get("batch")]


def all_notes(repo: Path) -> list[dict[str, object]]:
    """Every note on the handoff ref, wherever its commit is (on a branch, kept under
    refs/rgr/attempts/, or nowhere)."""
    found = []
    for line in git(repo, "notes", f"--ref={NOTES}", "list").splitlines():
        blob, commit = line.split()
        found.append({"commit": commit, **json.loads(git(repo, "cat-file", "-p", blob))})
    return found


def merge_fix_notes(repo: Path) -> list[dict[str, object]]:
    return [n for n in all_notes(repo) if n.get("mergeFix")]


def assert_no_scratch(repo: Path) -> None:
    """No scratch copy or pristine checkout of this repository is left (rgr.sandbox.sealer
    puts them under /dev/shm or the temporary folder, one folder per repository)."""
    root = work_root(repo / ".git")
    left = sorted(p.name for p in root.iterdir()) if root.is_dir() else []
    assert left == [], f"scratch folders left behind in {root}: {left}"
    # and the repository's own folder under it is gone once empty
    assert not root.exists(), f"an empty work root is left behind: {root}"


# -- a merge fix --------------------------------------------------------------------


def make_merge_job(root: Path) -> tuple[Path, str, str]:
    """A project whose job branch rgr/make-alpha (checked out, with a finished run's
    note on its tip) and main both rewrote alpha.py: (repo, main's tip, the job's tip)."""
    root.mkdir(parents=True)
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "config", "user.name", "Dev"],
                 ["git", "config", "user.email", "dev@example.com"],
                 ["git", "config", "commit.gpgsign", "false"]):
        subprocess.run(argv, cwd=root, check=True)
    files = {
        "pytest.ini": "[pytest]\n", ".gitignore": "__pycache__/\n",
        "alpha.py": "def value():\n    return 1\n",
        "tests/test_alpha.py": test_file("alpha"),
        "tdd.toml": (f"test_command = {json.dumps([sys.executable, '-m', 'pytest', '-q'])}\n"
                     f"agent_binary = {json.dumps(str(ensure_claude()))}\n"
                     "agent_timeout = 120\ncommand_timeout = 60\n"),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    git(root, "switch", "-q", "-c", "rgr/make-alpha")
    (root / "alpha.py").write_text(impl_file("alpha", "rgr/make-alpha"))
    git(root, "commit", "-q", "-am", "feat: alpha")
    job = git(root, "rev-parse", "HEAD").strip()
    state = HandoffState(phase=Phase.COMPLETE, next_phase=Phase.COMPLETE, cycle_number=2,
                         test_result=TestResult.PASS, run_id="job-run-1",
                         feature="make alpha", branch="rgr/make-alpha",
                         summary="feature complete")
    git(root, "notes", f"--ref={NOTES}", "add", "-m", state.to_json(), job)
    git(root, "switch", "-q", "main")
    (root / "alpha.py").write_text(impl_file("alpha", "main"))
    git(root, "commit", "-q", "-am", "feat: alpha on main")
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "switch", "-q", "rgr/make-alpha")
    return root, base, job


def fix_merge_args(base: str, tries: int = 2) -> list[str]:
    return ["fix-merge", "--onto", base, "--into", "main", "--tries", str(tries)]


def merge_fixer(refuse: int | None = None) -> object:
    """The merge-fixer's sessions: honest (daemon_kata.merge_fix), after one refused
    session when ``refuse`` is an HTTP status."""
    served: list[str] = []
    lock = threading.Lock()

    def choose(system: str, prompt: str) -> SessionScript:
        assert "You are the MERGE-FIXER" in system, system[:200]
        with lock:
            served.append(prompt)
            first = len(served) == 1
        return refused(refuse) if first and refuse is not None else merge_fix()

    return choose
