"""The Claude Code backend: one ``claude -p`` session per phase, its result classified.

Facts measured with Claude Code 2.1.197 (npm) driven by ``rgr.fake_model``:

Invocation
- The prompt goes on stdin, not in argv: ``--tools``, ``--allowedTools`` and
  ``--disallowedTools`` are variadic (``<tools...>``), so a positional prompt after
  them would be read as one more tool, and a long prompt in argv can hit the kernel's
  128 KiB per-argument limit. ``--system-prompt-file`` works although ``--help`` only
  mentions it under ``--bare``. ``--max-budget-usd`` exists (print mode only).
- With ``--system-prompt-file`` and ``--tools "Read,Edit,Write,Bash,Grep,Glob"`` the
  first request body is 11.4 KB (about 80 KB with the defaults); each later turn adds
  the tool call and its result. Besides POST /v1/messages?beta=true, claude sends one
  ``HEAD /`` probe and nothing else when CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1.
- ``--json-schema`` adds the ``StructuredOutput`` tool and claude validates the call
  against the schema itself: an invalid call is returned to the model as a tool error;
  after 5 invalid calls (MAX_STRUCTURED_OUTPUT_RETRIES) the run ends with subtype
  ``error_max_structured_output_retries``. Constraints the schema cannot express
  (pydantic validators) are only caught here, by re-validating.
- A model that answers text twice without calling StructuredOutput ends the run with
  ``subtype: "success"``, ``is_error: false`` and no ``structured_output``; empty
  assistant messages are retried twice, then end the same way.
- ``--output-format stream-json --verbose`` prints one JSON object per line as it
  happens: ``system``/``init`` (tools, model, cwd), one ``assistant`` event per model
  response (its ``usage`` is message_start's, so ``output_tokens`` reads 1: only the
  result's totals count), one ``user`` event per tool result (``is_error`` on a failed or
  denied call), ``system``/``api_retry`` before each of claude's own retries
  (``attempt``, ``max_retries``, ``retry_delay_ms``, ``error_status``, ``error``), and
  last the ``result`` event, which carries exactly what ``--output-format json`` prints
  (subtype, is_error, api_error_status, usage, modelUsage, total_cost_usd,
  structured_output, permission_denials, errors). Errors that happen before the session
  starts (below) still print nothing on stdout.
- A reused ``--session-id`` prints "Error: Session ID ... is already in use." on stderr,
  nothing on stdout, exit code 1. So do bad flags ("Error: --json-schema is not valid
  JSON", "System prompt file not found").

Failures: every API failure is a JSON result with ``subtype: "success"``,
``is_error: true``, exit code 1, a ``result`` text, and ``api_error_status`` that is
*sometimes* null:
- 401: status 401, "Failed to authenticate. API Error: 401 ..."; no key at all:
  status null, "Not logged in · Please run /login".
- 429: status 429, "API Error: Request rejected (429) · <message>".
- 500: status 500, "API Error: 500 <message>. This is a server-side issue ...".
- 529: status 529 when retries are off; after 3 consecutive 529s claude gives up
  whatever its retry budget, with status null and "API Error: Repeated 529 Overloaded
  errors ...". One or two 529s followed by a good answer end in success; only the
  stream's ``api_retry`` events show them.
- 400: status 400, "API Error: 400 <message>", not retried.
- connection refused: status null, "API Error: Unable to connect to API
  (ConnectionRefused)"; stream cut mid-answer: status null, "API Error: Connection to
  the API was lost (ECONNRESET) ..." (the retry goes out non-streaming, and then the
  top-level ``usage`` is all zeros while ``modelUsage`` holds the tokens: read
  ``modelUsage``); API_TIMEOUT_MS exceeded: status null, "Request timed out".
- max turns: ``subtype: "error_max_turns"``, ``errors: ["Reached maximum number of
  turns (N)"]``; budget: ``subtype: "error_max_budget_usd"``, checked after each model
  call, so a run overshoots its budget by at most one call.
- ``error_during_execution`` exists (the run ended in a state claude cannot summarise);
  it is classified but was not reproducible here.

Processes: claude's Bash tool starts every command in a new session (setsid), so
killing claude's process group on a timeout leaves the command running, reparented to
init; SIGTERM makes claude exit at once without killing them. The backend therefore
marks the session's environment with ``RGR_AGENT_SESSION=<session id>`` (inherited by
every tool process) and, after every run, kills whatever still carries the mark.

Claude's own retries: 408, 409, 429, 5xx, 401 (after clearing its key cache) and
dropped connections are retried up to CLAUDE_CODE_MAX_RETRIES times (default 10,
clamped to 15) with a backoff of 0.5 s doubling to 32 s plus up to 25 % jitter: about
2.5 minutes before a persistent 5xx surfaces. ``retry-after`` headers can only lengthen
the wait; ``retry-after-ms`` is ignored. Tests set CLAUDE_CODE_MAX_RETRIES=1 (one 0.5 s
wait); rgr itself leaves claude's default and treats what surfaces as retryable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic

from rgr.backends import claude_release, locate, version_memo
from rgr.backends.base import (
    SEALED_KEY,
    AgentRequest,
    AgentResult,
    AgentRunError,
    OpenGateway,
    SessionFigures,
    says_any,
    usd,
)
from rgr.backends.cli_process import run_cli, session_timed_out
from rgr.base import failpoints
from rgr.base.backend_names import CLAUDE
from rgr.base.errors import BackendError
from rgr.base.proc import Completed
from rgr.base.processes import REPO_MARK_VAR, SESSION_MARK_VAR, kill_marked_processes

if TYPE_CHECKING:  # a Protocol, so only for the type checker (rgr.base.proc)
    from rgr.base.config import Config
    from rgr.base.proc import Launcher

INSTALL_COMMAND = locate.install_command(claude_release.PACKAGE, claude_release.PINNED)


def install_hint(setting: str = "agent_binary in tdd.toml") -> str:
    """``setting``: where the binary's path came from (Config.setting). The command is
    the README's, for the release the tests pin (rgr.backends.claude_release)."""
    return (f"install Claude Code (needs Node.js 18+): `{INSTALL_COMMAND}` (rgr finds it "
            f"in ~/.local/bin), or set the path of its binary with {setting}")

