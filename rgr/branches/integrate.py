"""What to do with a finished run: fast-forward the branch it started from, open a pull
request through ``gh``, or leave it (rejecting it is ``rgr rollback``).

Only a complete run is integrated. A merge is a fast-forward or nothing: rgr never
rebases (the notes sit on the run's commits and would not follow) and never makes a
merge commit on the user's behalf. Before the branch moves (and before a pull request is
proposed) the tree it would hold is judged again, sealed, by the full suite and the
``[gate]`` commands (rgr.branches.landing), and the verdict is noted on it: a red tree moves
nothing.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable

from rgr.base.errors import RepositoryError, RgrError
from rgr.base.proc import run
from rgr.base.ui import short
from rgr.branches.landing import Integration, Landing
from rgr.observe.report import RunReport
from rgr.store import git
from rgr.store.gitcli import argv
from rgr.store.workspace import Workspace

MODES = ("none", "merge", "pr")

GH_INSTALL_HINT = (
    "install the GitHub CLI (https://cli.github.com) and run `gh auth login`; or push "
    "the branch yourself (`git push -u origin {branch}`) and open the pull request in "
    "the browser"
)

Say = Callable[[str], None]
#: Judges the integrated tree at HEAD and notes the verdict there (accept gives the
#: sealed gate of `rgr verify --full`, rgr.branches.sealed_gate.judge_landing).
Check = Callable[[Integration], Landing]


def accept(ws: Workspace, report: RunReport, mode: str, into: str | None, say: Say) -> None:
    """``mode`` merge or pr: what `rgr report --integrate` and `rgr serve`'s accept do,
    the integrated tree judged by the sealed gate before anything moves."""
    from rgr.branches.sealed_gate import judge_landing
    from rgr.observe.report_text import markdown

    def check(integration: Integration) -> Landing:
        return judge_landing(ws, integration, say)

    if mode == "merge":
        merge(ws, report, into, say, check)
    elif mode == "pr":
        pull_request(ws, report, into, markdown(report), say, check)


class IntegrateError(RgrError):
    """The run cannot be integrated as asked; nothing was changed."""

    category = "integrate"


def preflight(ws: Workspace, mode: str) -> None:
    """Before a long run with ``--integrate pr``: fail now, not after the last phase,
    when ``gh`` is missing or logged out."""
    if mode == "pr":
        _gh(ws, git.current_branch(ws.repo) or "<branch>")


def _gh(ws: Workspace, branch: str) -> str:
    gh = shutil.which("gh", path=ws.env.get("PATH"))
    if gh is None:
        raise IntegrateError("`gh` (the GitHub CLI) is not installed",
                             GH_INSTALL_HINT.format(branch=branch))
    auth = run([gh, "auth", "status"], cwd=ws.root, timeout=60, env=ws.env)
    if auth.returncode != 0:
        raise IntegrateError(f"`gh` is not logged in:\n{auth.describe(600)}",
                             "run `gh auth login`, then this again")
    return gh


def _require_complete(report: RunReport, what: str) -> None:
    if report.status != "complete":
        raise IntegrateError(
            f"the run is {report.status} (next: {report.next_phase}): only a complete run "
            f"is {what}",
            "finish it with `rgr resume`, then integrate it with `rgr report --integrate ...`",
        )


def _target(report: RunReport, into: str | None) -> str:
    target = into or report.start_branch
    if target is None:
        raise IntegrateError(
            "the run's notes do not say which branch it started from",
            "name it: `rgr report --integrate merge --into <branch>`",
        )
    return target


def _judged(check: Check, integration: Integration, say: Say, moving: str) -> None:
    landing = check(integration)
    say(landing.line())
    if not landing.ok:
        raise IntegrateError(
            f"{landing.problem()}; {moving} (the verdict is noted on "
            f"{short(landing.note.tip)}: `git notes --ref=tdd-handoffs show "
            f"{short(landing.note.tip)}`)",
            "`rgr verify --full` on the branch shows the failure; fix it there, then "
            "integrate again (`rgr report --integrate merge|pr`)",
        )


def merge(ws: Workspace, report: RunReport, into: str | None, say: Say,
          check: Check) -> None:
    """Fast-forward ``into`` (default: the run's start branch) to the run's HEAD, once
    ``check`` passes on that tree."""
    _require_complete(report, "merged")
    target = _target(report, into)
    branch = git.require_branch(ws.repo)
    if target == branch:
        raise IntegrateError(
            f"the run worked on {target} itself (rgr run --here): there is nothing to merge",
            "it is already there; `rgr report --integrate pr` opens a pull request instead",
        )
    dirty = git.uncommitted_paths(ws.repo)
    if dirty:
        raise IntegrateError(
            f"the working tree has uncommitted changes ({git.describe_paths(dirty)}); "
            f"rgr will not switch to {target} over them",
            "commit or stash them first (`git stash -u`), then run this again",
        )
    reference = ws.repo.branches.local.get(target)
    if reference is None:
        raise IntegrateError(f"branch {target} does not exist",
                             "name an existing branch with --into")
    head = git.head_commit(ws.repo)
    tip = reference.peel().id
    if tip == head.id:
        say(f"{target} is already at {short(str(head.id))}: nothing to merge")
        return
    if not git.is_ancestor(ws.repo, tip, head.id):
        ahead = len(git.commits_between(ws.repo, head.id, tip))
        raise IntegrateError(
            f"{target} has {ahead} commit(s) that {branch} does not: fast-forwarding is "
            "not possible, and rgr does not rebase (the handoff notes stay on the run's "
            "commits)",
            f"merge it yourself (`git switch {target} && git merge {branch}`), or open a "
            "pull request with `rgr report --integrate pr`",
        )
    count = len(git.commits_between(ws.repo, tip, head.id))
    _judged(check, Integration(target, str(tip), str(head.id), "fast-forward", "run"), say,
            f"{target} is unchanged")
    if reference.peel().id != tip:
        raise IntegrateError(f"{target} moved while {branch} was verified; it is unchanged "
                             "by rgr", "run this again")
    reference.set_target(head.id, f"rgr: fast-forward to {branch}")
    ws.repo.checkout(reference.name)
    say(f"{target} fast-forwarded by {count} commit(s) to {short(str(head.id))} and "
        f"checked out; {branch} is kept (delete it with `git branch -d {branch}`)")


def pull_request(ws: Workspace, report: RunReport, into: str | None, body: str,
                 say: Say, check: Check) -> str:
    """Push the run's branch (and the notes) and open a pull request with ``gh``, once
    ``check`` passes on the branch's tree. Returns the pull request's URL as ``gh``
    printed it."""
    _require_complete(report, "proposed")
    branch = git.require_branch(ws.repo)
    gh = _gh(ws, branch)
    head = str(git.head_commit(ws.repo).id)
    target = into or report.start_branch or ""
    on = ws.repo.branches.local.get(target) if target else None
    # The tree proposed is the branch's: the merge the forge makes of it is its CI's.
    base_tip = str(on.peel().id) if on is not None else report.base_commit or head
    _judged(check, Integration(target or "(the remote's default branch)", base_tip, head,
                               "fast-forward", "run"), say,
            "nothing was pushed and no pull request opened")
    remote = _remote(ws, branch)
    push = run(argv("push", "-u", remote, f"{branch}:{branch}", user_hooks=True), cwd=ws.root,
               timeout=300, env=ws.env)
    if push.returncode != 0:
        raise RepositoryError(f"pushing {branch} to {remote} failed:\n{push.describe(1500)}")
    say(f"pushed {branch} to {remote}")
    notes = run(argv("push", remote, f"{ws.notes.ref}:{ws.notes.ref}", user_hooks=True),
                cwd=ws.root,
                timeout=300, env=ws.env)
    if notes.returncode == 0:
        say(f"pushed the handoff notes ({ws.notes.ref}) to {remote}")
    else:
        say(f"warning: the handoff notes were not pushed ({ws.notes.ref}); the pull request "
            f"has the commits only:\n{notes.describe(600)}")
    title = f"rgr: {report.feature or branch}"
    create = [gh, "pr", "create", "--head", branch, "--title", title, "--body", body]
    if target:
        create += ["--base", target]
    created = run(create, cwd=ws.root, timeout=300, env=ws.env)
    if created.returncode != 0:
        raise IntegrateError(f"`gh pr create` failed:\n{created.describe(1500)}",
                             "the branch is pushed; open the pull request in the browser")
    lines = created.stdout.strip().splitlines()
    url = lines[-1] if lines else ""
    say(f"pull request: {url}")
    return url


def _remote(ws: Workspace, branch: str) -> str:
    upstream = ws.repo.branches.local[branch].upstream
    if upstream is not None and upstream.remote_name:
        return str(upstream.remote_name)
    names = [r.name for r in ws.repo.remotes if r.name]
    if "origin" in names:
        return "origin"
    if len(names) == 1:
        return names[0]
    raise IntegrateError(
        "no remote to push to" if not names else f"several remotes ({', '.join(names)}) "
        "and none is origin",
        "add one: `git remote add origin <url>`",
    )
