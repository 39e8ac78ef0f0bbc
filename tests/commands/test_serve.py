"""`rgr serve` over HTTP, with a real server process and real repositories: what each
page says agrees with `rgr queue`, `rgr show`, `rgr report` and `git notes`, and bad
input gets a clear answer (404 pages, a repository that is not one, a port in use,
actions without their token, a non-loopback bind without one).

The browser tests (a daemon running jobs while the board is open, hostile agents) are
tests/e2e/test_serve_browser.py.
"""

from __future__ import annotations

import json
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from rgr.base.installed import install_extra
from rgr.evaluate import results
from rgr.evaluate.results import Measures
from rgr.web.security import CSP
from tests.conftest import Repo, RunRgr, clean_env, git, make_repo
from tests.serve_helpers import RUN_ID, csrf_of, http, make_run, serve


def queue_json(run_rgr: RunRgr, cwd: Path, *extra: str) -> list[dict[str, object]]:
    code, out, err = run_rgr(["queue", "--json", *extra], cwd)
    assert code == 0, err
    jobs: list[dict[str, object]] = json.loads(out)
    return jobs


def test_pages_agree_with_the_cli_and_escape_what_agents_wrote(
        tmp_path: Path, run_rgr: RunRgr) -> None:
    repo = make_repo(tmp_path, commits=2)
    made = make_run(repo, feature="<script>window.__pwned=1</script> slug",
                    test_name="javascript:alert(1)", summary="<img src=x onerror=alert(1)>")
    for feature in ("make <b>alpha</b>", "make beta"):
        assert run_rgr(["queue", "add", feature], repo.path)[0] == 0
    with serve(repo.path, tmp_path / "home") as served:
        base = served.base
        board = http(base + "/")
        assert board.status == 200
        assert board.headers["content-security-policy"] == CSP
        assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
        assert board.headers["x-content-type-options"] == "nosniff"
        # every job of `rgr queue --json`, with its state and branch
        for job in queue_json(run_rgr, repo.path):
            assert f'id="job-{job["id"]}"' in board.text
            assert str(job["branch"]) in board.text
        assert "make &lt;b&gt;alpha&lt;/b&gt;" in board.text and "<b>alpha" not in board.text
        assert 'name="csrf"' not in board.text  # read-only: no action forms
        # the live body: 304 while the queue refs stay, 200 after a change
        tag = board.text.split('data-etag="')[1].split('"', 1)[0].replace("&#34;", '"')
        assert http(base + "/board", headers={"If-None-Match": tag}).status == 304
        assert run_rgr(["queue", "cancel", "2"], repo.path)[0] == 0
        live = http(base + "/board", headers={"If-None-Match": tag})
        assert live.status == 200 and live.headers["etag"] != tag
        assert 'id="job-2" class="job state-cancelled"' in live.text
        only = http(base + "/board?state=cancelled")
        assert 'id="job-2"' in only.text and 'id="job-1"' not in only.text
        # the eval page: every eval under rgr-eval/, as `rgr eval` reports it
        assert "No eval here yet" in http(base + "/eval").text
        with (repo.path / ".git" / "info" / "exclude").open("a") as exclude:
            exclude.write("/rgr-eval/\n")  # results are no part of the project
        results.save(repo.path / "rgr-eval" / "nightly", Measures(
            task="t1", mode="rgr", repeat=1, hidden_passed=2, hidden_total=3,
            rejections={"<b>rule</b>": 1}))
        evals = http(base + "/eval")
        assert evals.status == 200 and evals.headers["content-security-policy"] == CSP
        assert "<td>rgr</td>" in evals.text and "2/3 67%" in evals.text
        assert "&lt;b&gt;rule&lt;/b&gt; 1" in evals.text and "<b>rule" not in evals.text

        page = http(f"{base}/runs/{made.done}")
        assert page.status == 200, page.text
        # hostile text is text
        assert "<script>window.__pwned" not in page.text
        assert "&lt;script&gt;window.__pwned=1&lt;/script&gt; slug" in page.text
        assert "<img src=x" not in page.text and "&lt;img src=x onerror=alert(1)&gt;" in page.text
        assert 'href="javascript:' not in page.text
        # the figures of `rgr report` for this run (HEAD is its last commit)
        code, out, err = run_rgr(["report", "--json"], repo.path)
        assert code == 0, err
        report = json.loads(out)
        assert f'<span id="run-cost">${report["costUsd"]:.4f}</span>' in page.text
        assert report["costUsd"] == pytest.approx(sum(made.costs))
        assert "test-modified" in page.text and made.attempt_ref in page.text
        assert "GREEN may not change a test" in page.text  # the rejection's reason
        assert "+    assert True" in page.text  # the rejected attempt's diff
        assert "+    return text.lower()" in page.text  # GREEN's diff
        assert "tests/test_slug.py::test_lower" in page.text  # RED's failing test
        assert "No module named &#39;slug&#39;" in page.text  # its output (run folder)
        assert "Bash: curl http://example.com" in page.text  # the refused call
        assert "- [ ] javascript:alert(1)" in page.text  # the planner's test list
        # fake-it debt, paid and open, as `rgr report` lists it
        assert [d["status"] for d in report["fakeItDebt"]] == ["paid", "open"]
        assert ('class="fake-it-debt debt-paid">paid: slug.py:2 slug returns the constant '
                "&#39;a&#39; (from tests/test_slug.py::test_lower), by GREEN cycle 2 "
                "(0123abcd)</dd>") in page.text
        assert ('class="fake-it-debt debt-open">open: slug.py:4 slug special-cases the '
                "inputs &#39;&lt;b&gt;&#39;") in page.text
        # the examiner's verdict, its tests and cost, the missing behaviour in its words
        assert report["acceptance"]["verdict"] == "fail"
        assert ('id="acceptance" class="acceptance verdict-fail">fail: 1 of 2 acceptance '
                "test(s) passed (mode on, round 1, 1 examiner session(s), $0.0300)"
                ) in page.text
        assert ('<dt>missing behaviour</dt><dd class="acceptance-missing">slug joins '
                "&lt;words&gt; with dashes (failed)</dd>") in page.text
        assert "slug lowercases" not in page.text  # a passing test is no missing behaviour
        # one raw-note link per commit, each what `git notes show` prints
        for commit in (made.marker, made.plan, made.red, made.green, made.attempt):
            assert f'href="/notes/{commit}"' in page.text
        raw = http(f"{base}/notes/{made.red}")
        assert raw.status == 200 and raw.headers["content-type"].startswith("text/plain")
        assert raw.text == repo.show_note(made.red) + "\n"
        # the same run from any commit of it, and the phase `rgr show` shows
        assert f"{RUN_ID}" in http(f"{base}/runs/{made.red[:10]}").text
        code, out, _ = run_rgr(["show", "--json", made.green], repo.path)
        assert f"${json.loads(out)['agent']['costUsd']:.4f}" in page.text

        history = http(base + "/history")
        assert history.status == 200 and history.text.count("<svg") == 4
        assert "<script>window" not in history.text
        # the run's cost as `rgr report` counts it, the examiner's session included
        assert "test-modified" in history.text
        assert f"${report['costUsd']:.4f}" in history.text and "$0.2700" not in history.text

        # a queued job has no run yet; an unknown job, commit or state is a 404 page
        assert "no handoff yet" in http(base + "/jobs/1").text
        for path, says in [("/jobs/99", "there is no job 99 in the queue"),
                           ("/runs/0123456789abcdef", "unknown commit 0123456789abcdef"),
                           ("/runs/main", "no rgr handoff on this branch"),
                           ("/runs/no-such-branch", "is not a commit id, HEAD or a branch"),
                           ("/runs/..%2Fetc", "is not a commit id, HEAD or a branch"),
                           (f"/runs/{repo.rev('main')}", "no rgr handoff on this branch"),
                           (f"/notes/{repo.rev('main')}", "has no rgr handoff note"),
                           ("/?state=bogus", "no job state"), ("/nowhere", "Not Found")]:
            answer = http(base + path)
            assert answer.status == 404, (path, answer.status)
            assert says in answer.text, (path, answer.text[:2000])
            assert answer.headers["content-security-policy"] == CSP
        # actions are off: refused whatever the form says
        answer = http(base + "/actions/cancel", data=b"job=1&csrf=x")
        assert answer.status == 403 and "rgr serve --allow-actions" in answer.text
        # a Host that is not loopback (DNS rebinding) is refused
        assert http(base + "/", headers={"Host": "evil.example:80"}).status == 421


