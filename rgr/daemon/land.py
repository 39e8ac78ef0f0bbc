"""Integrating a finished job: rebase onto the base branch's current tip, run the full
suite and the gate commands on exactly that commit (``rgr land-check``, which notes the
verdict on it: rgr.branches.landing), then move the base branch only if it is still at the
tip that was verified (compare-and-swap). A conflict gets merge-fixer sessions (``rgr
fix-merge`` in the job's clone: sealed attempts judged by the full suite and the
guards, see rgr.mergefix.engine) when the daemon allows them; a conflict they cannot resolve,
or a red suite, leaves the base branch as it was and the job ``needs-attention``,
naming the conflict or the failure.

Where the base branch moves: the hub's (this repository's, or with ``--remote`` the
remote's) ``refs/heads/<base>`` goes to the verified commit itself, by a push with a
lease on the verified base tip that the server checks atomically. Nothing else moves:
not the job clone's own copy of the base branch, not the base branch a person has
checked out in another clone of the remote. What the hub holds afterwards is read back
and said, never assumed. Landing twice is impossible by construction: a job whose tip
is already in the base branch (a push whose answer a crash lost) is found there.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rgr.base import failpoints
from rgr.base.proc import Completed, run, tail
from rgr.base.slots import COUNT_VAR, test_slot
from rgr.check.testlist import FILENAME as TEST_LIST
from rgr.check.testlist import ITEM
from rgr.daemon import remote
from rgr.daemon.hub import RemoteRejected
from rgr.daemon.workcopy import ORIGIN, WorkCopy
from rgr.store.gitcli import Git

#: Rebase-and-verify rounds when the base branch keeps moving under the integration.
LAND_ROUNDS = 5
VERIFY_TIMEOUT_S = 1800.0


@dataclass(frozen=True)
class Landed:
    ok: bool
    message: str
    #: The commit the base branch holds for this job (moved there, or found there).
    commit: str | None = None


@dataclass(frozen=True)
class Fixer:
    """How a conflict is fixed: ``tries`` merge-fixer sessions at most (0: none), run by
    ``run_rgr`` as an rgr command in the job's clone."""

    tries: int
    run_rgr: Callable[[list[str]], Completed]
    #: What is left of the budgets (the fleet's and the job's; None: no limit).
    max_budget_usd: float | None = None

    def argv(self, base_tip: str, base: str) -> list[str]:
        budget = [] if self.max_budget_usd is None else [
            "--max-budget-usd", f"{max(self.max_budget_usd, 0.0001):.4f}"]
        return ["fix-merge", "--onto", base_tip, "--into", base, "--tries", str(self.tries),
                *budget]


@dataclass(frozen=True)
class Target:
    """Where the base branch lives: ``remote`` (its name in the daemon's clone) or,
    with None, the daemon's own repository ``main`` checked out at ``main_root``."""

    main: Git
    main_root: Path
    remote: str | None

    @property
    def where(self) -> str:
        return f"the remote {self.remote}" if self.remote else "this repository"


class _Stop(Exception):
    """An early answer of the landing (a Landed that is not a success), not an error."""

    def __init__(self, landed: Landed) -> None:
        super().__init__(landed.message)
        self.landed = landed


def land(wc: WorkCopy, target: Target, env: Mapping[str, str], say: Callable[[str], None],
         mode: str = "merge", fixer: Fixer | None = None) -> Landed:
    """``mode`` merge moves the base branch; pr opens a pull request (through ``rgr
    report --integrate pr`` in the job's clone) for the rebased, verified branch."""
    try:
        return _land(wc, target, env, say, mode, fixer)
    except _Stop as stop:
        return stop.landed


