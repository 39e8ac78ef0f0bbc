"""The scripted Gemini API server (rgr.fake_model.gemini), over real HTTP: the same
claude-shaped scripts become Gemini function calls, the turn is read from the history
the CLI sends back, and the session from the header rgr asks the CLI to send."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from rgr.fake_model import HttpError, SessionScript, Text, bash, edit, read, structured, write
from rgr.fake_model.gemini import (
    SESSION_HEADER,
    GeminiModelServer,
    count_answers,
    first_user_text,
    translate,
)

TOOLS = [{"functionDeclarations": [{"name": "write_file"}, {"name": "run_shell_command"}]}]
PATH = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"


def _post(url: str, body: dict[str, Any], session: str = "s1") -> tuple[int, Any]:
    request = urllib.request.Request(url + PATH, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              SESSION_HEADER: session})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            text = answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    events = [json.loads(line[len("data: "):]) for line in text.splitlines()
              if line.startswith("data: ")]
    return 200, events


def _contents(*model_parts: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "parts": [
        {"text": "<session_context>\nThis is the Gemini CLI."}, {"text": "Do cycle 1"}]}]
    for part in model_parts:
        out += [{"role": "model", "parts": [part]},
                {"role": "user", "parts": [{"functionResponse": {"name": "x"}}]}]
    return out


def test_steps_become_gemini_parts() -> None:
    assert translate(write("a.py", "x\n")) == {
        "functionCall": {"name": "write_file", "args": {"file_path": "a.py", "content": "x\n"}}}
    assert translate(bash("git commit -qm x"))["functionCall"] == {
        "name": "run_shell_command", "args": {"command": "git commit -qm x"}}
    assert translate(read("f"))["functionCall"]["name"] == "read_file"
    assert translate(edit("f", "a", "b"))["functionCall"]["args"]["new_string"] == "b"
    assert json.loads(translate(structured({"summary": "s"}))["text"]) == {"summary": "s"}
    assert translate(Text("hi")) == {"text": "hi"}


def test_the_prompt_is_read_without_the_clis_session_context() -> None:
    assert first_user_text({"contents": _contents()}) == "Do cycle 1"


def test_the_turn_counts_model_calls_and_texts_not_thoughts() -> None:
    contents = _contents({"functionCall": {"name": "a"}}, {"text": "thinking", "thought": True},
                         {"text": "done"})
    assert count_answers(contents) == 2


def test_a_session_plays_its_script_turn_by_turn() -> None:
    script = SessionScript([write("a.py", "x\n"), structured({"summary": "ok"})])
    with GeminiModelServer([script]) as server:
        status, events = _post(server.url, {"contents": _contents(), "tools": TOOLS})
        assert status == 200
        assert events[0]["candidates"][0]["content"]["parts"][0]["functionCall"]["name"] == \
            "write_file"
        assert events[0]["usageMetadata"]["promptTokenCount"] > 0
        called = {"functionCall": {"name": "write_file", "args": {}}}
        _, events = _post(server.url, {"contents": _contents(called), "tools": TOOLS})
        assert json.loads(events[0]["candidates"][0]["content"]["parts"][0]["text"]) == {
            "summary": "ok"}
        # A request without tools (a routing check) is a side call: it takes no script.
        _, events = _post(server.url, {"contents": _contents()}, session="other")
        assert events[0]["candidates"][0]["content"]["parts"][0]["text"] == "OK"
        assert server.sessions == {"s1": 0} and server.errors == []
        assert server.requests[0].first_user_text == "Do cycle 1"


def test_an_http_error_has_googles_shape() -> None:
    script = SessionScript([HttpError(429, "rate_limit", "Resource exhausted"), Text("x")])
    with GeminiModelServer([script]) as server:
        status, body = _post(server.url, {"contents": _contents(), "tools": TOOLS})
    assert status == 429
    assert body == {"error": {"code": 429, "message": "Resource exhausted",
                              "status": "RESOURCE_EXHAUSTED"}}
