"""Agent definitions (``agents/*.toml``) and their prompts (``prompts/``).

Both ship inside the package. A target repository overrides any of them by putting a
file of the same name under ``.rgr/agents/`` or ``.rgr/prompts/``: the whole file
replaces the packaged one, so an override is always a complete, readable definition.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rgr.base import backend_names
from rgr.base.errors import ConfigError
from rgr.store.handoff import Phase

OVERRIDE_DIR = ".rgr"
TEST_COMMAND_PLACEHOLDER = "{test_command}"

#: Which agent runs each phase.
AGENT_FOR_PHASE = {
    Phase.PLAN: "planner",
    Phase.RED: "tester",
    Phase.GREEN: "implementer",
    Phase.REFACTOR: "refactorer",
}

_VERSION = re.compile(r"<!--\s*prompt-version:\s*(?P<version>\S+)\s*-->")


class AgentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    phase: Phase
    description: str = ""
    prompt: str
    output: Literal["plan", "phase", "refactor-plan", "acceptance"]
    tools: list[str]
    allowed_tools: list[str] = Field(default_factory=list)
    disallowed_tools: list[str] = Field(default_factory=list)
    max_turns: int = Field(default=30, ge=1)
    model: str = ""
    #: The CLI that runs this agent (one of rgr.base.backend_names); "": the run's.
    backend: str = ""
    commit_prefixes: list[str] = Field(min_length=1)
    source: str = ""  # where it was loaded from (set by the loader, not the file)

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        return value and backend_names.check(value)

    def permission_rules(self, test_argv: tuple[str, ...]) -> tuple[str, ...]:
        """allowed_tools with ``{test_command}`` expanded to a Bash rule for it."""
        rule = f"Bash({shlex.join(test_argv)}:*)" if test_argv else ""
        expanded = [rule if item == TEST_COMMAND_PLACEHOLDER else item
                    for item in self.allowed_tools]
        return tuple(item for item in expanded if item)


def packaged_dir(name: str) -> Path:
    """``agents`` or ``prompts`` as installed (wheel) or beside the package (checkout)."""
    package = Path(__file__).resolve().parent.parent  # rgr/, this module is rgr/store/
    installed = package / "_data" / name
    return installed if installed.is_dir() else package.parent / name


def _find(root: Path, kind: str, filename: str) -> Path:
    override = root / OVERRIDE_DIR / kind / filename
    if override.is_file():
        return override
    packaged = packaged_dir(kind) / filename
    if packaged.is_file():
        return packaged
    raise ConfigError(
        f"no {kind[:-1]} file {filename!r} in {override.parent} or {packaged.parent}",
        "reinstall rgr, or add the file under .rgr/ in the repository",
    )


def load_agent(root: Path, name: str) -> AgentSpec:
    path = _find(root, "agents", f"{name}.toml")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    try:
        spec = AgentSpec.model_validate({**data, "source": str(path)})
    except ValidationError as exc:
        problems = "; ".join(
            f"'{'.'.join(str(p) for p in e['loc'])}': {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(f"{path}: {problems}", "compare it with the packaged agents/") from None
    return spec


#: The examiner (rgr.tdd.examine): no phase of its own; it stands before COMPLETE.
EXAMINER = "examiner"


def agent_for(root: Path, phase: Phase) -> AgentSpec:
    spec = load_agent(root, AGENT_FOR_PHASE[phase])
    if spec.phase != phase:
        raise ConfigError(f"{spec.source}: declares phase {spec.phase}, expected {phase}")
    return spec


def prompt_path(root: Path, filename: str) -> Path:
    return _find(root, "prompts", filename)


def prompt_version(path: Path) -> str:
    """The ``<!-- prompt-version: X -->`` tag of a prompt file, or its file name."""
    match = _VERSION.search(path.read_text()[:500])
    return match["version"] if match else path.name
