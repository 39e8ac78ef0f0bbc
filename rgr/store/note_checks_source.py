"""Writes rgr.store.note_checks, the fast reader's checks, from the note's one
description (rgr.store.note_json): each TypedDict becomes a table of
rgr.store.json_checks checks by JSON key, so the reader can never know a field, a
choice or a type the description does not have.

Generated rather than built at import: building the tables from the TypedDicts at
run time would import ``typing`` on ``rgr history``'s path (``tests/test_startup.py``).

    python -m rgr.store.note_checks_source --write   # after changing rgr.store.note_json
    python -m rgr.store.note_checks_source --check   # exit 1 when the file is stale
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path
from typing import (
    Annotated,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from typing_extensions import is_typeddict

from rgr.store import note_json

TARGET = Path(__file__).with_name("note_checks.py")

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}

_HEADER = '''\
"""The fast reader's checks of a handoff note, by JSON key (rgr.store.handoff_read):
GENERATED from rgr.store.note_json by ``python -m rgr.store.note_checks_source --write``.
Do not edit; change rgr.store.note_json and write this again."""

from __future__ import annotations

from rgr.store.json_checks import (
    boolean,
    dictionary,
    integer,
    list_of,
    number,
    object_of,
    one_of,
    optional,
    string,
    timestamp,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    from collections.abc import Mapping

    from rgr.store.json_checks import Check'''


def _text(value: str) -> str:
    """A string literal as ruff's style writes it (double quotes)."""
    return json.dumps(value)


def _texts(values: tuple[str, ...]) -> str:
    """A tuple of string literals."""
    inside = ", ".join(_text(v) for v in values)
    return f"({inside},)" if len(values) == 1 else f"({inside})"


def table_name(typed: type) -> str:
    """``CurrentTestJson`` -> ``CURRENT_TEST``."""
    name = typed.__name__.removesuffix("Json")
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


def key_hints(typed: type) -> dict[str, object]:
    """Its keys' hints, ``Annotated`` kept (IsoTime), ``Required`` taken off (the
    table says which keys are required)."""
    return {key: get_args(hint)[0] if get_origin(hint) in (Required, NotRequired) else hint
            for key, hint in get_type_hints(typed, include_extras=True).items()}


def _nullable(hint: object) -> tuple[object, bool]:
    """(the hint without ``| None``, whether it had it)."""
    if get_origin(hint) in (Union, types.UnionType):
        arms = [a for a in get_args(hint) if a is not type(None)]
        if len(arms) == 1 and len(arms) < len(get_args(hint)):
            return arms[0], True
    return hint, False


def _typeddicts(typed: object) -> list[type]:
    """``typed`` and every TypedDict inside it, inner ones first, each once."""
    found: list[type] = []

    def visit(hint: object) -> None:
        inner, _ = _nullable(hint)
        if get_origin(inner) is list:
            inner = get_args(inner)[0]
        if is_typeddict(inner) and inner not in found:
            assert isinstance(inner, type)
            for item in key_hints(inner).values():
                visit(item)
            found.append(inner)

    visit(typed)
    return found


def check_expression(hint: object) -> str:
    """The rgr.store.json_checks expression that accepts what ``hint`` types."""
    inner, nullable = _nullable(hint)
    if nullable:
        return f"optional({check_expression(inner)})"
    origin = get_origin(hint)
    if origin is Annotated:
        base, *marks = get_args(hint)
        if base is str and marks == list(get_args(note_json.IsoTime)[1:]):
            return "timestamp"
        raise TypeError(f"no check for {hint!r}")
    if origin is Literal:
        return f"one_of({', '.join(_text(str(choice)) for choice in get_args(hint))})"
    if origin is list:
        return f"list_of({check_expression(get_args(hint)[0])})"
    if origin is dict:
        return "dictionary"
    if is_typeddict(hint):
        assert isinstance(hint, type)
        keys: frozenset[str] = getattr(hint, "__required_keys__")  # noqa: B009 (a TypedDict's)
        required = tuple(key for key in key_hints(hint) if key in keys)
        return f"object_of({table_name(hint)}, {_texts(required)})"
    if isinstance(hint, type) and hint in _SCALARS:
        return _SCALARS[hint]
    raise TypeError(f"no check for {hint!r}")


def _wrapped(line: str, width: int = 99) -> str:
    """``line`` broken after its commas, inside its brackets, to ``width`` columns."""
    out, rest = [], line
    while len(rest) > width:
        cut = rest.rfind(", ", 0, width - 1)
        out.append(rest[:cut + 1])
        rest = "        " + rest[cut + 2:]
    return "\n".join([*out, rest])


def _table(typed: type) -> str:
    lines = [f"{table_name(typed)}: Mapping[str, Check] = {{"]
    lines += [_wrapped(f"    {_text(key)}: {check_expression(hint)},")
              for key, hint in key_hints(typed).items()]
    return "\n".join([*lines, "}"])


def _history_default(key: str, hint: object) -> str:
    """What a history row holds for a key the note omits: None where the key may be
    null, 0 for a count; the model's defaults (tests/store/history/test_rows.py)."""
    if _nullable(hint)[1]:
        return "None"
    if hint is int:
        return "0"
    raise TypeError(f"HistoryFields.{key}: no default for {hint!r}")


def source() -> str:
    """The text of rgr.store.note_checks."""
    nested = _typeddicts(note_json.NoteJson)
    parts = [_HEADER]
    parts += [_table(typed) for typed in nested if typed is not note_json.NoteJson]
    parts.append(_table(note_json.NoteJson).replace("NOTE:", "HANDOFF:", 1))
    hints = key_hints(note_json.NoteJson)
    holders = {key: _typeddicts(hint)[-1] for key, hint in hints.items()
               if _typeddicts(hint)}
    parts.append("#: Every nested object's table, by the NoteJson key that holds it.\n"
                 "NESTED: Mapping[str, Mapping[str, Check]] = {\n"
                 + "".join(f"    {_text(key)}: {table_name(typed)},\n"
                           for key, typed in holders.items()) + "}")
    shown = key_hints(note_json.HistoryFields)
    required = note_json.HistoryFields.__required_keys__
    parts.append("#: note_json.HistoryFields: what a history row holds for each key a note\n"
                 "#: omits (its required keys are never omitted).\n"
                 "HISTORY_DEFAULTS: Mapping[str, object] = {\n"
                 + "".join(f"    {_text(key)}: {_history_default(key, hint)},\n"
                           for key, hint in shown.items() if key not in required) + "}")
    projected = {key: _typeddicts(hint)[-1] for key, hint in shown.items()
                 if _typeddicts(hint)}
    parts.append("#: note_json.HistoryFields: the keys it keeps of each nested object.\n"
                 "HISTORY_NESTED: Mapping[str, tuple[str, ...]] = {\n"
                 + "".join(f"    {_text(key)}: {_texts(tuple(key_hints(typed)))},\n"
                           for key, typed in projected.items()) + "}")
    return "\n\n\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    wanted = source()
    if argv == ["--write"]:
        TARGET.write_text(wanted)
        return 0
    if argv == ["--check"]:
        if TARGET.read_text() == wanted:
            return 0
        print(f"{TARGET} is stale: python -m rgr.store.note_checks_source --write",
              file=sys.stderr)
        return 1
    print("usage: python -m rgr.store.note_checks_source --write | --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
