"""What several commands share: asking the person at the terminal before work starts,
and the progress beat on stderr while a long suite runs. A command's result is not
printed here: it returns it (rgr.base.outcome.Outcome) and rgr.cli.main renders it.

click, rich and the loop's modules are imported inside the functions that need them.
What the commands check before they start (the options, the branch, a clean tree, the
baseline) is below them, in rgr.loop.starting, where the daemon and the web use it too.
"""

from __future__ import annotations

import sys

from rgr.base.errors import NeedsConfirmation, RepositoryError
from rgr.base.ui import make_console, short

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    import threading

    from rgr.loop.starting import RunOptions
    from rgr.store.handoff import HandoffState
    from rgr.store.workspace import Workspace


class Progress:
    """``what`` said on stderr as work starts, then a line every ``every`` seconds until
    it ends (a long test suite is not silence): stdout stays the result's, so ``--json``
    still parses."""

    def __init__(self, what: str, every: float) -> None:
        self.what = what
        self.every = every
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        # Imported here: `rgr status` and `rgr show` import this module on their fast path.
        import threading
        import time

        started = time.monotonic()
        _stderr(f"{self.what} ...")
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(self.every):
                _stderr(f"{self.what}: still running ({time.monotonic() - started:.0f}s)")

        self._stop = stop
        self._thread = threading.Thread(target=beat, name="rgr-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None and self._thread is not None:
            self._stop.set()
            self._thread.join()


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def ask_yes_no(question: str) -> bool:
    """The person's answer to ``question``; no unless they say yes."""
    import click

    return click.confirm(question, default=False)


def confirm(options: RunOptions, question: str) -> None:
    if options.assume_yes:
        return
    if not options.interactive:
        raise NeedsConfirmation(
            "not a terminal: rgr will not start unattended work without confirmation",
            "pass --yes to go ahead",
        )
    import click

    if not click.confirm(question, default=True):
        click.echo("not started: nothing was changed", err=True)
        raise click.exceptions.Exit(1)

def ask_unnoted(ws: Workspace, options: RunOptions, noted: str, state: HandoffState) -> str:
    """Commits after the last handoff that rgr did not make: the user decides."""
    import click

    from rgr.loop.starting import UNNOTED_CHOICES
    from rgr.store import git

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
