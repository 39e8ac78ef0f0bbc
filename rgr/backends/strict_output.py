"""OpenAI's strict structured output, both ways: the schema rgr sends and the answer it
reads back.

Strict mode wants every object closed with every property required, so ``strict_schema``
turns each optional property of a pydantic model's schema into a required, nullable one.
A model may then answer ``null`` for "nothing" (``equivalentMutants: null``): valid under
the schema sent, but the pydantic model that made the schema wants a list there.
``nulls_to_defaults`` undoes exactly what ``strict_schema`` did: it drops each such
``null``, so the model fills in the property's own default. The two live together
because the second is the inverse of the first; the answer is still validated with the
pydantic model afterwards, which keeps every limit strict mode cannot express.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

#: Keywords OpenAI's strict structured outputs reject; pydantic checks them afterwards.
_UNSUPPORTED = ("minLength", "maxLength", "default", "format")

#: The keywords whose members are alternatives (or, for allOf, parts) of one value.
_BRANCHES = ("anyOf", "oneOf", "allOf")


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` as OpenAI's strict mode accepts it: every object closed with all its
    properties required (an optional one becomes nullable), unsupported keywords gone.
    The answer is still validated with the pydantic model that made ``schema``, after
    ``nulls_to_defaults``."""
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


def nulls_to_defaults(schema: Mapping[str, Any], answer: Any) -> Any:
    """``answer`` (given under ``strict_schema(schema)``) without the nulls strict mode
    forced on: a ``null`` for a property ``schema`` does not require and does not allow
    to be null is dropped, at any depth, so validation gives that property its default.
    A property ``schema`` itself allows to be null keeps its null. ``answer`` is not
    changed; what is not a strict-mode null comes back as it was."""
    defs = schema.get("$defs")
    return _Restorer(defs if isinstance(defs, Mapping) else {}).value(schema, answer)


class _Restorer:
    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs

    def resolve(self, node: Any) -> Mapping[str, Any]:
        """``node`` with its local ``$ref`` followed (pydantic puts every model in
        ``$defs``); a reference that leads nowhere resolves to the empty schema."""
        seen: set[str] = set()
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#/$defs/"):
                return {}
            seen.add(ref)
            node = self.defs.get(ref.removeprefix("#/$defs/"))
        return node if isinstance(node, Mapping) else {}

    def value(self, node: Any, value: Any) -> Any:
        schema = self.resolve(node)
        props = schema.get("properties")
        if isinstance(value, dict) and isinstance(props, Mapping):
            return self.object(schema, props, value)
        items = schema.get("items")
        if isinstance(value, list) and isinstance(items, Mapping):
            return [self.value(items, item) for item in value]
        fitting = [b for b in self.branches(schema) if self.fits(b, value)]
        # Two objects (or two arrays) as alternatives: which one the answer meant is
        # pydantic's call, so nothing is dropped on a guess.
        return self.value(fitting[0], value) if len(fitting) == 1 else value

    def object(self, schema: Mapping[str, Any], props: Mapping[str, Any],
               value: dict[str, Any]) -> dict[str, Any]:
        required = set(schema.get("required") or ())
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub = props.get(key)
            if sub is None:
                out[key] = item  # not ours to judge: validation refuses it
            elif item is None and key not in required and not self.nullable(sub):
                continue  # strict mode's "nothing": the property's default
            else:
                out[key] = self.value(sub, item)
        return out

    def branches(self, schema: Mapping[str, Any]) -> list[Any]:
        return [b for key in _BRANCHES for b in schema.get(key) or ()]

    def fits(self, node: Any, value: Any) -> bool:
        """Whether ``node`` is a branch that could hold the object or array ``value``."""
        schema = self.resolve(node)
        if isinstance(value, dict):
            return "properties" in schema or any(self.fits(b, value)
                                                 for b in self.branches(schema))
        if isinstance(value, list):
            return "items" in schema or any(self.fits(b, value)
                                            for b in self.branches(schema))
        return False

    def nullable(self, node: Any) -> bool:
        """Whether ``node`` (the original schema) allows ``null`` itself."""
        schema = self.resolve(node)
        kind = schema.get("type")
        if kind == "null" or (isinstance(kind, list) and "null" in kind):
            return True
        if "const" in schema and schema["const"] is None:
            return True
        if None in (schema.get("enum") or ()):
            return True
        alternatives = [b for key in ("anyOf", "oneOf") for b in schema.get(key) or ()]
        return any(self.nullable(b) for b in alternatives)
