"""`rgr refactor` takes `rgr run`'s limits and verbosity, with real effect, and a failed
rope rename is not repeated: the real rgr CLI and claude binary, real git, pytest and
rope; only the model is scripted."""

from __future__ import annotations

from pathlib import Path

import pytest
from kata import git, notes_on_branch, rgr, rgr_env
from messy import (
    DEDUPE,
    ORDERS_SIMPLE,
    PRICING_DRY,
    SIMPLIFY,
    batch,
    make_messy_project,
    patcher,
    planner,
)

from rgr.fake_model import FakeModelServer

pytestmark = pytest.mark.e2e


def test_max_cycles_stops_after_that_many_batches_and_quiet_keeps_to_the_end(
        tmp_path: Path) -> None:
    repo = make_messy_project(tmp_path / "shop")
    scripts = [planner(DEDUPE, SIMPLIFY),
               patcher("dedupe-pricing", "extract the duplicated subtotal loop", PRICING_DRY),
               patcher("simplify-orders", "use an f-string", ORDERS_SIMPLE,
                       path="shop/orders.py")]
    with FakeModelServer(scripts) as server:
        done = rgr(["refactor", "--yes", "--skip-preflight", "--max-cycles", "1", "-q",
                    "tidy the shop"], repo, rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.remaining == 1  # the second patcher never ran
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == ["PLAN", "REFACTOR"]
    assert "paused before batch 2 of 2" in done.stdout
    assert "patcher session" not in done.stdout  # -q: progress lines are not shown


def test_max_budget_usd_stops_refactor_mode_spending(tmp_path: Path) -> None:
    repo = make_messy_project(tmp_path / "shop")
    before = git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
    # The first model call of a session costs about $0.01 with the scripted usage: a
    # $0.005 budget is spent by the planner's first call; claude's own --max-budget-usd
    # ends that session, and rgr starts no other one (without the cap, the planner would
    # be asked twice more, then every batch's patcher).
    scripts = [planner(DEDUPE), planner(DEDUPE), planner(DEDUPE),
               patcher("dedupe-pricing", "extract the duplicated subtotal loop", PRICING_DRY)]
    with FakeModelServer(scripts) as server:
        done = rgr(["refactor", "--yes", "--skip-preflight", "--max-budget-usd", "0.005",
                    "tidy the shop"], repo, rgr_env(tmp_path / "home", server.url))
        sessions = {r.session_id for r in server.requests if r.session_id and
                    "StructuredOutput" in r.tools}
    assert done.returncode == 1, done.stdout + done.stderr
    assert "max-budget-usd" in done.stderr and "budget of $0.005 is spent" in done.stderr
    assert len(sessions) == 1, sessions
    assert git(repo, "for-each-ref", "--format=%(refname) %(objectname)") == before


def test_a_failed_rope_rename_is_not_repeated(tmp_path: Path) -> None:
    # `calc` renamed to `round`: `def round(x): return round(x, 2)` recurses, the tests
    # fail. rope would do exactly the same on a second and third try.
    repo = make_messy_project(tmp_path / "shop")
    shadowing = batch("rename-calc", "rename calc to round", ["shop/*.py"], ["rename"],
                      rename={"path": "shop/pricing.py", "symbol": "calc", "new_name": "round"})
    with FakeModelServer([planner(shadowing)]) as server:
        done = rgr(["refactor", "--yes", "--skip-preflight", "rename calc"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert server.remaining == 0
    assert done.returncode == 1, done.stdout + done.stderr
    assert "failed after 1 attempt(s)" in done.stderr, done.stderr
    attempts = git(repo, "for-each-ref", "--format=%(refname)", "refs/rgr/attempts/").split()
    assert len(attempts) == 1, attempts
    assert "attempt 2" not in done.stdout
