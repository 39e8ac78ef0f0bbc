"""The note's one description (rgr.store.note_json: what the fast readers return and
their checks are generated from) and the HandoffState model (what writes notes) agree:
the same keys under the same (camelCase) names, the same required ones, the same
nesting, choices, nullability and value types, all the way down; a history row's part
(HistoryFields) is a projection of it; the manual's table names every key. A field
added to one and not the other fails here."""

from __future__ import annotations

import json
import re
import types
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import pydantic
import pytest
from typing_extensions import is_typeddict

from rgr.store import note_json
from rgr.store.handoff import HandoffState, parse_note
from rgr.store.handoff_read import read_plain
from rgr.store.handoff_state import read_state
from rgr.store.note_checks_source import key_hints


def _strip(hint: Any) -> Any:
    """The hint without ``| None`` and without ``list[...]``."""
    if get_origin(hint) in (Union, types.UnionType):
        arms = [a for a in get_args(hint) if a is not type(None)]
        return _strip(arms[0]) if len(arms) == 1 else hint
    if get_origin(hint) is list:
        return _strip(get_args(hint)[0])
    return hint


def _choices(hint: Any) -> set[str] | None:
    hint = _strip(hint)
    if get_origin(hint) is Literal:
        return {str(a) for a in get_args(hint)}
    if isinstance(hint, type) and issubclass(hint, Enum):
        return {str(m.value) for m in hint}
    return None


def _pairs(typed: Any, model: type[pydantic.BaseModel]) -> list[tuple[Any, type]]:
    """(TypedDict, model) for this level and every nested one."""
    found = [(typed, model)]
    hints = get_type_hints(typed)
    for name, info in model.model_fields.items():
        inner = _strip(info.annotation)
        if isinstance(inner, type) and issubclass(inner, pydantic.BaseModel):
            key = info.alias or name
            assert is_typeddict(_strip(hints[key])), f"{typed.__name__}.{key}"
            found += _pairs(_strip(hints[key]), inner)
    return found


PAIRS = _pairs(note_json.NoteJson, HandoffState)


def test_every_nested_model_has_its_typeddict() -> None:
    assert len(PAIRS) == 17  # HandoffState and its 16 nested models


@pytest.mark.parametrize(("typed", "model"), PAIRS, ids=lambda p: p.__name__)
def test_the_keys_and_required_keys_are_the_models_aliases(typed: Any, model: Any) -> None:
    fields = model.model_fields
    assert set(typed.__annotations__) == {info.alias or name for name, info in fields.items()}
    assert set(typed.__required_keys__) == {info.alias or name
                                            for name, info in fields.items()
                                            if info.is_required()}


@pytest.mark.parametrize(("typed", "model"), PAIRS, ids=lambda p: p.__name__)
def test_the_choices_and_optional_values_agree(typed: Any, model: Any) -> None:
    hints = get_type_hints(typed)
    for name, info in model.model_fields.items():
        key = info.alias or name
        assert _choices(hints[key]) == _choices(info.annotation), key
        nullable = type(None) in get_args(info.annotation)
        assert (type(None) in get_args(hints[key])) == nullable, key


def test_what_the_readers_return_is_a_note_json() -> None:
    state = parse_note(json.dumps({"phase": "RED", "cycleNumber": 1,
                                   "currentTest": {"description": "adds"},
                                   "startedAt": "2026-11-01T10:00:00Z"}))
    dumped, _ = read_state(state.to_json(), full=True)
    plain = read_plain(state.to_json())
    assert dumped is not None and plain is not None
    keys = set(note_json.NoteJson.__annotations__)
    assert set(dumped) == keys and set(plain) <= keys


def _value_type(hint: Any) -> Any:
    """What a value is in JSON: str, int, float, bool, "time", "choice", "object", a
    nested pair, or dict, whichever side (TypedDict or model) the hint is from."""
    hint = _strip(hint)
    if get_origin(hint) is Annotated and get_args(hint)[0] is str:
        return "time" if hint == note_json.IsoTime else hint
    if hint is datetime:
        return "time"
    if get_origin(hint) is Literal or (isinstance(hint, type) and issubclass(hint, Enum)):
        return "choice"
    if is_typeddict(hint) or (isinstance(hint, type) and issubclass(hint, pydantic.BaseModel)):
        return "object"
    return get_origin(hint) or hint


@pytest.mark.parametrize(("typed", "model"), PAIRS, ids=lambda p: p.__name__)
def test_the_value_types_agree(typed: Any, model: Any) -> None:
    hints = key_hints(typed)
    for name, info in model.model_fields.items():
        key = info.alias or name
        assert _value_type(hints[key]) == _value_type(info.annotation), key
        listed = [get_origin(h) is list for h in (hints[key], info.annotation)]
        assert listed[0] == listed[1], key


def test_a_history_row_is_a_projection_of_the_note() -> None:
    whole, shown = key_hints(note_json.NoteJson), key_hints(note_json.HistoryFields)
    assert note_json.HistoryFields.__required_keys__ <= note_json.NoteJson.__required_keys__
    for key, hint in shown.items():
        inner, full = _strip(hint), _strip(whole[key])
        if is_typeddict(inner):  # some keys of the nested object, typed as there
            assert is_typeddict(full), key
            part, of = key_hints(inner), key_hints(full)
            assert set(part) <= set(of), key
            assert all(part[k] == of[k] for k in part), key
            assert inner.__required_keys__ == full.__required_keys__ & set(part), key
            assert (type(None) in get_args(hint)) == (type(None) in get_args(whole[key]))
        else:
            assert hint == whole[key], key


def test_a_history_row_is_the_projection_with_its_time() -> None:
    row, shown = key_hints(note_json.HistoryRow), key_hints(note_json.HistoryFields)
    own = {"commit": str, "reachable": bool, "time": str, "problem": str}
    assert row == {**own, **{k: v for k, v in shown.items() if k != "finishedAt"}}
    assert note_json.HistoryRow.__required_keys__ == {"commit", "reachable", "time"}


def test_the_manual_names_every_key_of_the_note() -> None:
    page = (Path(note_json.__file__).parents[2] / "docs" / "handoff.md").read_text()
    table = page.split("| field | meaning |", 1)[1].split("\n\n", 1)[0]
    named = {name for cells in re.findall(r"^\| ([^|]+) \|", table, re.MULTILINE)
             for name in re.findall(r"`(\w+)`", cells)}
    assert named == set(note_json.NoteJson.__annotations__)
