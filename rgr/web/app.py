"""The Starlette application of `rgr serve`: routes, templates, error pages.

Handlers are plain functions (Starlette runs them in its thread pool): rgr's readers
are synchronous git and pygit2 calls. Each request opens its own repository
(Workspace.reopened), so requests share no pygit2 object and always see the refs as
they are now.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rgr.base.errors import RepositoryError, RgrError
from rgr.base.ui import duration, money, phase_label, short
from rgr.daemon.hub import RemoteUnreachable
from rgr.daemon.jobs import open_queue
from rgr.daemon.queue import Job, Queue, QueueError, describe_state
from rgr.store import git
from rgr.store.workspace import Workspace
from rgr.web import actions, board, evals, history, plots, runs
from rgr.web.security import Guard, same

#: A commit as the routes take it: an abbreviated or full hex id, nothing else (a
#: revision expression is not a URL's business). A run's page also takes HEAD and a
#: local branch's name (Pages.revision).
COMMIT = re.compile(r"[0-9a-f]{4,40}")

#: With --remote, the queue's refs are fetched at most this often (page polls included).
FETCH_EVERY_S = 5.0

#: How often the board's script asks whether anything changed.
POLL_MS = 1000

#: Largest form body an action reads.
MAX_FORM_BYTES = 64_000


@dataclass
class ServeState:
    ws: Workspace
    remote: str | None = None
    allow_actions: bool = False
    token: str | None = None
    loopback_only: bool = True
    #: Put in every form the server renders; an action without it is refused.
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    _fetched_at: float = 0.0
    _fetch_problem: str | None = None
    _fetch_lock: threading.Lock = field(default_factory=threading.Lock)

    def queue(self, ws: Workspace) -> Queue:
        """The queue `rgr queue [--remote R]` reads; a remote's refs fetched at most
        every FETCH_EVERY_S (the fetch is what `rgr queue --remote` does first)."""
        queue = open_queue(ws, self.remote)
        if self.remote is not None:
            with self._fetch_lock:
                if time.monotonic() - self._fetched_at >= FETCH_EVERY_S:
                    self._fetched_at = time.monotonic()
                    try:
                        queue.hub.refresh()
                        self._fetch_problem = None
                    except RemoteUnreachable as exc:
                        self._fetch_problem = exc.message.splitlines()[0]
        return queue

    @property
    def fetch_problem(self) -> str | None:
        return self._fetch_problem


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("rgr.web", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(money=money, duration=duration, short=short, phase_label=phase_label,
                       when=runs.when, states=board.STATES)
    return env


class Pages:
    """The routes, bound to one server's state."""

    def __init__(self, state: ServeState) -> None:
        self.state = state
        self.templates = _environment()

    def render(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("actions", self.state.allow_actions)
        context.setdefault("csrf", self.state.csrf)
        context.setdefault("remote", self.state.remote)
        context.setdefault("fetch_problem", self.state.fetch_problem)
        html = self.templates.get_template(name).render(**context)
        return HTMLResponse(html, status_code=status)

    def error(self, status: int, title: str, message: str,
              hint: str | None = None) -> HTMLResponse:
        return self.render("error.html", status=status, title=title, message=message,
                           hint=hint)

    # -- the board -------------------------------------------------------------------

    def _only(self, request: Request) -> str | None:
        only = request.query_params.get("state") or None
        if only is not None and only not in board.STATES:
            raise HTTPException(404, f"there is no job state {only!r}")
        return only

    def _page(self, request: Request) -> int:
        given = request.query_params.get("page", "1")
        if not given.isdigit():
            raise HTTPException(404, f"there is no page {given!r}")
        return int(given)

    def board_page(self, request: Request) -> Response:
        only, page = self._only(request), self._page(request)
        ws = self.state.ws.reopened()
        queue = self.state.queue(ws)
        tag = board.fingerprint(queue, ws.notes.tip_id())
        return self.render("board.html", board=board.read(queue, only, page, ws), only=only,
                           etag=_etag(tag, only, page), poll_ms=POLL_MS,
                           repo=str(ws.root), title="board")

    def board_live(self, request: Request) -> Response:
        """The board's body for the page's script: 304 while nothing changed."""
        only, page = self._only(request), self._page(request)
        ws = self.state.ws.reopened()
        queue = self.state.queue(ws)
        tag = _etag(board.fingerprint(queue, ws.notes.tip_id()), only, page)
        if request.headers.get("if-none-match") == tag:
            return Response(status_code=304, headers={"etag": tag})
        response = self.render("board_body.html", board=board.read(queue, only, page, ws),
                               only=only)
        response.headers["etag"] = tag
        return response

    # -- runs --------------------------------------------------------------------------

    def _job(self, ws: Workspace, ident: int) -> Job | HTMLResponse:
        """Job ``ident`` of the queue, or the 404 page that says why there is none."""
        try:
            return self.state.queue(ws).job(ident)
        except QueueError as exc:
            return self.error(404, f"no job {ident}", exc.message, exc.hint)

    def job_page(self, request: Request) -> Response:
        ident = int(request.path_params["ident"])
        ws = self.state.ws.reopened()
        job = self._job(ws, ident)
        if isinstance(job, HTMLResponse):
            return job
        source = runs.job_source(ws, job)
        page = runs.build(source) if source is not None else None
        return self.render("run.html", job=job, page=page, head_run=False,
                           title=f"job {ident}", job_state=describe_state(job),
                           note_base=f"/jobs/{ident}/notes/")

    def run_page(self, request: Request) -> Response:
        ws = self.state.ws.reopened()
        commit = self.revision(ws, request.path_params["commit"])
        page = runs.build(runs.Source(ws, commit, None, "this repository"))
        at_head = (not ws.repo.head_is_unborn and page.report.head ==
                   str(git.head_commit(ws.repo).id))
        return self.render("run.html", job=None, page=page, head_run=at_head,
                           title=f"run {short(page.report.run_id)}", note_base="/notes/")

    def note(self, request: Request) -> Response:
        """The raw note, as `git notes show` prints it: text, never HTML."""
        ws = self.state.ws.reopened()
        commit = self._commit(ws, request.path_params["commit"])
        return self._note_of(ws, commit)

    def job_note(self, request: Request) -> Response:
        """A note of job N's run, from where its page read it (its clone, here)."""
        ident = int(request.path_params["ident"])
        ws = self.state.ws.reopened()
        job = self._job(ws, ident)
        if isinstance(job, HTMLResponse):
            return job
        source = runs.job_source(ws, job)
        if source is None:
            raise HTTPException(404, f"job {ident} has no handoff yet")
        return self._note_of(source.ws, self._commit(source.ws, request.path_params["commit"]))

    def _note_of(self, ws: Workspace, commit: str) -> Response:
        text = ws.notes.read_text(commit)
        if text is None:
            raise HTTPException(404, f"{short(commit)} has no rgr handoff note")
        return PlainTextResponse(text, headers={"content-disposition": "inline"})

    def revision(self, ws: Workspace, given: str) -> str:
        """``given`` as a run's page takes it: HEAD, a local branch (its tip; a branch
        wins over a hex-looking name, as in git), or a commit id."""
        if given == "HEAD" and not ws.repo.head_is_unborn:
            return str(git.head_commit(ws.repo).id)
        if git.check_branch_name(given) is None:
            tip = git.branch_tip(ws.repo, given)
            if tip is not None:
                return tip
        if not COMMIT.fullmatch(given):
            raise HTTPException(404, f"{given!r} is not a commit id, HEAD or a branch of "
                                "this repository")
        return self._commit(ws, given)

    def _commit(self, ws: Workspace, given: str) -> str:
        if not COMMIT.fullmatch(given):
            raise HTTPException(404, f"{given!r} is not a commit id")
        try:
            return str(git.resolve_commit(ws.repo, given).id)
        except RgrError as exc:
            raise HTTPException(404, f"unknown commit {given}: {exc.message}") from None

    # -- history -----------------------------------------------------------------------

    def history_page(self, request: Request) -> Response:
        ws = self.state.ws.reopened()
        found = history.read(ws)
        spans = [(r.feature, r.started, r.finished or r.started,
                  "complete" if r.complete else "open")
                 for r in found.runs if r.started is not None]
        charts = {
            "features": plots.timeline("features over time", spans[-40:]),
            "tests": plots.lines("tests done after each cycle",
                                 [(r.feature, r.tests_by_cycle) for r in found.runs[-8:]
                                  if r.tests_by_cycle]),
            "cost": plots.bars("cost per feature",
                               [(r.feature, r.cost_usd) for r in found.runs[-40:]],
                               unit="$", digits=4),
            "rejections": plots.bars("rejections by rule",
                                     found.rejections.most_common(20)),
        }
        return self.render("history.html", history=found, charts=charts, repo=str(ws.root),
                           title="history")

    # -- eval --------------------------------------------------------------------------

    def eval_page(self, request: Request) -> Response:
        ws = self.state.ws.reopened()
        return self.render("eval.html", evals=evals.read(ws.root), repo=str(ws.root),
                           title="eval")

    # -- actions -----------------------------------------------------------------------

    async def action(self, request: Request) -> Response:
        if not self.state.allow_actions:
            return self.error(403, "actions are off",
                              "this rgr serve shows the queue and the runs but changes "
                              "nothing", "start it with `rgr serve --allow-actions`")
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
            return self.error(403, "refused", f"an action from another origin ({origin})")
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            return self.error(413, "refused", "the form is too large")
        form = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace"),
                                              keep_blank_values=True).items()}
        if not same(form.get("csrf"), self.state.csrf):
            return self.error(403, "refused", "the action carries no valid CSRF token: use "
                              "the forms of this server's own pages")
        name = request.path_params["name"]
        from starlette.concurrency import run_in_threadpool

        try:
            title, output, back = await run_in_threadpool(
                actions.perform, self.state.ws.reopened(), name, form, self.state.remote)
        except actions.UnknownAction:
            return self.error(404, "no such action", f"there is no action {name!r}")
        except RgrError as exc:
            return self.error(409, "not done", exc.message, exc.hint)
        return self.render("action.html", title=title, output=output, back=back)


