"""rgr.store.json_checks answers yes only where pydantic would take a value unchanged."""

from __future__ import annotations

from rgr.store import json_checks as check


def test_numbers_are_not_booleans() -> None:
    assert check.integer(3) and not check.integer(True) and not check.integer(3.0)
    assert check.number(3) and check.number(0.5) and not check.number(False)
    assert check.boolean(False) and not check.boolean(0)


def test_a_timestamp_is_the_spelling_the_model_writes() -> None:
    for good in ("2026-11-01T10:00:00Z", "2026-11-01T10:00:00.123456+02:00",
                 "2026-11-01T10:00:00"):
        assert check.timestamp(good), good
    for bad in ("2026-11-01 10:00:00Z", "2026-11-01T10:00Z", "2026-13-01T10:00:00Z",
                1_700_000_000, None):
        assert not check.timestamp(bad), bad


def test_composed_checks() -> None:
    assert check.optional(check.string)(None) and not check.optional(check.string)(1)
    assert check.list_of(check.integer)([1, 2]) and not check.list_of(check.integer)([1, "2"])
    assert not check.list_of(check.integer)((1, 2))
    assert check.one_of("a", "b")("a") and not check.one_of("a", "b")("c")
    assert check.dictionary({}) and not check.dictionary([])


def test_an_object_needs_its_required_keys_and_keeps_unknown_camel_keys() -> None:
    is_part = check.object_of({"name": check.string, "size": check.integer}, ("name",))
    assert is_part({"name": "x"}) and is_part({"name": "x", "laterField": [1]})
    assert not is_part({"size": 1})  # a required key missing
    assert not is_part({"name": "x", "size": "1"})  # a known key of the wrong type
    assert not is_part({"name": "x", "later_field": 1})  # a Python name: the model's case
    assert not is_part(["name"])
