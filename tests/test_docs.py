"""The manual (docs/) shows what the current code writes. Every handoff note it shows
parses as a note of the current schema with exactly the fields rgr writes today; its JSON
blocks parse; it names no path of the machine it was written on and no internal planning
document; every page is in the site's menu or a branch's note. The build itself
(mkdocs --strict: broken links and anchors fail) is tests/test_docs_build.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rgr.store.handoff import BatchNote, HandoffState, RefactorProgress, parse_note
from tests.conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs"
#: Notes other branches leave for the manual (docs/notes-<branch>.md), placed at merge.
BRANCH_NOTES = "notes-"
PAGES = {path: path.read_text(encoding="utf-8") for path in sorted(DOCS.rglob("*.md"))
         if not path.name.startswith(BRANCH_NOTES)}
BLOCKS = [(path, lang, body) for path, text in PAGES.items()
          for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", text,
                                       re.DOTALL | re.MULTILINE)]


def page(name: str) -> str:
    """The text of docs/<name>, whitespace folded (a phrase may wrap anywhere)."""
    return " ".join((DOCS / name).read_text(encoding="utf-8").split())


def _shown_notes() -> list[str]:
    """The JSON printed after each `$ git notes --ref=tdd-handoffs show ...` line."""
    notes = []
    for _path, lang, body in BLOCKS:
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


def test_the_manual_shows_at_least_one_whole_note() -> None:
    assert _shown_notes(), "no `git notes ... show` sample found"


@pytest.mark.parametrize("text", _shown_notes())
def test_every_note_sample_is_a_note_of_the_current_schema(text: str) -> None:
    state = parse_note(text)
    _same_keys(json.loads(text), json.loads(state.to_json()), "note")
    assert state.schema_version == 1 and state.run_id and state.agent is not None


def test_every_json_block_parses_and_refactor_fields_match_the_schema() -> None:
    blocks = [(path, body) for path, lang, body in BLOCKS if lang == "json"]
    assert blocks
    for path, body in blocks:
        data = json.loads(body)
        if "batch" in data:
            batch = BatchNote.model_validate(data["batch"])
            _same_keys(data["batch"], batch.model_dump(mode="json", by_alias=True),
                       f"{path.name}: batch")
        if "refactor" in data:
            progress = RefactorProgress.model_validate(data["refactor"])
            _same_keys(data["refactor"], progress.model_dump(mode="json", by_alias=True),
                       f"{path.name}: refactor")
        if "phase" in data:
            HandoffState.model_validate(data)


@pytest.mark.parametrize("path", list(PAGES), ids=lambda p: str(p.relative_to(DOCS)))
def test_no_path_of_the_writers_machine_and_no_internal_documents(path: Path) -> None:
    text = PAGES[path]
    for needle in ("/work/", "/root/", "wt-", "/tmp/exp", "pytest-of-"):
        assert needle not in text, needle
    assert not re.search(r"\bseed(s|-era)? ?\d*\b", text, re.IGNORECASE)
    assert not re.search(r"\bissues? \d", text, re.IGNORECASE)


def test_every_page_is_in_the_menu() -> None:
    """A page left out of mkdocs.yml's nav is built but found by no one (mkdocs only
    logs it); a branch's notes-*.md waits outside the menu until it is placed."""
    config = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s+- (?:[^:\n]+: )?([\w/.-]+\.md)$", config, re.MULTILINE))
    pages = {str(path.relative_to(DOCS)) for path in PAGES}
    assert pages == listed, (pages - listed, listed - pages)


def test_the_configuration_reference_is_generated_from_the_model() -> None:
    """The tdd.toml page holds the hook's marker; the hook writes every key of the
    model and of each of its tables, with the backends the registry names."""
    import importlib.util

    from rgr.base.backend_names import NAMES
    from rgr.base.config import Config

    text = (DOCS / "reference" / "configuration.md").read_text(encoding="utf-8")
    assert "<!-- rgr:configuration -->" in text and "| `max_retries` |" not in text
    spec = importlib.util.spec_from_file_location(
        "config_reference", DOCS / "hooks" / "config_reference.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    reference = hook.config_reference()
    for name, field in Config.model_fields.items():
        assert f"| `{name}` |" in reference or f"| `[{name}]` |" in reference, name
        sub = getattr(field.annotation, "model_fields", {})
        for key in sub:
            assert f"### `[{name}]`" in reference and f"| `{key}` |" in reference, (name, key)
    assert all(repr(name) in reference for name in NAMES)  # 'claude', 'codex', 'gemini'
    assert "`TDD_GEMINI_BINARY`" in reference


def test_the_command_reference_is_generated_not_written() -> None:
    """The page holds the hook's marker, not a hand-copied --help that could drift."""
    text = (DOCS / "reference" / "commands.md").read_text(encoding="utf-8")
    assert "<!-- rgr:commands -->" in text
    assert "Usage: rgr" not in text


def test_the_development_guide_stays_a_guide() -> None:
    """At most 300 lines (issue 43, item 8): the dated logs go to the performance log."""
    lines = (DOCS / "development.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"docs/development.md has {lines} lines: move logs to performance.md"