def _land(wc: WorkCopy, target: Target, env: Mapping[str, str], say: Callable[[str], None],
          mode: str, fixer: Fixer | None) -> Landed:
    base, branch = wc.spec.base, wc.spec.branch
    fixed = False
    job_tip = _head(wc)  # the job as it finished, before any integration
    for _ in range(LAND_ROUNDS):
        previous = wc.git.rev(_tracking(wc))
        base_tip = _fetch_base(wc, target)
        head = _head(wc)
        if wc.git.ok("merge-base", "--is-ancestor", head, base_tip):
            return Landed(True, f"already in {base}: {target.where} holds {base_tip[:8]}, "
                                f"which contains {head[:8]} (read back)", head)
        if not wc.git.ok("merge-base", "--is-ancestor", base_tip, head):
            fixed = _catch_up(wc, target, base_tip, previous, fixed, fixer, say)
        # Published before it is verified: the base can only move to objects the hub
        # has (a no-op when the branch is as published; after a restart it may be a
        # merge fix that a killed daemon had not pushed yet).
        wc.publish()
        head = _head(wc)
        how = "merge" if fixed else "fast-forward" if head == job_tip else "rebase"
        say(f"verifying {branch} at {head[:8]} (the full suite, as {base} would be)")
        verified = _land_check(wc, env, base_tip, job_tip, how)
        # The verdict is noted on the integrated commit, pass or fail: on the hub before
        # the base moves, so the commit the base ends on has its audit there.
        wc.publish()
        if verified.returncode != 0:
            return Landed(False, _not_landed(wc, verified, how, base_tip))
        if mode == "pr":
            opened = run([sys.executable, "-m", "rgr", "report", "--integrate", "pr",
                          "--into", base], cwd=wc.root, timeout=600, env=env)
            return Landed(opened.returncode == 0, tail_of(opened.stdout + opened.stderr))
        failpoints.hit("land:verified")
        if _move_base(wc, target, head, base_tip):
            failpoints.hit("land:pushed")
            return _read_back(wc, target, head)
        say(f"{base} moved on {target.where} while {branch} was verified: again")
    return Landed(False, f"{base} kept moving during {LAND_ROUNDS} integration rounds; "
                         f"{base} is unchanged by this job; `rgr queue retry "
                         f"{wc.spec.id}` tries again")


def _land_check(wc: WorkCopy, env: Mapping[str, str], base_tip: str, job_tip: str,
                how: str) -> Completed:
    """``rgr land-check`` in the job's clone: the full suite and the gate commands on
    HEAD, sealed, the verdict noted on HEAD (rgr.branches.landing)."""
    with test_slot(env):
        return run([sys.executable, "-m", "rgr", "land-check", "--into", wc.spec.base,
                    "--base-tip", base_tip, "--job-tip", job_tip, "--how", how],
                   cwd=wc.root, timeout=VERIFY_TIMEOUT_S, env=_without_slots(env))


def _not_landed(wc: WorkCopy, verified: Completed, how: str, base_tip: str) -> str:
    """Why the integrated tree does not land: land-check's own last line (the failing
    tests) when it got that far, else its whole answer (it could not run)."""
    base, branch = wc.spec.base, wc.spec.branch
    lines = [line.strip() for line in verified.stdout.splitlines() if line.strip()]
    said = lines[-1].removeprefix("not landed: ") if lines and \
        lines[-1].startswith("not landed: ") else None
    why = said or verified.describe(800)
    return (f"the integrated tree ({branch}, {how} onto {base} at {base_tip[:8]}) does "
            f"not pass; {base} is unchanged: {why}")


def _tracking(wc: WorkCopy) -> str:
    return f"refs/remotes/{ORIGIN}/{wc.spec.base}"


def _head(wc: WorkCopy) -> str:
    head = wc.git.rev("HEAD")
    assert head is not None
    return head


def _fetch_base(wc: WorkCopy, target: Target) -> str:
    """The hub's base tip, fetched into the clone's tracking ref; a base branch that a
    person deleted stops the landing with the fix (RemoteUnreachable: no answer)."""
    base = wc.spec.base
    done = wc.git.run("fetch", "--quiet", "--no-tags", ORIGIN,
                      f"+refs/heads/{base}:{_tracking(wc)}")
    tip = wc.git.rev(_tracking(wc)) if done.returncode == 0 else None
    if tip is not None:
        return tip
    if remote.remote_tip(wc.git, ORIGIN, f"refs/heads/{base}") is None:
        raise _Stop(Landed(False, _base_gone(wc, target)))
    raise _Stop(Landed(False, f"fetching {base} from {target.where} failed; {base} is "
                              f"unchanged:\n{done.describe(800)}"))


def _base_gone(wc: WorkCopy, target: Target) -> str:
    base, ident = wc.spec.base, wc.spec.id
    push = (f"git push {target.remote} <commit>:refs/heads/{base}" if target.remote
            else f"git branch {base} <commit>")
    return (f"its base branch {base} no longer exists in {target.where} (deleted while "
            f"the job ran); nothing landed; the job's work is on {wc.spec.branch} there. "
            f"Recreate {base} (`{push}`), then `rgr queue retry {ident}`")