def _etag(tag: str, only: str | None, page: int) -> str:
    return f'"{tag}-{only or "all"}-{page}"'


def create_app(state: ServeState) -> Guard:
    pages = Pages(state)

    async def not_found(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        title = "not found" if exc.status_code == 404 else f"error {exc.status_code}"
        return pages.error(exc.status_code, title, str(exc.detail))

    async def rgr_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RgrError)
        missing = isinstance(exc, RepositoryError)  # no such commit, no handoff there
        return pages.error(404 if missing else 500, "nothing to show" if missing else "error",
                           exc.message, exc.hint)

    app = Starlette(
        routes=[
            Route("/", pages.board_page),
            Route("/board", pages.board_live),
            Route("/jobs/{ident:int}", pages.job_page),
            Route("/jobs/{ident:int}/notes/{commit}", pages.job_note),
            Route("/runs/{commit:path}", pages.run_page),  # a branch name has slashes
            Route("/notes/{commit}", pages.note),
            Route("/history", pages.history_page),
            Route("/eval", pages.eval_page),
            Route("/actions/{name}", pages.action, methods=["POST"]),
            Mount("/static", StaticFiles(packages=[("rgr.web", "static")]), name="static"),
        ],
        exception_handlers={HTTPException: not_found, RgrError: rgr_error},
    )
    return Guard(app, state.token, state.loopback_only)
