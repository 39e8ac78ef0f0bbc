"""Every agent backend rgr can run: its name (from rgr.base.backend_names), the module
and class that run it, and what to call it. One line per backend; the router, the CLI's
``--backend`` choices, the configuration's and the agent files' validation all read the
names from here or from rgr.base.backend_names (a test checks the two agree).

A backend class is imported only when a run uses it (``load``): ``rgr --help`` and a
run on claude never load codex's or gemini's module.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rgr.base.backend_names import CLAUDE, CODEX, GEMINI, OPENCODE

if TYPE_CHECKING:
    from rgr.backends.base import Backend
    from rgr.base.config import Config


class ConfiguredBackend(Protocol):
    """A backend class that can build itself from the run's configuration."""

    @classmethod
    def from_config(cls, config: Config, env: Mapping[str, str]) -> Backend: ...


@dataclass(frozen=True)
class BackendEntry:
    module: str  # the module under rgr.backends
    cls: str  # the class in it that implements rgr.backends.base.Backend
    product: str  # what its users call the CLI
    package: str  # the npm package it installs from
    #: Whether `rgr demo --backend NAME` has a recorded replay for it (rgr.commands.demo
    #: runs one per such backend; a test checks the two agree).
    demo: bool = False


BACKENDS: Mapping[str, BackendEntry] = {
    CLAUDE: BackendEntry("rgr.backends.claude", "ClaudeBackend", "Claude Code",
                         "@anthropic-ai/claude-code", demo=True),
    CODEX: BackendEntry("rgr.backends.codex", "CodexBackend", "OpenAI Codex", "@openai/codex",
                        demo=True),
    GEMINI: BackendEntry("rgr.backends.gemini", "GeminiBackend", "Gemini CLI",
                         "@google/gemini-cli"),
    OPENCODE: BackendEntry("rgr.backends.opencode", "OpencodeBackend", OPENCODE, "opencode-ai"),
}


def with_demo() -> list[str]:
    """The backends `rgr demo` can replay a run through, in the registry's order."""
    return [name for name, entry in BACKENDS.items() if entry.demo]


def load(name: str) -> type[ConfiguredBackend]:
    """The class that runs backend ``name`` (a KeyError for a name not in BACKENDS:
    configuration and CLI have refused those long before)."""
    entry = BACKENDS[name]
    cls: type[ConfiguredBackend] = getattr(importlib.import_module(entry.module), entry.cls)
    return cls
