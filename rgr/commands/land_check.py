"""``rgr land-check`` (internal: the daemon runs it in a job's clone once the job is
rebased or merged onto its base branch's tip): the integrated tree at HEAD judged by
the full suite and the ``[gate]`` commands, sealed, and the verdict noted on HEAD
(rgr.branches.landing). Exit 0 lets the base branch move; 1 says which tests failed."""

from __future__ import annotations

from typing import cast

from rgr.base.outcome import Outcome, Verbatim
from rgr.branches.landing import How, Integration
from rgr.branches.sealed_gate import judge_landing
from rgr.observe.view import PlainView
from rgr.store import git
from rgr.store.workspace import Workspace


def run(ws: Workspace, into: str, base_tip: str, job_tip: str,
        how: str) -> Outcome[None]:
    base = str(git.resolve_commit(ws.repo, base_tip).id)
    job = str(git.resolve_commit(ws.repo, job_tip).id)
    integration = Integration(into, base, job, cast(How, how), "daemon")
    landing = judge_landing(ws, integration, PlainView())
    said = [Verbatim(landing.line())]
    if not landing.ok:
        # The last line is what the daemon shows as the job's reason.
        said.append(Verbatim(f"not landed: {landing.problem()}"))
    return Outcome(said, exit_code=0 if landing.ok else 1)
