"""Run artifacts: one folder per run under ``.git/rgr/runs/<runId>/``.

Why inside ``.git``: the folder belongs to one repository (like the run lock beside
it), is never committed and never shows in ``git status`` (git does not look inside
its own directory, so no ``.gitignore`` entry is needed), survives checkouts, resets and
branch switches (rgr resets the work tree on every rejected attempt), and goes away with
the clone. Nothing in it is shared by ``git push``.

Layout (``rgr resume`` of the same run appends to the same folder)::

    events.jsonl             one JSON event per line (see rgr.observe.events), without the bulky
                             parts, which are files:
    summary.json             totals and per-phase figures, rewritten after every phase,
                             at a limit and at the end
    tests/NNN.txt            the output of each test run (NNN: event sequence number)
    attempts/NNN-c<cycle>-<PHASE>-a<attempt>/
        prompt.md            the user prompt the agent got
        system-prompt.md     the system prompt file as it was (its version is in
                             request.json and in the note)
        request.json         agent, session id, prompt version, max turns, budget, model
        stream.jsonl         the agent's raw event stream, line by line as it arrived
        result.json          the agent's final result object

Nothing secret is written: no environment is ever dumped, and every string that goes
to disk first passes through a Redactor built from the environment (values of variables
whose names say key/token/secret/password/credential/auth, and API-key shaped strings).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from rgr.observe.events import (
    AgentCalled,
    AgentStreamed,
    AttemptStarted,
    Event,
    InvocationFinished,
    InvocationStarted,
    LimitStopped,
    PhaseDone,
    Record,
    Retry,
    SandboxShown,
    TestRun,
    from_json,
    to_json,
)
from rgr.observe.stream import ApiRetry, refused_edits, tool_calls

RUNS_DIR = Path("rgr") / "runs"

#: Environment variable names whose values are secrets.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|PRIVATE", re.I)

#: Strings that look like credentials wherever they come from.
SECRET_PATTERNS = (
    re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"\bsk-[A-Za-z0-9]{32,}"),
    re.compile(r"gh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"github_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"AKIA[0-9A-Z]{16}"),
    re.compile(r"xox[abprs]-[A-Za-z0-9\-]{10,}"),
)

#: Values shorter than this are not redacted by name ("1", "true" would wreck the text).
MIN_SECRET_LENGTH = 8

REDACTED = "[redacted]"

#: summary.json is rewritten after these events (and when the writer closes); events.jsonl
#: gets every event at once, so a summary left stale by a kill can be rebuilt from it.
SUMMARY_EVENTS = frozenset({InvocationStarted.kind, InvocationFinished.kind,
                            PhaseDone.kind, LimitStopped.kind})


#: In the git dir: one JSON line (``costUsd``) per ``rgr fix-merge``, which has no run
#: folder: with the run folders' agent_call events, what a daemon job's sessions cost.
MERGE_FIX_SPEND = Path("rgr") / "merge-fix-spend.jsonl"


def runs_dir(git_dir: Path) -> Path:
    return git_dir / RUNS_DIR


def sessions_spent(git_dir: Path) -> float:
    """What every agent session of this repository's runs and merge fixes cost, rejected
    ones included (a note is written only for a verified or kept commit)."""
    total = 0.0
    for path in (*sorted(runs_dir(git_dir).glob("*/events.jsonl")), git_dir / MERGE_FIX_SPEND):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            if '"costUsd"' not in line:
                continue
            try:
                total += (_merge_fix_cost(line) if path.name == MERGE_FIX_SPEND.name
                          else _session_cost(from_json(line)))
            except ValueError:
                continue  # a line a kill cut short
    return total


def _session_cost(event: Event) -> float:
    return (event.cost_usd or 0.0) if isinstance(event, AgentCalled) else 0.0


def _merge_fix_cost(line: str) -> float:
    """A line of MERGE_FIX_SPEND (not an event: ``{"costUsd": <float>}``)."""
    record = json.loads(line)
    cost = record.get("costUsd") if isinstance(record, dict) else None
    return float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else 0.0


class Redactor:
    """Replaces secrets found in the environment (and credential-shaped strings)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        values = {v for k, v in env.items() if SECRET_NAME.search(k)
                  and len(v) >= MIN_SECRET_LENGTH}
        # Longest first, so a secret that contains another is replaced whole.
        self.values = sorted(values, key=len, reverse=True)

    def text(self, text: str) -> str:
        for value in self.values:
            if value in text:
                text = text.replace(value, REDACTED)
        for pattern in SECRET_PATTERNS:
            text = pattern.sub(REDACTED, text)
        return text

    def data(self, data: Any) -> Any:
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            return {self.text(str(k)): self.data(v) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return [self.data(v) for v in data]
        return data


class RunArtifacts:
    """The observer that writes a run's folder."""

    def __init__(self, git_dir: Path, run_id: str, env: Mapping[str, str]) -> None:
        self.root = runs_dir(git_dir) / run_id
        self.root.mkdir(parents=True, exist_ok=True)
        self.events_path = self.root / "events.jsonl"
        self.summary_path = self.root / "summary.json"
        self.redact = Redactor(env)
        #: The lines of events.jsonl so far, as they were written (``seq`` counts them).
        self.events: list[Record] = read_events(self.events_path)
        self._attempt_dir: Path | None = None
        self._stream: TextIO | None = None  # the open stream.jsonl of the running attempt
        self._tool_calls = 0  # tool_use blocks seen in the running attempt's stream
        self._refused_edits = 0  # the edit hook's refusals in that stream
        self._events_file: TextIO | None = None

    # -- the observer ------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        match event:
            case AgentStreamed(event=raw, line=line):
                self._stream_line(raw)
                self._tool_calls += tool_calls(line)
                self._refused_edits += refused_edits(line)
                if isinstance(line, ApiRetry):
                    self._record({**_without(to_json(event), "event"), "type": Retry.kind,
                                  "source": "api", "retryAttempt": line.attempt,
                                  "maxRetries": line.max_retries,
                                  "errorStatus": line.error_status,
                                  "error": line.error, "delayMs": line.retry_delay_ms})
            case AttemptStarted():
                self._record(self._start_attempt(to_json(event)))
            case AgentCalled():
                self._record(self._finish_attempt(event))
            case TestRun(output=output):
                record = _without(to_json(event), "output")
                name = f"tests/{len(self.events) + 1:03d}.txt"
                self._write(name, output)
                self._record({**record, "outputFile": name})
            case SandboxShown(note=note):
                self._write("sandbox.json", json.dumps(note, indent=2, ensure_ascii=False)
                            + "\n")
                self._record(to_json(event))
            case Retry():
                self._record({**to_json(event), "source": "rgr"})
            case _:
                self._record(to_json(event))

    def close(self) -> None:
        """Close what is open; the folder stays usable (a later event reopens)."""
        self._close_stream()
        if self._events_file is not None:
            self._events_file.close()
            self._events_file = None
        if self.events:
            self._write_summary()

    def _close_stream(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    # -- pieces ------------------------------------------------------------------------

    def _record(self, record: Record) -> None:
        record = self.redact.data(record)
        record["seq"] = len(self.events) + 1
        self.events.append(record)
        if self._events_file is None:
            self._events_file = self.events_path.open("a", encoding="utf-8")
        self._events_file.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self._events_file.flush()
        if record["type"] in SUMMARY_EVENTS:
            self._write_summary()

    def _write_summary(self) -> None:
        from rgr.observe.summary import summarize

        tmp = self.summary_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(summarize(self.decoded()), indent=2, ensure_ascii=False)
                       + "\n", encoding="utf-8")
        os.replace(tmp, self.summary_path)

    def decoded(self) -> list[Event]:
        """The run's events so far, typed (rgr.observe.events.from_json)."""
        return [from_json(record) for record in self.events]

    def _write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.redact.text(text), encoding="utf-8")
        return path

    def _start_attempt(self, record: Record) -> Record:
        self._close_stream()
        label = (f"attempts/{len(self.events) + 1:03d}-c{record['cycle']}-{record['phase']}"
                 f"-a{record['attempt']}")
        self._attempt_dir = self.root / label
        self._write(f"{label}/prompt.md", str(record.pop("prompt", "")))
        system_file = Path(str(record.get("systemPromptFile") or ""))
        try:
            system_text = system_file.read_text(encoding="utf-8")
        except OSError as exc:
            system_text = f"(could not read {system_file}: {exc})"
        self._write(f"{label}/system-prompt.md", system_text)
        # Structures are redacted before they are serialised: a secret with quotes or
        # backslashes looks different once JSON-escaped.
        self._write(f"{label}/request.json", json.dumps(self.redact.data(
            {k: v for k, v in record.items() if k not in ("type", "ts")}), indent=2) + "\n")
        record["dir"] = label
        self._tool_calls = 0
        self._refused_edits = 0
        self._stream = (self._attempt_dir / "stream.jsonl").open("a", encoding="utf-8")
        return record

    def _stream_line(self, raw: Mapping[str, Any]) -> None:
        if self._stream is None:
            return
        self._stream.write(json.dumps(self.redact.data(raw), ensure_ascii=False) + "\n")
        self._stream.flush()

    def _finish_attempt(self, event: AgentCalled) -> Record:
        record = to_json(event)
        record["toolCalls"] = self._tool_calls
        record["refusedEdits"] = self._refused_edits
        if event.result is not None:
            # The model's share of the session (summary.json's agentModelS); the rest of
            # the result goes to result.json.
            record["durationApiMs"] = event.duration_api_ms
        if self._attempt_dir is not None:
            if event.result is not None:
                self._write(str((self._attempt_dir / "result.json").relative_to(self.root)),
                            json.dumps(self.redact.data(event.result), indent=2,
                                       ensure_ascii=False) + "\n")
            record["dir"] = str(self._attempt_dir.relative_to(self.root))
        self._close_stream()
        return record


def _without(record: Record, *keys: str) -> Record:
    return {k: v for k, v in record.items() if k not in keys}


def decode_events(path: Path) -> list[Event]:
    """The events of ``events.jsonl``, typed; a torn line is skipped."""
    return [from_json(record) for record in read_events(path)]


def read_events(path: Path) -> list[Record]:
    """The lines of ``events.jsonl`` as written; a torn last line (rgr killed
    mid-write) is skipped."""
    events: list[Record] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return events
    for line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            events.append(data)
    return events


def read_text_in(folder: Path, relative: str, max_bytes: int = 1_000_000) -> str | None:
    """A file a run's events name (``outputFile``, an attempt's ``dir``/result.json),
    read as text, or None when it is missing or not inside ``folder``: the names come
    from events.jsonl, and a reader never follows one out of the run's folder."""
    try:
        base = folder.resolve()
        path = (base / relative).resolve()
        if not path.is_relative_to(base) or not path.is_file():
            return None
        with path.open("rb") as handle:
            return handle.read(max_bytes).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None


def attempt_result(folder: Path, attempt_dir: str) -> dict[str, Any] | None:
    """An attempt's result.json (the agent's final result object), or None."""
    text = read_text_in(folder, f"{attempt_dir}/result.json")
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
