"""The scripted Chat Completions server (rgr.fake_model.chat) opencode talks to, over
real HTTP: the same claude-shaped scripts become opencode's tool calls (``apply_patch``
when that is what opencode offers), the turn is read from the history opencode sends
back, the session from the header rgr puts in its provider's config, and the title
request (no tools) is a side call that consumes nothing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from rgr.fake_model import HttpError, SessionScript, Text, bash, edit, read, structured, write
from rgr.fake_model.chat import (
    SESSION_HEADER,
    ChatModelServer,
    count_answers,
    first_user_text,
    translate,
)

TOOLS = [{"type": "function", "function": {"name": name}} for name in ("bash", "edit", "write")]


def _post(url: str, body: dict[str, Any], session: str = "s1") -> tuple[int, Any]:
    request = urllib.request.Request(url + "/v1/chat/completions",
                                     data=json.dumps({"stream": True, **body}).encode(),
                                     headers={"Content-Type": "application/json",
                                              SESSION_HEADER: session})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            text = answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    data = [line[len("data: "):] for line in text.splitlines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]", data
    return 200, [json.loads(chunk) for chunk in data[:-1]]


def _messages(*answers: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are the TESTER"},
                                 {"role": "user", "content": "Do cycle 1"}]
    for answer in answers:
        out += [{"role": "assistant", **answer}, {"role": "tool", "content": "done"}]
    return out


def test_steps_become_opencodes_tool_calls() -> None:
    assert translate(write("a.py", "x\n")) == ("write", {"filePath": "a.py", "content": "x\n"})
    assert translate(edit("f", "a", "b")) == (
        "edit", {"filePath": "f", "oldString": "a", "newString": "b"})
    assert translate(read("f")) == ("read", {"filePath": "f"})
    name, args = translate(bash("git commit -qm x"))  # type: ignore[misc]
    assert (name, args["command"]) == ("bash", "git commit -qm x")
    assert json.loads(str(translate(structured({"summary": "s"})))) == {"summary": "s"}
    assert translate(Text("hi")) == "hi"


def test_a_gpt_model_gets_patches_for_writes_and_edits() -> None:
    offered = ("apply_patch", "bash", "read")
    assert translate(write("a.py", "x\n"), offered) == (
        "apply_patch", {"patchText": "*** Begin Patch\n*** Add File: a.py\n+x\n*** End Patch\n"})
    name, args = translate(edit("f", "a\n", "b\n"), offered)  # type: ignore[misc]
    assert name == "apply_patch" and "*** Update File: f\n@@\n-a\n+b\n" in args["patchText"]


def test_the_turn_counts_tool_calls_and_texts() -> None:
    messages = _messages({"content": None, "tool_calls": [{"id": "1"}, {"id": "2"}]},
                         {"content": ""}, {"content": "done"})
    assert count_answers(messages) == 3
    assert first_user_text({"messages": messages}) == "Do cycle 1"


def test_a_session_plays_its_script_turn_by_turn() -> None:
    script = SessionScript([write("a.py", "x\n"), structured({"summary": "ok"})])
    with ChatModelServer([script]) as server:
        # the title request opencode sends beside the session's: answered, consumes nothing
        status, chunks = _post(server.url, {"messages": _messages()})
        assert status == 200 and chunks[0]["choices"][0]["delta"]["content"] == "OK"
        status, chunks = _post(server.url, {"messages": _messages(), "tools": TOOLS})
        call = chunks[0]["choices"][0]["delta"]["tool_calls"][0]
        assert (status, call["function"]["name"]) == (200, "write")
        assert json.loads(call["function"]["arguments"]) == {"filePath": "a.py", "content": "x\n"}
        assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
        assert chunks[-1]["usage"]["prompt_tokens"] > 0
        called = {"content": None, "tool_calls": [call]}
        _, chunks = _post(server.url, {"messages": _messages(called), "tools": TOOLS})
        assert json.loads(chunks[0]["choices"][0]["delta"]["content"]) == {"summary": "ok"}
        assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
        assert server.errors == []
        assert [r.step for r in server.requests] == ["side", "tool_call", "tool_call"]


def test_an_http_error_is_openai_shaped() -> None:
    script = SessionScript([HttpError(429, "rate_limit", "Rate limit reached")])
    with ChatModelServer([script]) as server:
        status, body = _post(server.url, {"messages": _messages(), "tools": TOOLS})
    assert status == 429 and body["error"]["message"] == "Rate limit reached"