def _catch_up(wc: WorkCopy, target: Target, base_tip: str, previous: str | None,
              fixed: bool, fixer: Fixer | None, say: Callable[[str], None]) -> bool:
    """Bring the job onto ``base_tip``: a rebase (a merge after a merge fix: a rebase
    would flatten it), or merge-fixer sessions on a conflict. True once a fix merged."""
    base, branch = wc.spec.base, wc.spec.branch
    forced = previous is not None and previous != base_tip and not wc.git.ok(
        "merge-base", "--is-ancestor", previous, base_tip)
    if forced and fixed:
        raise _Stop(Landed(False, f"{base} on {target.where} was force-moved from "
                                  f"{previous[:8] if previous else '-'} to {base_tip[:8]} "
                                  f"after a merge fix into it; a merged fix would bring "
                                  f"back what was removed: merge {branch} by hand"))
    how, doing = ("merge", "merging") if fixed else ("rebase", "rebasing")
    say(f"{doing} {branch} onto {base} at {base_tip[:8]}")
    if forced:
        assert previous is not None
        # A person rewrote the base: replaying every commit the base no longer has
        # would land what they removed. Only the job's own commits go onto the new tip.
        fork = wc.git.out("merge-base", "HEAD", previous).strip()
        say(f"{base} on {target.where} was force-moved from {previous[:8]} to "
            f"{base_tip[:8]} (it no longer contains {previous[:8]}): only {branch}'s own "
            f"commits since {fork[:8]} are replayed onto it")
        done = wc.git.run("rebase", "--quiet", "--onto", base_tip, fork)
    elif fixed:
        done = wc.git.run("merge", "--quiet", "--no-edit", _tracking(wc))
    else:
        done = wc.git.run("rebase", "--quiet", _tracking(wc))
    if done.returncode == 0:
        tidy_test_list(wc, say)
        return fixed
    conflicts = wc.git.run("diff", "--name-only", "--diff-filter=U").stdout.split()
    wc.git.run(how, "--abort")
    named = ", ".join(conflicts) or done.stderr.strip()[-300:]
    conflict = f"{doing} onto {base} at {base_tip[:8]} conflicts in {named}"
    if fixed or fixer is None or fixer.tries == 0:
        raise _Stop(Landed(False, f"{conflict}; {base} is unchanged"))
    say(f"{conflict}: merge-fixer sessions ({fixer.tries} at most) resolve it")
    tried = fixer.run_rgr(fixer.argv(base_tip, base))
    if tried.returncode != 0:
        why = tail((tried.stderr or tried.stdout).strip(), 800).replace("rgr: error: ", "")
        raise _Stop(Landed(False, f"{conflict}; {base} is unchanged; {why}"))
    tidy_test_list(wc, say)
    return True


def tidy_test_list(wc: WorkCopy, say: Callable[[str], None]) -> None:
    """One line per item in test-list.md after a rebase or merge. git's union driver
    keeps both sides' lines, so an item one job ticked while the base gained other
    lines comes out twice, open and done: the next job's planner would see finished
    work as still to do (and may not drop it). A done item's open line goes, in a
    commit of rgr's own."""
    path = wc.root / TEST_LIST
    if not path.is_file():
        return
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    done = {m.group("text") for m in map(ITEM.match, lines) if m and m.group("mark") != " "}
    kept = [line for line in lines
            if not ((m := ITEM.match(line)) and m.group("mark") == " "
                    and m.group("text") in done)]
    if kept == lines:
        return
    path.write_text("".join(kept), encoding="utf-8")
    wc.git.out("commit", "-q", "--no-verify", "-m",
               f"rgr: {TEST_LIST} after landing on {wc.spec.base}: each done item once",
               "--", TEST_LIST)
    say(f"{TEST_LIST}: {len(lines) - len(kept)} open line(s) of items done on either side "
        "dropped (git's union merge kept both)")


