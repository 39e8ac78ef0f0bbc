"""What several commands share: asking the person at the terminal before work starts.

These helpers talk to a terminal through click, so they live in the entry layer; what
the commands check before they start (the options, the branch, a clean tree, the
baseline) is below them, in rgr.loop.starting, where the daemon and the web can use it
too.
"""

from __future__ import annotations

import click

from rgr.base.errors import NeedsConfirmation, RepositoryError
from rgr.base.ui import make_console, short
from rgr.loop.starting import UNNOTED_CHOICES, RunOptions
from rgr.store import git
from rgr.store.handoff import HandoffState
from rgr.store.workspace import Workspace


def confirm(options: RunOptions, question: str) -> None:
    if options.assume_yes:
        return
    if not options.interactive:
        raise NeedsConfirmation(
            "not a terminal: rgr will not start unattended work without confirmation",
            "pass --yes to go ahead",
        )
    if not click.confirm(question, default=True):
        click.echo("not started: nothing was changed", err=True)
        raise click.exceptions.Exit(1)

def ask_unnoted(ws: Workspace, options: RunOptions, noted: str, state: HandoffState) -> str:
    """Commits after the last handoff that rgr did not make: the user decides."""
    head = git.head_commit(ws.repo)
    commits = git.commits_between(ws.repo, git.resolve_commit(ws.repo, noted).id, head.id)
    listing = ", ".join(short(str(c.id)) for c in commits[:5]) + (
        " ..." if len(commits) > 5 else "")
    what = (f"{len(commits)} commit(s) after the last handoff ({listing}) were not made by "
            f"an rgr agent")
    if not options.interactive:
        raise RepositoryError(
            f"{what}; rgr will not judge or move them without your say",
            f"`rgr resume --unnoted adopt` checks them as {state.resume_phase} work (noted "
            "if they pass, set aside under refs/rgr/attempts/ if not); `--unnoted set-aside` "
            "keeps them under refs/rgr/attempts/ and continues from the last handoff")
    make_console().print(f"{what}.\n  adopt      check them as {state.resume_phase} work "
                         "(noted if they pass, set aside if not)\n  set-aside  keep them "
                         "under refs/rgr/attempts/ and continue from the last handoff")
    choice: str = click.prompt("What should rgr do with them?",
                               type=click.Choice([*UNNOTED_CHOICES, "quit"]),
                               default="quit")
    if choice == "quit":
        raise click.exceptions.Exit(1)
    return choice
