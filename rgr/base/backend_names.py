"""The agent backends rgr can drive, by name: each name is written here and nowhere else.

The configuration (rgr.base.config), the agent files (rgr.store.agents) and the CLI
validate against ``NAMES``; rgr.backends.registry maps each name to the module and class
that runs it (a test checks the two list the same names). It lives in the bottom layer
because everything above may import it; it imports nothing (not even typing: the
start-up budget of tests/test_startup.py counts modules).
"""

from __future__ import annotations

CLAUDE = "claude"  # Claude Code, `claude -p`
CODEX = "codex"  # OpenAI Codex CLI, `codex exec`
GEMINI = "gemini"  # Gemini CLI, `gemini -p`
OPENCODE = "opencode"  # opencode, `opencode run`

#: Every backend, in the order help and messages list them.
NAMES = (CLAUDE, CODEX, GEMINI, OPENCODE)

#: The backend of a run that names none, and what a record written before rgr recorded
#: backends (an old note, event or result) was made with.
DEFAULT = CLAUDE


def one_of() -> str:
    """``'claude', 'codex', ...``: the names as error messages list them."""
    return ", ".join(repr(name) for name in NAMES)


def check(name: str) -> str:
    """``name`` when it is a backend rgr knows; ValueError naming the known ones if not
    (pydantic turns it into a validation message)."""
    if name not in NAMES:
        raise ValueError(f"unknown backend {name!r}; use one of {one_of()}")
    return name
