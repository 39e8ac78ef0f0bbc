"""The scripted fake model server, driven over real HTTP with urllib."""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from rgr.fake_model import (
    STRUCTURED_OUTPUT_TOOL,
    CutStream,
    FakeModelServer,
    Hang,
    HttpError,
    SessionScript,
    Text,
    bash,
    edit,
    read,
    structured,
    write,
)
from rgr.fake_model.server import count_turn

TOOLS = [{"name": "Bash"}, {"name": STRUCTURED_OUTPUT_TOOL}]


def body(
    messages: list[dict[str, Any]] | None = None,
    *,
    stream: bool = True,
    tools: list[dict[str, Any]] | None = None,
    system: Any = "You are the TESTER.",
) -> dict[str, Any]:
    return {
        "model": "claude-test",
        "max_tokens": 100,
        "stream": stream,
        "system": system,
        "tools": TOOLS if tools is None else tools,
        "messages": messages or [{"role": "user", "content": "go"}],
    }


def post(
    url: str, payload: dict[str, Any], session: str | None = "s1", path: str = "/v1/messages"
) -> tuple[int, str, bytes]:
    data = json.dumps(payload).encode()
    request = urllib.request.Request(url + path, data=data, method="POST")
    request.add_header("Content-Type", "application/json")
    if session is not None:
        request.add_header("X-Claude-Code-Session-Id", session)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


def sse(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for frame in raw.decode().split("\n\n"):
        if not frame.strip():
            continue
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        data = json.loads(lines["data"])
        assert data["type"] == lines["event"]
        events.append((lines["event"], data))
    return events


def assistant_tool_use(tool_id: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {}}],
    }


def tool_result(tool_id: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id}]}


# -- framing ---------------------------------------------------------------------------


def test_tool_call_streams_like_the_real_api() -> None:
    with FakeModelServer([SessionScript([bash("git status")])]) as server:
        payload = body()
        status, content_type, raw = post(server.url, payload)
    assert status == 200
    assert content_type == "text/event-stream"
    events = sse(raw)
    assert [name for name, _ in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = events[0][1]["message"]
    assert start["role"] == "assistant" and start["content"] == []
    assert start["usage"]["input_tokens"] == len(json.dumps(payload).encode()) // 4
    block = events[2][1]["content_block"]
    assert block["type"] == "tool_use" and block["name"] == "Bash" and block["input"] == {}
    delta = events[3][1]["delta"]
    assert delta["type"] == "input_json_delta"
    assert json.loads(delta["partial_json"]) == {"command": "git status"}
    assert events[5][1]["delta"]["stop_reason"] == "tool_use"
    assert events[5][1]["usage"]["output_tokens"] > 0


def test_text_step_ends_the_turn() -> None:
    with FakeModelServer([SessionScript([Text("all done")])]) as server:
        _, _, raw = post(server.url, body())
    events = dict(sse(raw))
    assert events["content_block_delta"]["delta"] == {"type": "text_delta", "text": "all done"}
    assert events["message_delta"]["delta"]["stop_reason"] == "end_turn"


def test_non_streaming_request_gets_a_whole_message() -> None:
    with FakeModelServer([SessionScript([structured({"ok": True})])]) as server:
        status, content_type, raw = post(server.url, body(stream=False))
    message = json.loads(raw)
    assert (status, content_type) == (200, "application/json")
    assert message["stop_reason"] == "tool_use"
    [block] = message["content"]
    assert (block["name"], block["input"]) == (STRUCTURED_OUTPUT_TOOL, {"ok": True})


# -- sessions and turns ----------------------------------------------------------------


def test_turn_is_counted_from_tool_use_blocks_in_the_request() -> None:
    script = SessionScript([bash("one"), bash("two"), structured({"n": 3})])
    with FakeModelServer([script]) as server:
        first = sse(post(server.url, body())[2])[2][1]["content_block"]["id"]
        # claude may merge consecutive assistant turns into one message: blocks count.
        merged: list[dict[str, Any]] = [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": first, "name": "Bash", "input": {}},
                    {"type": "tool_use", "id": "x", "name": "Bash", "input": {}},
                ],
            },
            tool_result(first),
        ]
        events = sse(post(server.url, body(merged))[2])
        records = server.requests
    assert events[2][1]["content_block"]["name"] == STRUCTURED_OUTPUT_TOOL
    assert [r.turn for r in records] == [0, 2]


def test_count_turn_counts_text_answers_too() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "text", "text": "hmm"}]},
        {"role": "user", "content": "call StructuredOutput"},
        assistant_tool_use("t1"),
        tool_result("t1"),
    ]
    assert count_turn(messages) == 2


def test_tool_use_ids_are_unique_across_sessions() -> None:
    scripts = [SessionScript([bash("a"), bash("b")]), SessionScript([bash("c")])]
    ids = []
    with FakeModelServer(scripts) as server:
        for session in ("s1", "s2"):
            ids.append(sse(post(server.url, body(), session)[2])[2][1]["content_block"]["id"])
        # s1 again, same turn (a retry): a new answer gets a new id.
        ids.append(sse(post(server.url, body(), "s1")[2])[2][1]["content_block"]["id"])
        assert server.sessions == {"s1": 0, "s2": 1}
    assert len(set(ids)) == 3


def test_side_calls_get_text_and_consume_no_script() -> None:
    with FakeModelServer([SessionScript([bash("a")])]) as server:
        _, _, raw = post(server.url, body(tools=[]), session="s1")
        assert dict(sse(raw))["content_block_delta"]["delta"]["text"] == "OK"
        assert server.remaining == 1
        assert server.sessions == {}
        assert [r.step for r in server.requests] == ["side"]


