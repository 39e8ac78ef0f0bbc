"""What rgr asks of an agent backend, and what it gets back.

A backend runs one headless agent session: a fresh session id, a system prompt file, a
tool allowlist, and an output model whose JSON schema the agent must answer with. It
returns a validated result or raises BackendError with a ``kind`` the orchestrator's
retry policy understands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pydantic

from rgr.base import backend_names
from rgr.base.errors import BackendError

if TYPE_CHECKING:  # a Protocol, so only for the type checker (rgr.base.proc)
    from rgr.base.proc import Launcher

#: What a sealed session's CLI holds instead of its key (see Backend.seal_api).
SEALED_KEY = "rgr-sealed-no-key-in-the-sandbox"

#: ``open_gateway(real API URL, {header: credential})`` -> the URL for inside the sandbox.
OpenGateway = Callable[[str, Mapping[str, str]], str]


@dataclass(frozen=True)
class AgentRequest:
    prompt: str
    system_prompt_file: Path
    output_model: type[pydantic.BaseModel]
    tools: tuple[str, ...]  # the built-in tools the session may see at all
    allowed_tools: tuple[str, ...]  # permission rules run without asking
    disallowed_tools: tuple[str, ...]  # permission rules always refused
    max_turns: int
    model: str | None
    cwd: Path
    timeout_s: float
    session_id: str  # a uuid4 chosen by the caller: a fresh session per phase
    max_budget_usd: float | None = None
    env: Mapping[str, str] | None = None  # None: rgr's own environment passes through
    #: Which CLI runs this session (rgr.base.backend_names); None: the run's default. Only
    #: rgr.backends.router reads it.
    backend: str | None = None
    #: Called with each event the session reports while it runs (claude's stream-json
    #: lines: system/init, assistant turns, tool results, API retries, the result).
    on_event: Callable[[dict[str, Any]], None] | None = field(default=None, compare=False)
    #: The sandbox the session runs in (None: unconfined, ``--no-sandbox``).
    launcher: Launcher | None = field(default=None, compare=False)
    #: Settings that install rgr's PreToolUse edit guard (claude's ``--settings``);
    #: a backend without such hooks ignores it (the checks on the commit still judge).
    settings_file: Path | None = None


def says_any(text: str, markers: Iterable[str]) -> bool:
    """Whether ``text`` (lower-cased by the caller) holds any of ``markers``. A marker
    that is a number, an HTTP status, counts only as a number of its own: "401" is in
    "status 401" but not in a URL's port 40133 (a 503 once read as a login failure)."""
    for marker in markers:
        if marker.isdigit():
            if re.search(rf"(?<!\d){marker}(?!\d)", text):
                return True
        elif marker in text:
            return True
    return False


def usd(value: object) -> float:
    """A cost in USD as rgr records it: claude's own sum carries floating-point noise
    (0.30000000000000004); a millionth of a dollar is far below any price step."""
    return round(float(value or 0.0), 6)  # type: ignore[arg-type]


@dataclass(frozen=True, kw_only=True)
class SessionFigures:
    """What one session used, as its backend reports it. Every backend fills these, so
    rgr's accounting (events, notes, limits, the views) reads the same typed fields for
    each CLI and nothing outside rgr/backends/ reads a backend's own output."""

    backend: str = backend_names.DEFAULT  # the CLI that ran the session
    model: str | None = None  # the model it used, when the backend says
    num_turns: int = 0
    duration_ms: int = 0
    #: The model's share of ``duration_ms``, as the backend reports it (0: not reported).
    duration_api_ms: int = 0
    input_tokens: int = 0  # uncached input
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    #: None: the backend reports no cost (codex), which is not the same as $0.
    cost_usd: float | None = 0.0
    #: The tool calls the CLI refused, as it lists them (tool_name, tool_input).
    permission_denials: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, kw_only=True)
