"""Fake-it debt end to end: a GREEN that returns the test's expected value is accepted
and noted as debt; the planner that then calls the feature done does not complete the
run: `rgr run` exits 4 (needs attention) naming the debt and what pays it, in the note,
`rgr report`, `rgr show` and `rgr status`; `rgr resume` gives the planner the debt, a
test with other values follows, GREEN generalises and the run completes with the debt
paid. The real rgr CLI, the real claude binary, real git and pytest; only the model is
scripted (rgr.fake_model on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kata import (
    IMPL_2,
    NOTES,
    TEST_FILE_1,
    TEST_FILE_2,
    git,
    green,
    make_project,
    plan,
    red,
    refactor,
    rgr,
    rgr_env,
)

from rgr.fake_model import FakeModelServer

pytestmark = pytest.mark.e2e

FAKE = 'def slugify(text):\n    return "hello"\n'
DEBT = ("slug.py:2 slugify returns the constant 'hello' "
        "(from tests/test_slug.py::test_lowercases_a_single_word)")
PAYS = "a test of slugify with other values than 'Hello'"


def test_a_faked_green_stops_the_run_until_a_test_with_other_values_pays_it(
        tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True),
               green(FAKE, first=True), refactor(), plan(1, total=1),
               # after `rgr resume`: the planner adds a test with other values
               plan(1), red(TEST_FILE_2, first=False), green(IMPL_2, first=False),
               refactor(), plan(2)]
    offline = rgr_env(tmp_path / "home", "http://127.0.0.1:9")
    with FakeModelServer(scripts) as server:
        env = rgr_env(tmp_path / "home", server.url)
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo, env)
        out = " ".join((done.stdout + done.stderr).split())
        assert done.returncode == 4, out
        assert server.errors == [] and server.remaining == 5
        assert DEBT in out and PAYS in out and "feature complete" not in out
        head = git(repo, "rev-parse", "HEAD").strip()
        note = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", head))
        assert (note["phase"], note["nextPhase"]) == ("PLAN", "PLAN")
        assert note["errorDetails"]["type"] == "needs-attention"
        [debt] = note["fakeItDebt"]
        assert (debt["path"], debt["line"], debt["kind"], debt["value"], debt["status"]) == (
            "slug.py", 2, "constant", "'hello'", "open")
        report = json.loads(rgr(["report", "--json"], repo, offline).stdout)
        assert report["status"] == "needs-attention"
        assert report["needsAttention"]["by"] == "fake-it debt"
        assert [d["status"] for d in report["fakeItDebt"]] == ["open"]
        text = " ".join(rgr(["report"], repo, offline).stdout.split())
        assert "the feature is not complete" in text and DEBT in text
        shown = " ".join(rgr(["show"], repo, offline).stdout.split())
        assert f"open: {DEBT}" in shown and PAYS in shown
        status = " ".join(rgr(["status"], repo, offline).stdout.split())
        assert "needs attention: the feature is not complete" in status
        resumed = rgr(["resume", "--yes", "--skip-preflight"], repo, env)
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert server.errors == [] and server.remaining == 0
        planners = [r for r in server.requests if r.turn == 0 and r.attempt == 0
                    and "You are the PLANNER" in r.system]
        told = " ".join(planners[2].first_user_text.split())
        assert "Open fake-it debt" in told
        assert "slug.py:2 slugify: constant 'hello' for inputs 'Hello'" in told
    final = json.loads(rgr(["report", "--json"], repo, offline).stdout)
    assert final["status"] == "complete"
    [paid] = final["fakeItDebt"]
    assert paid["status"] == "paid" and paid["paidBy"].startswith("GREEN cycle 2")
