"""The history rows built without pydantic (the table, --limit N) are the rows the
model builds (--json over everything): same keys, values and JSON bytes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import get_type_hints

import pytest
from pydantic_core import to_json

from rgr.commands import history
from rgr.store.handoff import HandoffState
from rgr.store.handoff_read import HISTORY_DEFAULTS, HISTORY_NESTED, read_plain
from rgr.store.history.rows import quick_row, row
from rgr.store.note_json import (
    AdequacyShown,
    AgentShown,
    BatchShown,
    CurrentTestJson,
    HistoryFields,
    HistoryRow,
)
from tests.conftest import Repo, fast_commits, note_json
from tests.store.test_handoff_read import mutations, valid_notes


def test_the_plain_projection_knows_the_history_fields() -> None:
    assert set(HistoryFields.__annotations__) == {"phase", *HISTORY_DEFAULTS}
    nested = {"currentTest": CurrentTestJson, "agent": AgentShown, "batch": BatchShown,
              "adequacy": AdequacyShown}
    assert {k: tuple(get_type_hints(v)) for k, v in nested.items()} == dict(HISTORY_NESTED)


def test_a_row_holds_the_models_defaults_for_what_a_note_omits() -> None:
    fields = HandoffState.model_fields
    by_alias = {info.alias or name: info for name, info in fields.items()}
    for key, default in HISTORY_DEFAULTS.items():
        assert by_alias[key].get_default(call_default_factory=True) == default, key


def test_plain_rows_are_the_models_rows() -> None:
    plain_answers = 0
    keys = set(HistoryRow.__annotations__)
    for text in [*valid_notes(), *mutations()]:
        plain_answers += read_plain(text) is not None
        for when in (1_700_000_000, 0):
            made = row("c" * 40, when, text, True)
            assert set(made) == (keys - {"problem"} if "problem" not in made else
                                 {"commit", "reachable", "time", "problem"}), text
            assert to_json(quick_row("c" * 40, when, text, True)) == to_json(made), text
    assert plain_answers > 50


def test_json_limit_and_the_stream_agree(repo: Repo) -> None:
    """--json --limit N (walk from HEAD) gives the last N rows of --json (git log)."""
    commits = fast_commits(repo, 30)
    for i, commit in enumerate(commits):
        repo.note_cli(commit, note_json(["PLAN", "RED", "GREEN", "REFACTOR"][i % 4],
                                        cycleNumber=i // 4, retryCount=i % 3))
    repo.note_cli(commits[7], "not json")

    def history(*args: str) -> list[object]:
        out = subprocess.run([sys.executable, "-m", "rgr", "history", "--json", *args],
                             cwd=repo.path, capture_output=True, text=True, check=True)
        rows = json.loads(out.stdout)
        assert isinstance(rows, list)
        return rows

    everything = history()
    assert len(everything) == 30
    assert history("--limit", "25") == everything[-25:]


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
def test_the_spool_is_written_out_backwards_across_block_edges(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "_SPOOL_BLOCK", block)
    rows = [json.dumps({"n": n, "pad": "x" * (n % 13)}).encode() for n in range(40)]
    for lines, expected in ((rows, b"[\n" + b",\n".join(reversed(rows)) + b"\n]\n"),
                            ([], b"[\n]\n")):
        spool = io.BytesIO(b"".join(line + b"\n" for line in lines))
        assert b"".join(history._backwards(spool)) == expected
