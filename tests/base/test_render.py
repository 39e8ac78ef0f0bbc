"""rgr.base.render: the one render step of a command's Outcome (rgr.cli.main calls it):
its text or its JSON, never both; the JSON contract's version 1; where ``say`` goes."""

from __future__ import annotations

import json

import pytest

from rgr.base.outcome import Heading, Outcome, Verbatim
from rgr.base.render import JSON_VERSION, json_error, render, speaker


def test_json_is_the_data_as_it_is_and_the_text_is_not_made(
        capsys: pytest.CaptureFixture[str]) -> None:
    made: list[bool] = []

    def text() -> list[str]:
        made.append(True)
        return ["a person's line"]

    assert render(Outcome(text, {"ok": True, "n": 2}, exit_code=1), as_json=True) == 1
    assert json.loads(capsys.readouterr().out) == {"ok": True, "n": 2}
    assert made == []  # a text made only to be thrown away costs a JSON reader nothing


def test_text_is_the_items_and_no_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert render(Outcome([Heading("rgr x", ": [y]"), Verbatim("as [is]")], {"n": 1})) == 0
    assert capsys.readouterr().out == "rgr x: [y]\nas [is]\n"


def test_a_long_list_is_one_row_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    render(Outcome(data=[{"id": 1}, {"id": 2}], rows=True), as_json=True)
    out = capsys.readouterr().out
    assert json.loads(out) == [{"id": 1}, {"id": 2}] and len(out.splitlines()) == 4


def test_a_failure_is_the_version_1_error_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert JSON_VERSION == 1  # raising it means a reader breaks: docs/reference/commands.md
    json_error("repository", "not a git repository", "run it in one", 1)
    assert json.loads(capsys.readouterr().out) == {"error": {
        "kind": "repository", "message": "not a git repository", "hint": "run it in one",
        "exitCode": 1}}


@pytest.mark.parametrize("as_json", [False, True])
def test_say_goes_to_stdout_or_under_json_to_stderr(
        as_json: bool, capsys: pytest.CaptureFixture[str]) -> None:
    say = speaker(as_json)
    say("branch [main]")
    out, err = capsys.readouterr()
    said, silent = (err, out) if as_json else (out, err)
    assert said == "branch [main]\n" and silent == ""