def test_actions_need_the_csrf_token_and_do_what_the_cli_does(
        tmp_path: Path, run_rgr: RunRgr) -> None:
    repo = make_repo(tmp_path, commits=1)
    for feature in ("make alpha", "make beta", "make gamma"):
        assert run_rgr(["queue", "add", feature], repo.path)[0] == 0
    with serve(repo.path, tmp_path / "home", "--allow-actions") as served:
        base = served.base
        token = csrf_of(http(base + "/").text)
        for form in ({"job": "1"}, {"job": "1", "csrf": "wrong"}):
            refused = http(base + "/actions/cancel", data=urlencode(form).encode())
            assert refused.status == 403 and "CSRF" in refused.text
        other = http(base + "/actions/cancel", data=urlencode({"job": "1", "csrf": token})
                     .encode(), headers={"Origin": "http://evil.example"})
        assert other.status == 403
        assert [j["state"]["state"] for j in queue_json(run_rgr, repo.path)] == ["queued"] * 3
        done = http(base + "/actions/cancel",
                    data=urlencode({"job": "1", "csrf": token}).encode())
        assert done.status == 200 and "job 1 cancelled by the user" in done.text
        code, out, _ = run_rgr(["queue", "cancel", "2"], repo.path)
        assert code == 0 and "job 2 cancelled by the user" in out
        again = http(base + "/actions/cancel",
                     data=urlencode({"job": "1", "csrf": token}).encode())
        assert again.status == 409 and "job 1 is already cancelled" in again.text
        queued = http(base + "/actions/queue", data=urlencode(
            {"feature": "make delta", "after": "3", "csrf": token}).encode())
        assert queued.status == 200 and "job 4 queued" in queued.text
        empty = http(base + "/actions/queue", data=urlencode(
            {"feature": "  ", "csrf": token}).encode())
        assert empty.status == 409 and "the feature description is empty" in empty.text
        stop = http(base + "/actions/stop", data=urlencode({"csrf": token}).encode())
        assert stop.status == 409 and "no rgr daemon is running" in stop.text
    jobs = queue_json(run_rgr, repo.path)
    by_page, by_cli = jobs[0]["state"], jobs[1]["state"]
    assert isinstance(by_page, dict) and isinstance(by_cli, dict)
    ignore = ("updated_at", "by")
    assert {k: v for k, v in by_page.items() if k not in ignore} == \
           {k: v for k, v in by_cli.items() if k not in ignore}
    assert jobs[3]["feature"] == "make delta" and jobs[3]["after"] == [3]


