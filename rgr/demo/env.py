"""The environment for a ``claude`` that talks only to a local scripted model server.

Built from scratch, not from ``os.environ``: nothing of the user's setup leaks in (no
real API key or OAuth token, no ``~/.claude`` settings, no CLAUDECODE marker from an
enclosing session, no proxy). ``HOME`` and the XDG directories point into a throwaway
folder, so claude writes its ``.claude.json`` and session transcripts there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: Any value works against the fake server; a real-looking prefix keeps claude's key
#: format checks quiet. It is never sent anywhere but 127.0.0.1.
DUMMY_API_KEY = "sk-ant-api03-fake-key-for-rgr-tests"


def claude_env(home: Path, base_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment for an offline claude talking to ``base_url``."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        # claude writes ~/.claude.json and ~/.claude/projects/<cwd>/<session>.jsonl.
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": DUMMY_API_KEY,
        # No bootstrap, update check, telemetry or error reports: only the API is called
        # (a HEAD / probe, then POST /v1/messages).
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
        # claude retries 408/409/429/5xx/401 and dropped connections itself, waiting
        # 0.5 s, 1 s, 2 s ... up to 32 s, 10 times by default (minutes). One retry keeps
        # the retry path exercised and the tests fast.
        "CLAUDE_CODE_MAX_RETRIES": "1",
        # A scripted model plays the scripts it was given: they have no examiner session
        # (rgr.tdd.examine), so the examiner is off unless a caller turns it back on.
        "TDD_ACCEPTANCE_MODE": "off",
    }
    if "TMPDIR" in os.environ:
        env["TMPDIR"] = os.environ["TMPDIR"]
    env.update(extra or {})
    return env


#: The Codex backend passes this to codex as CODEX_API_KEY; only 127.0.0.1 sees it.
DUMMY_OPENAI_KEY = "sk-proj-fake-key-for-rgr-tests"
DUMMY_GEMINI_KEY = "AIza-fake-key-for-rgr-tests"


def gemini_env(home: Path, base_url: str,
               extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for an rgr whose Gemini backend talks to ``base_url`` (a Gemini
    API server, rgr.fake_model.gemini), offline."""
    env = claude_env(home, "http://127.0.0.1:9", extra=None)
    for key in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"):
        env.pop(key)
    env["GOOGLE_GEMINI_BASE_URL"] = base_url.rstrip("/")
    env["GEMINI_API_KEY"] = DUMMY_GEMINI_KEY
    env.update(extra or {})
    return env


def opencode_env(home: Path, base_url: str,
                 extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for an rgr whose opencode backend talks to ``base_url`` (a Chat
    Completions server, rgr.fake_model.chat; ``/v1`` is appended), offline."""
    env = claude_env(home, "http://127.0.0.1:9", extra=None)
    for key in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"):
        env.pop(key)
    env["OPENAI_BASE_URL"] = base_url.rstrip("/") + "/v1"
    env["OPENAI_API_KEY"] = DUMMY_OPENAI_KEY
    env.update(extra or {})
    return env


def codex_env(home: Path, base_url: str,
              extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for an rgr whose Codex backend talks to ``base_url`` (a Responses
    API server; ``/v1`` is appended), offline. rgr's Codex backend gives codex a
    throwaway CODEX_HOME of its own and turns OPENAI_BASE_URL into a provider table."""
    env = claude_env(home, "http://127.0.0.1:9", extra=None)
    for key in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"):
        env.pop(key)
    env["OPENAI_BASE_URL"] = base_url.rstrip("/") + "/v1"
    env["CODEX_API_KEY"] = DUMMY_OPENAI_KEY
    env.update(extra or {})
    return env
