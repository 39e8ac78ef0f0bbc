"""Handoff notes and job branches between a working copy and its hub.

Notes are never force-pushed (a forced notes push silently deletes every note the
other side wrote since the last fetch). The sync is the git-appraise pattern: fetch the
hub's notes into a scratch ref, merge them (a note only one side has is kept; the same
note on both sides is kept once), then push without force. A note is one JSON record,
always: where both sides changed one commit's note, the merge keeps one of the two
(:func:`one_record`: the later state of the handoff), never both (git's cat_sort_uniq
and union strategies join them into a note no reader can parse as one handoff). If
another writer pushed in between, git refuses (in one of its many wordings, see
rgr.daemon.hub.LOST_RACE) and the sync starts again.

The shared notes ref is the one ref every worker writes, so the daemon touches it once
per job, not once per phase: after each phase a job's notes go to its own
``refs/notes/rgr-jobs/<id>`` on the hub (one writer, the claim holder: no contention),
and they are merged into the shared ref when the job ends (or stops).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable

from rgr.base.errors import RgrError
from rgr.daemon.hub import RemoteRejected, RemoteUnreachable, answer, lost_race, unreachable
from rgr.store.gitcli import Git
from rgr.store.handoff_read import joined_note
from rgr.store.handoff_state import read_state
from rgr.store.notes_log import DEFAULT_REF

#: How long a notes sync keeps retrying lost races before it gives up (loses nothing).
NOTES_PATIENCE_S = 300.0


def scratch_ref(ref: str, remote: str) -> str:
    """Where the hub's notes are fetched to: refs/notes/remotes/<remote>/<name>."""
    name = ref.removeprefix("refs/notes/")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in remote)[:60] or "hub"
    return f"refs/notes/remotes/{safe}/{name}"


def _raise(git: Git, remote: str, text: str, described: str) -> None:
    if unreachable(text):
        raise RemoteUnreachable(f"cannot reach {remote}:\n{described}",
                                "local work is kept; it is synced once the remote answers")
    if not lost_race(text):
        raise RemoteRejected(f"{remote} refused the notes:\n{described}")


def fetch_notes(git: Git, remote: str, ref: str = DEFAULT_REF,
                source: str | None = None) -> str | None:
    """Fetch the hub's notes ref ``source`` (default: ``ref``) into its scratch ref; its
    tip, or None if the hub has none."""
    source = source or ref
    scratch = scratch_ref(source, remote)
    done = git.run("fetch", "--no-tags", "--quiet", remote, f"+{source}:{scratch}")
    if done.returncode != 0:
        text = answer(done)
        if "couldn't find remote ref" in text.lower():
            return None
        _raise(git, remote, text, done.describe(1500))
        raise RgrError(f"fetching the notes from {remote} failed:\n{done.describe(1500)}")
    return git.rev(scratch)


def merge_notes(git: Git, remote: str, ref: str = DEFAULT_REF,
                source: str | None = None) -> None:
    """Merge the fetched scratch ref of ``source`` (default: ``ref``) into ``ref`` with
    a strategy that loses no note."""
    scratch = scratch_ref(source or ref, remote)
    theirs = git.rev(scratch)
    if theirs is None:
        return
    ours = git.rev(ref)
    if ours is None:
        git.out("update-ref", ref, theirs, "0" * 40)
        return
    if ours == theirs or git.ok("merge-base", "--is-ancestor", theirs, ours):
        return
    folder = git.cwd / git.out("rev-parse", "--git-path", "NOTES_MERGE_WORKTREE").strip()
    if folder.is_dir() and any(folder.iterdir()):
        git.run("notes", f"--ref={ref}", "merge", "--abort")  # a killed worker's merge
    done = git.run("notes", f"--ref={ref}", "merge", "-q", "-s", "manual", scratch)
    if done.returncode == 0:
        return
    # Both sides changed some commit's note: git left each such note in the merge's
    # work folder. Each gets one of the two records, then the merge is committed.
    try:
        conflicts = sorted(folder.iterdir()) if folder.is_dir() else []
        if not conflicts:
            raise RgrError(f"merging the notes of {remote} failed:\n{done.describe(1500)}")
        for path in conflicts:
            commit = path.name
            mine = git.run("notes", f"--ref={ref}", "show", commit).stdout
            hubs = git.run("notes", f"--ref={scratch}", "show", commit).stdout
            path.write_text(one_record(mine, hubs), encoding="utf-8")
        git.out("notes", f"--ref={ref}", "merge", "--commit")
    except BaseException:
        git.run("notes", f"--ref={ref}", "merge", "--abort")
        raise