LOGIN_HINT = "run `claude` and `/login`, or set ANTHROPIC_API_KEY"

#: Settings for every phase session, each of which only makes every request smaller
#: (measured on the first request of a phase, Claude Code 2.1.330 / 2.1.197): no
#: commit and pull-request attribution reminder (-0.6 KB / 0), no built-in git commit
#: and PR workflow in the Bash tool's description (-0.85 KB / -0.45 KB: rgr's prompts
#: say how to commit), and no deferred-tool placeholder (-0.2 KB / 0: a phase has no
#: MCP tools to search). claude takes ``--settings`` over the user's own settings; given
#: twice, only the last counts, so a request's own settings file is merged into these.
SESSION_SETTINGS: dict[str, Any] = {
    "attribution": {"commit": "", "pr": ""},
    "includeGitInstructions": False,
    "env": {"ENABLE_TOOL_SEARCH": "false"},
}


def session_settings(settings_file: Path | None) -> str:
    """SESSION_SETTINGS with the request's settings file (the attempt's edit hook) on
    top, as one ``--settings`` value."""
    merged = dict(SESSION_SETTINGS)
    if settings_file is not None:
        extra = json.loads(settings_file.read_text(encoding="utf-8"))
        merged["env"] = {**SESSION_SETTINGS["env"], **extra.pop("env", {})}
        merged.update(extra)
    return json.dumps(merged, separators=(",", ":"))

#: How much of claude's output an error message quotes.
EXCERPT_CHARS = 1500

#: HTTP statuses worth another attempt: timeouts, conflicts, rate limits, server trouble.
RETRYABLE_STATUSES = frozenset({408, 409, 429})

#: Result texts that mean the key or login is missing or rejected.
LOGIN_MARKERS = (
    "not logged in",
    "please run /login",
    "invalid api key",
    "failed to authenticate",
    "oauth token has expired",
    "authentication_error",
)

#: Result texts of transport failures that carry no HTTP status (api_error_status null).
TRANSIENT_MARKERS = ("api error", "request timed out", "overloaded")

CHECK_LOGIN_TIMEOUT_S = 120.0
VERSION_TIMEOUT_S = 30.0

#: Where claude talks to when ANTHROPIC_BASE_URL is not set.
DEFAULT_API_URL = "https://api.anthropic.com"
#: What claude reads from the environment (its settings, the API, its own switches).
ENV_KEEP = ("ANTHROPIC_*", "CLAUDE_*", "DISABLE_*", "API_TIMEOUT_MS", "MAX_THINKING_TOKENS",
            "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS", "MCP_TIMEOUT")
