"""tdd.toml + environment + flags -> one validated ``Config``; test-command detection.

Precedence, highest first: command-line flag > environment variable > ``<root>/tdd.toml``
> default. Every value is validated by the same pydantic model, and every error names
where the bad value came from (the file and key, the variable, or the flag) and what was
expected, because a config error is the first thing a new user meets.
"""

from __future__ import annotations

import difflib
import re
import shlex
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from rgr.base import backend_names
from rgr.base.errors import ConfigError

CONFIG_FILE = "tdd.toml"

#: Which paths count as test files when no ``test_file_globs`` is configured: the union of
#: the usual layouts of the ecosystems rgr detects (and a few it does not), so the guards
#: work out of the box. ``**/`` also matches the top level, so ``**/tests/**`` covers
#: ``tests/x.py`` as well as ``pkg/tests/x.py``.
DEFAULT_TEST_FILE_GLOBS: tuple[str, ...] = (
    "**/tests/**",
    "**/test/**",  # includes Maven/Gradle's src/test/**
    "**/__tests__/**",
    "**/spec/**",
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
    "**/*_test.go",
    "**/*.test.[jt]s",
    "**/*.spec.[jt]s",
    "**/*.test.[jt]sx",
    "**/*.spec.[jt]sx",
    "**/*_spec.rb",
)

#: Environment variables rgr reads, and the field each one sets. An empty value counts
#: as unset, so ``TDD_MODEL= rgr run`` falls back to the file or the default.
ENV_VARS: Mapping[str, str] = {
    "TDD_TEST_COMMAND": "test_command",
    "TDD_MAX_RETRIES": "max_retries",
    "TDD_MODEL": "model",
    "TDD_AGENT_BINARY": "agent_binary",
    "TDD_BACKEND": "backend",
    "TDD_CODEX_BINARY": "codex_binary",
    "TDD_GEMINI_BINARY": "gemini_binary",
    "TDD_OPENCODE_BINARY": "opencode_binary",
    "TDD_COMMAND_TIMEOUT": "command_timeout",
}

#: ``[acceptance] mode`` for one run: ``TDD_ACCEPTANCE_MODE=off rgr run ...`` (rgr's
#: scripted-model environments set it off: their scripts have no examiner session).
ACCEPTANCE_MODE_VAR = "TDD_ACCEPTANCE_MODE"

#: The mutation operators rgr.check.mutation knows (``[adequacy] operators``).
MUTATION_OPERATORS = ("arithmetic", "comparison", "constant", "return", "condition",
                      "boolean", "statement")


#: What each field must be, in the words the error messages use.
EXPECTED: Mapping[str, str] = {
    "test_command": "a non-empty command string or list of strings",
    "test_shell": "true or false",
    "test_file_globs": "a list of glob strings",
    "junit_xml": "a list of glob strings",
    "max_retries": "an integer >= 0",
    "command_timeout": "a number of seconds > 0",
    "agent_timeout": "a number of seconds > 0",
    "max_turns": "an integer >= 1",
    "model": "a non-empty string",
    "notes_ref": "a ref name starting with 'refs/notes/'",
    "agent_binary": "a non-empty string",
    "backend": "one of " + backend_names.one_of(),
    "codex_binary": "a non-empty string",
    "gemini_binary": "a non-empty string",
    "opencode_binary": "a non-empty string",
    backend_names.CODEX: "a table: login, base_url, model, request_max_retries, "
                         "stream_max_retries, stream_idle_timeout_ms, config",
    "branch_prefix": "a branch name prefix without spaces or any of ~^:?*[\\",
    "gate": "a table: fast, full (lists of commands), shell, full_every, timeout",
    "sandbox": "a table: enabled, bwrap, agent_network (api/open), test_network "
               "(none/open), allow_hosts, read_paths, hide_paths, pass_env, detect, share, "
               "setup, setup_hosts, scratch_dir, show_generated, hide_generated, "
               "writable_copy",
    "refactor": "a table: max_batches, max_diff_lines, max_attempts, allow_overlap, "
                "on_failure, changelog",
    "adequacy": "a table: mode (reject/report/off), budget, jobs, operators",
    "acceptance": "a table: mode (on/report/off), rounds",
}

