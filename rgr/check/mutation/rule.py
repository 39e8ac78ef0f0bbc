"""The rule that turns surviving mutants into a decision.

A mutant survives when no test notices it. After GREEN, rgr tells two causes apart by
where the survivor sits:

* **over-implemented**: some survivor is on a line *no test runs* (``uncovered``). That
  code is not asked for by any test: GREEN is rejected, each survivor named, with "remove
  it; a later test can ask for it". (``if a == 1337: return 0``: the ``return 0`` runs
  under no test.) A survivor of a module-level statement (``PRECISION = 2``) counts here
  too: it runs only when the module loads, and no test reads what it sets.
* **test too weak**: every survivor is on a line some test runs, yet the tests pass with
  it changed. The code is asked for, but the test does not pin it: GREEN's commit stays,
  and the cycle goes back to RED, whose task is to strengthen the cycle's test until the
  named survivors die (``assert add(2, 3) is not None`` lets ``a - b`` survive).

After REFACTOR, for the lines it changed, any survivor rejects the attempt
(``refactor-unpinned``): a refactor keeps behaviour, so a changed line the tests do not
pin is behaviour they no longer guard.

``report`` mode records the same findings and decides nothing (``report-only``);
mutants the time budget left unrun are ``not-run`` and never count as killed: with no
survivor among the others the decision is ``incomplete`` (the phase goes on; the score
says how many were not run), never ``pass``.
Equivalent mutants: only the strengthening RED may claim one (its structured answer
names the mutant and why); rgr records the claim with its reason in the note, counts it
``equivalent (claimed)`` in every score, and never as killed.
"""

from __future__ import annotations

from rgr.store.handoff import AdequacyDecision, AdequacyNote


def decide(note: AdequacyNote) -> AdequacyDecision:
    """What ``note``'s findings mean for its phase under its mode."""
    if note.decision == "not-measured":
        return "not-measured"
    survivors = note.survivors
    if not survivors:
        # Mutants the budget left unrun are no pass: the phase goes on, the note and
        # every score say what was not measured.
        unrun = note.not_run or any(m.status == "not-run" for m in note.mutants)
        return "incomplete" if unrun else "pass"
    if note.mode != "reject":
        return "report-only"
    if note.phase == "REFACTOR":
        return "refactor-unpinned"
    if any(m.status == "uncovered" for m in survivors):
        return "over-implemented"
    return "test-too-weak"


def survivor_lines(note: AdequacyNote, limit: int = 12) -> list[str]:
    """One line per survivor, for a brief."""
    lines = [f"- {m.describe()}: " + ("no test runs this line" if m.status == "uncovered"
                                      and not m.tests
                                      else "the tests " + ", ".join(m.tests[:3])
                                      + " still pass with it")
             for m in note.survivors[:limit]]
    if len(note.survivors) > limit:
        lines.append(f"- ... and {len(note.survivors) - limit} more")
    return lines