#: A subscription login (``/login``) lives here; copied into the session's HOME.
CREDENTIALS = Path(".claude") / ".credentials.json"
#: Keys of other agent CLIs (a run may use several): never handed to claude.
OTHER_BACKENDS_KEYS = frozenset({"CODEX_API_KEY", "OPENAI_API_KEY"})


class ClaudeBackend:
    """Runs the ``claude`` CLI headless. ``env`` is the environment for ``version`` and
    ``check_login`` (and for requests that carry none); None passes rgr's own through.
    """

    name = CLAUDE
    env_keep: tuple[str, ...] = ENV_KEEP

    def __init__(self, binary: str = CLAUDE, *, env: Mapping[str, str] | None = None,
                 binary_setting: str = "agent_binary in tdd.toml") -> None:
        # A bare name is also looked for where the README's install puts it.
        self.binary = locate.resolve_cli(binary, env if env is not None else os.environ)
        self.env = env
        self.install_hint = install_hint(binary_setting)

    @classmethod
    def from_config(cls, config: Config, env: Mapping[str, str]) -> ClaudeBackend:
        return cls(config.agent_binary, env=env, binary_setting=config.setting("agent_binary"))

    # -- the protocol ------------------------------------------------------------------

    def version(self) -> str:
        env = self.env if self.env is not None else os.environ
        return version_memo.remembered(self.binary, env, self._read_version)

    def _read_version(self) -> str:
        done = self._run([self.binary, "--version"], cwd=Path.cwd(), timeout=VERSION_TIMEOUT_S)
        if done.returncode != 0 or done.timed_out:
            raise BackendError(
                "missing_binary",
                f"`{self.binary} --version` failed:\n{done.describe(EXCERPT_CHARS)}",
                self.install_hint,
            )
        return done.stdout.strip()

    def api_urls(self, env: Mapping[str, str]) -> list[str]:
        return [env.get("ANTHROPIC_BASE_URL") or DEFAULT_API_URL]

    def seal_api(self, env: dict[str, str], open_gateway: OpenGateway) -> list[str]:
        credentials = {}
        if env.get("ANTHROPIC_API_KEY"):
            credentials["x-api-key"] = env["ANTHROPIC_API_KEY"]
            env["ANTHROPIC_API_KEY"] = SEALED_KEY
        if env.get("ANTHROPIC_AUTH_TOKEN"):
            credentials["authorization"] = f"Bearer {env['ANTHROPIC_AUTH_TOKEN']}"
            env["ANTHROPIC_AUTH_TOKEN"] = SEALED_KEY
        url = env.get("ANTHROPIC_BASE_URL") or DEFAULT_API_URL
        if not credentials:
            return [url]  # a subscription login: claude sends its own token
        env["ANTHROPIC_BASE_URL"] = open_gateway(url, credentials)
        return []

    def prepare_home(self, home: Path, env: Mapping[str, str]) -> None:
        user_home = env.get("HOME")
        if not user_home:
            return
        source = Path(user_home) / CREDENTIALS
        if source.is_file() and not source.is_symlink():
            target = home / CREDENTIALS
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            target.chmod(0o600)

    def check_login(self, cwd: Path) -> None:
        argv = [
            self.binary,
            "-p",
            "--output-format",
            "json",
            "--max-turns",
            "1",
            "--tools",
            "",  # no tools: the cheapest possible call
            "--no-session-persistence",
        ]
        done = self._run(
            argv, cwd=cwd, timeout=CHECK_LOGIN_TIMEOUT_S, stdin_data="Reply with the word OK."
        )
        if done.timed_out:
            raise BackendError(
                "timeout",
                f"claude did not answer a trivial request within {CHECK_LOGIN_TIMEOUT_S:.0f}s",
                "check the network and ANTHROPIC_BASE_URL",
                retryable=True,
            )
        data = parse_result(done)
        if data.get("is_error"):
            raise classify_error(data)

    def run(self, request: AgentRequest) -> AgentResult:
        base_env = request.env if request.env is not None else self.env
        env = {k: v for k, v in (base_env if base_env is not None else os.environ).items()
               if k not in OTHER_BACKENDS_KEYS}
        env[SESSION_MARK_VAR] = request.session_id
        # The repository the session works for (a sealed session's cwd is its scratch
        # copy; rgr.sandbox.sealer marks the user's repository): orphans are found by it.
        env.setdefault(REPO_MARK_VAR, str(request.cwd))
        try:
            done = self._run(
                self.argv(request),
                cwd=request.cwd,
                timeout=request.timeout_s,
                env=env,
                stdin_data=request.prompt,
                on_line=stream_reader(request.on_event),
                on_start=lambda: failpoints.hit("agent:spawned"),
                launcher=request.launcher,
            )
        finally:
            # Tool processes live in their own sessions: the group kill misses them.
            kill_marked_processes(SESSION_MARK_VAR, request.session_id)
        if done.timed_out:
            # Even if claude printed a result while being terminated, the phase ran out
            # of time: whatever it did is not trusted.
            raise session_timed_out(
                CLAUDE, request, "raise agent_timeout in tdd.toml if the agent needs longer")
        return to_result(parse_result(done), request)

    # -- pieces ------------------------------------------------------------------------

    def argv(self, request: AgentRequest) -> list[str]:
        """The command line for ``request`` (the prompt goes on stdin)."""
        schema = json.dumps(request.output_model.model_json_schema(), separators=(",", ":"))
        argv = [
            self.binary,
            "-p",
            # One JSON event per line as it happens (init, each assistant turn, each tool
            # result, API retries), the result object last: rgr shows progress live and
            # keeps the stream; --verbose is required with stream-json in print mode.
            "--output-format",
            "stream-json",
            "--verbose",
            "--json-schema",
            schema,
            "--system-prompt-file",
            str(request.system_prompt_file),
            "--session-id",
            request.session_id,
            "--max-turns",
            str(request.max_turns),
            "--tools",
            ",".join(request.tools),  # "" disables every built-in tool
            # The repository under work is not trusted: its .claude/settings*.json could
            # add hooks or widen permissions, its .mcp.json could add tools. Only the
            # user's own settings (auth, preferences) and rgr's flags apply.
            "--setting-sources",
            "user",
            "--strict-mcp-config",
            "--settings",
            session_settings(request.settings_file),
        ]
        if request.allowed_tools:
            argv += ["--allowedTools", ",".join(request.allowed_tools)]
        if request.disallowed_tools:
            argv += ["--disallowedTools", ",".join(request.disallowed_tools)]
        if request.model:
            argv += ["--model", request.model]
        if request.max_budget_usd is not None:
            argv += ["--max-budget-usd", f"{request.max_budget_usd:.4f}"]
        return argv

    def _run(
        self,
        argv: list[str],
        *,
        cwd: Path,
        timeout: float,
        env: Mapping[str, str] | None = None,
        stdin_data: str | None = None,
        on_line: Callable[[str], None] | None = None,
        on_start: Callable[[], None] | None = None,
        launcher: Launcher | None = None,
    ) -> Completed:
        source = env if env is not None else (self.env if self.env is not None
                                              else os.environ)
        return run_cli(CLAUDE, self.binary, argv, cwd=cwd, timeout=timeout, env=source,
                       install_hint=self.install_hint, stdin_data=stdin_data,
                       on_line=on_line, on_start=on_start, launcher=launcher)