def test_accept_and_reject_are_report_integrate_and_rollback(
        tmp_path: Path, run_rgr: RunRgr) -> None:
    repo = make_repo(tmp_path, commits=2)
    # Accepting runs the integrated tree's tests again (rgr.branches.landing): a real command.
    repo.commit("config", {"tdd.toml": f'test_command = "{sys.executable} -m pytest -q '
                                       '-p no:cacheprovider"\n'})
    made = make_run(repo)
    main_before = repo.rev("main")
    with serve(repo.path, tmp_path / "home", "--allow-actions") as served:
        page = http(f"{served.base}/runs/{made.done}").text
        token = csrf_of(page)
        assert 'action="/actions/accept"' in page and 'action="/actions/reject"' in page
        # not the run at HEAD's commits: no decision offered on an older commit's page
        git(repo.path, "switch", "-q", "main")
        assert 'action="/actions/accept"' not in http(f"{served.base}/runs/{made.done}").text
        git(repo.path, "switch", "-q", "rgr/slugify")
        rejected = http(f"{served.base}/actions/reject", data=urlencode(
            {"marker": made.marker, "csrf": token}).encode())
        assert rejected.status == 200, rejected.text
        assert "The undone commits are kept at refs/rgr/backups/" in rejected.text
        assert repo.head() == made.marker
        git(repo.path, "reset", "-q", "--hard", made.done)
        accepted = http(f"{served.base}/actions/accept", data=urlencode(
            {"mode": "merge", "csrf": token}).encode())
        assert accepted.status == 200, accepted.text
        assert "main fast-forwarded by" in accepted.text
        assert "passes: 1 passed, 0 failed" in accepted.text
    assert repo.rev("main") == made.done != main_before
    assert json.loads(repo.show_note(made.done))["landing"]["verdict"] == "pass"


