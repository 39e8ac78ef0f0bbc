"""`rgr refactor` end to end: the real rgr CLI, the real claude binary, real git, real
pytest and real rope; only the model is scripted (rgr.fake_model on 127.0.0.1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import sweep_only
from kata import (
    NOTES,
    assert_suite_green,
    edit_past_the_hook,
    git,
    kill_when_hanging,
    notes_on_branch,
    rgr,
    rgr_env,
    start_rgr,
)
from messy import (
    DEDUPE,
    ORDERS,
    ORDERS_SIMPLE,
    PRICING,
    PRICING_API,
    PRICING_BROKEN,
    PRICING_DRY,
    RENAME,
    SIMPLIFY,
    batch,
    make_messy_project,
    patcher,
    planner,
)

from rgr.fake_model import FakeModelServer, Hang, SessionScript

pytestmark = pytest.mark.e2e

def test_batches_applied_noted_renamed_by_rope_and_accepted(tmp_path: Path) -> None:
    repo = make_messy_project(tmp_path / "shop")
    home = tmp_path / "home"
    scripts = [planner(DEDUPE, RENAME),
               patcher("dedupe-pricing", "extract the duplicated subtotal loop", PRICING_DRY)]
    with FakeModelServer(scripts) as server:
        done = rgr(["refactor", "--yes", "--skip-preflight", "tidy the pricing module"], repo,
                   rgr_env(home, server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
        assert server.remaining == 0
        first: dict[str, int] = {}
        for record in server.requests:
            if record.session_id and "StructuredOutput" in record.tools:
                first.setdefault(record.session_id, record.body_bytes)
    # planner and patcher: a narrow tool list and a packet, not whole files
    print("first request per session (bytes):", list(first.values()))
    assert len(first) == 2 and max(first.values()) <= 16 * 1024, first
    out = done.stdout
    assert "rope renamed calc -> round_money in 2 file(s)" in out, out
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == \
        "rgr/refactor-tidy-the-pricing-module"
    notes = notes_on_branch(repo)
    assert all(n["mode"] == "refactor" for n in notes)
    assert [n["phase"] for n in notes] == ["PLAN", "REFACTOR", "REFACTOR", "COMPLETE"]
    first, dedupe, rename, final = notes
    plan = first["refactor"]["plan"]  # type: ignore[index]
    assert [b["id"] for b in plan] == ["dedupe-pricing", "rename-calc"]
    assert dedupe["batch"]["id"] == "dedupe-pricing"  # type: ignore[index]
    assert dedupe["batch"]["by"] == "agent" and dedupe["batch"]["gate"] == "fast"  # type: ignore[index]
    assert dedupe["batch"]["diffLines"] > 0  # type: ignore[index]
    assert dedupe["refactor"]["nextBatch"] == 1  # type: ignore[index]
    assert dedupe["agent"]["sessionId"]  # type: ignore[index]
    assert rename["batch"]["by"] == "rope" and rename["batch"]["gate"] == "full"  # type: ignore[index]
    assert len(rename["batch"]["gateCommands"]) == 3  # type: ignore[index]
    assert rename["refactor"]["applied"] == ["dedupe-pricing", "rename-calc"]  # type: ignore[index]
    assert final["summary"] == "refactor complete: 2 batch(es) applied"
    subjects = git(repo, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects == ["refactor: tidy the pricing module",
                        "refactor(rename-calc): rename calc to round_money",
                        "refactor(dedupe-pricing): extract the duplicated subtotal loop",
                        "rgr: refactor tidy the pricing module"]
    # rope renamed the definition and its caller
    assert "def round_money(x)" in (repo / "shop/pricing.py").read_text()
    assert "round_money(total(items))" in (repo / "shop/orders.py").read_text()
    assert "_subtotal" in (repo / "shop/pricing.py").read_text()
    changelog = (repo / "CHANGELOG.md").read_text()
    assert "refactor: tidy the pricing module" in changelog and "- rename-calc:" in changelog
    assert_suite_green(repo)
    assert git(repo, "status", "--porcelain") == ""
    env = rgr_env(home, "http://127.0.0.1:9")
    rows = json.loads(rgr(["history", "--json"], repo, env).stdout)
    assert [r["phase"] for r in rows] == ["PLAN", "REFACTOR", "REFACTOR", "COMPLETE"]
    assert [(r["batch"] or {}).get("id") for r in rows] == [
        None, "dedupe-pricing", "rename-calc", None]
    table = rgr(["history"], repo, env).stdout
    assert "batch rename-calc: rename calc" in table, table
    status = json.loads(rgr(["status", "--json"], repo, env).stdout)
    assert status["resumable"] is False
    # accept: main fast-forwards to the refactor
    accepted = rgr(["refactor", "--accept"], repo, env)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert git(repo, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")
    tip = git(repo, "rev-parse", "HEAD").strip()
    assert accepted.stdout == f"accepted: main fast-forwarded to {tip[:8]}\n"
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"


def test_broken_out_of_scope_and_api_changing_batches_are_rolled_back_and_retried(
        tmp_path: Path) -> None:
    repo = make_messy_project(tmp_path / "shop", "[refactor]\nmax_attempts = 4\n")
    goal = "extract the duplicated subtotal loop"
    scripts = [
        planner(DEDUPE),
        patcher("dedupe-pricing", goal, PRICING_BROKEN),  # a test fails
        patcher("dedupe-pricing", goal, PRICING_DRY,  # edits a file outside the scope
                extra=edit_past_the_hook("shop/orders.py", ORDERS + "\n",
                                         carrier="shop/pricing.py", carrier_after=PRICING_DRY)),
        patcher("dedupe-pricing", goal, PRICING_API),  # changes a public signature
        patcher("dedupe-pricing", goal, PRICING_DRY),
    ]
    with FakeModelServer(scripts) as server:
        done = rgr(["refactor", "--yes", "--skip-preflight", "dry up pricing"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
        assert server.remaining == 0
        # every retry's prompt carried the previous failure
        prompts = [r.first_user_text for r in server.requests if r.first_user_text]
    out = done.stdout
    assert "rejected: tests-fail: tests/test_shop.py::test_" in out, out
    assert "rejected: out-of-scope: modified shop/orders.py" in out, out
    assert "rejected: api-changed: the public API changed: shop.pricing.total changed" in out
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == ["PLAN", "REFACTOR", "COMPLETE"]
    assert notes[1]["retryCount"] == 3
    attempts = git(repo, "for-each-ref", "--format=%(refname)", "refs/rgr/attempts/").split()
    assert len(attempts) == 3
    kinds = sorted(json.loads(git(repo, "notes", f"--ref={NOTES}", "show", a))
                   ["errorDetails"]["type"] for a in attempts)
    assert kinds == ["api-changed", "out-of-scope", "tests-fail"]
    assert (repo / "shop/orders.py").read_text() == ORDERS
    assert (repo / "shop/pricing.py").read_text() == PRICING_DRY
    assert any("out-of-scope" in p for p in prompts), "the failure brief reached the patcher"
    assert_suite_green(repo)
    assert git(repo, "status", "--porcelain") == ""


def test_killed_between_batches_then_resume_finishes(tmp_path: Path) -> None:
    repo = make_messy_project(tmp_path / "shop")
    env = rgr_env(tmp_path / "home", "")
    scripts = [planner(DEDUPE, SIMPLIFY),
               patcher("dedupe-pricing", "extract the duplicated subtotal loop", PRICING_DRY),
               SessionScript([Hang(120)], name="hang")]
    with FakeModelServer(scripts) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        proc = start_rgr(["refactor", "--yes", "--skip-preflight", "tidy"], repo, env)
        # the second patcher session is hanging inside claude when it is killed
        kill_when_hanging(proc, server, sessions=3, what="the second batch", timeout=90,
                          settle=0.5)
        noted = notes_on_branch(repo)
        assert noted[-1]["batch"]["id"] == "dedupe-pricing"  # type: ignore[index]
        assert noted[-1]["refactor"]["nextBatch"] == 1  # type: ignore[index]
        status = json.loads(rgr(["status", "--json"], repo, env).stdout)
        assert status["resumable"] is True
        server.add_script(patcher("simplify-orders", "use an f-string in order_summary",
                                  ORDERS_SIMPLE, path="shop/orders.py"))
        done = rgr(["resume", "--yes", "--skip-preflight"], repo, env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
    assert "resuming the refactor at batch 2 of 2" in done.stdout
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == ["PLAN", "REFACTOR", "REFACTOR", "COMPLETE"]
    assert notes[-1]["refactor"]["applied"] == ["dedupe-pricing", "simplify-orders"]  # type: ignore[index]
    assert (repo / "shop/orders.py").read_text() == ORDERS_SIMPLE
    assert_suite_green(repo)
    assert git(repo, "status", "--porcelain") == ""


def test_plan_only_changes_nothing_and_an_invalid_plan_is_sent_back(tmp_path: Path) -> None:
    repo = make_messy_project(tmp_path / "shop", "[refactor]\nallow_overlap = false\n")
    bad = [batch("Bad Id", "x", ["lib/**"], ["dedupe"], budget=900),
           batch("b", "y", ["shop/pricing.py"], ["teleport"]),
           batch("c", "z", ["shop/*.py"], ["simplify"])]
    refs_before = git(repo, "for-each-ref")
    head_before = git(repo, "rev-parse", "HEAD")
    with FakeModelServer([planner(*bad), planner(DEDUPE, SIMPLIFY)]) as server:
        done = rgr(["refactor", "--yes", "--skip-preflight", "--plan-only", "--json", "tidy"],
                   repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
        revision = [r.first_user_text for r in server.requests if r.first_user_text][-1]
    # stdout is the plan's JSON and nothing else; what a person reads goes to stderr
    assert "plan: rejected by the validator: [E001]" in done.stderr, done.stderr
    assert "rgr refactor --plan-only: tidy" in done.stderr
    for code in ("E001", "E004", "E005", "E007", "E008"):
        assert f"[{code}]" in revision, (code, revision)
    printed = json.loads(done.stdout)
    assert [b["id"] for b in printed["batches"]] == ["dedupe-pricing", "simplify-orders"]
    assert git(repo, "for-each-ref") == refs_before
    assert git(repo, "rev-parse", "HEAD") == head_before
    assert git(repo, "status", "--porcelain", "--ignored") == ""


# A batch rolled back and retried, and a resume, run in every run (test_broken_out_of_scope_…,
# test_killed_between_batches_…); a stop on a failed batch then its resume is the full sweep's.
@sweep_only("tests/e2e/test_refactor_mode.py", "a failed batch stops, then resumes")
def test_failed_batch_stops_then_resume_retries_it_with_the_brief(tmp_path: Path) -> None:
    repo = make_messy_project(tmp_path / "shop", "[refactor]\nmax_attempts = 1\n")
    env = rgr_env(tmp_path / "home", "")
    goal = "extract the duplicated subtotal loop"
    with FakeModelServer([planner(DEDUPE),
                          patcher("dedupe-pricing", goal, PRICING_BROKEN)]) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        stopped = rgr(["refactor", "--yes", "--skip-preflight", "tidy"], repo, env)
        assert stopped.returncode == 1, stopped.stdout + stopped.stderr
        assert "batch dedupe-pricing failed after 1 attempt(s): tests-fail" in stopped.stderr
        assert "rgr resume" in stopped.stderr
        status = json.loads(rgr(["status", "--json"], repo, env).stdout)
        assert status["resumable"] is True and status["state"]["mode"] == "refactor"
        shown = rgr(["status"], repo, env).stdout
        assert "0/1 batch(es) applied (next: dedupe-pricing)" in shown, shown
        assert (repo / "shop/pricing.py").read_text() == PRICING
        server.add_script(patcher("dedupe-pricing", goal, PRICING_DRY))
        done = rgr(["resume", "--yes", "--skip-preflight"], repo, env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
        retry_prompt = [r.first_user_text for r in server.requests
                        if "Batch 1 of 1: dedupe-pricing" in r.first_user_text][-1]
    assert "tests-fail" in retry_prompt  # the stored failure brief reached the new session
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == ["PLAN", "REFACTOR", "COMPLETE"]
    assert notes[-1]["error"] is None
    assert_suite_green(repo)


# The rollback it skips past runs in every run (test_broken_out_of_scope_…).
@sweep_only("tests/e2e/test_refactor_mode.py", "on_failure = skip")
def test_on_failure_skip_moves_on_and_the_summary_says_so(tmp_path: Path) -> None:
    repo = make_messy_project(tmp_path / "shop",
                              '[refactor]\nmax_attempts = 1\non_failure = "skip"\n')
    scripts = [planner(DEDUPE, SIMPLIFY),
               patcher("dedupe-pricing", "extract", PRICING_BROKEN),
               patcher("simplify-orders", "use an f-string in order_summary", ORDERS_SIMPLE,
                       path="shop/orders.py")]
    with FakeModelServer(scripts) as server:
        done = rgr(["refactor", "--yes", "--skip-preflight", "tidy"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == ["PLAN", "REFACTOR", "COMPLETE"]
    assert notes[-1]["refactor"]["failed"] == ["dedupe-pricing"]  # type: ignore[index]
    assert notes[-1]["refactor"]["applied"] == ["simplify-orders"]  # type: ignore[index]
    assert "- not applied: dedupe-pricing" in (repo / "CHANGELOG.md").read_text()
    assert (repo / "shop/pricing.py").read_text() == PRICING
    assert_suite_green(repo)
    # reject: back on main, the refactor branch gone but kept under a backup ref
    tip = git(repo, "rev-parse", "HEAD").strip()
    rejected = rgr(["refactor", "--reject"], repo, rgr_env(tmp_path / "home", "http://127.0.0.1:9"))
    assert rejected.returncode == 0, rejected.stdout + rejected.stderr
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git(repo, "branch", "--list", "rgr/*") == ""
    backups = git(repo, "for-each-ref", "--format=%(objectname)", "refs/rgr/backups/").split()
    assert backups == [tip]
    (backup,) = git(repo, "for-each-ref", "--format=%(refname)", "refs/rgr/backups/").split()
    assert rejected.stdout == f"rejected: back on main; the refactor is kept at {backup}\n"
    assert (repo / "shop/orders.py").read_text() == ORDERS
