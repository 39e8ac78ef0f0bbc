"""Integrating a finished job: rebase onto the base branch's current tip, run the full
suite on exactly that commit, then move the base branch only if it is still at the tip
that was verified (compare-and-swap). A conflict gets merge-fixer sessions (``rgr
fix-merge`` in the job's clone: sealed attempts judged by the full suite and the
guards, see rgr.mergefix) when the daemon allows them; a conflict they cannot resolve,
or a red suite, leaves the base branch as it was and the job ``needs-attention``,
naming the conflict or the failure.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rgr.daemon import remote
from rgr.daemon.gitcli import Git
from rgr.daemon.slots import COUNT_VAR, test_slot
from rgr.daemon.workcopy import ORIGIN, WorkCopy
from rgr.proc import Completed, run, tail

#: Rebase-and-verify rounds when the base branch keeps moving under the integration.
LAND_ROUNDS = 5
VERIFY_TIMEOUT_S = 1800.0


@dataclass(frozen=True)
class Landed:
    ok: bool
    message: str


@dataclass(frozen=True)
class Fixer:
    """How a conflict is fixed: ``tries`` merge-fixer sessions at most (0: none), run by
    ``run_rgr`` as an rgr command in the job's clone."""

    tries: int
    run_rgr: Callable[[list[str]], Completed]
    #: What is left of the daemon's --max-budget-usd (None: no limit).
    max_budget_usd: float | None = None

    def argv(self, base_tip: str, base: str) -> list[str]:
        budget = [] if self.max_budget_usd is None else [
            "--max-budget-usd", f"{max(self.max_budget_usd, 0.0001):.4f}"]
        return ["fix-merge", "--onto", base_tip, "--into", base, "--tries", str(self.tries),
                *budget]


def land(wc: WorkCopy, main: Git, main_root: Path, local_hub: bool,
         env: Mapping[str, str], say: Callable[[str], None], mode: str = "merge",
         fixer: Fixer | None = None) -> Landed:
    """``mode`` merge moves the base branch; pr opens a pull request (through ``rgr
    report --integrate pr`` in the job's clone) for the rebased, verified branch."""
    base, branch = wc.spec.base, wc.spec.branch
    base_remote_ref = f"refs/remotes/{ORIGIN}/{base}"
    fixed = False
    for _ in range(LAND_ROUNDS):
        wc.git.out("fetch", "--quiet", "--no-tags", ORIGIN, f"+refs/heads/{base}:{base_remote_ref}")
        base_tip = wc.git.rev(base_remote_ref)
        head = wc.git.rev("HEAD")
        assert base_tip is not None and head is not None
        if wc.git.ok("merge-base", "--is-ancestor", head, base_tip):
            return Landed(True, f"already in {base}")
        if not wc.git.ok("merge-base", "--is-ancestor", base_tip, head):
            # A merge fix is a merge: a base that moved again is merged in too (a rebase
            # would flatten the fix away); a conflict then needs a person.
            how, doing = ("merge", "merging") if fixed else ("rebase", "rebasing")
            say(f"{doing} {branch} onto {base} at {base_tip[:8]}")
            done = wc.git.run(*(("merge", "--quiet", "--no-edit") if fixed
                                else ("rebase", "--quiet")), base_remote_ref)
            if done.returncode != 0:
                conflicts = wc.git.run("diff", "--name-only", "--diff-filter=U").stdout.split()
                wc.git.run(how, "--abort")
                named = ", ".join(conflicts) or done.stderr.strip()[-300:]
                conflict = f"{doing} onto {base} at {base_tip[:8]} conflicts in {named}"
                if fixed or fixer is None or fixer.tries == 0:
                    return Landed(False, f"{conflict}; {base} is unchanged")
                say(f"{conflict}: merge-fixer sessions ({fixer.tries} at most) resolve it")
                tried = fixer.run_rgr(fixer.argv(base_tip, base))
                if tried.returncode != 0:
                    why = tail((tried.stderr or tried.stdout).strip(), 800).replace(
                        "rgr: error: ", "")
                    return Landed(False, f"{conflict}; {base} is unchanged; {why}")
                fixed = True
        # Published before it is verified: the base can only move to objects the hub
        # has (a no-op when the branch is as published; after a restart it may be a
        # merge fix that a killed daemon had not pushed yet).
        wc.publish()
        head = wc.git.rev("HEAD")
        assert head is not None
        say(f"verifying {branch} at {head[:8]} (the full suite, as {base} would be)")
        with test_slot(env):
            verified = run([sys.executable, "-m", "rgr", "verify", "--full"], cwd=wc.root,
                           timeout=VERIFY_TIMEOUT_S, env=_without_slots(env))
        if verified.returncode != 0:
            how = "merged" if fixed else "rebased"
            return Landed(False, f"the full suite fails on {branch} {how} onto {base} at "
                                 f"{base_tip[:8]}; {base} is unchanged:\n"
                                 f"{verified.describe(800)}")
        if mode == "pr":
            opened = run([sys.executable, "-m", "rgr", "report", "--integrate", "pr",
                          "--into", base], cwd=wc.root, timeout=600, env=env)
            return Landed(opened.returncode == 0, tail_of(opened.stdout + opened.stderr))
        if _move_base(wc, main, main_root, local_hub, base, head, base_tip):
            return Landed(True, f"{base} fast-forwarded to {head[:8]}")
        say(f"{base} moved while {branch} was verified: again")
    return Landed(False, f"{base} kept moving during {LAND_ROUNDS} integration rounds")


def _move_base(wc: WorkCopy, main: Git, main_root: Path, local_hub: bool, base: str,
               head: str, expected: str) -> bool:
    """Point ``base`` at ``head`` if it is still at ``expected``."""
    if not local_hub:
        return remote.push_branch(wc.git, ORIGIN, base, expected)
    # The hub is this repository: the job branch was pushed, so the objects are here.
    checked_out = main.run("symbolic-ref", "-q", "HEAD").stdout.strip() == f"refs/heads/{base}"
    if not checked_out:
        return main.ok("update-ref", f"refs/heads/{base}", head, expected)
    if main.rev("HEAD") != expected:
        return False
    # The user's checkout of the base branch moves with it (a fast-forward that refuses
    # to touch uncommitted changes in the files it changes).
    return Git(main_root, main.env).ok("merge", "--ff-only", "--quiet", head)


def tail_of(text: str) -> str:
    return tail(text.strip(), 600)


def _without_slots(env: Mapping[str, str]) -> dict[str, str]:
    """The verify child runs inside the slot this process holds: it must not wait for
    a second one."""
    return {k: v for k, v in env.items() if k != COUNT_VAR}
