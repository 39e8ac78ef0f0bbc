"""The rule that turns surviving mutants into a decision.

A mutant survives when no test notices it. After GREEN, rgr tells two causes apart by
where the survivor sits:

* **over-implemented**: some survivor is on a line *no test runs* (``uncovered``). That
  code is not asked for by any test: GREEN is rejected, each survivor named, with "remove
  it; a later test can ask for it". (``if a == 1337: return 0``: the ``return 0`` runs
  under no test.) A survivor of a module-level statement (``PRECISION = 2``) counts here
  too: it runs only when the module loads, and no test reads what it sets (one that a
  function a test runs reads, ``_UNITS = {"h": 3600}`` beside ``parse``, is on the tests'
  path: test too weak).
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
Undecided survivors (Python, with CrossHair installed: rgr.ecosystems.python.equivalence).
A survivor CrossHair proves equivalent is no failure (``equivalent-by-crosshair``); one it
tells apart by an input stays a survivor and the strengthening RED is given that input. One
it cannot decide (its time budget ran out, no types to explore with) on a line a test runs
stays a survivor: nothing proves the change harmless, and the tests run it without
noticing (RED's gap). Only where no test is known to run it is it ``undecided``: a
remark in the note, never a rejection, unless a test of the current item **demonstrably**
should kill it. Demonstrably means both:

1. a test runs the mutated line (the gate ran the mutant against the tests that run it, and
   in GREEN those include the current item's test), and
2. rgr holds a proof that the mutant is not equivalent: CrossHair's telling input (then it
   is decided, not undecided), or a rule of the language's (``TreeMutation.
   proved_not_equivalent``; Python's, rgr.ecosystems.python.boundary.raising_guards: the
   boundary twin of a comparison that guards a ``raise`` differs at equality, where one
   raises and the other does not).

Where no decider ran (CrossHair not installed, JavaScript, Go, Rust), nothing is undecided:
every survivor the rules do not decide equivalent counts as before.

Equivalent mutants: only the strengthening RED may claim one (its structured answer
names the mutant and why); rgr records the claim with its reason in the note, counts it
``equivalent (claimed)`` in every score, and never as killed.
"""

from __future__ import annotations

from rgr.ecosystems import registry
from rgr.ecosystems.mutant import Mutant
from rgr.store.handoff import AdequacyDecision, AdequacyNote, MutantFinding


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


def blamed(note: AdequacyNote) -> str | None:
    """The phase whose work ``note``'s decision faults: RED for a survivor on a line a
    test runs (its tests do not check the effect), GREEN for code no test runs,
    REFACTOR for a changed line no test pins any more; None when nothing is faulted."""
    if note.decision == "test-too-weak" or (note.phase == "RED"
                                            and note.decision == "over-implemented"):
        return "RED"
    if note.decision == "over-implemented":
        return "GREEN"
    if note.decision == "refactor-unpinned":
        return "REFACTOR"
    return None


def demonstrably_killable(mutant: Mutant, source: str, finding: MutantFinding) -> bool:
    """A survivor CrossHair could not decide that still blocks (see the module's
    definition): a test runs its line, and a rule of its language proves it not
    equivalent."""
    if not finding.tests:
        return False
    language = registry.tree_mutation(mutant.path)
    return language is not None and language.proved_not_equivalent(mutant, source)


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
