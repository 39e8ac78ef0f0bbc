"""Which keys of a project manifest changed, and what each one is: a dependency
declaration, test configuration, or something else.

A manifest mixes both: ``pyproject.toml`` holds ``[project] dependencies`` beside
``[tool.pytest.ini_options]``, ``package.json`` holds ``dependencies`` beside
``scripts.test``. Code in GREEN may need a new dependency, and declaring it is honest
work; changing how tests run is not, in any phase. So the rule goes per key, not per
file: :func:`changes` lists the keys that differ between two versions of a manifest,
each classified, and :func:`refusal` says whether a phase may make them.

A dependency that is itself test tooling (pytest and its plugins, jest, vitest …)
changes how tests run once installed, so it counts as test configuration.

The standard library only (tomllib, json, re): the PreToolUse hook (rgr.sandbox.pretool)
loads this file by path inside the sandbox to judge an edit before it is written.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any

DEPENDENCY = "dependency"
TEST_CONFIG = "test configuration"
OTHER = "other"

#: The manifests judged per key, by file name.
MANIFESTS = ("pyproject.toml", "package.json", "Cargo.toml", "go.mod")

#: Dependency names that are test tooling: declaring one changes how tests run.
TEST_TOOLING = re.compile(
    r"^(pytest|pytest[-_.].*|.*[-_.]pytest|pluggy|coverage|nose2?|tox|nox|hypothesis"
    r"|jest|jest-.*|@jest/.*|vitest|@vitest/.*|mocha|ava|jasmine|karma.*|c8|nyc"
    r"|ts-jest|babel-jest|tap|uvu)$", re.IGNORECASE)

#: Keys (dotted, as :func:`changes` names them) that are test configuration even though
#: no test-tooling dependency is named in them.
_TEST_KEYS = re.compile(
    r"^(tool\.(pytest|coverage|tox|hatch\.envs|nox|hypothesis)(\..*)?"
    r"|scripts\.(test|pretest|posttest)(:.*)?|(jest|vitest|mocha|ava|c8|nyc)(\..*)?"
    r"|profile\.test(\..*)?|lib\.(test|harness)|\[\[test\]\].*|\[\[bench\]\].*"
    r"|test(\..*)?|bench(\..*)?)$")


@dataclass(frozen=True)
class KeyChange:
    """One changed key of a manifest: its dotted name and what it is."""

    key: str
    kind: str

    def __str__(self) -> str:
        return f"{self.key} ({self.kind})"


class Unreadable(ValueError):
    """A manifest version that does not parse: nothing in it can be judged."""


def is_manifest(path: str) -> bool:
    """Whether ``path`` is a manifest this module judges per key."""
    return path.rsplit("/", 1)[-1] in MANIFESTS


def changes(path: str, old: str, new: str) -> list[KeyChange]:
    """The keys that differ between ``old`` and ``new`` (texts of the manifest at
    ``path``), classified. Unreadable when either does not parse."""
    name = path.rsplit("/", 1)[-1]
    if name == "pyproject.toml":
        return _pyproject(_toml(old), _toml(new))
    if name == "package.json":
        return _package_json(_json(old), _json(new))
    if name == "Cargo.toml":
        return _cargo(_toml(old), _toml(new))
    if name == "go.mod":
        return _go_mod(old, new)
    raise ValueError(f"{path} is not a manifest rgr reads per key")


def refusal(path: str, old: str | None, new: str | None) -> str | None:
    """Why writing ``new`` over ``old`` at ``path`` is not allowed to an agent that may
    declare dependencies (GREEN, REFACTOR), with what is allowed; None when every
    changed key is a dependency declaration."""
    allowed = ("only dependency declarations may change here ([project] dependencies or "
               "an optional group in pyproject.toml, dependencies in package.json, "
               "[dependencies] in Cargo.toml, require in go.mod), and no test tooling")
    if old is None:
        name = path.rsplit("/", 1)[-1]
        return f"a new {name} decides how rgr finds and runs the tests; {allowed}"
    if new is None:
        return f"deleting {path} changes how the tests run; {allowed}"
    try:
        found = changes(path, old, new)
    except Unreadable as exc:
        return f"{exc}; {allowed}"
    wrong = [c for c in found if c.kind != DEPENDENCY]
    if not wrong:
        return None
    return "changes " + ", ".join(str(c) for c in wrong[:5]) + f": {allowed}"


# -- the formats ---------------------------------------------------------------------------


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Unreadable(f"not valid TOML: {exc}") from None


def _json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise Unreadable(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise Unreadable("not a JSON object")
    return data


def _pyproject(old: dict[str, Any], new: dict[str, Any]) -> list[KeyChange]:
    found = []
    for key, before, after in _differences(old, new, ""):
        if key == "project.dependencies" or key.startswith("project.optional-dependencies.") \
                or key.startswith("dependency-groups."):
            found.append(_dependency_list(key, before, after))
        elif key.startswith("tool.poetry.dependencies."):
            name = key.split(".")[3]
            found.append(KeyChange(key, TEST_CONFIG if TEST_TOOLING.match(name)
                                   else DEPENDENCY))
        elif key == "project.optional-dependencies" or key == "dependency-groups":
            found.append(KeyChange(key, TEST_CONFIG if _tooling_in(after) or
                                   _tooling_in(before) else DEPENDENCY))
        else:
            found.append(KeyChange(key, TEST_CONFIG if _TEST_KEYS.match(key) else OTHER))
    return found


def _package_json(old: dict[str, Any], new: dict[str, Any]) -> list[KeyChange]:
    found = []
    sections = ("dependencies", "optionalDependencies", "peerDependencies")
    for key, before, after in _differences(old, new, "", depth=2):
        section, _, name = key.partition(".")
        if section in sections and name:
            kind = TEST_CONFIG if TEST_TOOLING.match(name) else DEPENDENCY
        elif section in sections:
            kind = TEST_CONFIG if _tooling_in(before) or _tooling_in(after) else DEPENDENCY
        else:
            kind = TEST_CONFIG if _TEST_KEYS.match(key) or section in (
                "devDependencies", "scripts") else OTHER
        found.append(KeyChange(key, kind))
    return found


def _cargo(old: dict[str, Any], new: dict[str, Any]) -> list[KeyChange]:
    found = []
    for key, before, after in _differences(old, new, "", depth=3):
        parts = key.split(".")
        if parts[0] == "target" and len(parts) >= 3 and parts[2] == "dependencies":
            parts = parts[2:]
        if parts[0] == "dependencies":
            tooling = (TEST_TOOLING.match(parts[1]) if len(parts) > 1
                       else _tooling_in(before) or _tooling_in(after))
            found.append(KeyChange(key, TEST_CONFIG if tooling else DEPENDENCY))
        else:
            found.append(KeyChange(key, TEST_CONFIG if _TEST_KEYS.match(key)
                                   or parts[0] == "dev-dependencies" else OTHER))
    return found


def _go_mod(old: str, new: str) -> list[KeyChange]:
    before, after = _go_directives(old), _go_directives(new)
    found = []
    for line in sorted(set(before) ^ set(after)):
        verb = line.split()[0]
        found.append(KeyChange(f"{verb} {' '.join(line.split()[1:2])}".strip(),
                               DEPENDENCY if verb == "require" else OTHER))
    return found


def _go_directives(text: str) -> list[str]:
    """Each directive of a go.mod as ``verb arguments`` (blocks unrolled, comments
    other than ``// indirect`` dropped, whitespace normalised)."""
    lines = []
    block: str | None = None
    for raw in text.splitlines():
        indirect = "// indirect" in raw
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if block is not None:
            if line == ")":
                block = None
            else:
                lines.append(f"{block} {' '.join(line.split())}"
                             + (" indirect" if indirect else ""))
            continue
        verb, _, rest = line.partition(" ")
        if rest.strip() == "(":
            block = verb
        else:
            lines.append(f"{verb} {' '.join(rest.split())}" + (" indirect" if indirect else ""))
    return lines


# -- comparing -----------------------------------------------------------------------------


def _differences(old: Any, new: Any, prefix: str, depth: int = 99
                 ) -> list[tuple[str, Any, Any]]:
    """(dotted key, old value, new value) for every leaf-most key that differs, tables
    opened up to ``depth`` levels (lists are compared whole)."""
    if old == new:
        return []
    # a table added or removed whole: its keys, one by one
    if old is None and isinstance(new, dict):
        old = {}
    if new is None and isinstance(old, dict):
        new = {}
    if depth == 0 or not isinstance(old, dict) or not isinstance(new, dict):
        return [(prefix or "(whole file)", old, new)]
    found = []
    for key in sorted(set(old) | set(new), key=str):
        name = f"{prefix}.{key}" if prefix else str(key)
        found += _differences(old.get(key), new.get(key), name, depth - 1)
    return found


def _dependency_list(key: str, before: Any, after: Any) -> KeyChange:
    """A PEP 508 list changed: a dependency, unless an entry added or removed is test
    tooling."""
    old = set(before) if isinstance(before, list) else set()
    new = set(after) if isinstance(after, list) else set()
    changed = {str(e) for e in old ^ new}
    if not isinstance(after, list | type(None)) or any(
            TEST_TOOLING.match(_requirement_name(e)) for e in changed):
        return KeyChange(key, TEST_CONFIG)
    return KeyChange(key, DEPENDENCY)


def _tooling_in(value: Any) -> bool:
    if isinstance(value, dict):
        return any(TEST_TOOLING.match(str(k)) or _tooling_in(v) for k, v in value.items())
    if isinstance(value, list):
        return any(TEST_TOOLING.match(_requirement_name(str(v))) for v in value)
    return False


def _requirement_name(requirement: str) -> str:
    """``requests[socks]>=2; python_version>'3'`` → ``requests``."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement
