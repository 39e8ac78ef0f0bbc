"""What bench/same_behaviour.py masks in a run's events.jsonl and handoff notes before
comparing two versions of rgr byte for byte, and how it shows the differences left.

Only what must differ between two runs of the same kata is masked; each mask says why.
Identifiers that are random or embed the time (session and run ids, commit ids) are not
erased but renamed in order of first appearance (``<uuid:3>``, ``<commit:7>``), so two
runs still match only if each id is used in the same places. Pure functions, no
processes: tests/bench/test_same_behaviour.py checks them.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Mask:
    name: str
    pattern: re.Pattern[str]
    replacement: str
    why: str


def _mask(name: str, pattern: str, replacement: str, why: str) -> Mask:
    return Mask(name, re.compile(pattern), replacement, why)


#: Applied in this order, after the literal paths (``Masker.paths``) and before the
#: renamed ids. Values are masked by their JSON key where only the key tells what a
#: number is, and replaced by a string, so that a masked record is still JSON.
MASKS: tuple[Mask, ...] = (
    _mask("timestamp",
          r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?",
          "<ts>", "wall-clock times (the events' ts, a note's startedAt/finishedAt)"),
    _mask("epoch", r"(?<![\w.])1[78]\d{8}(?:\d{3})?(?:\.\d+)?(?![\w.])", "<epoch>",
          "Unix times in seconds or milliseconds (a kept attempt's ref name ends in one)"),
    _mask("duration",
          r'("\w*(?:[dD]uration|[dD]elay|[eE]lapsed|[wW]aited)\w*"): '
          r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?",
          r'\1: "<dur>"', "durations and waits (durationS, durationMs, durationApiMs, "
          "delayMs): machine speed, and claude's retry delay is jittered at random"),
    _mask("runner-time", r"(?<= in )\d+(?:\.\d+)?s\b", "<dur>s",
          "the test runner's own timing in output quoted to an agent (pytest's "
          "'1 passed in 0.02s' in a failure brief or a phase prompt)"),
    _mask("port", r"(127\.0\.0\.1|localhost):\d{2,5}", r"\1:<port>",
          "the scripted model server listens on a free port chosen at start"),
    _mask("temp-name", r"(/(?:tmp|rgr|verify|scratch|pristine|attempt)[\w.-]*?[-_]?)"
          r"[a-z0-9_]{8}(?=[/\"'\s,]|$)", r"\1<tmp>",
          "tempfile.mkdtemp's eight random characters in scratch and verify folders"),
    _mask("pid", r'("(?:pid|ppid|\w+Pid)"): \d+', r'\1: "<pid>"', "process ids"),
    _mask("rgr-version", r'("rgrVersion"): "[^"]*"', r'\1: "<version>"',
          "the version string of each side (equal today; a release bump is intended)"),
)

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
HEX = re.compile(r"(?<![0-9a-zA-Z])[0-9a-f]{7,40}(?![0-9a-zA-Z])")


@dataclass
class Masker:
    """Masks every artifact of one run; the renaming of ids is shared by all of them, so
    the same commit is ``<commit:N>`` in the events and in the notes.

    ``paths``: literal strings (checkout, work folder, interpreter) and what stands for
    them, replaced longest first. ``commits``: every commit id in the run's repository;
    a hex word is renamed only when it is (a prefix of) one of them, so tree and blob
    ids, which depend on content alone, still have to match."""

    paths: Mapping[str, str]
    commits: Iterable[str] = ()
    _labels: dict[str, str] = field(default_factory=dict)
    _commits: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self._commits = tuple(sorted(set(self.commits)))

    def mask(self, text: str) -> str:
        for literal in sorted(self.paths, key=len, reverse=True):
            text = text.replace(literal, self.paths[literal])
        for rule in MASKS:
            text = rule.pattern.sub(rule.replacement, text)
        text = UUID.sub(lambda m: self._label("uuid", m.group()), text)
        return HEX.sub(self._commit, text)

    def number(self, value: str) -> int | None:
        """The N of ``value``'s label, None while no artifact named it."""
        label = self._labels.get(value)
        return int(label.split(":")[1].rstrip(">")) if label else None

    def _label(self, kind: str, value: str) -> str:
        if value not in self._labels:
            count = sum(1 for label in self._labels.values() if label.startswith(f"<{kind}:"))
            self._labels[value] = f"<{kind}:{count + 1}>"
        return self._labels[value]

    def _commit(self, match: re.Match[str]) -> str:
        word = match.group()
        full = [c for c in self._commits if c.startswith(word)]
        return self._label("commit", full[0]) if len(full) == 1 else word


def masked_notes(masker: Masker, notes: Mapping[str, str]) -> str:
    """Every note (commit id -> note text) as one text, after the events were masked
    (so a commit the events name keeps its label): notes on commits the events name
    first, in label order, then the others in the order of their masked text."""
    def key(item: tuple[str, str]) -> tuple[int, str]:
        number = masker.number(item[0])
        return (10**9 if number is None else number), Masker(masker.paths).mask(item[1])

    parts = []
    for commit, note in sorted(notes.items(), key=key):
        parts.append(f"=== note on {masker.mask(commit)}\n{masker.mask(note).rstrip()}\n")
    return "".join(parts)


# --- comparing ---------------------------------------------------------------------


def key_paths(value: object, prefix: str = "") -> set[str]:
    """Every key path of a JSON value (``agent.costUsd``, ``tests.failing[]``)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            found.add(path)
            found |= key_paths(v, path)
    elif isinstance(value, list):
        for item in value:
            found |= key_paths(item, f"{prefix}[]")
    return found


def _json_records(text: str, kind: str) -> list[tuple[str, object]]:
    """(group, parsed) per record: events grouped by type, notes as one group."""
    records: list[tuple[str, object]] = []
    if kind == "events":
        for line in text.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                records.append((f"event {event.get('type')}", event))
    elif kind == "notes":
        for chunk in text.split("=== note on ")[1:]:
            _, _, body = chunk.partition("\n")
            try:
                records.append(("note", json.loads(body)))
            except ValueError:
                continue
    return records


def schema_changes(before: str, after: str, kind: str) -> list[str]:
    """Keys that one side writes and the other never does, per event type or for the
    notes: new fields (intended when a feature adds them) and lost ones."""
    sides = []
    for text in (before, after):
        groups: dict[str, set[str]] = {}
        for group, record in _json_records(text, kind):
            groups.setdefault(group, set()).update(key_paths(record))
        sides.append(groups)
    lines = []
    for group in sorted(set(sides[0]) | set(sides[1])):
        old, new = sides[0].get(group), sides[1].get(group)
        if old is None or new is None:
            lines.append(f"{group}: only {'after' if old is None else 'before'}")
            continue
        if new - old:
            lines.append(f"{group}: added {', '.join(sorted(new - old))}")
        if old - new:
            lines.append(f"{group}: removed {', '.join(sorted(old - new))}")
    return lines


def _without(record: object, keys: set[str], prefix: str = "") -> object:
    if isinstance(record, dict):
        return {k: _without(v, keys, f"{prefix}.{k}" if prefix else k)
                for k, v in record.items() if (f"{prefix}.{k}" if prefix else k) not in keys}
    if isinstance(record, list):
        return [_without(v, keys, f"{prefix}[]") for v in record]
    return record


def value_changes(before: str, after: str, kind: str) -> list[str]:
    """The differences left once the fields only one side has are set aside: the records
    compared pairwise in order, what differs named by key path."""
    old = _json_records(before, kind)
    new = _json_records(after, kind)
    keys_old = set().union(*(key_paths(r) for _, r in old)) if old else set()
    keys_new = set().union(*(key_paths(r) for _, r in new)) if new else set()
    one_sided = keys_old ^ keys_new
    if [g for g, _ in old] != [g for g, _ in new]:
        matcher = difflib.SequenceMatcher(a=[g for g, _ in old], b=[g for g, _ in new],
                                          autojunk=False)
        lines = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                lines.append(f"records {i1 + 1}-{i2} before vs {j1 + 1}-{j2} after: {tag} "
                             f"{[g for g, _ in old[i1:i2]]} -> {[g for g, _ in new[j1:j2]]}")
        return lines
    lines = []
    for n, ((group, a), (_, b)) in enumerate(zip(old, new, strict=True), start=1):
        a, b = _without(a, one_sided), _without(b, one_sided)
        if a == b:
            continue
        for path in sorted(key_paths(a) | key_paths(b)):
            if "[]" in path:  # inside a list: the list is compared whole, once
                continue
            va, vb = _at(a, path), _at(b, path)
            if va != vb and not (isinstance(va, dict) and isinstance(vb, dict)):
                shown = [json.dumps(v) if isinstance(v, dict | list) else repr(v)
                         for v in (va, vb)]
                lines.append(f"record {n} ({group}) {path}: {shown[0]} -> {shown[1]}")
        if not any(line.startswith(f"record {n} ") for line in lines):
            lines.append(f"record {n} ({group}): {json.dumps(a)[:200]} -> {json.dumps(b)[:200]}")
    return lines


def _at(record: object, path: str) -> object:
    value = record
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def first_differences(before: str, after: str, limit: int = 40) -> list[str]:
    """The first lines of a unified diff of two masked texts."""
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after",
                                lineterm="", n=1)
    return [line[:400] for line in list(diff)[:limit]]
