"""The page's actions, each the service its CLI command calls, with what the service
says shown on the page:

    queue a job       rgr queue add FEATURE [--after ID] [--refactor]   daemon.jobs.add
    cancel a job      rgr queue cancel ID                               daemon.jobs.cancel
    stop the daemon   rgr daemon stop                                   daemon.jobs.stop_daemon
    accept the run    rgr report --integrate merge|pr                   loop.integrate.accept
    reject the run    rgr rollback <start marker> --yes                 loop.rollback.roll_back

Accepting and rejecting work on the run at HEAD, as their commands do.
"""

from __future__ import annotations

from rgr.base.errors import RgrError
from rgr.store.workspace import Workspace


class UnknownAction(LookupError):
    pass


class ActionError(RgrError):
    """A form that does not say what the action needs."""


def _job_id(form: dict[str, str]) -> int:
    value = form.get("job", "").strip()
    if not value.isdigit():
        raise ActionError(f"{value!r} is not a job id", "use the buttons of the board")
    return int(value)


def perform(ws: Workspace, name: str, form: dict[str, str],
            remote: str | None) -> tuple[str, str, str]:
    """Run action ``name``: (title, what it said, where to go back to). A bad option
    (an empty feature, a bad cron) is refused by the service itself, in the CLI's
    words (an RgrError, shown as the page's error)."""
    said: list[str] = []
    if name == "queue":
        from rgr.daemon import jobs

        after = tuple(int(n) for n in form.get("after", "").replace(",", " ").split()
                      if n.isdigit())
        every = form.get("every", "").strip() or None
        outcome = jobs.add(ws, form.get("feature", ""), after, form.get("refactor") == "on",
                           every, form.get("base", "").strip() or None, remote)
        return "queued", _text(outcome.plain_lines()), "/"
    if name == "cancel":
        from rgr.daemon import jobs

        ident = _job_id(form)
        return f"job {ident} cancelled", _text(jobs.cancel(ws, ident, remote).plain_lines()), "/"
    if name == "stop":
        from rgr.daemon import jobs

        return "daemon asked to stop", _text(jobs.stop_daemon(ws).plain_lines()), "/"
    if name == "accept":
        from rgr.branches import integrate
        from rgr.observe.report import collect
        from rgr.observe.report_text import text

        mode = form.get("mode", "")
        if mode not in ("merge", "pr"):
            raise ActionError(f"accept with {mode!r}? merge or pr", None)
        report = collect(ws)
        said += [*text(report, decision=False), ""]
        integrate.accept(ws, report, mode, form.get("into", "").strip() or None, said.append)
        return f"run accepted ({mode})", _text(said), "/"
    if name == "reject":
        from rgr.branches.rollback import roll_back

        marker = form.get("marker", "")
        roll_back(ws, marker, force=False, assume_yes=True, ask=None, say=said.append)
        return "run rejected (rolled back)", _text(said), "/"
    raise UnknownAction(name)


def _text(lines: list[str] | tuple[str, ...]) -> str:
    return "".join(f"{line}\n" for line in lines)
