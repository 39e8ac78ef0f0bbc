"""Every answer an agent may give under the schema rgr sent it is read by each backend.

claude gets the output model's own JSON schema (``--json-schema``); codex gets
``strict_schema`` of it (``--output-schema``), where every optional property is required
and nullable, so ``null`` is codex's way of saying "nothing". The shapes below are made
from the models' own schemas (every property null, empty, absent where the schema sent
allows it, present), so a field added to a model is covered without touching this file;
jsonschema confirms each shape is valid under the schema the backend sent, independently
of pydantic. Each shape goes through the backend's real reading of the CLI's output
(claude's result line, codex's JSONL stream and its last agent_message)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import jsonschema
import pydantic
import pytest

from rgr.backends import claude, codex
from rgr.backends.base import AgentRequest
from rgr.backends.codex_stream import StreamState, stream_reader
from rgr.backends.strict_output import nulls_to_defaults, strict_schema
from rgr.base.proc import Completed
from rgr.loop.outputs import OUTPUT_MODELS, PhaseOutput
from rgr.refactor.plan import RefactorPlanOutput
from rgr.store.agents import AgentSpec

#: The model behind each ``output`` an agent file can name (the merge fixer answers
#: with PhaseOutput too).
MODELS_BY_OUTPUT: dict[str, type[pydantic.BaseModel]] = {
    **OUTPUT_MODELS, "refactor-plan": RefactorPlanOutput}
MODELS = sorted(set(MODELS_BY_OUTPUT.values()), key=lambda m: m.__name__)


# -- shapes, from a schema -------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    label: str
    answer: Any  # what the model sends
    meant: Any  # the same answer with codex's forced nulls left out (as claude says it)


class Shapes:
    """The answers ``schema`` (a pydantic model's) allows; ``strict``: under
    ``strict_schema(schema)`` instead, where nothing may be absent and every optional
    property that was not nullable may be null."""

    def __init__(self, schema: dict[str, Any], *, strict: bool) -> None:
        self.defs = schema.get("$defs", {})
        self.strict = strict
        self.root = schema

    def all(self) -> list[Shape]:
        return self.values(self.root)

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = self.defs[node["$ref"].removeprefix("#/$defs/")]
        return node

    def nullable(self, node: dict[str, Any]) -> bool:
        node = self.resolve(node)
        return node.get("type") == "null" or any(
            self.nullable(b) for b in node.get("anyOf", []) + node.get("oneOf", []))

    def values(self, node: dict[str, Any]) -> list[Shape]:
        node = self.resolve(node)
        if "anyOf" in node or "oneOf" in node:
            return [v for b in node.get("anyOf", []) + node.get("oneOf", [])
                    for v in self.values(b)]
        if "const" in node:
            return [Shape(repr(node["const"]), node["const"], node["const"])]
        if "enum" in node:
            return [Shape(repr(e), e, e) for e in node["enum"]]
        kind = node.get("type")
        if kind == "object":
            return self.objects(node)
        if kind == "array":
            return self.arrays(node)
        if kind == "string":
            low, high = node.get("minLength", 0), node.get("maxLength", 10_000)
            found = [Shape("'x'", "x" * max(low, 1), "x" * max(low, 1)),
                     Shape("longest", "y" * min(high, 3000), "y" * min(high, 3000))]
            return found + ([Shape("''", "", "")] if low == 0 else [])
        if kind == "integer":
            return [Shape(str(n), n, n) for n in (node.get("minimum", 0),
                                                  node.get("maximum", 7))]
        if kind == "boolean":
            return [Shape("true", True, True), Shape("false", False, False)]
        if kind == "null":
            return [Shape("null", None, None)]
        raise AssertionError(f"a schema this generator does not know yet: {node}")

    def arrays(self, node: dict[str, Any]) -> list[Shape]:
        low = node.get("minItems", 0)
        found = [Shape("[]", [], [])] if low == 0 else []
        for item in self.values(node["items"]):
            count = max(low, 1)
            found.append(Shape(f"[{item.label}]", [item.answer] * count,
                               [item.meant] * count))
        return found

    def objects(self, node: dict[str, Any]) -> list[Shape]:
        props: dict[str, dict[str, Any]] = node.get("properties", {})
        required = set(node.get("required", []))
        first = {k: self.present(v) for k, v in props.items()}
        base = {k: s.answer for k, s in first.items()}
        base_meant = {k: s.meant for k, s in first.items()}
        found = [Shape("{all present}", base, base_meant)]
        optional = [k for k in props if k not in required]
        forced = [k for k in optional if not self.nullable(props[k])]
        if self.strict and forced:
            # codex's "nothing" everywhere at once: every forced null together
            found.append(Shape("{all forced null}", {**base, **dict.fromkeys(forced)},
                               {k: v for k, v in base_meant.items() if k not in forced}))
        if not self.strict and optional:
            found.append(Shape("{all optional absent}",
                               {k: v for k, v in base.items() if k not in optional},
                               {k: v for k, v in base_meant.items() if k not in optional}))
        for key, sub in props.items():
            for value in self.values(sub):
                found.append(Shape(f"{key}={value.label}", {**base, key: value.answer},
                                   {**base_meant, key: value.meant}))
            rest = {k: v for k, v in base_meant.items() if k != key}
            if key in forced and self.strict:
                found.append(Shape(f"{key}=null (forced)", {**base, key: None}, rest))
            elif key in optional and not self.strict:
                found.append(Shape(f"{key} absent",
                                   {k: v for k, v in base.items() if k != key}, rest))
        return found

    def present(self, node: dict[str, Any]) -> Shape:
        """A value for ``node`` that is there: the first one that is not null."""
        return next(s for s in self.values(node) if s.answer is not None)


def _cases(strict: bool) -> list[Any]:
    return [pytest.param(model, shape, id=f"{model.__name__}:{shape.label}")
            for model in MODELS
            for shape in Shapes(model.model_json_schema(), strict=strict).all()]


# -- each backend's reading of its CLI's output ----------------------------------------


def _request(model: type[pydantic.BaseModel]) -> AgentRequest:
    return AgentRequest("p", Path("s"), model, (), (), (), 5, None, Path("."), 1.0, "sid")


def _claude_reads(model: type[pydantic.BaseModel], answer: Any) -> pydantic.BaseModel:
    """What claude -p --output-format stream-json prints, read as ClaudeBackend.run does."""
    lines = [{"type": "system", "subtype": "init", "session_id": "sid"},
             {"type": "result", "subtype": "success", "is_error": False, "session_id": "sid",
              "result": "", "structured_output": answer}]
    done = Completed(("claude",), 0, "\n".join(json.dumps(x) for x in lines), "", 0.1)
    return claude.to_result(claude.parse_result(done), _request(model)).output


def _codex_reads(model: type[pydantic.BaseModel], answer: Any) -> pydantic.BaseModel:
    """What codex exec --json prints, read as CodexBackend.run does: the stream, then
    the last agent_message as the answer."""
    lines = [{"type": "thread.started", "thread_id": "t-1"}, {"type": "turn.started"},
             {"type": "item.completed",
              "item": {"id": "i1", "type": "agent_message", "text": "working on it"}},
             {"type": "item.completed",
              "item": {"id": "i2", "type": "agent_message", "text": json.dumps(answer)}},
             {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 2}}]
    state = StreamState(model="m")
    reader = stream_reader(state, None)
    for line in lines:
        reader(json.dumps(line))
    request = _request(model)
    done = Completed(("codex",), 0, "", "", 0.1)
    return codex.to_result(state, done, request, state.result(request, "m", 1),
                           state.figures("m", 1)).output


# -- the tests ---------------------------------------------------------------------------


def test_every_output_an_agent_file_can_name_has_its_model_here() -> None:
    named = get_args(AgentSpec.model_fields["output"].annotation)
    assert set(named) == set(MODELS_BY_OUTPUT)


@pytest.mark.parametrize(("model", "shape"), _cases(strict=False))
def test_claude_reads_every_answer_its_schema_allows(
        model: type[pydantic.BaseModel], shape: Shape) -> None:
    jsonschema.validate(shape.answer, model.model_json_schema())
    assert _claude_reads(model, shape.answer) == model.model_validate(shape.meant)


@pytest.mark.parametrize(("model", "shape"), _cases(strict=True))
def test_codex_reads_every_answer_its_strict_schema_allows(
        model: type[pydantic.BaseModel], shape: Shape) -> None:
    schema = model.model_json_schema()
    jsonschema.validate(shape.answer, strict_schema(schema))
    jsonschema.validate(shape.meant, schema)  # a forced null means the property's absence
    assert _codex_reads(model, shape.answer) == model.model_validate(shape.meant)


def test_the_shapes_include_the_nulls_that_broke_every_phase() -> None:
    labels = {s.label for s in Shapes(PhaseOutput.model_json_schema(), strict=True).all()}
    assert "equivalentMutants=null (forced)" in labels
    answer = {"summary": "did it", "equivalentMutants": None, "cannotBeDoneHonestly": None}
    assert _codex_reads(PhaseOutput, answer) == PhaseOutput(summary="did it")


# -- nulls_to_defaults on its own ------------------------------------------------------


class _Leaf(pydantic.BaseModel):
    name: str
    tags: list[str] = pydantic.Field(default_factory=lambda: ["fresh"])


class _Tree(pydantic.BaseModel):
    leaves: list[_Leaf] = pydantic.Field(default_factory=list)
    best: _Leaf | None = None
    note: str | None = "keep me unless told"  # already nullable: null is an answer
    must: int | None  # required and nullable: null is the only way to say nothing
    count: int = 3


def test_forced_nulls_become_defaults_at_every_depth_and_real_nulls_stay() -> None:
    schema = _Tree.model_json_schema()
    answer = {"leaves": [{"name": "a", "tags": None}, {"name": "b", "tags": ["t"]}],
              "best": {"name": "c", "tags": None}, "note": None, "must": None,
              "count": None}
    sent = json.dumps(answer)
    jsonschema.validate(answer, strict_schema(schema))
    cleaned = nulls_to_defaults(schema, answer)
    assert cleaned == {"leaves": [{"name": "a"}, {"name": "b", "tags": ["t"]}],
                       "best": {"name": "c"}, "note": None, "must": None}
    assert json.dumps(answer) == sent  # the model's own answer is kept for the record
    tree = _Tree.model_validate(cleaned)
    assert (tree.leaves[0].tags, tree.best, tree.note, tree.must, tree.count) == (
        ["fresh"], _Leaf(name="c"), None, None, 3)


def test_what_is_no_forced_null_comes_back_as_it_was() -> None:
    schema = _Tree.model_json_schema()
    for answer in ({"must": 1, "stray": None}, {"must": None, "leaves": "not a list"},
                   [None], None, "text"):
        assert nulls_to_defaults(schema, answer) == answer
