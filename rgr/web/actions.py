"""The page's actions, each the function its CLI command calls, with the command's
output captured for the page instead of printed:

    queue a job       rgr queue add FEATURE [--after ID] [--refactor]   commands.queue.add
    cancel a job      rgr queue cancel ID                               commands.queue.cancel
    stop the daemon   rgr daemon stop                                   commands.daemon.stop
    accept the run    rgr report --integrate merge|pr                   commands.report.run
    reject the run    rgr rollback <start marker> --yes                 commands.rollback.run

Accepting and rejecting work on the run at HEAD, as their commands do.
"""

from __future__ import annotations

import io

import click
from rich.console import Console

from rgr.base.errors import RgrError
from rgr.store.workspace import Workspace


class UnknownAction(LookupError):
    pass


class ActionError(RgrError):
    """A form that does not say what the action needs."""


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, highlight=False, soft_wrap=True, width=120,
                   force_terminal=False, color_system=None), buffer


def _job_id(form: dict[str, str]) -> int:
    value = form.get("job", "").strip()
    if not value.isdigit():
        raise ActionError(f"{value!r} is not a job id", "use the buttons of the board")
    return int(value)


def perform(ws: Workspace, name: str, form: dict[str, str],
            remote: str | None) -> tuple[str, str, str]:
    """Run action ``name``: (title, the command's output, where to go back to)."""
    out, buffer = _console()
    if name == "queue":
        from rgr.commands import queue

        after = tuple(int(n) for n in form.get("after", "").replace(",", " ").split()
                      if n.isdigit())
        # The CLI's option checks (an empty feature, a bad cron) are in add() itself.
        every = form.get("every", "").strip() or None
        try:
            queue.add(ws, form.get("feature", ""), after, form.get("refactor") == "on", every,
                      form.get("base", "").strip() or None, remote, out=out)
        except click.UsageError as exc:  # the CLI's own wording of a bad option
            raise ActionError(exc.format_message()) from None
        return "queued", buffer.getvalue(), "/"
    if name == "cancel":
        from rgr.commands import queue

        ident = _job_id(form)
        queue.cancel(ws, ident, remote, out=out)
        return f"job {ident} cancelled", buffer.getvalue(), "/"
    if name == "stop":
        from rgr.commands import daemon

        daemon.stop(ws, out=out)
        return "daemon asked to stop", buffer.getvalue(), "/"
    if name == "accept":
        from rgr.commands import report

        mode = form.get("mode", "")
        if mode not in ("merge", "pr"):
            raise ActionError(f"accept with {mode!r}? merge or pr", None)
        report.run(ws, False, mode, form.get("into", "").strip() or None, out=out)
        return f"run accepted ({mode})", buffer.getvalue(), "/"
    if name == "reject":
        from rgr.commands import rollback

        marker = form.get("marker", "")
        rollback.run(ws, marker, force=False, assume_yes=True, interactive=False, out=out)
        return "run rejected (rolled back)", buffer.getvalue(), "/"
    raise UnknownAction(name)