def _move_base(wc: WorkCopy, target: Target, head: str, expected: str) -> bool:
    """Point the hub's base branch at ``head`` if it is still at ``expected``: False
    for a lost race; a refusal that retrying cannot fix stops the landing."""
    base = wc.spec.base
    ref = f"refs/heads/{base}"
    if target.remote is not None:
        try:
            # The verified commit itself, never the clone's own copy of the base branch
            # (which still holds the old tip: pushing it "succeeds" and lands nothing).
            return remote.push_ref(wc.git, ORIGIN, head, ref, expected,
                                   on_spawn=lambda _pid: failpoints.hit("land:pushing"))
        except RemoteRejected as exc:
            raise _Stop(Landed(False, _refused(wc, target, head, exc.message))) from None
    main = target.main
    # The hub is this repository: the job branch was pushed, so the objects are here.
    checked_out = main.run("symbolic-ref", "-q", "HEAD").stdout.strip() == ref
    if not checked_out:
        return main.ok("update-ref", ref, head, expected)
    if main.rev("HEAD") != expected:
        return False
    return _fast_forward_checkout(wc, target, head)


def _fast_forward_checkout(wc: WorkCopy, target: Target, head: str) -> bool:
    """The base branch is checked out in the daemon's own working tree: it moves with
    its files, and only when that tree is clean (a person's edits are never merged
    into, nor left looking reverted)."""
    base, branch = wc.spec.base, wc.spec.branch
    tree = Git(target.main_root, target.main.env)
    dirty = tree.run("status", "--porcelain", "--untracked-files=no").stdout.strip()
    if dirty:
        raise _Stop(Landed(False, f"{base} is checked out in {target.main_root} with "
                                  f"uncommitted changes: rgr does not move it under them; "
                                  f"{base} is unchanged; {branch} at {head[:8]} is verified. "
                                  f"Commit or stash them, then `rgr queue retry "
                                  f"{wc.spec.id}`"))
    done = tree.run("merge", "--ff-only", "--quiet", head)
    if done.returncode != 0:
        raise _Stop(Landed(False, f"fast-forwarding the checked-out {base} in "
                                  f"{target.main_root} failed; {base} is unchanged:\n"
                                  f"{done.describe(600)}"))
    return True


def _refused(wc: WorkCopy, target: Target, head: str, why: str) -> str:
    base, ident = wc.spec.base, wc.spec.id
    lines = [line.strip() for line in why.splitlines() if line.strip()]
    said = "; ".join(line for line in lines if line.lower().startswith(("remote:", "!"))
                     or "declined" in line or "denied" in line)
    return (f"{target.where} refuses to move {base} (a protected branch or a hook): "
            f"{said or tail(why, 400)}; {base} is unchanged; {wc.spec.branch} at "
            f"{head[:8]} is verified and on {target.where}. Let the daemon push {base} "
            f"(or land it with --integrate pr), then `rgr queue retry {ident}`")


def _read_back(wc: WorkCopy, target: Target, head: str) -> Landed:
    """What the hub's base branch holds now, read from the hub itself."""
    base = wc.spec.base
    if target.remote is None:
        now = target.main.rev(f"refs/heads/{base}")
    else:
        done = wc.git.run("fetch", "--quiet", "--no-tags", ORIGIN,
                          f"+refs/heads/{base}:{_tracking(wc)}")
        if done.returncode != 0 and remote.remote_tip(wc.git, ORIGIN, f"refs/heads/{base}") \
                is not None:
            return Landed(True, f"{base} moved to {head[:8]} on {target.where} (the push "
                                f"was accepted; reading it back failed: "
                                f"{tail(done.stderr.strip(), 200)})", head)
        now = wc.git.rev(_tracking(wc)) if done.returncode == 0 else None
    if now == head:
        return Landed(True, f"{base} on {target.where} is now {head[:8]} (read back)", head)
    if now is None:
        return Landed(True, f"{base} was moved to {head[:8]} on {target.where}, and has "
                            "been deleted there since (read back)", head)
    # Locally the hub is the daemon's repository: it has every commit its base holds.
    holder = wc.git if target.remote else target.main
    if holder.ok("merge-base", "--is-ancestor", head, now):
        return Landed(True, f"{base} was moved to {head[:8]} on {target.where}; it is at "
                            f"{now[:8]} now, which contains it (read back)", head)
    return Landed(True, f"{base} was moved to {head[:8]} on {target.where}, but it is at "
                        f"{now[:8]} now, which does not contain it: moved by force since "
                        "(read back)", head)


def tail_of(text: str) -> str:
    return tail(text.strip(), 600)


def _without_slots(env: Mapping[str, str]) -> dict[str, str]:
    """The verify child runs inside the slot this process holds: it must not wait for
    a second one."""
    return {k: v for k, v in env.items() if k != COUNT_VAR}