#: The same for the keys of the [gate] and [refactor] tables.
EXPECTED_IN_TABLE: Mapping[str, Mapping[str, str]] = {
    "gate": {
        "fast": "a list of commands (each a string or a list of strings)",
        "full": "a list of commands (each a string or a list of strings)",
        "shell": "true or false",
        "full_every": "an integer >= 1",
        "timeout": "a number of seconds > 0",
    },
    "refactor": {
        "max_batches": "an integer >= 1",
        "max_diff_lines": "an integer >= 1",
        "max_attempts": "an integer >= 1",
        "allow_overlap": "true or false",
        "on_failure": "one of 'stop', 'skip'",
        "changelog": "a file path string",
    },
    "adequacy": {
        "mode": "one of 'reject', 'report', 'off'",
        "budget": "a number of seconds > 0",
        "jobs": "an integer >= 1",
        "operators": "a list of: " + ", ".join(MUTATION_OPERATORS),
    },
    "acceptance": {
        "mode": "one of 'on', 'report', 'off'",
        "rounds": "an integer >= 1",
    },
    backend_names.CODEX: {
        "login": "true or false",
        "base_url": "a URL string",
        "model": "a model name string",
        "request_max_retries": "an integer >= 0",
        "stream_max_retries": "an integer >= 0",
        "stream_idle_timeout_ms": "an integer >= 1",
        "config": f"a list of key=value strings ({backend_names.CODEX} -c overrides)",
    },
    "sandbox": {
        "enabled": "true or false",
        "bwrap": "a path or command name",
        "agent_network": "one of 'api', 'open'",
        "test_network": "one of 'none', 'open'",
        "allow_hosts": "a list of \"host:port\" strings",
        "read_paths": "a list of folder paths",
        "hide_paths": "a list of folder paths",
        "pass_env": "a list of variable names (NAME or PREFIX_*)",
        "detect": "true or false",
        "share": "a list of folders inside the repository",
        "setup": "a command (a string or a list of strings), e.g. \"npm ci\"",
        "setup_hosts": "a list of \"host:port\" strings",
        "scratch_dir": "a folder path (\"\": /dev/shm, else the temporary folder)",
        "show_generated": "a list of globs of files inside the project",
        "hide_generated": "a list of globs of files inside the project",
        "writable_copy": "a list of dependency folders inside the repository, or "
                         "packages of one (node_modules/dep)",
    },
}



# --------------------------------------------------------------------------- globs


def glob_to_regex(pattern: str) -> str:
    """Translate a path glob to an anchored regex.

    ``*``, ``?`` and ``[...]`` never cross a ``/``; a ``**`` that is a whole path segment
    spans any number of directories (zero included); ``**`` inside a segment is a plain
    ``*`` and a trailing ``/`` means everything below, as in gitignore. Patterns are
    anchored at the project root: ``*.py`` matches ``a.py`` but not ``src/a.py`` (write
    ``**/*.py`` for that).
    """
    if pattern.endswith("/"):
        pattern += "**"  # "build/" means everything under build, as in gitignore
    segments = pattern.strip("/").split("/")
    out: list[str] = []
    after_globstar = False
    for i, segment in enumerate(segments):
        sep = "" if i == 0 or after_globstar else "/"
        last = i == len(segments) - 1
        if segment == "**":
            if last:
                out.append(sep + (".+" if i > 0 else ".*"))
            else:
                out.append(sep + "(?:[^/]+/)*")
            after_globstar = True
        else:
            out.append(sep + _segment_to_regex(segment))
            after_globstar = False
    return "".join(out)


