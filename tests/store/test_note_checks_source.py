"""rgr.store.note_checks is what rgr.store.note_checks_source writes from the note's one
description (rgr.store.note_json) today, and the generator turns each kind of type into
its check, refusing a type it has no check for."""

# No ``from __future__ import annotations``: the TypedDicts below must see ``Required``
# evaluated (as rgr.store.note_json's do).

from pathlib import Path
from typing import Annotated, Literal, Required

import pytest
from typing_extensions import TypedDict

from rgr.store import note_checks_source as source
from rgr.store.json_checks import object_of
from rgr.store.note_checks import HANDOFF
from rgr.store.note_json import IsoTime


def test_the_generated_checks_are_fresh() -> None:
    assert source.TARGET.read_text() == source.source(), \
        "python -m rgr.store.note_checks_source --write"
    assert source.main(["--check"]) == 0


class PartJson(TypedDict, total=False):
    name: Required[str]
    at: IsoTime | None


class WholeJson(TypedDict, total=False):
    kind: Literal["a", "b"]
    count: int
    share: float
    on: bool
    parts: list[PartJson]
    extra: dict[str, object]


def test_each_kind_of_type_becomes_its_check() -> None:
    hints = source.key_hints(WholeJson)
    assert {key: source.check_expression(hint) for key, hint in hints.items()} == {
        "kind": 'one_of("a", "b")', "count": "integer", "share": "number",
        "on": "boolean", "parts": 'list_of(object_of(PART, ("name",)))',
        "extra": "dictionary"}
    assert source.check_expression(source.key_hints(PartJson)["at"]) == "optional(timestamp)"
    assert source.table_name(WholeJson) == "WHOLE"


@pytest.mark.parametrize("hint", [bytes, Annotated[str, "something else"], set[str]])
def test_a_type_without_a_check_is_refused(hint: object) -> None:
    with pytest.raises(TypeError, match="no check for"):
        source.check_expression(hint)


def test_a_stale_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "note_checks.py"
    stale.write_text(source.source().replace('"testFile"', '"testfile"'))
    monkeypatch.setattr(source, "TARGET", stale)
    assert source.main(["--check"]) == 1
    assert "--write" in capsys.readouterr().err
    assert source.main(["--write"]) == 0 and source.main(["--check"]) == 0


def test_the_generated_tables_read_a_note() -> None:
    is_note = object_of(HANDOFF, ("phase",))
    assert is_note({"phase": "RED", "startedAt": "2026-11-01T10:00:00Z",
                    "currentTest": {"description": "adds", "testFile": None}})
    assert not is_note({"phase": "RED", "cycleNumber": True})
    assert not is_note({"phase": "RED", "startedAt": "yesterday"})
