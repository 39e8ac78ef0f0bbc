"""The Gemini CLI backend: one ``gemini -p`` session per phase, its result classified.

Facts measured with @google/gemini-cli 0.61.0 (npm; a node bundle, node >= 20) driven by
``rgr.fake_model.gemini``:

- ``gemini -p TEXT -o stream-json`` runs headless and prints JSONL: ``init{session_id,
  model}``, ``message{role, content, delta}``, ``tool_use``/``tool_result``, ``error``,
  and last ``result{status, stats{input_tokens, output_tokens, cached, duration_ms,
  tool_calls}, error?}``. The prompt goes on stdin (``-p`` is appended to it).
  ``--session-id UUID`` names the session (refused if that id exists in its home).
- ``--approval-mode yolo`` runs every tool call without asking (headless has no one to
  ask); ``--skip-trust`` trusts the working folder for the session.
- Its home is ``GEMINI_CLI_HOME`` (settings in ``.gemini/settings.json``, sessions,
  history): rgr gives each session a fresh one. ``security.auth.selectedType =
  "gemini-api-key"`` with ``GEMINI_API_KEY`` and ``GOOGLE_GEMINI_BASE_URL`` talks to
  that base URL (without the setting, the base URL variable selects a "gateway" auth
  that 0.61.0 then refuses: "Invalid auth method selected."). ``tools.core`` limits
  the tools offered; ``GEMINI_SYSTEM_MD=FILE`` replaces the built-in system prompt.
- Without ``-m`` the CLI first asks a router model to pick one (several generateJson
  calls, with backoff when they fail): rgr always names the model.
- First request with the defaults: about 48.7 KB (16 tools, the long built-in prompt).
- The CLI has no output schema: rgr appends the schema to the prompt and validates the
  last model message (JSON, code fences tolerated) with the pydantic model itself.
- A 429 or 5xx is retried by the CLI itself (``general.maxAttempts``, 10 by default,
  backing off 5 s to 30 s); after the last it exits 1 with an ``error`` result.
- ``GEMINI_CLI_CUSTOM_HEADERS="Name: value"`` adds headers to every model request:
  rgr names the session there (``x-rgr-session-id``), as claude does with its own.

Permissions: like codex, the Gemini CLI has no per-tool permission rules that rgr maps;
its own sandbox is off (``-s`` not given). rgr's sealed scratch copy and OS sandbox are
the boundary, and the after-the-fact guards judge the commit.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic

from rgr.backends import locate, version_memo
from rgr.backends.base import (
    SEALED_KEY,
    AgentRequest,
    AgentResult,
    AgentRunError,
    OpenGateway,
    SessionFigures,
    says_any,
)
from rgr.backends.cli_process import (
    ThrowawayHome,
    probe_login,
    require_version,
    run_cli,
    session_timed_out,
)
from rgr.base import failpoints
from rgr.base.backend_names import GEMINI
from rgr.base.errors import BackendError
from rgr.base.proc import Completed
from rgr.base.processes import REPO_MARK_VAR, SESSION_MARK_VAR, kill_marked_processes

if TYPE_CHECKING:
    from rgr.base.config import Config
    from rgr.base.proc import Launcher

PACKAGE = "@google/gemini-cli"
#: The release the end-to-end suite runs (tests/e2e/node/package.json pins it).
PINNED = "0.61.0"
MIN_VERSION = (0, 61, 0)
INSTALL_COMMAND = locate.install_command(PACKAGE, PINNED)
INSTALL_HINT = (f"install the Gemini CLI (needs Node.js 20+): `{INSTALL_COMMAND}`, or set "
                "gemini_binary in tdd.toml")
LOGIN_HINT = "set GEMINI_API_KEY in rgr's environment"

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
DEFAULT_MODEL = "gemini-2.5-pro"
KEY_VAR = "GEMINI_API_KEY"
BASE_URL_VAR = "GOOGLE_GEMINI_BASE_URL"
SESSION_HEADER = "x-rgr-session-id"
#: Never handed to gemini: other CLIs' keys, and Google credentials rgr does not route.
DROPPED_VARS = frozenset({"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
                          "CODEX_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY",
                          "GOOGLE_APPLICATION_CREDENTIALS", "GEMINI_CLI_HOME",
                          "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA"})

EXCERPT_CHARS = 1500
VERSION_TIMEOUT_S = 60.0

#: rgr's tool names (agents/*.toml) -> the Gemini CLI's. ``list_directory`` is not
#: offered: ``glob`` and the shell list a folder too.
TOOLS = {"Read": ("read_file",), "Write": ("write_file",), "Edit": ("replace",),
         "Bash": ("run_shell_command",), "Grep": ("grep_search",), "Glob": ("glob",)}

#: A tool left out when the session has the one named here, which does its job: every
#: tool's declaration travels in every request, and ``replace``'s alone is 4.2 KB of the
#: 16 KB a phase's first request may take (bench/first_request_bench.py). An agent that
#: may write files edits them by writing them whole.
COVERED_BY = {"replace": "write_file"}


def gemini_tools(names: tuple[str, ...] | list[str]) -> list[str]:
    """The Gemini CLI's tools for an agent's rgr tools (``tools.core``)."""
    chosen = {tool for name in names for tool in TOOLS.get(name, ())}
    return sorted(tool for tool in chosen if COVERED_BY.get(tool) not in chosen)

#: A rate limit's text says "switch to another /auth method": only these mean the key.
LOGIN_MARKERS = ("401", "403", "unauthenticated", "permission_denied", "api key not valid",
                 "invalid api key", "invalid auth method", "must specify the gemini_api_key")
TRANSIENT_MARKERS = ("429", "resource_exhausted", "resource exhausted", "quota", "rate limit",
                     "500", "502", "503", "unavailable", "internal", "overloaded",
                     "fetch failed", "econnreset", "econnrefused", "socket hang up",
                     "terminated", "timeout")

_FENCE = re.compile(r"^```(?:json)?\s*\n(.*)\n```\s*$", re.DOTALL)


class GeminiBackend:
    """Runs ``gemini -p`` headless. ``env`` is rgr's environment (the key and base URL
    are read from it); None uses ``os.environ``."""

    name = GEMINI
    env_keep: tuple[str, ...] = (KEY_VAR, BASE_URL_VAR)

    def __init__(self, binary: str = GEMINI, *, env: Mapping[str, str] | None = None,
                 model: str | None = None, max_attempts: int | None = None) -> None:
        self.binary = locate.resolve_cli(binary, env if env is not None else os.environ)
        self.env = env
        self.model = model
        #: The CLI's own attempts per model request (``general.maxAttempts``; None: its
        #: default, 10, backing off from 5 s to 30 s: minutes on a lasting 429).
        self.max_attempts = max_attempts

    @classmethod
    def from_config(cls, config: Config, env: Mapping[str, str]) -> GeminiBackend:
        return cls(config.gemini_binary, env=env, model=config.model)

    def _source(self, env: Mapping[str, str] | None = None) -> Mapping[str, str]:
        return env if env is not None else (self.env if self.env is not None else os.environ)

    # -- the protocol ------------------------------------------------------------------

    def version(self) -> str:
        text = version_memo.remembered(self.binary, self._source(), self._read_version)
        return require_version(text, cli=GEMINI, package=PACKAGE, minimum=MIN_VERSION,
                               update=f"npm install -g {PACKAGE}@{PINNED}")

    def _read_version(self) -> str:
        with ThrowawayHome("rgr-gemini-home-", self._source().get("TMPDIR")) as home:
            done = self._run([self.binary, "--version"], cwd=Path.cwd(),
                             timeout=VERSION_TIMEOUT_S, env=self._env(home, None))
        if done.returncode != 0 or done.timed_out:
            raise BackendError("missing_binary", f"`{self.binary} --version` failed:\n"
                               f"{done.describe(EXCERPT_CHARS)}", INSTALL_HINT)
        return done.stdout.strip()

    def api_urls(self, env: Mapping[str, str]) -> list[str]:
        return [env.get(BASE_URL_VAR) or DEFAULT_BASE_URL]

    def seal_api(self, env: dict[str, str], open_gateway: OpenGateway) -> list[str]:
        key = env.get(KEY_VAR)
        if not key:
            return []  # no key, no session: run() says not_logged_in
        env[BASE_URL_VAR] = open_gateway(env.get(BASE_URL_VAR) or DEFAULT_BASE_URL,
                                         {"x-goog-api-key": key})
        env[KEY_VAR] = SEALED_KEY
        return []

    def prepare_home(self, home: Path, env: Mapping[str, str]) -> None:
        """Nothing of the user's: the key comes by environment, settings are rgr's."""

    def check_login(self, cwd: Path) -> None:
        probe_login(self.run, probe_request(cwd))

    def run(self, request: AgentRequest) -> AgentResult:
        base_env = request.env if request.env is not None else self.env
        source = self._source(base_env)
        state = StreamState(max_turns=request.max_turns)
        started = time.monotonic()
        with ThrowawayHome("rgr-gemini-home-", source.get("TMPDIR")) as home:
            self._settings(home, request)
            env = self._env(home, base_env)
            if not env.get(KEY_VAR):
                raise BackendError("not_logged_in", f"gemini has no API key: {KEY_VAR} is "
                                   "not set", LOGIN_HINT)
            env["GEMINI_SYSTEM_MD"] = str(request.system_prompt_file)
            env["GEMINI_CLI_CUSTOM_HEADERS"] = f"{SESSION_HEADER}: {request.session_id}"
            env[SESSION_MARK_VAR] = request.session_id
            env[REPO_MARK_VAR] = str(request.cwd)
            try:
                done = self._run(
                    self.argv(request), cwd=request.cwd, timeout=request.timeout_s, env=env,
                    stdin_data=with_schema(request), on_line=state.reader(request),
                    launcher=request.launcher)
            finally:
                kill_marked_processes(SESSION_MARK_VAR, request.session_id)
        if done.timed_out:
            raise session_timed_out(GEMINI, request)
        duration_ms = int((time.monotonic() - started) * 1000)
        figures = state.figures(self._model(request), duration_ms)
        raw = {"type": "result", "backend": GEMINI, "session_id": request.session_id,
               **(state.result or {})}
        return to_result(state, done, request, raw, figures)

    # -- pieces ------------------------------------------------------------------------

    def argv(self, request: AgentRequest) -> list[str]:
        return [self.binary, "-p", "Do the task above.", "-o", "stream-json",
                "--approval-mode", "yolo", "--skip-trust", "-m", self._model(request),
                "--session-id", request.session_id]

    def _model(self, request: AgentRequest) -> str:
        # Named always: without -m the CLI first asks a router model which to use.
        return request.model or self.model or DEFAULT_MODEL

    def _settings(self, home: Path, request: AgentRequest) -> None:
        tools = gemini_tools(request.tools)
        settings = {"security": {"auth": {"selectedType": "gemini-api-key"},
                                 # The shell tool's commands get the CLI's environment
                                 # without any *KEY*/*TOKEN*/... variable: not even the
                                 # placeholder key reaches the agent's shell. rgr's marks
                                 # stay, so its processes can be found and stopped.
                                 "environmentVariableRedaction": {
                                     "enabled": True,
                                     "allowed": [SESSION_MARK_VAR, REPO_MARK_VAR]}},
                    "tools": {"core": tools},
                    "general": {"disableAutoUpdate": True, "disableUpdateNag": True,
                                "checkpointing": {"enabled": False},
                                **({"maxAttempts": self.max_attempts}
                                   if self.max_attempts is not None else {})},
                    "privacy": {"usageStatisticsEnabled": False},
                    "telemetry": {"enabled": False},
                    "context": {"fileName": "RGR-NO-CONTEXT-FILE.md"},
                    "model": {"maxSessionTurns": request.max_turns}}
        target = home / ".gemini" / "settings.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(settings))

    def _env(self, home: Path, base: Mapping[str, str] | None) -> dict[str, str]:
        source = self._source(base)
        env = {k: v for k, v in source.items() if k not in DROPPED_VARS}
        env["GEMINI_CLI_HOME"] = str(home)
        env["NO_COLOR"] = "1"
        return env

    def _run(self, argv: list[str], *, cwd: Path, timeout: float, env: Mapping[str, str],
             stdin_data: str | None = None, on_line: Callable[[str], None] | None = None,
             launcher: Launcher | None = None) -> Completed:
        return run_cli(GEMINI, self.binary, argv, cwd=cwd, timeout=timeout, env=env,
                       install_hint=INSTALL_HINT, stdin_data=stdin_data, on_line=on_line,
                       on_start=(lambda: failpoints.hit("agent:spawned")) if on_line else None,
                       launcher=launcher)


def with_schema(request: AgentRequest) -> str:
    """The prompt plus the answer rgr needs: the Gemini CLI (and opencode) has no
    output-schema flag."""
    schema = json.dumps(request.output_model.model_json_schema())
    return (f"{request.prompt}\n\nWhen you are done, answer with one JSON object and "
            f"nothing else, valid under this JSON schema:\n{schema}\n")


def probe_request(cwd: Path) -> AgentRequest:
    class Ok(pydantic.BaseModel):
        ok: bool = True

    empty = Path(os.devnull)
    return AgentRequest(prompt="Reply with the word OK.", system_prompt_file=empty,
                        output_model=Ok, tools=(), allowed_tools=(), disallowed_tools=(),
                        max_turns=1, model=None, cwd=cwd, timeout_s=120.0,
                        session_id=_uuid())


def _uuid() -> str:
    import uuid
    return str(uuid.uuid4())


@dataclass
class StreamState:
    """What the stream-json lines said so far."""

    max_turns: int = 0
    started: bool = False
    tool_calls: int = 0
    #: The model's text since its last tool call: the final message once it ends.
    message: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None

    def reader(self, request: AgentRequest) -> Any:
        def handle(line: str) -> None:
            try:
                event = json.loads(line)
            except ValueError:
                return  # the CLI's own warnings
            if not isinstance(event, dict):
                return
            self.take(event)
            if request.on_event is not None:
                request.on_event({**event, "backend": GEMINI})
        return handle

    def take(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "init":
            self.started = True
        elif kind == "message" and event.get("role") == "assistant":
            self.message.append(str(event.get("content") or ""))
        elif kind == "tool_use":
            self.tool_calls += 1
            self.message = []
        elif kind == "error":
            self.errors.append(str(event.get("message") or event))
        elif kind == "result":
            self.result = dict(event)
            error = event.get("error")
            if isinstance(error, Mapping):
                self.errors.append(str(error.get("message") or error))

    @property
    def final_message(self) -> str:
        return "".join(self.message).strip()

    def figures(self, model: str, duration_ms: int) -> SessionFigures:
        stats = (self.result or {}).get("stats") or {}
        cached = int(stats.get("cached") or 0)
        return SessionFigures(
            backend=GEMINI, model=model, num_turns=self.tool_calls + 1,
            duration_ms=int(stats.get("duration_ms") or duration_ms),
            input_tokens=max(0, int(stats.get("input_tokens") or 0) - cached),
            output_tokens=int(stats.get("output_tokens") or 0),
            cache_read_input_tokens=cached, cost_usd=None)


def classify_failure(state: StreamState, done: Completed, raw: dict[str, Any],
                     figures: SessionFigures) -> AgentRunError:
    text = "; ".join(state.errors) or (
        f"gemini exited with code {done.returncode}: {done.stderr.strip()[-EXCERPT_CHARS:]}")
    lowered = text.lower()
    if says_any(lowered, LOGIN_MARKERS):
        return AgentRunError("not_logged_in", f"gemini is not logged in: {text}", LOGIN_HINT,
                             raw=raw, figures=figures)
    if "turn" in lowered and ("max" in lowered or "limit" in lowered):
        return AgentRunError("max_turns", f"gemini hit its turn limit: {text}",
                             "raise max_turns for this agent", raw=raw, figures=figures)
    if says_any(lowered, TRANSIENT_MARKERS):
        return AgentRunError("api_error", f"the model API failed: {text}",
                             "wait and run `rgr resume`", retryable=True, raw=raw,
                             figures=figures)
    return AgentRunError("execution_error", f"gemini failed: {text}", raw=raw, figures=figures)


def to_result(state: StreamState, done: Completed, request: AgentRequest,
              raw: dict[str, Any], figures: SessionFigures) -> AgentResult:
    """A validated AgentResult, or the error that explains why there is none."""
    if not state.started and state.result is None:
        raise BackendError(
            "unparsable_output", f"gemini printed no JSON events (exit code "
            f"{done.returncode}):\n{done.describe(EXCERPT_CHARS)}",
            "run the same command by hand to see what gemini says")
    status = (state.result or {}).get("status")
    if done.returncode != 0 or status != "success":
        raise classify_failure(state, done, raw, figures)
    output, data = parse_answer(state.final_message, request, GEMINI, raw, figures)
    raw["structured_output"] = data
    return AgentResult.of(figures, session_id=request.session_id, output=output, raw=raw)


def parse_answer(text: str, request: AgentRequest, backend: str, raw: dict[str, Any],
                 figures: SessionFigures) -> tuple[pydantic.BaseModel, Any]:
    """The final message of a CLI without an output schema (the schema was in the
    prompt, ``with_schema``) as the request's output model, and the JSON it held."""
    fenced = _FENCE.match(text)
    try:
        data = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        raise AgentRunError("no_structured_output",
                            f"{backend}'s final message is not JSON; it said: "
                            f"{text[:EXCERPT_CHARS]!r}", raw=raw, figures=figures) from None
    try:
        output = request.output_model.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = "\n".join(
            f"  {'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors())
        raise AgentRunError("invalid_output", f"{backend}'s answer is not a valid "
                            f"{request.output_model.__name__}:\n{problems}",
                            raw=raw, figures=figures) from exc
    return output, data
