"""`rgr serve` in a real browser (the OS's Chromium through Playwright) while a real
daemon runs jobs with the real claude against the scripted model (daemon_kata.py):

- the board, open and never reloaded, sees job 1 go from queued to running to
  complete; a cancel done from the page leaves the job exactly as `rgr queue cancel`
  leaves another;
- job 1's run page shows the RED test's failure, the GREEN diff, a rejected GREEN
  attempt (it weakened the test) with its rule and reason, and the cost `rgr report`
  gives for that run;
- job 2 is hostile: its feature text, its test's name and the agents' summaries carry
  <script>, event-handler and javascript: payloads; on the board, its run page and the
  history nothing runs (no console message, no error, no dialog, no marker set), and
  the payloads show as text.

The daemon runs once for the module (a fixture); its jobs take about two minutes on
two cores. Screenshots of the board and of job 1's run page are taken on every run, into
the test's temporary folder; ``RGR_WRITE_SCREENSHOTS=1`` puts them in docs/screenshots/
(linked from the README) instead, so a plain test run leaves the checkout unchanged.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import daemon_kata
import pytest
from browser import Watched, chromium, watched_page
from kata import edit_past_the_hook, make_project, rgr, rgr_env, start_rgr
from playwright.sync_api import Browser

from rgr.daemon.workcopy import jobs_root
from rgr.fake_model import FakeModelServer, SessionScript, Step, bash, read, structured, write
from tests.conftest import REPO_ROOT
from tests.serve_helpers import Served, serve

pytestmark = pytest.mark.e2e

#: Where the screenshots go: the README's folder only when asked (a test run must not
#: change tracked files), else a temporary folder of the session.
SCREENSHOTS = (REPO_ROOT / "docs" / "screenshots"
               if os.environ.get("RGR_WRITE_SCREENSHOTS") == "1"
               else Path(tempfile.mkdtemp(prefix="rgr-screenshots-")))

#: Every payload sets window.__pwned (or opens a dialog) if it ever runs.
HOSTILE_FEATURE = ('make beta <script>window.__pwned="feature"</script>'
                   '<a href="javascript:window.__pwned=1">click</a>')
HOSTILE_ITEM = ('beta <script>window.__pwned="test"</script>'
                '<img src=x onerror="window.__pwned=2"> javascript:alert(2)')
HOSTILE_ID = "<img src=x onerror=window.__pwned=3>javascript:alert(3)"
HOSTILE_SUMMARY = ('<script>window.__pwned="summary"</script>'
                   '<svg onload="window.__pwned=4"></svg> javascript:alert(4)')


def _commit(message: str, paths: str) -> Step:
    return bash(f"git add {paths} && git commit -q -m '{message}'")


def hostile_beta(system: str, prompt: str) -> SessionScript:
    """Job 2's sessions: an honest kata whose words are hostile."""
    role = re.search(r"You are the (\w+)", system)
    cycle = re.search(r"cycle (\d+)", prompt)
    assert role and cycle, prompt[:300]
    who, number = role.group(1), int(cycle.group(1))
    if who == "PLANNER":
        done = number > 1
        steps: list[Step] = [read("test-list.md")] if done else []
        steps += [write("test-list.md",
                        f"# Test list\n\n- [{'x' if done else ' '}] {HOSTILE_ITEM}\n"),
                  _commit("plan: beta", "test-list.md"),
                  structured({"currentTest": None} if done else {"currentTest": {
                      "description": HOSTILE_ITEM, "testFile": "tests/test_beta.py",
                      "implFile": "beta.py"}})]
        return SessionScript(steps, name=f"plan-beta-{number}")
    if who == "TESTER":
        test = ("import pytest\n\n\n"
                f"@pytest.mark.parametrize('case', [1], ids=[{HOSTILE_ID!r}])\n"
                "def test_beta_is_one(case):\n    from beta import value\n\n"
                "    assert value() == case\n")
        return SessionScript([write("tests/test_beta.py", test),
                              _commit("test: beta", "tests/test_beta.py"),
                              structured({"summary": HOSTILE_SUMMARY})], name="red-beta")
    if who == "IMPLEMENTER":
        return SessionScript([write("beta.py", daemon_kata.impl_file("beta", "rgr/beta")),
                              _commit("feat: beta", "-A"),
                              structured({"summary": HOSTILE_SUMMARY})], name="green-beta")
    return SessionScript([bash('git commit -q --allow-empty -m "refactor: nothing"'),
                          structured({"summary": HOSTILE_SUMMARY})], name="refactor-beta")


