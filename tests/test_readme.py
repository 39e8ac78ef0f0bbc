"""The README is what a newcomer reads first: its samples must be what the current code
writes. Every handoff note it shows parses as a note of the current schema with exactly
the fields rgr writes today; its JSON blocks parse; and it names no path of the machine
it was written on and no internal planning document."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from conftest import REPO_ROOT

from rgr.store.handoff import BatchNote, HandoffState, RefactorProgress, parse_note

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```", README, re.DOTALL | re.MULTILINE)


def _shown_notes() -> list[str]:
    """The JSON printed after each `$ git notes --ref=tdd-handoffs show ...` line."""
    notes = []
    for lang, body in BLOCKS:
        if lang != "console":
            continue
        for match in re.finditer(r"^\$ git notes --ref=tdd-handoffs show .*\n(\{.*?^\})$",
                                 body, re.DOTALL | re.MULTILINE):
            notes.append(match.group(1))
    return notes


def _same_keys(sample: Any, written: Any, where: str = "") -> None:
    """``sample`` has exactly the keys of ``written`` (what the model dumps), nested."""
    if isinstance(written, dict):
        assert isinstance(sample, dict), where
        assert set(sample) == set(written), (where, set(sample) ^ set(written))
        for key in written:
            _same_keys(sample[key], written[key], f"{where}.{key}")


def test_the_readme_shows_at_least_one_whole_note() -> None:
    assert _shown_notes(), "no `git notes ... show` sample found"


@pytest.mark.parametrize("text", _shown_notes())
def test_every_note_sample_is_a_note_of_the_current_schema(text: str) -> None:
    state = parse_note(text)
    _same_keys(json.loads(text), json.loads(state.to_json()), "note")
    assert state.schema_version == 1 and state.run_id and state.agent is not None


def test_every_json_block_parses_and_refactor_fields_match_the_schema() -> None:
    blocks = [body for lang, body in BLOCKS if lang == "json"]
    assert blocks
    for body in blocks:
        data = json.loads(body)
        if "batch" in data:
            batch = BatchNote.model_validate(data["batch"])
            _same_keys(data["batch"], batch.model_dump(mode="json", by_alias=True), "batch")
        if "refactor" in data:
            progress = RefactorProgress.model_validate(data["refactor"])
            _same_keys(data["refactor"], progress.model_dump(mode="json", by_alias=True),
                       "refactor")
        if "phase" in data:
            HandoffState.model_validate(data)


def test_no_path_of_the_writers_machine_and_no_internal_documents() -> None:
    for needle in ("/work/", "/root/", "wt-", "/tmp/exp", "pytest-of-"):
        assert needle not in README, needle
    assert not re.search(r"\bseed(s|-era)? ?\d*\b", README, re.IGNORECASE)
    assert not re.search(r"\bissues? \d", README, re.IGNORECASE)


def test_the_first_command_says_where_it_runs() -> None:
    start = README[: README.index("```sh")]
    assert "clone" in start


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    """The README's second fenced command (the tests) is the command .ci/run runs: what
    a newcomer runs is what CI proves."""
    commands = [body.strip() for lang, body in BLOCKS if lang == "sh"]
    assert len(commands) >= 2, "the README starts with two sh blocks: install+run, tests"
    ci_lines = (REPO_ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci_lines[-1].strip() == commands[1]
