"""Move the branch back to a noted commit, undoably: `rgr rollback <commit>` and the
reject button of `rgr serve`.

The commits rolled past stay reachable under ``refs/rgr/backups/...`` (named in what is
said), and with ``force`` uncommitted work is stashed, never discarded.
"""

from __future__ import annotations

from collections.abc import Callable

from rgr.base.errors import NeedsConfirmation, RepositoryError
from rgr.base.ui import short
from rgr.store import git
from rgr.store.workspace import Workspace


def roll_back(ws: Workspace, rev: str, force: bool, assume_yes: bool,
              ask: Callable[[str], bool] | None, say: Callable[[str], None]) -> int:
    """Exit 0 when rolled back (or already there), 1 when the person said no.
    ``say``: plain lines, said as they come (the plan before the question); ``ask``: the
    question put to a person, None when there is nobody to ask."""
    branch = git.require_branch(ws.repo)
    head = git.head_commit(ws.repo)
    target = git.resolve_commit(ws.repo, rev)
    record = ws.notes.read(str(target.id))
    if record is None:
        raise RepositoryError(
            f"{short(str(target.id))} has no rgr handoff note: rollback only goes back to a "
            "recorded phase",
            "pick a commit from `rgr history`",
        )
    if record.state is None:
        raise RepositoryError(
            f"the note on {short(str(target.id))} is not a valid handoff ({record.problem})",
            "run `rgr repair-notes`, then pick a commit from `rgr history`",
        )
    if not git.is_ancestor(ws.repo, target.id, head.id):
        raise RepositoryError(
            f"{short(str(target.id))} is not in the history of {branch}",
            "pick a commit from `rgr history` (without --all)",
        )
    if target.id == head.id:
        say(f"{branch} is already at {short(str(head.id))}: nothing to roll back")
        return 0
    dirty = git.uncommitted_paths(ws.repo)
    if dirty and not force:
        listing = git.describe_paths(dirty)
        raise RepositoryError(
            f"uncommitted changes would be lost: {listing}",
            "commit or stash them, or pass --force to have rgr stash them for you",
        )
    undone = git.commits_between(ws.repo, target.id, head.id)
    state = record.state
    say(
        f"Rolling {branch} back to {short(str(target.id))} "
        f"({state.phase}, cycle {state.cycle_number}); {len(undone)} commit(s) will be undone:"
    )
    for commit in reversed(undone):
        subject = commit.message.splitlines()[0] if commit.message else ""
        say(f"  {short(str(commit.id))} {subject}")
    if dirty:
        say(f"  and {len(dirty)} uncommitted change(s) will be stashed")
    if not assume_yes:
        if ask is None:
            raise NeedsConfirmation(
                "not a terminal: rgr will not roll back without confirmation",
                "pass --yes to confirm",
            )
        if not ask("Roll back?"):
            say("nothing changed")
            return 1
    backup = git.backup_ref(ws.repo, head.id, "rollback")
    stash = git.stash_everything(ws.repo, f"rgr rollback of {branch}") if dirty else None
    git.reset_hard(ws.repo, target.id)
    say(f"{branch} is now at {short(str(target.id))}.")
    say(f"The undone commits are kept at {backup}; undo this rollback with:")
    say(f"  git reset --hard {backup}")
    if stash is not None:
        say(f"Your uncommitted changes are in the stash ({short(str(stash))}): "
                  "`git stash pop`")
    return 0
