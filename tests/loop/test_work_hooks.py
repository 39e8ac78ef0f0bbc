"""A mode (a ``Work``) that misses one of the kernel's abstract parts (what to prompt, how
to judge, what to note) is caught by mypy, before anything runs; so is a note update
with a field the note does not have or a value of the wrong type (``NoteUpdate``). And
a verdict's evidence is the mode's own type, which mypy checks where it is read."""

from __future__ import annotations

import typing
from pathlib import Path

import mypy.api
import pytest

from rgr.loop.kernel import Naming, Work
from rgr.observe.events import Where
from rgr.store.handoff import HandoffState, NoteUpdate

HALF_A_MODE = '''
from rgr.loop.kernel import Try, Verdict, Work
from rgr.store.handoff import AdequacyNote, NoteUpdate, Phase


class Half(Work[None]):
    def rejected_note(self, attempt: Try, verdict: Verdict[None], kept: str) -> NoteUpdate:
        return {"phase": Phase.RED, "cycle_numbr": 2}


Half()


def misnoted() -> NoteUpdate:
    return {"cycle_number": "two"}


def tried(verdict: Verdict[AdequacyNote]) -> int:
    return verdict.evidence.tried  # a rejection before the gate has no evidence


def gate_of(verdict: Verdict[AdequacyNote]) -> object:
    return verdict.evidence.gate if verdict.evidence else None  # a refactor batch's
'''


def test_mypy_names_what_a_mode_misses_a_misnoted_field_and_misread_evidence(
        tmp_path: Path) -> None:
    mode = tmp_path / "half_mode.py"
    mode.write_text(HALF_A_MODE, encoding="utf-8")
    out, _, status = mypy.api.run([str(mode), "--cache-dir", str(tmp_path / "cache"),
                                   "--follow-imports", "silent", "--config-file", "",
                                   "--no-error-summary"])
    assert status == 1, out
    assert 'Cannot instantiate abstract class "Half"' in out
    for part in ("accepted_note", "begin", "judge"):
        assert f'"{part}"' in out
    assert '"rejected_note"' not in out.split('abstract class "Half"')[1].splitlines()[0]
    assert 'Extra key "cycle_numbr" for TypedDict "NoteUpdate"' in out
    assert ('expression has type "str", TypedDict item "cycle_number" has type "int"'
            in out)
    assert 'Item "None" of "AdequacyNote | None" has no attribute "tried"' in out
    assert '"AdequacyNote" has no attribute "gate"' in out


def test_the_abstract_parts_are_what_to_prompt_how_to_judge_and_what_to_note() -> None:
    assert Work.__abstractmethods__ == {"begin", "judge", "accepted_note"}
    half = type("Half", (Work,), {"judge": lambda self, attempt, result, tip: None})
    with pytest.raises(TypeError, match="abstract"):
        half()


def test_a_note_update_names_only_the_notes_fields_typed_as_the_note_has_them() -> None:
    update = typing.get_type_hints(NoteUpdate)
    note = typing.get_type_hints(HandoffState)
    assert set(update) <= set(note)
    assert {name: hint for name, hint in update.items() if note[name] != hint} == {}


@pytest.mark.parametrize(("naming", "label", "title", "where"), [
    (Naming("RED-c2", "cycle 2 RED", "RED", 2), "RED-c2-a3", "cycle 2 RED",
     Where("RED", 2, 3, "s")),
    (Naming("b1", "b1", "REFACTOR", 1, batch="b1"), "b1-a3", "b1",
     Where("REFACTOR", 1, 3, "s", batch="b1")),
    # a merge fix has no cycles: its attempt's number stands in the title and events
    (Naming("merge-fix", "merge fix", "merge fix", None), "merge-fix-a3", "merge fix 3",
     Where("merge fix", 3, 3, "s")),
])
def test_a_naming_names_an_attempt_in_folders_the_log_and_events(
        naming: Naming, label: str, title: str, where: Where) -> None:
    assert (naming.label(3), naming.title_of(3), naming.where(3, "s")) == (label, title, where)
