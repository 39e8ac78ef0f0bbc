"""The honest way out, end to end: an agent that says its task cannot be done honestly
(``cannotBeDoneHonestly`` in its structured answer) stops `rgr run` and a daemon job as
needs-attention, with its reason in the note, the report, `rgr show` and `rgr queue`,
and no second attempt is asked of the model. The real rgr CLI, the real claude binary,
real git and pytest; only the model is scripted (rgr.fake_model on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from daemon_kata import choose
from kata import (
    NOTES,
    TEST_FILE_1,
    git,
    make_project,
    model_server,
    one_test_kata_tail,
    plan,
    red,
    rgr,
    rgr_env,
)

from rgr.fake_model import FakeModelServer, SessionScript, structured

pytestmark = pytest.mark.e2e

REASON = ("tests/test_slug.py expects slugify('Hello') == 'hello', but the feature asks "
          "for a slug that keeps the case")


def way_out(name: str = "way-out") -> SessionScript:
    """GREEN's answer: the test contradicts the feature; nothing written, nothing
    committed."""
    return SessionScript(
        [structured({"summary": "stopped: the test contradicts the feature",
                     "cannotBeDoneHonestly": REASON})],
        expect_system_contains="You are the IMPLEMENTER", name=name)


def implementer_sessions(server: FakeModelServer) -> int:
    return sum(1 for r in server.requests
               if r.session_id and r.turn == 0 and r.attempt == 0
               and "You are the IMPLEMENTER" in r.system)


def test_a_green_that_says_the_test_contradicts_the_feature_stops_the_run(
        tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True), way_out(),
               *one_test_kata_tail()]
    offline = rgr_env(tmp_path / "home", "http://127.0.0.1:9")
    with FakeModelServer(scripts) as server:
        env = rgr_env(tmp_path / "home", server.url)
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo, env)
        out = done.stdout + done.stderr
        assert done.returncode == 4, out
        assert server.errors == [], server.errors
        # no second GREEN was asked for: the rest of the kata is still unplayed
        assert server.remaining == 3 and implementer_sessions(server) == 1
        assert "needs attention" in out and REASON in " ".join(out.split()), out
        assert "rgr resume" in out
        assert "retry 1 of" not in out
        head = git(repo, "rev-parse", "HEAD").strip()
        note = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", head))
        assert note["phase"] == "RED" and note["nextPhase"] == "GREEN"
        assert note["errorDetails"] == {"type": "needs-attention", "message": REASON}
        assert note["retryCount"] == 0
        # the agent committed nothing: no attempt kept, no rejection counted
        assert git(repo, "for-each-ref", "refs/rgr/attempts/").strip() == ""
        report = json.loads(rgr(["report", "--json"], repo, offline).stdout)
        assert report["status"] == "needs-attention" and report["retries"] == 0
        assert report["rejectionsByRule"] == {}
        assert report["needsAttention"] == {"phase": "GREEN", "cycle": 1,
                                            "reason": REASON, "kept": None, "by": "agent"}
        text = rgr(["report"], repo, offline).stdout
        assert "needs attention before GREEN" in text and "way out" in text
        assert REASON in " ".join(text.split())
        shown = rgr(["show"], repo, offline).stdout
        assert REASON in " ".join(shown.split()), shown
        status = rgr(["status"], repo, offline).stdout
        assert "needs attention" in status and "`rgr resume` continues with GREEN" in \
            " ".join(status.split()), status
        [run_dir] = (repo / ".git" / "rgr" / "runs").iterdir()
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["status"] == "needs-attention"
        assert (summary["totals"]["needsAttention"], summary["totals"]["guardRejections"],
                summary["totals"]["retries"]) == (1, 0, 0)
        assert summary["stopReason"]["needsAttention"] is True
        assert summary["stopReason"]["message"] == REASON
        # A person looked (the agent was wrong here): `rgr resume` redoes GREEN, telling
        # the new session the reason, and the run completes.
        resumed = rgr(["resume", "--yes", "--skip-preflight"], repo, env)
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert server.errors == [] and server.remaining == 0
        second = [r for r in server.requests if r.turn == 0 and r.attempt == 0
                  and "You are the IMPLEMENTER" in r.system][-1]
        assert REASON in second.first_user_text and "cannot be done honestly" in \
            second.first_user_text
    final = json.loads(rgr(["report", "--json"], repo, offline).stdout)
    assert final["status"] == "complete" and final["needsAttention"] is None


def test_the_way_out_on_codex(tmp_path: Path) -> None:
    """codex gets the schema in strict mode (every property required, the way out as
    nullable): its answer with the reason stops the run the same way."""
    repo = make_project(tmp_path / "kata", "codex")
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True), way_out(),
               *one_test_kata_tail()]
    with model_server("codex")(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url, "codex"))
        assert done.returncode == 4, done.stdout + done.stderr
        assert server.errors == [] and server.remaining == 3
    head = git(repo, "rev-parse", "HEAD").strip()
    note = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", head))
    assert note["errorDetails"] == {"type": "needs-attention", "message": REASON}
    assert note["nextPhase"] == "GREEN"


def test_a_daemon_job_whose_agent_takes_the_way_out_needs_attention(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")

    def scripted(system: str, prompt: str) -> SessionScript:
        if "You are the IMPLEMENTER" in system:
            return way_out("green-eta")
        return choose(system, prompt)

    with FakeModelServer(choose=scripted) as server:
        env = rgr_env(tmp_path / "home", server.url)
        added = rgr(["queue", "add", "make eta"], repo, env)
        assert added.returncode == 0, added.stdout + added.stderr
        done = rgr(["daemon", "--workers", "1", "--lease", "6", "--poll", "0.3"], repo, env,
                   timeout=400)
        assert server.errors == [], server.errors
        assert implementer_sessions(server) == 1, done.stdout  # never retried
    listed = rgr(["queue", "--json"], repo, env)
    [job] = json.loads(listed.stdout)
    assert job["state"]["state"] == "needs-attention", done.stdout
    message = " ".join(str(job["state"]["message"]).split())
    assert REASON in message and "rgr queue retry 1" in message, message
    assert job["state"]["phase"] == "GREEN"
    table = rgr(["queue"], repo, env).stdout
    assert "needs-attention" in table and "job 1:" in table, table
    # the job's branch holds the reason in its note, where the run stopped
    note = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", "rgr/make-eta"))
    assert note["errorDetails"]["type"] == "needs-attention"
    # the daemon's way on, once a person has decided: the job is queued again
    again = rgr(["queue", "retry", "1"], repo, env)
    assert again.returncode == 0, again.stdout + again.stderr
    [job] = json.loads(rgr(["queue", "--json"], repo, env).stdout)
    assert job["state"]["state"] == "queued"