class AgentResult(SessionFigures):
    """A session that answered: its validated output and its figures."""

    session_id: str
    output: pydantic.BaseModel  # validated with the request's output_model
    #: The backend's own final result, verbatim, for the attempt's result.json (the
    #: audit trail). Opaque outside rgr/backends/: read ``audit_record`` there.
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, figures: SessionFigures, *, session_id: str, output: pydantic.BaseModel,
           raw: dict[str, Any]) -> AgentResult:
        """The result of a session that answered ``output`` and used ``figures``."""
        used = {f.name: getattr(figures, f.name) for f in fields(SessionFigures)}
        return cls(session_id=session_id, output=output, raw=raw, **used)


class AgentRunError(BackendError):
    """A session that ran (and may have spent money) but did not give a usable result.

    ``figures`` are what the session used, so a failed attempt is still accounted for
    (cost, turns, tokens); ``raw`` is the backend's parsed result when there was one.
    """

    def __init__(
        self,
        kind: str,
        message: str,
        hint: str | None = None,
        *,
        retryable: bool = False,
        raw: dict[str, Any] | None = None,
        figures: SessionFigures | None = None,
    ) -> None:
        super().__init__(kind, message, hint, retryable=retryable)
        self.raw = raw
        self.figures = figures


def session_figures(outcome: AgentResult | BackendError | None) -> SessionFigures | None:
    """The figures of a session that answered or failed; None when it never ran (or its
    backend could not say what it used)."""
    if isinstance(outcome, AgentResult):
        return outcome
    if isinstance(outcome, AgentRunError):
        return outcome.figures
    return None


def audit_record(outcome: AgentResult | BackendError | None) -> dict[str, Any] | None:
    """The backend's own final result, to be kept verbatim as the attempt's result.json;
    None when there was none. rgr reads nothing in it (the figures say it all)."""
    if isinstance(outcome, AgentResult):
        return outcome.raw
    if isinstance(outcome, AgentRunError):
        return outcome.raw
    return None


class Backend(Protocol):
    name: str

    # Read-only properties, so that a router (rgr.backends.router) can answer for the
    # CLIs it routes to.
    @property
    def binary(self) -> str:
        """The CLI's executable (a name on PATH or a path), shown inside the sandbox."""
        ...

    @property
    def env_keep(self) -> tuple[str, ...]:
        """Environment variables the CLI needs inside the sandbox (NAME or PREFIX_*);
        everything else of rgr's environment is withheld from the agent."""
        ...

    def api_urls(self, env: Mapping[str, str]) -> list[str]:
        """The model API's base URLs under ``env``: what the sandbox must let the agent
        process reach."""
        ...

    def seal_api(self, env: dict[str, str], open_gateway: OpenGateway) -> list[str]:
        """Route the CLI's model API through rgr's gateway (rgr.sandbox.gateway), so its
        key stays out of the sandbox: for each API the CLI would use under ``env`` (a
        sealed session's environment), ``open_gateway(url, credentials)`` gives the URL
        to use inside; ``env`` is pointed at it and its keys replaced by the
        placeholder. Returns the APIs it could not route so (a subscription login,
        whose token the CLI holds itself): the sandbox lets the CLI reach those."""
        ...

    def prepare_home(self, home: Path, env: Mapping[str, str]) -> None:
        """Put what the CLI needs to log in (and nothing else of the user's) into the
        throwaway HOME ``home`` of a sandboxed session; ``env`` is rgr's own."""
        ...

    def version(self) -> str:
        """The backend's version string; BackendError("missing_binary") if not installed."""
        ...

    def check_login(self, cwd: Path) -> None:
        """One trivial call proving authentication works; BackendError("not_logged_in")."""
        ...

    def run(self, request: AgentRequest) -> AgentResult:
        """One fresh session; an AgentResult or a classified BackendError."""
        ...


def backend_binaries(backend: Backend) -> tuple[str, ...]:
    """Every executable ``backend`` may start: one per CLI for a run that routes agents
    to several (rgr.backends.router), else its ``binary``."""
    binaries = getattr(backend, "binaries", None)
    return tuple(binaries) if binaries else (backend.binary,)