# -- parsing and classification (pure functions, so they are easy to test) ----------


def stream_reader(on_event: Callable[[dict[str, Any]], None] | None) -> Callable[[str], None]:
    """A line handler for ``--output-format stream-json``: each JSON object line goes to
    ``on_event`` as it arrives. A line that is not a JSON object (claude printing a plain
    error) is passed on as ``{"type": "rgr_unparsed", "line": ...}``."""

    def handle(line: str) -> None:
        if on_event is None or not line.strip():
            return
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        on_event(event if isinstance(event, dict) else {"type": "rgr_unparsed", "line": line})

    return handle


def parse_result(done: Completed) -> dict[str, Any]:
    """The result object: the ``result`` event of ``--output-format stream-json`` (its
    last line) or the single object of ``--output-format json``; otherwise an
    ``unparsable_output`` error."""
    text = done.stdout.strip()
    candidates = [text, *reversed(text.splitlines())] if text else []
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("type") == "result":
            return data
    raise BackendError(
        "unparsable_output",
        f"claude printed no JSON result (exit code {done.returncode}):\n"
        f"{done.describe(EXCERPT_CHARS)}",
        "run the same command by hand to see what claude says",
    )


def classify_error(data: dict[str, Any]) -> AgentRunError:
    """The BackendError for a result with ``is_error: true`` or an error subtype, with
    what the session used (a failed session still cost money)."""
    error = _classify(data)
    error.figures = figures_of(data)
    return error


