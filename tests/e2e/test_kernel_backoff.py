"""The back-off on the backend's failures, in the attempt kernel's other two modes: a
refactor batch's patcher session and a merge-fixer session whose API answers 429 (rate
limited) or 529 (overloaded) to every request, more times than claude retries by itself
(CLAUDE_CODE_MAX_RETRIES=1 here), so the session fails; rgr waits (backoff_base_s, 1 s
by default, doubling) and a fresh session succeeds. The real claude binary against the
scripted model on 127.0.0.1; test_codex_loop.py has the TDD phase's on codex.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from harness import sweep
from kata import git, notes_on_branch, rgr, rgr_env
from kernel_kata import (
    BATCH_IDS,
    GOAL,
    MERGED_ALPHA,
    RefactorModel,
    assert_no_scratch,
    fix_merge_args,
    make_merge_job,
    merge_fix_notes,
    merge_fixer,
)
from messy import make_messy_project

from rgr.fake_model import FakeModelServer, RequestRecord

pytestmark = pytest.mark.e2e

WHERE = "tests/e2e/test_kernel_backoff.py"

#: rgr's first wait after a backend-side failure (rgr.loop.retry, backoff_base_s).
FIRST_WAIT_S = 1.0


class Clock:
    """When each scripted session sent its first and its last request."""

    def __init__(self) -> None:
        self.first: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.lock = threading.Lock()

    def __call__(self, record: RequestRecord) -> None:
        now = time.monotonic()
        with self.lock:
            self.first.setdefault(record.session_id or "", now)
            self.last[record.session_id or ""] = now


def _refused_then_next(server: FakeModelServer, clock: Clock, status: int
                       ) -> tuple[str, str]:
    """The refused session and the one after it (the retry), by their requests."""
    refused = [r.session_id for r in server.requests if r.status == status]
    assert refused, [(r.session_id, r.status) for r in server.requests]
    session = refused[0] or ""
    order = sorted(clock.first, key=clock.first.__getitem__)
    return session, order[order.index(session) + 1]


# One status per session kind by default: 429 and 529 take one path (an API error the
# backend reports, retried after the same backoff); the full sweep runs both on each.
@pytest.mark.parametrize("status", sweep([429, 529], lambda status: status == 529, WHERE))
def test_refused_patcher_session_is_retried_after_a_backoff(tmp_path: Path,
                                                            status: int) -> None:
    repo = make_messy_project(tmp_path / "shop")
    clock = Clock()
    with FakeModelServer(choose=RefactorModel(refuse=status), on_request=clock) as server:
        done = rgr(["refactor", "--yes", "--skip-preflight", GOAL], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
        refused, retry = _refused_then_next(server, clock, status)
        # claude retried once itself, then gave up: the failure reached rgr
        assert [r.status for r in server.requests if r.session_id == refused] == [status] * 2
    out = done.stdout
    assert "dedupe-pricing: rejected: agent-api_error" in out and str(status) in out, out
    assert f"dedupe-pricing: the agent's backend failed: retrying in {FIRST_WAIT_S:g}s" in out, out
    assert clock.first[retry] - clock.last[refused] >= FIRST_WAIT_S
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes] == ["PLAN", "REFACTOR", "REFACTOR", "COMPLETE"]
    dedupe = notes[1]
    assert dedupe["batch"]["id"] == BATCH_IDS[0] and dedupe["retryCount"] == 1  # type: ignore[index]
    # nothing to keep: the refused session committed nothing
    assert git(repo, "for-each-ref", "refs/rgr/attempts/") == ""
    assert_no_scratch(repo)


@pytest.mark.parametrize("status", sweep([429, 529], lambda status: status == 429, WHERE))
def test_refused_merge_fixer_session_is_retried_after_a_backoff(tmp_path: Path,
                                                                status: int) -> None:
    repo, base, job = make_merge_job(tmp_path / "kata")
    clock = Clock()
    with FakeModelServer(choose=merge_fixer(refuse=status),  # type: ignore[arg-type]
                         on_request=clock) as server:
        done = rgr(fix_merge_args(base), repo, rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
        refused, retry = _refused_then_next(server, clock, status)
        assert len(server.sessions) == 2
    out = done.stdout + done.stderr
    assert "merge fix 1: rejected: agent-api_error" in out and str(status) in out, out
    assert f"merge fix 1: the agent's backend failed: retrying in {FIRST_WAIT_S:g}s" in out, out
    assert clock.first[retry] - clock.last[refused] >= FIRST_WAIT_S
    (fix,) = merge_fix_notes(repo)
    assert fix["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert fix["mergeFix"]["attempt"] == 2 and fix["retryCount"] == 1  # type: ignore[index]
    assert git(repo, "rev-list", "--parents", "-n", "1", "HEAD").split()[1:] == [base, job]
    assert (repo / "alpha.py").read_text() == MERGED_ALPHA
    assert_no_scratch(repo)