def test_empty_queue_answers_500_and_records_the_error() -> None:
    with FakeModelServer([SessionScript([bash("a")])]) as server:
        post(server.url, body(), session="s1")
        status, _, raw = post(server.url, body(), session="s2")
        errors = server.errors
    assert status == 500
    assert json.loads(raw)["error"]["type"] == "api_error"
    assert len(errors) == 1 and "no session script left" in errors[0] and "s2" in errors[0]


def test_script_run_past_its_end_is_an_error() -> None:
    with FakeModelServer([SessionScript([bash("a")])]) as server:
        status, _, _ = post(server.url, body([assistant_tool_use("t"), tool_result("t")]))
        assert status == 500
        assert "asked for turn 1" in server.errors[0]


def test_system_prompt_expectation() -> None:
    scripts = [
        SessionScript([bash("a")], expect_system_contains="TESTER"),
        SessionScript([bash("a")], expect_system_contains="IMPLEMENTER"),
    ]
    system_blocks = [{"type": "text", "text": "You are the TESTER."}]
    with FakeModelServer(scripts) as server:
        assert post(server.url, body(system=system_blocks), session="s1")[0] == 200
        assert post(server.url, body(), session="s2")[0] == 500
        assert server.requests[0].system == "You are the TESTER."
        [error] = server.errors
    assert "IMPLEMENTER" in error and "s2" in error


# -- failures --------------------------------------------------------------------------


def test_http_error_repeats_then_the_answer_follows() -> None:
    script = SessionScript([HttpError(529, "overloaded_error", "Overloaded", times=2), bash("a")])
    with FakeModelServer([script]) as server:
        statuses = [post(server.url, body())[0] for _ in range(3)]
        status, _, raw = post(server.url, body(stream=False))  # would be the retry of a retry
        records = server.requests
    assert statuses == [529, 529, 200]
    assert json.loads(raw)["content"][0]["name"] == "Bash" and status == 200
    assert [(r.turn, r.attempt, r.step) for r in records] == [
        (0, 0, "http_error"),
        (0, 1, "http_error"),
        (0, 2, "tool_call"),
        (0, 3, "tool_call"),
    ]


def test_http_error_body_is_anthropics_shape() -> None:
    script = SessionScript([HttpError(429, "rate_limit_error", "slow down")])
    with FakeModelServer([script]) as server:
        status, _, raw = post(server.url, body())
        again, _, _ = post(server.url, body())  # a trailing failure repeats forever
    assert (status, again) == (429, 429)
    assert json.loads(raw) == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
    }


def test_cut_stream_truncates_the_response() -> None:
    with FakeModelServer([SessionScript([CutStream(), bash("a")])]) as server:
        with pytest.raises((http.client.IncompleteRead, ConnectionError)):
            post(server.url, body())
        assert post(server.url, body())[0] == 200


def test_hang_never_answers_and_does_not_block_shutdown() -> None:
    server = FakeModelServer([SessionScript([Hang(60)])]).start()
    try:
        request = urllib.request.Request(
            server.url + "/v1/messages",
            data=json.dumps(body()).encode(),
            headers={"X-Claude-Code-Session-Id": "s1"},
        )
        with pytest.raises(TimeoutError):
            urllib.request.urlopen(request, timeout=0.5)
    finally:
        started = time.monotonic()
        server.stop()
    assert time.monotonic() - started < 3


# -- other endpoints, usage, scripts as data -------------------------------------------


def test_other_endpoints_are_answered_and_recorded() -> None:
    with FakeModelServer() as server:
        status, _, raw = post(server.url, body(), path="/v1/messages/count_tokens")
        assert status == 200 and json.loads(raw)["input_tokens"] > 0
        head = urllib.request.Request(server.url + "/", method="HEAD")
        with urllib.request.urlopen(head, timeout=5) as response:
            assert response.status == 200
        assert post(server.url, {}, path="/v1/unknown")[0] == 404
        assert [(r.method, r.step) for r in server.requests] == [
            ("POST", "count_tokens"),
            ("HEAD", "other"),
            ("POST", "other"),
        ]


def test_usage_totals_per_session() -> None:
    with FakeModelServer([SessionScript([bash("a"), structured({"ok": True})])]) as server:
        first = body()
        post(server.url, first)
        second = body(
            [{"role": "user", "content": "go"}, assistant_tool_use("t"), tool_result("t")]
        )
        post(server.url, second)
        usage = server.usage["s1"]
        records = server.requests
    assert usage.requests == 2
    assert usage.input_tokens == sum(r.input_tokens for r in records)
    assert usage.input_tokens == (
        len(json.dumps(first).encode()) // 4 + len(json.dumps(second).encode()) // 4
    )
    assert usage.output_tokens == sum(r.output_tokens for r in records) > 0


def test_scripts_round_trip_through_json() -> None:
    script = SessionScript(
        [
            write("a.py", "x = 1\n"),
            edit("a.py", "1", "2"),
            read("a.py"),
            bash("git commit -am x"),
            Text("thinking"),
            HttpError(529, "overloaded_error", "Overloaded", times=2),
            Hang(0.5),
            CutStream(),
            structured({"ok": True}),
        ],
        expect_system_contains="TESTER",
        name="red",
    )
    data = json.loads(json.dumps(script.to_dict()))
    assert SessionScript.from_dict(data) == script
    assert len(script.turns) == 6
    assert len(script.turns[-1].failures) == 4  # two 529s, the hang, the cut


@pytest.mark.parametrize(
    "data",
    [{"steps": [{"kind": "telepathy"}]}, {"steps": [{"kind": "text"}]}, {"steps": "nope"}],
)
def test_bad_script_data_is_rejected(data: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        SessionScript.from_dict(data)