def _segment_to_regex(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":
                i += 1  # "a**b" is "a*b"
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            cls, i = _char_class(segment, i)
            out.append(cls)
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _char_class(segment: str, start: int) -> tuple[str, int]:
    """``[abc]``, ``[a-z]``, ``[!x]`` at ``segment[start]``; an unclosed ``[`` is literal."""
    i = start + 1
    negate = i < len(segment) and segment[i] in "!^"
    if negate:
        i += 1
    body_start = i
    if i < len(segment) and segment[i] == "]":
        i += 1  # a leading "]" is a member, not the end
    while i < len(segment) and segment[i] != "]":
        i += 1
    if i >= len(segment):
        return re.escape("["), start + 1
    body = segment[body_start:i].replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[")
    body = body.replace("]", "\\]")
    return (f"[^/{body}]" if negate else f"[{body}]"), i + 1


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a glob of paths inside the project, or None."""
    if not pattern.strip():
        return "is empty"
    if pattern.startswith(("/", "~")) or (len(pattern) > 1 and pattern[1] == ":"):
        return "is not relative to the project (write it from the project's root)"
    if ".." in pattern.replace("\\", "/").split("/"):
        return "leads out of the project ('..')"
    for segment in pattern.split("/"):
        i = 0
        while i < len(segment):
            if segment[i] != "[":
                i += 1
                continue
            end = _char_class(segment, i)[1]
            if end == i + 1:
                return "has an unclosed '[' (write [[] for a literal '[')"
            i = end
    return None


def normalize_path(path: str) -> str:
    """Repository-relative, forward slashes, no leading ``./``."""
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


class GlobSet:
    """A compiled set of path globs; ``matches`` is true when any of them matches."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        regexes = [f"(?:{glob_to_regex(p)})" for p in self.patterns]
        self._regex = re.compile("|".join(regexes)) if regexes else None

    def matches(self, path: str) -> bool:
        return self._regex is not None and self._regex.fullmatch(normalize_path(path)) is not None


# --------------------------------------------------------------------------- the model

GateCommand = str | list[str]


class GateConfig(BaseModel):
    """``[gate]``: what must pass before and after every refactor batch (``rgr verify``).

    The test command always runs (its per-test report is the contract); these commands
    run after it. ``fast`` runs after every batch, ``full`` (on top of ``fast``) every
    ``full_every`` batches, at the end, and for the baseline. A string is split like a
    shell would split it but never run by a shell unless ``shell = true``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    fast: list[GateCommand] = Field(default_factory=list)
    full: list[GateCommand] = Field(default_factory=list)
    shell: bool = False
    full_every: int = Field(default=3, ge=1)
    timeout: float = Field(default=300.0, gt=0)

    @field_validator("fast", "full")
    @classmethod
    def _commands_parse(cls, value: list[GateCommand]) -> list[GateCommand]:
        for command in value:
            words = shlex.split(command) if isinstance(command, str) else command
            if not words or not words[0].strip():
                raise ValueError("a gate command is empty")
        return value


class RefactorConfig(BaseModel):
    """``[refactor]``: the caps the plan validator and the batch loop enforce."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_batches: int = Field(default=12, ge=1)
    max_diff_lines: int = Field(default=200, ge=1)
    max_attempts: int = Field(default=3, ge=1)
    allow_overlap: bool = True
    on_failure: Literal["stop", "skip"] = "stop"
    changelog: str = "CHANGELOG.md"


class AdequacyConfig(BaseModel):
    """``[adequacy]``: the mutation gate after GREEN and REFACTOR (rgr.check.mutation).

    ``reject`` acts on survivors (GREEN over-implemented: rejected; a test too weak: the
    cycle goes back to RED), ``report`` only notes the score, ``off`` skips the gate.
    ``budget`` is the seconds one phase's mutants may take; ``jobs`` how many mutant
    runs go at once (each still takes a daemon test slot when there are slots)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["reject", "report", "off"] = "reject"
    budget: float = Field(default=120.0, gt=0)
    jobs: int = Field(default=2, ge=1)
    operators: list[str] = Field(default_factory=lambda: list(MUTATION_OPERATORS))

    @field_validator("operators")
    @classmethod
    def _known_operators(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(MUTATION_OPERATORS))
        if unknown:
            raise ValueError("unknown operator(s) " + ", ".join(unknown))
        return value


class AcceptanceConfig(BaseModel):
    """``[acceptance]``: the examiner before COMPLETE (rgr.tdd.examine). A sealed session
    that sees only the feature text and the public interface writes acceptance tests
    no implementing agent can read; rgr runs them on a pristine checkout. ``on``: a
    failing test sends the run back to PLAN with the missing behaviour in words;
    ``report``: noted only; ``off``: no examiner. ``rounds``: how many times the tests may
    fail before the run stops for a person (both sides shown)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["on", "report", "off"] = "on"
    rounds: int = Field(default=2, ge=1)


class CodexConfig(BaseModel):
    """``[codex]``: how the Codex backend reaches its model. Only what is set here or in
    rgr's environment reaches codex; the user's ``~/.codex`` stays out unless
    ``login = true`` (then its login, never its config.toml, is used)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    login: bool = False
    base_url: str | None = Field(default=None, min_length=1)
    model: str | None = Field(default=None, min_length=1)
    request_max_retries: int | None = Field(default=None, ge=0)
    stream_max_retries: int | None = Field(default=None, ge=0)
    stream_idle_timeout_ms: int | None = Field(default=None, ge=1)
    #: Further ``-c key=value`` overrides passed to ``codex exec`` as they are.
    config: list[str] = Field(default_factory=list)


class SandboxConfig(BaseModel):
    """``[sandbox]``: what the bubblewrap sandbox around agents and test runs allows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    bwrap: str = Field(default="bwrap", min_length=1)
    #: "api": the agent (and the commands it runs) reach the model API and allow_hosts
    #: only; "open": the host network.
    agent_network: Literal["api", "open"] = "api"
    #: "none": test runs and gate commands have no network; "open": the host network.
    test_network: Literal["none", "open"] = "none"
    allow_hosts: list[str] = Field(default_factory=list)  # "host:port", through CONNECT
    read_paths: list[str] = Field(default_factory=list)  # shown read-only inside
    hide_paths: list[str] = Field(default_factory=list)  # hidden besides the defaults
    pass_env: list[str] = Field(default_factory=list)  # NAME or PREFIX_* kept inside
    #: Where scratch copies and pristine checkouts are made ("" = /dev/shm when it is
    #: there: memory is about ten times faster than disk at making thousands of files).
    scratch_dir: str = ""
    #: Find the project's toolchain and dependency folders and show them read-only
    #: (rgr.sandbox.toolchain); false: only read_paths, pass_env and share apply.
    detect: bool = True
    #: More dependency folders of the working tree, shown read-only inside every scratch
    #: copy and pristine checkout (.venv, venv, node_modules and any virtualenv are
    #: found without being named here).
    share: list[str] = Field(default_factory=list)
    #: A command that installs the working tree's dependencies (`npm ci`, `uv sync
    #: --frozen`), run sealed once per state of the lockfiles, with only setup_hosts
    #: reachable (rgr.sandbox.setup): a daemon's job clones and fresh clones get theirs.
    setup: str | list[str] = Field(default_factory=list)
    setup_hosts: list[str] = Field(default_factory=lambda: [
        "registry.npmjs.org:443", "pypi.org:443", "files.pythonhosted.org:443"])
    #: Globs of files the project's build generates and git ignores, copied read-only
    #: into every checkout besides those found by rule (rgr.store.generated); and globs
    #: of found ones to leave out. Secrets and local state are never copied.
    show_generated: list[str] = Field(default_factory=list)
    hide_generated: list[str] = Field(default_factory=list)
    #: Dependency folders (``node_modules``), or packages of one (``node_modules/dep``),
    #: each test run gets a private writable copy of, for suites that write into them
    #: (a test that patches a package): the user's folder itself is never writable
    #: inside. rgr applies one itself when such a write is a suite's only failure.
    writable_copy: list[str] = Field(default_factory=list)

    @property
    def setup_argv(self) -> list[str]:
        return shlex.split(self.setup) if isinstance(self.setup, str) else list(self.setup)

    @field_validator("allow_hosts", "setup_hosts")
    @classmethod
    def _host_port(cls, value: list[str]) -> list[str]:
        for item in value:
            host, sep, port = item.rpartition(":")
            if not sep or not host or not port.isdigit():
                raise ValueError(f"{item!r} is not host:port")
        return value

    @field_validator("show_generated", "hide_generated")
    @classmethod
    def _project_globs(cls, value: list[str]) -> list[str]:
        for item in value:
            problem = glob_problem(item)
            if problem is not None:
                raise ValueError(f"{item!r} {problem}")
        return value

    @field_validator("share", "writable_copy")
    @classmethod
    def _relative(cls, value: list[str]) -> list[str]:
        for item in value:
            if not item or item.startswith("/") or ".." in Path(item).parts:
                raise ValueError(f"{item!r} is not a folder inside the repository")
        return value


class Config(BaseModel):
    """Everything rgr can be configured with. Build it with ``load_config``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    test_command: str | list[str] | None = None
    test_shell: bool = False
    test_file_globs: list[str] = Field(default_factory=lambda: list(DEFAULT_TEST_FILE_GLOBS))
    junit_xml: list[str] = Field(default_factory=list)
    max_retries: int = Field(default=3, ge=0)
    command_timeout: float = Field(default=120.0, gt=0)
    agent_timeout: float = Field(default=1800.0, gt=0)
    max_turns: int = Field(default=40, ge=1)
    model: str | None = Field(default=None, min_length=1)
    notes_ref: str = "refs/notes/tdd-handoffs"
    # Each CLI's executable is named as its backend.
    agent_binary: str = Field(default=backend_names.CLAUDE, min_length=1)
    backend: str = backend_names.DEFAULT
    codex_binary: str = Field(default=backend_names.CODEX, min_length=1)
    codex: CodexConfig = Field(default_factory=CodexConfig)
    gemini_binary: str = Field(default=backend_names.GEMINI, min_length=1)
    opencode_binary: str = Field(default=backend_names.OPENCODE, min_length=1)
    branch_prefix: str = "rgr/"
    gate: GateConfig = Field(default_factory=GateConfig)
    refactor: RefactorConfig = Field(default_factory=RefactorConfig)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    adequacy: AdequacyConfig = Field(default_factory=AdequacyConfig)
    acceptance: AcceptanceConfig = Field(default_factory=AcceptanceConfig)

    _sources: dict[str, str] = PrivateAttr(default_factory=dict)
    _file_bytes: bytes | None = PrivateAttr(default=None)
    _test_globs: GlobSet | None = PrivateAttr(default=None)

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        return backend_names.check(value)

    @field_validator("max_retries", "max_turns", "command_timeout", "agent_timeout", mode="before")
    @classmethod
    def _no_bools(cls, value: object) -> object:
        # pydantic's lax mode reads `max_retries = true` as 1: a typo, never an intent.
        if isinstance(value, bool):
            raise ValueError("a boolean")
        return value

    @field_validator("test_command")
    @classmethod
    def _command_parses(cls, value: str | list[str] | None) -> str | list[str] | None:
        if value is None:
            return None
        try:
            argv = shlex.split(value) if isinstance(value, str) else value
        except ValueError as exc:  # an unclosed quote
            raise ValueError(str(exc).lower()) from exc
        if not argv or not argv[0].strip():
            raise ValueError("the command is empty")
        return value

    @field_validator("notes_ref")
    @classmethod
    def _notes_ref(cls, value: str) -> str:
        if not value.startswith("refs/notes/") or value == "refs/notes/" or " " in value:
            raise ValueError("")
        return value

    @field_validator("branch_prefix")
    @classmethod
    def _branch_prefix(cls, value: str) -> str:
        if re.search(r"[\s~^:?*\[\\]|\.\.|@\{", value) or value.startswith(("/", "-")):
            raise ValueError("")
        return value

    def setting(self, field: str) -> str:
        """Where to change ``field``, for a hint: the flag or variable that set it (it
        overrides tdd.toml, so editing the file would change nothing), else the key."""
        source = self.source_of(field)
        if source.startswith("--"):
            return f"the {source} option"
        if source.startswith("TDD_"):
            return f"the environment variable {source}"
        return f"{field} in {CONFIG_FILE}"

    @property
    def file_bytes(self) -> bytes | None:
        """The bytes of tdd.toml this config was validated from (None: there was none),
        read once: what rgr.base.config_seen marks as valid is exactly what was validated."""
        return self._file_bytes

    def source_of(self, field: str) -> str:
        """Where ``field``'s value came from: a file, ``TDD_...``, ``--flag`` or "default"."""
        return self._sources.get(field, "default")

    def is_test_file(self, path: str) -> bool:
        """Whether ``path`` (relative to the project root) is a test file."""
        if self._test_globs is None:
            self._test_globs = GlobSet(self.test_file_globs)
        return self._test_globs.matches(path)


# --------------------------------------------------------------------------- loading


def find_project_root(cwd: Path, env: Mapping[str, str]) -> Path:
    """``TDD_PROJECT_ROOT`` when set (it must be an existing directory), else ``cwd``."""
    value = env.get("TDD_PROJECT_ROOT", "")
    if not value:
        return cwd
    root = (cwd / value).resolve()
    if not root.is_dir():
        raise ConfigError(
            f"TDD_PROJECT_ROOT: {value!r} is not an existing directory",
            "point TDD_PROJECT_ROOT at the project's root, or unset it to use the current "
            "directory",
        )
    return root


def load_config(
    root: Path, *, env: Mapping[str, str], flags: Mapping[str, object] | None = None,
    label: str | None = None,
) -> Config:
    """Merge ``<root>/tdd.toml`` (optional), the ``TDD_*`` environment and ``flags``.

    ``flags`` are already-parsed values keyed by field name; ``None`` means not given.
    ``label`` names the file in messages and sources (default: its path); a snapshot
    of the committed file is named for what it is, not for where rgr keeps it.
    """
    path = root / CONFIG_FILE
    file_values, file_bytes = _read_toml(path)
    label = label or str(path)
    # Validate the file on its own first: a mistake in it is reported even when an
    # environment variable or a flag happens to override that key today.
    _validate(file_values, dict.fromkeys(file_values, label))

    values: dict[str, object] = dict(file_values)
    sources: dict[str, str] = dict.fromkeys(file_values, label)
    for var, field in ENV_VARS.items():
        if env.get(var, ""):
            values[field] = env[var]
            sources[field] = var
    if env.get(ACCEPTANCE_MODE_VAR, ""):
        # One key of a table: the rest of [acceptance] stays the file's.
        table = values.get("acceptance")
        values["acceptance"] = {**(table if isinstance(table, dict) else {}),
                                "mode": env[ACCEPTANCE_MODE_VAR]}
        sources["acceptance"] = ACCEPTANCE_MODE_VAR
    for field, value in (flags or {}).items():
        if field not in Config.model_fields:
            raise ValueError(f"load_config: unknown flag field {field!r}")  # a bug, not input
        if value is not None:
            values[field] = value
            sources[field] = "--" + field.replace("_", "-")
    config = _validate(values, sources)
    config._sources = sources
    config._file_bytes = file_bytes
    return config


def _read_toml(path: Path) -> tuple[dict[str, Any], bytes | None]:
    """The file's values and its bytes (None, and no values, when there is no file)."""
    try:
        raw = path.read_bytes()
        # As a text-mode read gives it: newlines universal.
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    try:
        return tomllib.loads(text), raw
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid TOML: {_toml_reason(str(exc))}",
            'see https://toml.io; strings need quotes, e.g. model = "sonnet"',
        ) from exc


def _toml_reason(message: str) -> str:
    """tomllib says "Expected ... (at line 3, column 5)"; put the place first."""
    match = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", message, re.DOTALL)
    if match is None:
        return message
    reason, line, column = match.groups()
    return f"line {line}, column {column}: {reason}"


def _validate(values: Mapping[str, object], sources: Mapping[str, str]) -> Config:
    try:
        return Config.model_validate(values)
    except ValidationError as exc:
        lines = [_describe_error(err, values, sources) for err in exc.errors()]
        # One line per problem; a key with several (e.g. wrong type in a union) once.
        unique = list(dict.fromkeys(lines))
        raise ConfigError("\n".join(unique), _hint(exc, sources)) from None


def _describe_error(err: Any, values: Mapping[str, object], sources: Mapping[str, str]) -> str:
    key = str(err["loc"][0]) if err["loc"] else "?"
    source = sources.get(key, "config")
    if key in EXPECTED_IN_TABLE and len(err["loc"]) > 1:
        # a key inside a [gate] / [refactor] table: name it as [table].key
        inner = str(err["loc"][1])
        where = f"[{key}].{inner}"
        known = EXPECTED_IN_TABLE[key]
        if err["type"] == "extra_forbidden":
            return f"{source}: unknown key {where}{_did_you_mean(inner, known)}"
        table = values.get(key)
        value = table.get(inner) if isinstance(table, Mapping) else None
        got = _short_repr(value)
        if err["type"] == "literal_error" and isinstance(value, str):
            choices = [c.strip("'") for c in known[inner].split(": ", 1)[-1].split(", ")]
            got += _did_you_mean(value, choices)
        elif err["type"] == "value_error":
            got += f" ({err.get('ctx', {}).get('error', '')})"
        return f"{source}: {where} must be {known.get(inner, 'valid')}, got {got}"
    if err["type"] == "extra_forbidden":
        return f"{source}: unknown key {key!r}{_did_you_mean(key, Config.model_fields)}"
    got = _short_repr(values.get(key))
    reason = str(err.get("ctx", {}).get("error", "")) if err["type"] == "value_error" else ""
    if reason:
        got += f" ({reason})"
    expected = EXPECTED.get(key, "valid")
    if source.startswith(("TDD_", "--")):
        return f"{source}: must be {expected}, got {got}"
    return f"{source}: {key!r} must be {expected}, got {got}"


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word.replace("-", "_"), list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _hint(exc: ValidationError, sources: Mapping[str, str]) -> str:
    errors = exc.errors()
    unknown = [e for e in errors if e["type"] == "extra_forbidden"]
    if unknown:
        tables = {str(e["loc"][0]) for e in unknown if len(e["loc"]) > 1}
        if len(tables) == 1 and len(unknown) == 1:
            table = tables.pop()
            return f"known keys of [{table}]: " + ", ".join(EXPECTED_IN_TABLE[table])
        return "known keys: " + ", ".join(Config.model_fields)
    origins = sorted({sources.get(str(e["loc"][0]), "config") for e in errors if e["loc"]})
    fixes = []
    for origin in origins:
        if origin.startswith("TDD_"):
            fixes.append(f"set {origin} to a valid value, or unset it")
        elif origin.startswith("--"):
            fixes.append(f"pass a valid {origin}")
        else:
            fixes.append(f"edit {origin}")
    return "; ".join(fixes)


def _short_repr(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- test command

#: A runner adapter's name (rgr.ecosystems.registry.RUNNERS).
Runner = str


@dataclass(frozen=True)
class TestCommand:
    """The command that runs the project's tests, and how to read its results."""

    __test__ = False  # not a pytest test class, despite the name

    argv: tuple[str, ...]
    runner: Runner
    junit_globs: tuple[str, ...]
    shell: bool
    #: Where the command came from, for messages: the tdd.toml, ``TDD_TEST_COMMAND``,
    #: ``--test-command`` or "detected from <file>".
    source: str
    #: Where to change it, for hints (rgr.base.config.Config.setting): a variable or a
    #: flag overrides tdd.toml, so "set test_command in tdd.toml" would change nothing.
    #: A detected command is changed by setting one in tdd.toml.
    setting: str = "test_command in tdd.toml"

