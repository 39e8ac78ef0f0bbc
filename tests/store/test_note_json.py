"""The note's JSON types (rgr.store.note_json, what the fast readers return) and the
HandoffState model (what writes notes) agree: the same keys under the same (camelCase)
names, the same required ones, the same nesting and the same choices, all the way
down. A field added to one and not the other fails here."""

from __future__ import annotations

import json
import types
from enum import Enum
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pydantic
import pytest
from typing_extensions import is_typeddict

from rgr.store import note_json
from rgr.store.handoff import HandoffState, parse_note
from rgr.store.handoff_read import read_plain
from rgr.store.handoff_state import read_state


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
