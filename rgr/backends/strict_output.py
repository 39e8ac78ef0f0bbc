"""OpenAI's strict structured output: the schema rgr sends.

Strict mode wants every object closed with every property required, so ``strict_schema``
turns each optional property of a pydantic model's schema into a required, nullable one.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

#: Keywords OpenAI's strict structured outputs reject; pydantic checks them afterwards.
_UNSUPPORTED = ("minLength", "maxLength", "default", "format")


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` as OpenAI's strict mode accepts it: every object closed with all its
    properties required (an optional one becomes nullable), unsupported keywords gone.
    The answer is still validated with the pydantic model that made ``schema``."""
    out = copy.deepcopy(dict(schema))
    _tighten(out)
    return out


def _tighten(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _tighten(item)
        return
    if not isinstance(node, dict):
        return
    for key in _UNSUPPORTED:
        node.pop(key, None)
    props = node.get("properties")
    if isinstance(props, dict):
        required = set(node.get("required") or [])
        for name, sub in props.items():
            if name not in required and isinstance(sub, dict):
                props[name] = {"anyOf": [sub, {"type": "null"}]}
        node["required"] = list(props)
        node["additionalProperties"] = False
    for value in node.values():
        _tighten(value)
