"""events.jsonl's codec: ``from_json`` is ``to_json`` backwards for every event kind
(found, not listed: a new kind is covered without touching this file), reads what the
run folder adds to a line, and takes lines older rgr versions wrote."""

from __future__ import annotations

import ast
import json
import types
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

import rgr
from rgr.observe import events
from rgr.observe.artifacts import RunArtifacts, read_events
from rgr.observe.events import (
    AgentCalled,
    AgentStreamed,
    AttemptStarted,
    Event,
    Retry,
    SandboxShown,
    TestRun,
    UnknownEvent,
    Where,
    from_json,
    to_json,
)


def _sample(hint: Any, name: str) -> Any:
    """A value of type ``hint`` that is not the field's default."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return _sample(next(a for a in get_args(hint) if a is not type(None)), name)
    if hint is Where:
        return Where("REFACTOR", 2, 3, "session-1", batch="b-7")
    if hint is bool:
        return True
    if hint is int:
        return 7
    if hint is float:
        return 1.25
    if hint is str:
        return f"{name}-value"
    if origin is list:
        (item,) = get_args(hint)
        return [_sample(item, name)]
    if is_typeddict(hint):
        return {key: _sample(kind, key) for key, kind in get_type_hints(hint).items()}
    if origin is dict or hint is dict:
        return {"key": ["nested", 1, None, {"deep": True}]}
    raise AssertionError(f"no sample for {name}: {hint!r}")


def _full(cls: type[Event]) -> Event:
    """An instance of ``cls`` with every field ``to_json`` writes set to a sample."""
    hints = get_type_hints(cls)
    values = {f.name: _sample(hints[f.name], f.name) for f in fields(cls)
              if f.metadata.get("recorded", True)}
    return cls(**values)


KINDS = sorted(events.event_classes().values(), key=lambda c: c.kind)


def test_every_event_class_is_found_with_its_own_kind() -> None:
    declared = {c for c in vars(events).values()
                if isinstance(c, type) and issubclass(c, Event)
                and c not in (Event, UnknownEvent)}
    assert set(KINDS) == declared and len(KINDS) == 14


@pytest.mark.parametrize("cls", KINDS, ids=lambda c: c.kind)
def test_every_kind_round_trips_through_a_line(cls: type[Event]) -> None:
    event = _full(cls)
    line = json.dumps(to_json(event), ensure_ascii=False)
    assert from_json(line) == event
    assert from_json(json.loads(line)) == event
    assert to_json(from_json(line)) == to_json(event)  # the same line, key for key


@pytest.mark.parametrize("cls", KINDS, ids=lambda c: c.kind)
def test_every_kind_round_trips_with_its_defaults(cls: type[Event]) -> None:
    hints = get_type_hints(cls)
    required = {f.name: _sample(hints[f.name], f.name) for f in fields(cls)
                if f.default is MISSING and f.default_factory is MISSING}
    event = cls(**required)
    assert from_json(json.dumps(to_json(event))) == event


def test_a_where_without_a_batch_round_trips() -> None:
    event = AgentCalled(where=Where("RED", 1, 2, "s"), ok=False, cost_usd=None, ts="T")
    assert from_json(json.dumps(to_json(event))) == event


def test_the_run_folders_additions_are_read_back(tmp_path: Path) -> None:
    """What RunArtifacts writes beside to_json's fields comes back typed."""
    folder = RunArtifacts(tmp_path, "run-1", {})
    where = Where("RED", 1, 1, "s1")
    prompt = tmp_path / "system.md"
    prompt.write_text("system", encoding="utf-8")
    folder.emit(AttemptStarted(where=where, prompt="write a test",
                               system_prompt_file=str(prompt)))
    folder.emit(AgentStreamed(where=where, event={"type": "assistant", "message": {
        "content": [{"type": "tool_use", "name": "Write", "input": {}}]}}))
    folder.emit(AgentStreamed(where=where, event={
        "type": "system", "subtype": "api_retry", "attempt": 1, "max_retries": 3,
        "error_status": 529, "retry_delay_ms": 500}))
    folder.emit(AgentCalled(where=where, ok=True, cost_usd=0.5, duration_api_ms=900,
                            result={"ok": 1}))
    folder.emit(TestRun(command=["pytest"], exit_code=1, output="1 failed"))
    folder.emit(Retry(phase="RED", cycle=1, attempt=2, reason="again"))
    folder.close()
    decoded = [from_json(r) for r in read_events(folder.events_path)]
    started, api_retry, call, test_run, retry = decoded
    assert isinstance(started, AttemptStarted) and started.dir == "attempts/001-c1-RED-a1"
    assert started.prompt == ""  # the prompt is a file of its own, not in the line
    assert isinstance(api_retry, Retry) and api_retry.source == "api"
    assert (api_retry.phase, api_retry.cycle, api_retry.attempt) == ("RED", 1, 1)
    assert isinstance(call, AgentCalled)
    assert (call.tool_calls, call.refused_edits, call.duration_api_ms, call.dir,
            call.cost_usd, call.result) == (1, 0, 900, "attempts/001-c1-RED-a1", 0.5, None)
    assert isinstance(test_run, TestRun) and test_run.output_file == "tests/004.txt"
    assert test_run.output == "" and test_run.exit_code == 1
    assert isinstance(retry, Retry) and retry.source == "rgr" and retry.reason == "again"
    assert [e.seq for e in decoded] == [1, 2, 3, 4, 5]