class Model:
    """daemon_kata's jobs, except: job 2 (beta) is hostile, and job 1's (alpha) first
    GREEN also weakens its test past the edit hook, so rgr rejects and keeps it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.cheated = False

    def __call__(self, system: str, prompt: str) -> SessionScript:
        if "make beta" in prompt and "You are the MERGE-FIXER" not in system:
            return hostile_beta(system, prompt)
        if "You are the IMPLEMENTER" in system and "make alpha" in prompt:
            with self.lock:
                cheat, self.cheated = not self.cheated, True
            if cheat:
                weakened = daemon_kata.test_file("alpha").replace("assert value() == 1",
                                                                  "assert True")
                steps = [*edit_past_the_hook("tests/test_alpha.py", weakened),
                         write("alpha.py", daemon_kata.impl_file("alpha", "rgr/alpha")),
                         _commit("feat: alpha", "-A"), structured({"summary": "done"})]
                return SessionScript(steps, name="green-alpha-cheat")
        return daemon_kata.choose(system, prompt)


@dataclass
class Fleet:
    repo: Path
    env: dict[str, str]
    served: Served
    board: Watched
    seen_states: list[str]
    marker_kept: bool
    cancelled_by_page: dict[str, object]
    cancelled_by_cli: dict[str, object]
    daemon_output: str
    browser: Browser


def queue_json(repo: Path, env: dict[str, str]) -> list[dict[str, object]]:
    done = rgr(["queue", "--json"], repo, env)
    assert done.returncode == 0, done.stderr
    jobs: list[dict[str, object]] = json.loads(done.stdout)
    return jobs


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    tmp = tmp_path_factory.mktemp("serve-fleet")
    repo = make_project(tmp / "kata")
    with FakeModelServer(choose=Model()) as server, chromium() as browser:
        env = rgr_env(tmp / "home", server.url)
        for feature in ("make alpha", HOSTILE_FEATURE, "make gamma", "make delta"):
            done = rgr(["queue", "add", feature], repo, env)
            assert done.returncode == 0, done.stdout + done.stderr
        with serve(repo, tmp / "home", "--allow-actions", env=env) as served:
            board = watched_page(browser)
            page = board.page
            page.goto(served.base + "/")
            assert page.get_attribute("#job-1", "data-state") == "queued"
            # job 3 cancelled from the page, job 4 with the CLI, before any worker runs
            page.click("#cancel-3")
            assert "job 3 cancelled by the user" in page.inner_text("#action-output")
            cli = rgr(["queue", "cancel", "4"], repo, env)
            assert cli.returncode == 0, cli.stderr
            page.goto(served.base + "/")
            page.evaluate("window.__boardMark = 42")  # gone if the page ever reloads
            daemon = start_rgr(["daemon", "--workers", "2", "--lease", "6", "--poll", "0.3"],
                               repo, env)
            seen: list[str] = []
            deadline = time.monotonic() + 420
            while True:
                state = page.get_attribute("#job-1", "data-state") or "?"
                if not seen or seen[-1] != state:
                    seen.append(state)
                if daemon.poll() is not None and state == "complete":
                    break
                assert time.monotonic() < deadline, (seen, daemon.poll())
                time.sleep(0.2)
            output = daemon.communicate()[0]
            assert daemon.returncode == 0, output
            assert server.errors == [], server.errors
            page.wait_for_function(
                "document.querySelector('#job-2').dataset.state === 'complete'", timeout=10000)
            marker_kept = page.evaluate("window.__boardMark") == 42
            jobs = queue_json(repo, env)
            by_id = {j["id"]: j["state"] for j in jobs}
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "board.png"), full_page=True)
            yield Fleet(repo, env, served, board, seen, marker_kept,
                        by_id[3], by_id[4], output, browser)  # type: ignore[arg-type]


def test_the_board_follows_a_job_to_complete_without_reloading(fleet: Fleet) -> None:
    assert fleet.seen_states[0] == "queued"
    assert "running" in fleet.seen_states, fleet.seen_states
    assert fleet.seen_states[-1] == "complete"
    assert fleet.seen_states.index("running") < len(fleet.seen_states) - 1
    assert fleet.marker_kept, "the board was reloaded"
    row = fleet.board.page.inner_text("#job-1")
    jobs = queue_json(fleet.repo, fleet.env)
    assert f"${jobs[0]['state']['cost_usd']:.4f}" in row  # type: ignore[index]
    assert "COMPLETE/" in row


def test_a_cancel_from_the_page_is_rgr_queue_cancel(fleet: Fleet) -> None:
    page, cli = fleet.cancelled_by_page, fleet.cancelled_by_cli
    ignore = ("updated_at", "by")
    assert page["state"] == "cancelled"
    assert {k: v for k, v in page.items() if k not in ignore} == \
           {k: v for k, v in cli.items() if k not in ignore}
    assert fleet.board.page.get_attribute("#job-3", "data-state") == "cancelled"


def test_a_run_page_shows_red_green_the_rejection_and_the_reports_cost(
        fleet: Fleet, tmp_path: Path) -> None:
    # A page of its own: the fleet's board page is the other tests' (they read its rows),
    # and clicking through here would leave it on a run page for whichever runs next.
    page = watched_page(fleet.browser).page
    page.goto(fleet.served.base + "/")
    page.click("#job-1 td.feature a")
    page.wait_for_selector("ol.timeline")
    assert page.url.endswith("/jobs/1")
    red = page.locator("li.phase-RED").first
    assert "tests/test_alpha.py::test_alpha_is_one" in red.inner_text()
    output = red.locator("details.test-output pre").inner_text()
    assert "No module named 'alpha'" in output or "ModuleNotFoundError" in output, output
    green = page.locator("li.phase-GREEN").first
    assert "+def value():" in green.locator(":scope > details.diff-box pre.diff").inner_text()
    rejected = green.locator(".rejected")
    assert rejected.count() == 1
    rule = rejected.locator("dd.rule-name").inner_text()
    reason = rejected.locator("pre.reason").inner_text()
    assert rule and rule != "-" and "test" in reason.lower(), (rule, reason)
    rejected.locator("details.diff-box summary").click()
    assert "+    assert True" in rejected.locator("pre.diff").inner_text()
    # the cost `rgr report` gives for this run, where the run is (the job's clone)
    clone = jobs_root(fleet.repo / ".git", fleet.env) / "1"
    report = rgr(["report", "--json"], clone, fleet.env)
    assert report.returncode == 0, report.stderr
    figures = json.loads(report.stdout)
    assert figures["rejectedCostUsd"] > 0 and figures["rejectionsByRule"] == {rule: 1}
    cost = figures["costUsd"]
    assert page.inner_text("#run-cost") == (f"${cost:.4f}" if cost < 1 else f"${cost:.2f}")
    # each commit's raw note, as `git notes show` gives it in the clone
    link = red.locator("a.note-link").first
    href = link.get_attribute("href")
    assert href is not None and href.startswith("/jobs/1/notes/")
    raw = page.request.get(fleet.served.base + href)
    assert raw.ok and json.loads(raw.text())["phase"] == "RED"
    page.screenshot(path=str(SCREENSHOTS / "run.png"), full_page=True)


def _nothing_ran(watched: Watched) -> None:
    page = watched.page
    assert watched.dialogs == [] and watched.errors == [], (watched.dialogs, watched.errors)
    assert watched.console == [], watched.console
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.eval_on_selector_all(
        "[href^='javascript:' i], [src^='javascript:' i]", "els => els.length") == 0
    assert page.eval_on_selector_all("script:not([src])", "els => els.length") == 0


def test_hostile_text_never_runs(fleet: Fleet) -> None:
    # the board that watched the whole daemon run: not one console line or dialog
    assert fleet.board.console == [] and fleet.board.dialogs == [], fleet.board.console
    assert fleet.board.errors == [], fleet.board.errors
    board = watched_page(fleet.browser)
    board.page.goto(fleet.served.base + "/")
    assert HOSTILE_FEATURE in board.page.inner_text("#job-2")
    _nothing_ran(board)
    board.page.click("#job-2 td.feature a")
    board.page.wait_for_selector("ol.timeline")
    text = board.page.inner_text("main")
    assert HOSTILE_FEATURE in text
    assert HOSTILE_ITEM in text  # the planner's test, and its test list
    assert HOSTILE_ID in text  # the failing test's id
    assert HOSTILE_SUMMARY in text  # the agents' summaries
    for details in board.page.locator("details").all():
        details.evaluate("d => d.open = true")  # every diff and output on show
    _nothing_ran(board)
    board.page.goto(fleet.served.base + "/history")
    assert "<script>" in (board.page.locator("svg.plot").first.text_content() or "")
    _nothing_ran(board)