def test_bad_starts_say_what_is_wrong(tmp_path: Path, run_rgr: RunRgr) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = run_rgr(["serve", "--port", "0"], plain)
    assert code == 1 and "not a git repository" in err
    repo = make_repo(tmp_path, commits=1)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, _, err = run_rgr(["serve", "--port", str(port)], repo.path)
    assert code == 1 and f"port {port} on 127.0.0.1 is already in use" in err
    assert "--port 0" in err
    code, _, err = run_rgr(["serve", "--host", "0.0.0.0", "--port", "0"], repo.path)
    assert code == 1 and "requires a token" in err and "--token" in err
    code, _, err = run_rgr(["serve", "--port", "0", "--token", "short"], repo.path)
    assert code == 1 and "at least 16" in err
    code, _, err = run_rgr(["serve", "--port", "0", "--remote", "nowhere"], repo.path)
    assert code == 1 and "no remote named 'nowhere'" in err
    # without the web extra: how to install it
    code, _, err = run_rgr(["serve", "--port", "0"], repo.path,
                           env={"PYTHONPATH": str(_without_web(tmp_path))})
    assert code == 1, err
    assert "rgr serve needs the web extra" in err
    # this rgr runs from a virtualenv: its pip, with the extra's packages
    assert f"fix: add it where rgr is installed: {install_extra('web')}" in err, err
    assert f"{shlex.quote(sys.executable)} -m pip install " in err, err


def _without_web(tmp_path: Path) -> Path:
    """A sitecustomize that hides the web extra's packages from the import system, as
    an install without the extra would."""
    folder = tmp_path / "no-web"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        "import importlib.abc, sys\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('starlette', 'uvicorn', 'jinja2'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Hide())\n")
    return folder


def test_a_token_guards_every_request(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=1)
    secret = "s3cret-token-0123456789"
    with serve(repo.path, tmp_path / "home", "--host", "0.0.0.0", "--token", secret) as served:
        assert served.url.endswith(f"?token={secret}")
        base = served.base.replace("0.0.0.0", "127.0.0.1")
        refused = http(base + "/")
        assert refused.status == 403 and "needs its token" in refused.text
        assert http(base + "/static/rgr.css").status == 403
        entry = http(f"{base}/?token={secret}")
        assert entry.status == 303 and entry.headers["location"] == "/"
        cookie = entry.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert http(base + "/", headers={"Cookie": cookie.split(";")[0]}).status == 200
        assert http(base + "/", headers={"Authorization": f"Bearer {secret}"}).status == 200
        assert http(base + "/", headers={"Authorization": "Bearer wrong"}).status == 403


def test_the_board_shows_jobs_queued_on_another_machine_after_a_fetch(
        tmp_path: Path, run_rgr: RunRgr) -> None:
    hub = tmp_path / "hub.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(hub))
    mine = make_repo(tmp_path, commits=1, name="mine")
    mine.git("remote", "add", "origin", str(hub))
    mine.git("push", "-q", "origin", "main")
    theirs = Repo(tmp_path / "theirs")
    git(tmp_path, "clone", "-q", str(hub), str(theirs.path))
    for key, value in (("user.name", "Other"), ("user.email", "o@example.com")):
        theirs.git("config", key, value)
    with serve(mine.path, tmp_path / "home", "--remote", "origin") as served:
        assert 'id="job-1"' not in http(served.base + "/").text
        code, _, err = run_rgr(["queue", "add", "--remote", "origin", "make zeta"],
                               theirs.path)
        assert code == 0, err
        deadline = time.monotonic() + 30
        while 'id="job-1"' not in (body := http(served.base + "/board").text):
            assert time.monotonic() < deadline, body
            time.sleep(0.5)
        assert "make zeta" in body
    assert subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/rgr/queue/1"],
                          cwd=mine.path, capture_output=True).returncode == 0


