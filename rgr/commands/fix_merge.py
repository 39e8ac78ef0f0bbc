"""``rgr fix-merge`` (internal: the daemon runs it in a job's clone when the job's rebase
onto its base branch conflicts): merge-fixer sessions until one merge of the job into
the base tip passes rgr's checks (rgr.mergefix.engine), then the job's branch moves to it."""

from __future__ import annotations

from rgr.base.errors import RepositoryError
from rgr.base.outcome import Outcome
from rgr.ecosystems.registry import resolve_test_command
from rgr.loop.starting import make_backend, recover_after_crash, require_clean
from rgr.mergefix.engine import MergeFixer, MergeJob
from rgr.observe.view import PlainView
from rgr.sandbox.sealer import open_sealer
from rgr.store import git, inflight, merging
from rgr.store.locks import run_lock
from rgr.store.workspace import Workspace


def run(ws: Workspace, onto: str, into: str, tries: int,
        max_budget_usd: float | None = None) -> Outcome[None]:
    branch = git.require_branch(ws.repo)
    require_clean(ws, "rgr fix-merge")
    ws = ws.pinned()
    log = PlainView()
    with run_lock(ws.git_dir, "rgr fix-merge"):
        recover_after_crash(ws, log)  # a killed daemon's fixer: its agent, locks, folders
        job_tip = git.head_commit(ws.repo)
        base_tip = git.resolve_commit(ws.repo, onto)
        # Running fix-merge again is how a killed fixer resumes (the daemon restarts it).
        # A merge-fix attempt it was killed in the middle of is judged first, as it would
        # have been: killed after its merge was noted but before the branch moved, a new
        # session would pay for the same merge again and leave a second "resolved" note
        # on a merge no branch reaches. A record left once the branch moved is stale.
        record = inflight.read(ws.git_dir)
        if record is not None and record.mode != "merge-fix":
            record = None  # a TDD or refactor attempt's: `rgr resume` judges it
        if git.is_ancestor(ws.repo, base_tip.id, job_tip.id):
            if record is not None:
                inflight.clear(ws.git_dir)
            log(f"{branch} already contains {into} at {str(base_tip.id)[:8]}: nothing to fix")
            return Outcome()
        found = ws.notes.latest_reachable(str(job_tip.id))
        if found is None or found[0].state is None:
            raise RepositoryError(f"{branch} has no valid handoff note: it is not an rgr job",
                                  "merge it by hand")
        if record is not None and (record.base != str(base_tip.id)
                                   or record.run_id != found[0].state.run_id):
            inflight.clear(ws.git_dir)  # a fix onto another base tip, or another job's
            record = None
        merged = merging.auto_merge(ws.repo, base_tip.id, job_tip.id)
        test_command = resolve_test_command(ws.config, ws.root)
        backend = make_backend(ws)
        fixer = MergeFixer(ws, backend, test_command,
                           open_sealer(ws, backend, test_command, log), log,
                           max_budget_usd=max_budget_usd, emit=log.emit)
        job = MergeJob(branch, into, base_tip, job_tip, found[0].state, merged)
        try:
            head = fixer.settle_interrupted(job, record, tries) if record else None
            if head is None:
                head = fixer.fix(job, tries)
        finally:
            fixer.record_spend()  # accepted or not, the sessions were paid for
        log(f"{branch} at {str(head.id)[:8]} merges {into} at {str(base_tip.id)[:8]}")
        return Outcome()
