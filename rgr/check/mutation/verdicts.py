"""What the TDD loop does with the gate's findings: violations that name each survivor,
the brief of a RED sent back to strengthen its test, and the equivalence claims such a
RED may make.

Equivalent mutants (a change no test can notice because it changes no behaviour, such
as ``x * 1`` → ``x / 1``) are the weak spot of mutation testing. rgr handles them in the
open: only the RED that strengthens a test may claim one, in its structured answer
(``equivalentMutants``: the survivor's line as the brief wrote it, and why); a claim
that names no current survivor is refused; an accepted claim is recorded in the note
with its reason, counted ``equivalent (claimed)`` in every score and never as killed,
so a reviewer sees each one in ``rgr show`` and ``rgr report``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rgr.check.violation import Violation
from rgr.store.handoff import AdequacyNote, MutantFinding

__all__ = ["apply_claims", "strengthen_brief", "violations_of"]

#: How many survivors a brief or a rejection names one by one.
_NAMED = 12


def violations_of(note: AdequacyNote) -> list[Violation]:
    """The rejections ``note``'s decision calls for (none for pass, report-only,
    incomplete, not-measured and test-too-weak: that one is a transition, not a
    rejection)."""
    survivors = note.survivors[:_NAMED]
    if note.phase == "RED" and note.decision in ("test-too-weak", "over-implemented"):
        return [Violation("test-still-weak", _survivor_text(m) + ": the strengthened tests "
                          "do not notice this change; assert what the code must do",
                          m.path, m.line) for m in survivors]
    if note.decision == "over-implemented":
        # "Remove it" is said only of a line no test runs: a survivor on a line a test
        # runs is RED's gap (its effect unchecked), never GREEN's to delete.
        return [Violation("over-implemented", _survivor_text(m) + ": no test asks for this "
                          "code; remove it (a later test can ask for it)", m.path, m.line)
                for m in note.survivors if m.status == "uncovered"][:_NAMED]
    if note.decision == "refactor-unpinned":
        return [Violation("refactor-unpinned", _survivor_text(m) + ": the refactor changed "
                          "this line and no test pins it any more; keep the behaviour the "
                          "tests pin, or leave the line as it was", m.path, m.line)
                for m in survivors]
    return []


def strengthen_brief(note: AdequacyNote) -> str:
    """The prompt's brief for the RED that goes back to strengthen its test."""
    if note.skipped_tests:
        return _unskip_brief(note)
    lines = ["rgr's mutation gate sent this cycle back to RED. GREEN's code is in place and "
             "every test passes, but the tests still pass when the code below is changed, so "
             "they do not pin what the current test item asks for. Strengthen the test you "
             "wrote for this item (edit it, or add assertions or tests to its file) until "
             "each of these changes would make a test fail:"]
    lines += [f"- {m.describe()}" for m in note.survivors[:_NAMED]]
    told = [m for m in note.survivors[:_NAMED] if m.telling_input]
    if told:
        lines += ["", "An input that tells each of these changes apart (found by calling the "
                  "code as the tests do, one argument varied, or by CrossHair's symbolic "
                  "execution): a test calling the code with it fails on the change."]
        lines += [f"- {m.path}:{m.line} {m.original!r} -> {m.replacement!r}: called with "
                  f"{m.telling_input}" for m in told]
    lines += ["",
              "Change test files only; every test must pass on the current code (it is "
              "correct: the tests are what is missing). rgr then applies each change above "
              "and runs the tests again: a change that still passes is rejected by name.",
              "If a change above cannot alter behaviour at all (an equivalent mutant), you "
              "may say so instead in your answer's equivalentMutants: the line exactly as "
              "written above (after `- `) and why. rgr records each claim in the note, "
              "visible to reviewers; it never counts as a test."]
    return "\n".join(lines)


def _unskip_brief(note: AdequacyNote) -> str:
    """The brief of a RED sent back because its new tests ran skipped in GREEN's run."""
    return "\n".join([
        "rgr sent this cycle back to RED: the new tests below first ran in GREEN's run "
        "(their file did not load before GREEN wrote the code), and the test runner "
        "reported them skipped. A skipped test checks nothing, and GREEN may not edit "
        "tests. " + (note.remark or ""),
        *[f"- {test_id}" for test_id in note.skipped_tests[:_NAMED]],
        "",
        "GREEN's code is in place. Make each of these tests run (remove whatever skips "
        "it: a marker, metadata, a skip call, a pending or disabled form) and pass on the "
        "current code. Change test files only; every test must pass. rgr then applies "
        "the mutation gate to GREEN's code: a change to it that no test notices is "
        "rejected by name."])


def apply_claims(note: AdequacyNote, claims: Sequence[tuple[str, str]]
                 ) -> tuple[AdequacyNote, list[Violation]]:
    """``note`` with the claimed survivors marked equivalent (their reasons kept), and a
    violation for each claim that names no survivor."""
    by_text = {m.describe(): m for m in note.survivors}
    claimed: dict[str, str] = {}
    refused = []
    for text, reason in claims:
        key = text.strip().removeprefix("- ").strip()
        if key in by_text and reason.strip():
            claimed[key] = reason.strip()
        else:
            refused.append(Violation("equivalence-claim-unknown", f"the claim {text!r} names "
                                     "no surviving mutant of this gate (copy the line as the "
                                     "brief wrote it) or gives no reason"))
    if not claimed:
        return note, refused
    mutants = [m.updated(status="equivalent", reason=claimed[m.describe()])
               if m.describe() in claimed else m for m in note.mutants]
    moved = {"survived": sum(1 for m in note.mutants if m.describe() in claimed
                             and m.status == "survived"),
             "uncovered": sum(1 for m in note.mutants if m.describe() in claimed
                              and m.status == "uncovered")}
    return note.updated(
        mutants=mutants, equivalent=note.equivalent + len(claimed),
        survived=note.survived - moved["survived"],
        uncovered=note.uncovered - moved["uncovered"]), refused


def _survivor_text(mutant: MutantFinding) -> str:
    if mutant.status == "uncovered" and mutant.tests:  # a module-level line (gate)
        return (f"{mutant.describe()} survives: this line runs only when the module "
                f"loads, and {', '.join(mutant.tests[:3])} still pass: no test reads "
                "what it sets")
    if mutant.status == "uncovered":
        return f"{mutant.describe()} survives: no test runs this line"
    told = f" (an input that tells it apart: {mutant.telling_input})" \
        if mutant.telling_input else ""
    return f"{mutant.describe()} survives: {', '.join(mutant.tests[:3])} still pass{told}"