def _real_runs(root: Path, home: Path) -> dict[str, str]:
    """Two `rgr run`s and an `rgr refactor` by rgr's own commands (agents: the fake
    backend; git, the sealed baselines, the notes: real), each stopped by its phase cap
    right after it started, one after the other: feature -> its branch."""
    from messy import DEDUPE

    from rgr.backends.base import AgentRequest, AgentResult
    from rgr.base.render import speaker
    from rgr.commands.refactor import RefactorOptions, refactor
    from rgr.commands.run import run
    from rgr.loop.starting import RunOptions
    from rgr.store.workspace import open_workspace
    from tests.fake_backend import FakeBackend, answer

    def plans(request: AgentRequest) -> AgentResult:
        return answer(request, cost=0.02, batches=[DEDUPE])

    capped = RunOptions(assume_yes=True, skip_preflight=True, max_phases=0)
    made = {}

    def next_second() -> None:
        # A note's times are whole seconds (rgr.store.handoff.now_utc): two runs started
        # in one second have no order to show, and a quiet machine starts these two in
        # one second. Each run here starts in a second of its own.
        start = int(time.time())
        while int(time.time()) == start:
            time.sleep(0.05)

    for feature in ("first feature", "second feature"):
        next_second()
        git(root, "switch", "-q", "main")
        ws = open_workspace(root, env=clean_env(home))
        assert run(ws, feature, False, None, capped, speaker(),
                   backend=FakeBackend()).exit_code == 0
        made[feature] = git(root, "branch", "--show-current")
    next_second()
    git(root, "switch", "-q", "main")
    ws = open_workspace(root, env=clean_env(home))
    assert refactor(ws, "tidy pricing", False, None, RefactorOptions(capped), speaker(),
                    backend=FakeBackend(plans)).exit_code == 0
    made["tidy pricing"] = git(root, "branch", "--show-current")
    return made


def test_the_board_lists_every_run_newest_first_each_linking_to_its_page(
        tmp_path: Path, run_rgr: RunRgr) -> None:
    """Queue jobs and the runs `rgr run` and `rgr refactor` made here, on one board,
    newest first; each row's link opens that run's page; /runs/HEAD and
    /runs/<branch> resolve."""
    from messy import make_messy_project

    root = make_messy_project(tmp_path / "shop")
    home = tmp_path / "home"
    branches = _real_runs(root, home)
    git(root, "switch", "-q", branches["second feature"])
    assert run_rgr(["queue", "add", "queued feature"], root)[0] == 0
    with serve(root, home) as served:
        board = http(served.base + "/")
        assert board.status == 200, board.text
        body = board.text
        # every run, newest first: the job queued last, then the refactor, then the runs
        features = ["queued feature", "tidy pricing", "second feature", "first feature"]
        places = [body.find(f">{feature}</a>") for feature in features]
        assert -1 not in places, body
        assert places == sorted(places), (features, places)
        assert 'id="job-1"' in body and 'href="/jobs/1"' in body
        assert "paused before PLAN" in body and "<td>refactor</td>" in body
        assert "all <b>4</b>" in body
        # each run's row links to its page, which is that run's
        links = set(re.findall(r'<a href="(/runs/[0-9a-f]{40})">', body))
        assert len(links) == 3, body
        for link, feature in [(link, f) for link in links
                              for f in features if f'href="{link}">{f}<' in body]:
            page = http(served.base + link)
            assert page.status == 200, page.text
            assert feature in page.text
            branch = branches[feature]
            assert branch in page.text
            assert http(f"{served.base}/runs/{branch}").text == page.text
        # HEAD is the second run's branch: its page
        head = http(served.base + "/runs/HEAD")
        assert head.status == 200 and "second feature" in head.text, head.text
        assert "first feature" not in head.text
        # a state filter counts the runs too
        stopped = http(served.base + "/?state=stopped")
        assert "second feature" in stopped.text and "queued feature" not in stopped.text
        # a new run's note changes the board's fingerprint (the live body is fetched)
        tag = body.split('data-etag="')[1].split('"', 1)[0].replace("&#34;", '"')
        assert http(served.base + "/board", headers={"If-None-Match": tag}).status == 304
        git(root, "notes", "--ref=refs/notes/tdd-handoffs", "add", "-f", "-m", "{}",
            git(root, "rev-parse", "main"))
        assert http(served.base + "/board", headers={"If-None-Match": tag}).status == 200