def one_record(ours: str, theirs: str) -> str:
    """The note one commit keeps when two writers changed it: its later state (a
    handoff with the landing verdict over the same handoff without; else the newer
    verdict, the newer finish), the same choice on every worker whichever side is
    ours. An old note of several joined records counts as its last valid one."""
    return max((_single(ours), _single(theirs)), key=_later)


def _single(text: str) -> str:
    """``text`` as one record: itself, or a joined note's last valid record."""
    if joined_note(text) is None:
        return text
    state, _ = read_state(text)
    if state is None:
        return text
    return json.dumps(state, indent=2, ensure_ascii=False) + "\n"


def _later(text: str) -> tuple[bool, str, str, str]:
    state, _ = read_state(text)
    if state is None:
        return (False, "", "", text)
    landing = state.get("landing")
    verified = str(landing.get("verifiedAt") or "") if landing else ""
    return (landing is not None, verified, str(state.get("finishedAt") or ""), text)


def sync_notes(git: Git, remote: str, ref: str = DEFAULT_REF,
               patience_s: float = NOTES_PATIENCE_S) -> int:
    """Fetch, merge and push (never forced) until the hub has every local note and
    this side every note of the hub's. Returns how many pushes lost a race. Lost races
    back off (jittered, doubling to 2 s) for up to ``patience_s`` seconds."""
    deadline = time.monotonic() + patience_s
    lost = 0
    while True:
        fetch_notes(git, remote, ref)
        merge_notes(git, remote, ref)
        if git.rev(ref) is None or git.rev(ref) == git.rev(scratch_ref(ref, remote)):
            return lost
        done = git.run("push", "--porcelain", "--no-verify", remote, f"{ref}:{ref}")
        if done.returncode == 0:
            return lost
        _raise(git, remote, answer(done), done.describe(1500))
        lost += 1
        if time.monotonic() > deadline:
            raise RgrError(f"the notes could not be pushed to {remote}: {lost} races lost "
                           f"in {patience_s:.0f} s", "run the daemon again; nothing was lost "
                           "(every note is local)")
        time.sleep(random.uniform(0.5, 1.0) * min(0.05 * 2 ** min(lost, 6), 2.0))


def push_ref(git: Git, remote: str, local: str, target: str, expected: str | None,
             on_spawn: Callable[[int], None] | None = None) -> bool:
    """Move the hub's ``target`` to our ``local`` (a ref or a commit id) if it is still
    at ``expected``: False for a lost race, RemoteRejected or RemoteUnreachable else."""
    done = git.run("push", "--porcelain", "--no-verify",
                   f"--force-with-lease={target}:{expected or ''}", remote, f"{local}:{target}",
                   on_spawn=on_spawn)
    if done.returncode == 0:
        return True
    _raise(git, remote, answer(done), done.describe(1500))
    return False


def push_branch(git: Git, remote: str, branch: str, expected: str | None) -> bool:
    """Move the hub's ``branch`` to ours if it is still at ``expected`` (None: absent)."""
    ref = f"refs/heads/{branch}"
    return push_ref(git, remote, ref, ref, expected)


def remote_tip(git: Git, remote: str, ref: str) -> str | None:
    done = git.run("ls-remote", remote, ref)
    if done.returncode != 0:
        _raise(git, remote, answer(done), done.describe(1500))
        raise RgrError(f"git ls-remote {remote} failed:\n{done.describe(1500)}")
    for line in done.stdout.splitlines():
        oid, _, name = line.partition("\t")
        if name == ref:
            return oid
    return None
