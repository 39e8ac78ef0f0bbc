"""``rgr fix-merge`` (internal: the daemon runs it in a job's clone when the job's rebase
onto its base branch conflicts): merge-fixer sessions until one merge of the job into
the base tip passes rgr's checks (rgr.mergefix), then the job's branch moves to it."""

from __future__ import annotations

from rgr import git, merging
from rgr.attempt import open_sealer
from rgr.config import resolve_test_command
from rgr.errors import RepositoryError
from rgr.locks import run_lock
from rgr.mergefix import MergeFixer, MergeJob
from rgr.starting import make_backend, recover_after_crash, require_clean
from rgr.view import PlainView
from rgr.workspace import Workspace


def run(ws: Workspace, onto: str, into: str, tries: int,
        max_budget_usd: float | None = None) -> int:
    branch = git.require_branch(ws.repo)
    require_clean(ws, "rgr fix-merge")
    ws = ws.pinned()
    log = PlainView()
    with run_lock(ws.git_dir, "rgr fix-merge"):
        recover_after_crash(ws, log)  # a killed daemon's fixer: its agent, locks, folders
        job_tip = git.head_commit(ws.repo)
        base_tip = git.resolve_commit(ws.repo, onto)
        if git.is_ancestor(ws.repo, base_tip.id, job_tip.id):
            log(f"{branch} already contains {into} at {str(base_tip.id)[:8]}: nothing to fix")
            return 0
        found = ws.notes.latest_reachable(str(job_tip.id))
        if found is None or found[0].state is None:
            raise RepositoryError(f"{branch} has no valid handoff note: it is not an rgr job",
                                  "merge it by hand")
        merged = merging.auto_merge(ws.repo, base_tip.id, job_tip.id)
        test_command = resolve_test_command(ws.config, ws.root)
        backend = make_backend(ws)
        fixer = MergeFixer(ws, backend, test_command,
                           open_sealer(ws, backend, test_command, log), log,
                           max_budget_usd=max_budget_usd, emit=log.emit)
        try:
            head = fixer.fix(MergeJob(branch, into, base_tip, job_tip, found[0].state,
                                      merged), tries)
        finally:
            fixer.record_spend()  # accepted or not, the sessions were paid for
        log(f"{branch} at {str(head.id)[:8]} merges {into} at {str(base_tip.id)[:8]}")
        return 0