def _classify(data: dict[str, Any]) -> AgentRunError:
    subtype = str(data.get("subtype") or "")
    errors = "; ".join(str(e) for e in data.get("errors") or [])
    text = str(data.get("result") or errors or subtype)
    if subtype == "error_max_turns":
        return AgentRunError(
            "max_turns",
            f"claude stopped at its turn limit: {errors or text}",
            "raise max_turns for this agent, or make the task smaller",
            raw=data,
        )
    if subtype == "error_max_budget_usd":
        return AgentRunError(
            "max_budget",
            f"claude stopped at its budget: {errors or text}",
            "raise --max-budget-usd, or run without it",
            raw=data,
        )
    if subtype == "error_max_structured_output_retries":
        return AgentRunError(
            "invalid_output",
            "claude gave up: every StructuredOutput call failed the JSON schema "
            f"({errors or text})",
            raw=data,
        )
    if subtype == "error_during_execution":
        return AgentRunError(
            "execution_error", f"claude failed during execution: {errors or text}", raw=data
        )
    status = data.get("api_error_status")
    lowered = text.lower()
    if status == 401 or says_any(lowered, LOGIN_MARKERS):
        return AgentRunError(
            "not_logged_in", f"claude is not logged in: {text}", LOGIN_HINT, raw=data
        )
    if isinstance(status, int):
        retryable = status in RETRYABLE_STATUSES or status >= 500
        return AgentRunError(
            "api_error",
            f"the model API failed with HTTP {status}: {text}",
            "wait and run `rgr resume`" if retryable else None,
            retryable=retryable,
            raw=data,
        )
    if says_any(lowered, TRANSIENT_MARKERS):
        return AgentRunError(
            "api_error",
            f"the model API could not be reached: {text}",
            "check the network and ANTHROPIC_BASE_URL, then run `rgr resume`",
            retryable=True,
            raw=data,
        )
    return AgentRunError("execution_error", f"claude failed ({subtype}): {text}", raw=data)


def to_result(data: dict[str, Any], request: AgentRequest) -> AgentResult:
    """A validated AgentResult, or the BackendError that explains why there is none."""
    if data.get("is_error") or data.get("subtype") != "success":
        raise classify_error(data)
    structured = data.get("structured_output")
    if structured is None:
        said = str(data.get("result") or "")[:EXCERPT_CHARS]
        raise AgentRunError(
            "no_structured_output",
            f"claude finished without calling StructuredOutput; it said: {said!r}",
            raw=data, figures=figures_of(data),
        )
    try:
        output = request.output_model.model_validate(structured)
    except pydantic.ValidationError as exc:
        problems = "\n".join(
            f"  {'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()
        )
        raise AgentRunError(
            "invalid_output",
            f"claude's structured output is not a valid {request.output_model.__name__}:\n"
            f"{problems}",
            raw=data, figures=figures_of(data),
        ) from exc
    return AgentResult.of(figures_of(data), output=output, raw=data,
                          session_id=str(data.get("session_id") or request.session_id))


def figures_of(data: Mapping[str, Any]) -> SessionFigures:
    """The typed figures of claude's result object."""
    usage = usage_of(data)
    return SessionFigures(
        backend=CLAUDE,
        # claude's result names its models only as the keys of modelUsage.
        model=next(iter(data.get("modelUsage") or {}), None) or (
            str(data["model"]) if data.get("model") else None),
        num_turns=_int(data.get("num_turns")),
        duration_ms=_int(data.get("duration_ms")),
        duration_api_ms=_int(data.get("duration_api_ms")),
        cost_usd=usd(data.get("total_cost_usd")),
        permission_denials=tuple(d for d in data.get("permission_denials") or []
                                 if isinstance(d, dict)),
        **usage)


_MODEL_USAGE_KEYS = {
    "inputTokens": "input_tokens",
    "outputTokens": "output_tokens",
    "cacheReadInputTokens": "cache_read_input_tokens",
    "cacheCreationInputTokens": "cache_creation_input_tokens",
}


def usage_of(data: Mapping[str, Any]) -> dict[str, int]:
    """Token totals of the run, summed over models.

    ``modelUsage`` first: the top-level ``usage`` reads all zeros when a request fell
    back to non-streaming after a dropped stream, or when the budget stopped the run.
    """
    totals = dict.fromkeys(_MODEL_USAGE_KEYS.values(), 0)
    per_model = data.get("modelUsage")
    if isinstance(per_model, dict) and per_model:
        for usage in per_model.values():
            if isinstance(usage, dict):
                for camel, snake in _MODEL_USAGE_KEYS.items():
                    totals[snake] += _int(usage.get(camel))
        return totals
    usage = data.get("usage")
    if isinstance(usage, dict):
        for snake in totals:
            totals[snake] = _int(usage.get(snake))
    return totals


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0
