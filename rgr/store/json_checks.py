"""The checks a fast reader applies to a JSON value, one per kind of type: the words
rgr.store.note_checks (generated from rgr.store.note_json) is written in.

Each check answers whether pydantic would take the value as it is, without changing
it: an ``int`` is not a ``bool``, a date is the spelling pydantic writes. Anything
else is left to the model. This module imports only what ``rgr history``'s table may
(``tests/test_startup.py``)."""

from __future__ import annotations

import re

# typing.TYPE_CHECKING without typing's import (see rgr.base.proc): annotations only, as
# `rgr history` reads notes before much is loaded.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from datetime import UTC as UTC  # re-exported for rgr.store.history.newest
    from datetime import datetime as datetime

    Check = Callable[[object], bool]
else:
    # The same classes, from the C module: CPython's datetime.py defines every class in
    # Python before replacing them with these (1 ms, on `rgr history`'s 25 ms path).
    # rgr.store.handoff_read and rgr.store.history.newest take them from here.
    try:
        from _datetime import UTC, datetime
    except ImportError:  # another Python: its own datetime
        from datetime import UTC, datetime  # noqa: F401 (UTC: for rgr.store.history.newest)


def string(value: object) -> bool:
    return isinstance(value, str)


def integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def boolean(value: object) -> bool:
    return isinstance(value, bool)


def number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def dictionary(value: object) -> bool:
    return isinstance(value, dict)


def one_of(*choices: str) -> Check:
    return lambda value: value in choices


def optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def list_of(check: Check) -> Check:
    return lambda value: isinstance(value, list) and all(check(v) for v in value)


#: The spelling pydantic writes (and rgr stores): second precision or microseconds,
#: UTC as Z or an offset. Other spellings are valid too, but left to the model.
_DATETIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?(Z|[+-]\d\d:\d\d)?")


def timestamp(value: object) -> bool:
    """An ISO 8601 date and time as pydantic writes a ``datetime``."""
    if not isinstance(value, str) or not _DATETIME.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def object_of(fields: Mapping[str, Check], required: tuple[str, ...] = ()) -> Check:
    """A JSON object with the ``required`` keys, whose known keys pass their checks."""
    def check(value: object) -> bool:
        if not isinstance(value, dict) or any(name not in value for name in required):
            return False
        for name, item in value.items():
            known = fields.get(name)
            if known is None:
                # Unknown keys are kept by the model (extra="allow"), unless one is a
                # field's Python name (populate_by_name): that case is the model's.
                if "_" in name:
                    return False
            elif not known(item):
                return False
        return True
    return check
