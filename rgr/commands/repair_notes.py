"""``rgr repair-notes``: find, and with ``--apply`` fix, damage to the handoff notes.

Nothing is ever deleted: a broken ref tip is replaced by the newest good one from its
reflog, and notes that cannot be kept (invalid JSON, annotating a commit that no longer
exists) are moved to ``<notes ref>-attic``, where ``git notes --ref=... show`` still
reads them. Lock files are removed only when no live process holds them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rgr.base.errors import NotesError
from rgr.base.outcome import Outcome
from rgr.base.ui import short
from rgr.store import locks
from rgr.store.handoff import HandoffState, InvalidNote, parse_note
from rgr.store.handoff_read import joined_note, records
from rgr.store.notes import NotesStore
from rgr.store.objects import Commit, Oid, Repository
from rgr.store.workspace import Workspace


@dataclass
class Finding:
    kind: str
    subject: str
    detail: str
    fixed: bool = False

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "subject": self.subject, "detail": self.detail,
                "fixed": self.fixed}


def _good_reflog_target(repo: Repository, ref: str) -> Oid | None:
    reference = repo.references.get(ref)
    if reference is None:
        return None
    for entry in reference.log():  # newest first
        obj = repo.get(entry.oid_new)
        if isinstance(obj, Commit):
            return entry.oid_new
    return None


def _check_tip(ws: Workspace, apply: bool) -> list[Finding]:
    try:
        ws.notes.tip()
        return []
    except NotesError as exc:
        finding = Finding("broken-ref", ws.notes.ref, exc.message)
    if apply:
        good = _good_reflog_target(ws.repo, ws.notes.ref)
        if good is not None:
            ws.notes.set_tip(good, "rgr repair-notes: restore last good notes commit")
            finding.detail += f"; restored to {short(str(good))} from the reflog"
        else:
            ws.notes.set_tip(None, "")
            finding.detail += "; no good reflog entry, the ref was removed"
        finding.fixed = True
    return [finding]


def _check_notes(ws: Workspace, apply: bool) -> list[Finding]:
    findings: list[Finding] = []
    attic = NotesStore(ws.repo, ws.notes.ref + "-attic")
    for commit, text in ws.notes.all_texts().items():
        obj = ws.repo.get(commit)
        problem = None
        kept: HandoffState | None = None
        if not isinstance(obj, Commit):
            problem = ("orphaned", "the annotated commit no longer exists")
        else:
            try:
                kept = parse_note(text)
            except InvalidNote as exc:
                problem = ("invalid", str(exc))
            else:
                if joined_note(text) is not None:
                    problem = ("joined", f"{len(records(text))} handoff records joined by "
                                         "git in one note; the last valid one is kept")
        if problem is None:
            continue
        finding = Finding(problem[0], commit, problem[1])
        if apply and kept is not None:
            # The whole note to the attic, its last valid record alone in its place.
            attic.write_text(commit, text, "rgr repair-notes: joined note set aside")
            ws.notes.write(commit, kept, "rgr repair-notes: one record kept of a joined note")
            finding.detail += f"; the whole note copied to {attic.ref}"
            finding.fixed = True
        elif apply:
            attic.write_text(commit, text, f"rgr repair-notes: {problem[0]} note set aside")
            ws.notes.remove(commit, f"rgr repair-notes: move {problem[0]} note to {attic.ref}")
            finding.detail += f"; moved to {attic.ref}"
            finding.fixed = True
        findings.append(finding)
    return findings


def _check_locks(ws: Workspace, apply: bool) -> list[Finding]:
    findings: list[Finding] = []
    run_lock = ws.git_dir / locks.RUN_LOCK
    candidates: list[tuple[Path, bool, str]] = []
    if run_lock.exists():
        info = locks.read_lock_info(run_lock)
        who = info.describe() if info else "an unreadable holder"
        candidates.append((run_lock, locks.run_lock_is_stale(run_lock), f"rgr run lock of {who}"))
    for path in locks.find_git_locks(ws.git_dir):
        candidates.append((path, locks.git_lock_is_stale(path), "git lock file"))
    for path, stale, what in candidates:
        rel = str(path.relative_to(ws.git_dir))
        if not stale:
            findings.append(Finding("lock-held", rel, f"{what}: in use, left alone"))
            continue
        finding = Finding("stale-lock", rel, f"{what}: no live process holds it")
        if apply:
            path.unlink(missing_ok=True)
            finding.detail += "; removed"
            finding.fixed = True
        findings.append(finding)
    return findings


def run(ws: Workspace, apply: bool) -> Outcome[dict[str, object]]:
    findings = _check_locks(ws, apply) + _check_tip(ws, apply)
    # Notes can only be read once the tip is sound (or has just been repaired).
    tip_ok = all(f.fixed for f in findings if f.kind == "broken-ref")
    if tip_ok:
        findings += _check_notes(ws, apply)
    problems = [f for f in findings if f.kind != "lock-held"]
    # Exit 1 while repairs are due, so scripts and CI can tell.
    return Outcome(text(ws.notes.ref, findings, apply),
                   {"applied": apply, "findings": [f.as_dict() for f in findings]},
                   exit_code=1 if problems and not apply else 0)


def text(ref: str, findings: list[Finding], apply: bool) -> list[str]:
    """What a person reads of ``findings`` on the notes ``ref``."""
    if not findings:
        return [f"{ref}: no problems found"]
    out = []
    for f in findings:
        mark = "fixed" if f.fixed else ("ok" if f.kind == "lock-held" else "found")
        out.append(f"[{mark}] {f.kind}: {f.subject}: {f.detail}")
    if not apply and any(f.kind != "lock-held" for f in findings):
        out.append("\nrun `rgr repair-notes --apply` to fix these (nothing is deleted)")
    return out
