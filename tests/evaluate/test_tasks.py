"""`rgr eval`'s task format: what a valid line holds, what a bad line is told, and where
the hidden tests are kept (rgr.evaluate.tasks, rgr.evaluate.vault)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from rgr.evaluate import vault
from rgr.evaluate.tasks import TaskError, load_tasks

HIDDEN = "def test_hidden():\n    assert 1 + 1 == 2\n"


def task(**changes: object) -> dict[str, object]:
    line: dict[str, object] = {
        "version": 1, "id": "slug", "repo": "project", "commit": "main",
        "feature": "add slugify",
        "hidden_tests": {"files": [{"path": "tests/test_hidden.py", "source": "hidden.py"}],
                         "command": ["python", "-m", "pytest", "-q", "tests/test_hidden.py"],
                         "count": 1},
        "regression": {}}
    line.update(changes)
    return line


def write(tmp_path: Path, *lines: object) -> Path:
    (tmp_path / "hidden.py").write_text(HIDDEN)
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in lines))
    return path


def test_a_valid_file_is_read_with_sources_inlined_and_paths_resolved(tmp_path: Path) -> None:
    path = write(tmp_path, "// a comment", task(), "",
                 task(id="inline", repo="https://example.com/x.git",
                      hidden_tests={"files": [{"path": "t/test_a.py", "text": "x"}],
                                    "command": ["pytest"]}))
    first, second = load_tasks(path)
    assert first.hidden_tests.files[0].text == HIDDEN
    assert first.repo == str((tmp_path / "project").resolve())
    assert first.regression is not None and first.regression.command is None
    assert second.is_url and second.repo == "https://example.com/x.git"
    assert second.hidden_tests.files[0].text == "x"


@pytest.mark.parametrize(("line", "said"), [
    ("{not json", "tasks.jsonl:2: not JSON"),
    ("[1]", "a task is a JSON object"),
    (task(version=2), "field 'version' is 2"),
    (task(version=None), "field 'version' is None"),
    (task(feature=""), "field 'feature'"),
    (task(id="../x"), "field 'id'"),
    (task(hidden_tests={"files": [{"path": "../etc/x", "text": "x"}], "command": ["t"]}),
     "field 'hidden_tests.files.0.path'"),
    (task(hidden_tests={"files": [{"path": ".git/hooks/x", "text": "x"}], "command": ["t"]}),
     "inside .git"),
    (task(hidden_tests={"files": [{"path": "a.py"}], "command": ["t"]}),
     "exactly one of text and source"),
    (task(hidden_tests={"files": [], "command": ["t"]}), "field 'hidden_tests.files'"),
    (task(unknown=1), "field 'unknown'"),
    (task(hidden_tests={"files": [{"path": "a.py", "source": "nope.py"}], "command": ["t"]}),
     "field 'hidden_tests.files.0.source': cannot read"),
])
def test_a_bad_line_is_named_by_line_and_field(tmp_path: Path, line: object,
                                               said: str) -> None:
    path = write(tmp_path, task(id="good"), line)
    with pytest.raises(TaskError) as caught:
        load_tasks(path)
    message = caught.value.message
    assert said in message, message
    assert "tasks.jsonl:2:" in message, message
    assert caught.value.hint


def test_duplicate_ids_and_an_empty_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="already the id of line 1"):
        load_tasks(write(tmp_path, task(), task()))
    with pytest.raises(TaskError, match="holds no task"):
        load_tasks(write(tmp_path, "// nothing"))


def test_the_vault_is_under_home_owner_only_and_round_trips(tmp_path: Path) -> None:
    path = write(tmp_path, task())
    tasks = load_tasks(path)
    env = {"HOME": str(tmp_path / "home")}
    stored = vault.store(env, path, tasks)
    assert stored.is_relative_to(tmp_path / "home")
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
    assert vault.load(stored) == tasks
    # A state directory outside HOME is not used: a sandbox might show it.
    outside = vault.vault_for({**env, "XDG_STATE_HOME": str(tmp_path / "state")}, path)
    assert outside.is_relative_to(tmp_path / "home")
