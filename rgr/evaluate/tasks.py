"""The task format of `rgr eval`: JSON Lines, one task a line, ``"version": 1``.

A task names a repository (a path, relative to the tasks file, or a URL) at a commit,
the feature an agent is asked for, the hidden acceptance tests (each file's text, or a
file beside the tasks file, and the path it is placed at in the result's checkout) with
the command that runs them, and optionally the command whose tests are the regression
check (the project's own suite). Every line is validated on its own; a bad one is named
by its line number and field, and nothing runs.

The hidden tests are read here once and kept, as text, in the eval's vault
(rgr.evaluate.vault), never in a repository an agent works in.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rgr.base.errors import RgrError

FORMAT_VERSION = 1
#: What one hidden file may hold: more is not a test file.
MAX_HIDDEN_BYTES = 256 * 1024
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
_URL = re.compile(r"^(https?|ssh|git|file)://|^[\w.-]+@[\w.-]+:")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _relative(path: str) -> str:
    """A relative POSIX path inside the checkout: no ``..``, no absolute path."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path:
        raise ValueError(f"{path!r} must be a relative path inside the repository")
    if pure.parts[0] == ".git":
        raise ValueError(f"{path!r} is inside .git")
    return str(pure)


class HiddenFile(_Model):
    """One hidden test file: ``path`` in the checkout; ``text`` its content, or
    ``source`` a file (relative to the tasks file) read when the tasks are stored."""

    path: str
    text: str | None = None
    source: str | None = None

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        return _relative(value)

    def model_post_init(self, _context: object) -> None:
        if (self.text is None) == (self.source is None):
            raise ValueError("give exactly one of text and source")


class HiddenTests(_Model):
    files: list[HiddenFile] = Field(min_length=1)
    #: The argv that runs them in the result's checkout (their paths in it).
    command: list[str] = Field(min_length=1)
    #: How many tests the files hold: a result where they do not even load scores 0 of
    #: this (absent: what ran, at least 1).
    count: int | None = Field(default=None, ge=1)


class Regression(_Model):
    #: The argv of the project's own suite; absent: the project's configured or
    #: detected test command (rgr.ecosystems.registry).
    command: list[str] | None = None


class Task(_Model):
    version: Literal[1]
    id: str
    repo: str
    commit: str = Field(min_length=1)
    feature: str = Field(min_length=1, max_length=20_000)
    hidden_tests: HiddenTests
    regression: Regression | None = None
    #: Where the task comes from, for the report (a corpus project's name, say).
    ecosystem: str = ""

    @field_validator("id")
    @classmethod
    def _safe_id(cls, value: str) -> str:
        if not _ID.fullmatch(value):
            raise ValueError("letters, digits, '.', '_' and '-' only (it names folders)")
        return value

    @property
    def is_url(self) -> bool:
        return bool(_URL.match(self.repo))


class TaskError(RgrError):
    category = "config"


def _where(error: dict[str, object]) -> str:
    return ".".join(str(p) for p in error["loc"]) or "(the line)"  # type: ignore[attr-defined]


def parse_line(text: str, line: int, origin: str) -> Task:
    """One task from one line, or TaskError naming the line and the field."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskError(f"{origin}:{line}: not JSON ({exc.msg} at column {exc.colno})",
                        "one task per line, a JSON object (see docs/eval.md)") from None
    if not isinstance(data, dict):
        raise TaskError(f"{origin}:{line}: a task is a JSON object, not "
                        f"{type(data).__name__}", "see docs/eval.md for the format")
    if data.get("version") != FORMAT_VERSION:
        raise TaskError(f"{origin}:{line}: field 'version' is {data.get('version')!r}; "
                        f"this rgr reads version {FORMAT_VERSION}",
                        f'add "version": {FORMAT_VERSION} (see docs/eval.md)')
    try:
        return Task.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"field '{_where(e)}': {e['msg']}"  # type: ignore[arg-type]
                             for e in exc.errors())
        raise TaskError(f"{origin}:{line}: {problems}", "see docs/eval.md for the format") \
            from None


def load_tasks(path: Path) -> list[Task]:
    """Every task of a JSON Lines file (blank lines and ``//`` comments skipped), the
    hidden files' sources read and inlined, ids unique."""
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskError(f"cannot read the tasks file {path}: {exc.strerror}",
                        "give the path of a .jsonl file of tasks") from None
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(raw.splitlines(), 1):
        if not text.strip() or text.lstrip().startswith("//"):
            continue
        task = inline_sources(parse_line(text, number, str(path)), path.parent, number,
                              str(path))
        if task.id in seen:
            raise TaskError(f"{path}:{number}: field 'id': {task.id!r} is already the id of "
                            f"line {seen[task.id]}", "give every task its own id")
        seen[task.id] = number
        tasks.append(task)
    if not tasks:
        raise TaskError(f"{path} holds no task", "one JSON object a line (docs/eval.md)")
    return tasks


def inline_sources(task: Task, folder: Path, line: int, origin: str) -> Task:
    """The task with each hidden file's ``source`` read into ``text``, and a relative
    ``repo`` path made absolute (both relative to the tasks file's folder)."""
    files = []
    for index, hidden in enumerate(task.hidden_tests.files):
        text = hidden.text
        if hidden.source is not None:
            where = (folder / hidden.source).resolve()
            try:
                text = where.read_text(encoding="utf-8")
            except OSError as exc:
                raise TaskError(
                    f"{origin}:{line}: field 'hidden_tests.files.{index}.source': cannot "
                    f"read {where}: {exc.strerror}",
                    "give a path relative to the tasks file") from None
        assert text is not None
        if len(text.encode()) > MAX_HIDDEN_BYTES:
            raise TaskError(f"{origin}:{line}: field 'hidden_tests.files.{index}': over "
                            f"{MAX_HIDDEN_BYTES >> 10} KiB", "split the file")
        files.append({"path": hidden.path, "text": text})
    data = task.model_dump(mode="json", exclude_none=True)
    data["hidden_tests"]["files"] = files
    if not task.is_url:
        data["repo"] = str((folder / task.repo).resolve())
    return Task.model_validate(data)


def dump_line(task: Task) -> str:
    return json.dumps(task.model_dump(mode="json", exclude_none=True), sort_keys=True)