def test_an_unknown_kind_is_kept_as_it_was() -> None:
    line = '{"type": "made_up_later", "ts": "2026-11-01T00:00:00Z", "seq": 4, "x": [1]}'
    event = from_json(line)
    assert event == UnknownEvent(ts="2026-11-01T00:00:00Z", seq=4, line=json.loads(line))
    assert to_json(event) == json.loads(line)
    assert isinstance(from_json({"no": "type"}), UnknownEvent)


def test_old_and_odd_lines_read_with_defaults() -> None:
    """Older lines lack fields, carry keys this rgr does not know, or hold a null where
    a number belongs: each such value takes its default (the readers' old
    ``.get(key) or 0``), never an exception."""
    old = from_json({"type": "agent_call", "ts": "T", "phase": "GREEN", "cycle": 2,
                     "attempt": 1, "ok": True, "costUsd": 0.1, "inputTokens": None,
                     "numTurns": 3.0, "durationMs": "slow", "someOldKey": 1})
    assert isinstance(old, AgentCalled)
    assert old.where == Where("GREEN", 2, 1, "")  # no sessionId in the line
    assert (old.cost_usd, old.input_tokens, old.num_turns, old.duration_ms) == (0.1, 0, 3, 0)
    codex = from_json({"type": "agent_call", "ts": "T", "ok": True, "costUsd": None})
    assert isinstance(codex, AgentCalled) and codex.cost_usd is None  # not reported != 0
    bare = from_json({"type": "test_run"})
    assert bare == TestRun(ts="")  # a line without a time gets none, not now
    verdict = from_json({"type": "guard_verdict", "ok": False,
                         "violations": [{"rule": "r", "line": 3}, "junk", 3]})
    assert isinstance(verdict, events.GuardVerdict)
    assert verdict.violations == [{"rule": "r", "message": "", "path": None}]
    note = from_json({"type": "sandbox", "ts": "T", "seq": 2, "tools": ["git"]})
    assert note == SandboxShown(ts="T", seq=2, note={"tools": ["git"]})


def test_a_torn_line_is_an_error_the_readers_skip() -> None:
    with pytest.raises(ValueError):
        from_json('{"type": "agent_call", "ts": "2026')
    with pytest.raises(ValueError):
        from_json("[1, 2]")


def test_no_reader_matches_an_event_kind_by_its_name() -> None:
    """Outside the codec an event is matched by its class (or ``Kind.kind``), never by
    the JSON ``type`` string: a renamed kind cannot leave a reader behind. Kinds with
    an underscore are distinctive everywhere; the one-word ones (retry, sandbox,
    adequacy) are also a CLI command and note keys, so they are looked for where events
    are read."""
    root = Path(rgr.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == Path(events.__file__):
            continue
        readers = path.parent.name in ("observe", "web")
        kinds = {k for k in events.event_classes() if readers or "_" in k}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in kinds:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
    assert found == []


# -- the typed events and their one encoding ------------------------------------------------


def test_each_event_class_has_its_own_kind_and_encodes_in_field_order() -> None:
    from rgr.observe import events

    classes = [c for c in vars(events).values()
               if isinstance(c, type) and issubclass(c, events.Event)
               and c not in (events.Event, events.UnknownEvent)]
    kinds = [c.kind for c in classes]
    assert len(kinds) == len(set(kinds)) == 14
    batch = Where("REFACTOR", 0, 2, "s9", batch="b-1")
    started = events.to_json(AttemptStarted(where=batch, max_turns=5, ts="T"))
    assert list(started)[:8] == ["type", "ts", "phase", "cycle", "attempt", "sessionId",
                                 "batch", "agent"]
    assert started["maxTurns"] == 5 and started["type"] == "attempt_started"
    # the fields for observers only never reach a line; a sandbox note is flattened
    call = events.to_json(AgentCalled(where=batch, ok=True, duration_api_ms=5,
                                      result={"secret": "kept apart"}))
    assert "result" not in call and "durationApiMs" not in call
    assert events.to_json(events.SandboxShown(note={"tools": ["git"]}, ts="T")) == {
        "type": "sandbox", "ts": "T", "tools": ["git"]}
