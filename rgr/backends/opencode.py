"""The opencode backend: one ``opencode run`` session per phase, its result classified.

Facts measured with opencode-ai 1.18.33 (npm; its binary, a native executable, comes in
a platform package such as ``opencode-linux-x64``) driven by ``rgr.fake_model.chat``:

- ``opencode run --pure --agent rgr --format json -m PROVIDER/MODEL MESSAGE`` runs
  headless and prints one JSON event a line: ``step_start``, ``text`` (``part.text``),
  ``tool_use`` (``part.tool``, ``part.state``), ``step_finish`` (``part.tokens``:
  input, output, reasoning, cache read/write; ``part.cost``) and ``error``.
- Its configuration is the file ``OPENCODE_CONFIG`` names: rgr writes one per session
  into the session's own folder, with an OpenAI-compatible provider
  (``@ai-sdk/openai-compatible``, bundled: nothing is fetched) whose ``baseURL`` is the
  API's (in a sealed session, rgr's gateway) and whose ``apiKey`` is in that file, not
  in any variable: the agent's commands get no key variable, not even a placeholder.
- ``agent.rgr`` replaces opencode's own system prompt (9.6 KB) with rgr's and offers
  only the tools it turns on (``"*": false`` first): the first request of a phase stays
  within 16 KB (bench/first_request_bench.py). ``write`` needs ``edit`` on (``edit:
  false`` takes ``write`` away too), so a phase that writes gets both.
- Each session sends a title request (no tools) at the same time as its own first
  request: the API must answer two requests at once.
- ``OPENCODE_DISABLE_PROJECT_CONFIG`` keeps an ``opencode.json`` in the repository under
  work (which the agent could write) from changing the next session's agent; the
  throwaway XDG folders keep the user's global config and sessions out.
- opencode has no output schema: rgr appends the schema to the prompt and validates the
  last text (JSON, code fences tolerated) with the pydantic model itself.

Permissions: like codex and the Gemini CLI, opencode's permission rules are not rgr's
(every offered tool is allowed); rgr's sealed scratch copy and OS sandbox are the
boundary, and the after-the-fact guards judge the commit.
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

from rgr.backends import locate, version_memo
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
from rgr.backends.cli_process import (
    ThrowawayHome,
    probe_login,
    require_version,
    run_cli,
    session_timed_out,
)
from rgr.backends.gemini import parse_answer, probe_request, with_schema
from rgr.base import failpoints
from rgr.base.backend_names import OPENCODE
from rgr.base.errors import BackendError
from rgr.base.proc import Completed
from rgr.base.processes import REPO_MARK_VAR, SESSION_MARK_VAR, kill_marked_processes

if TYPE_CHECKING:
    from rgr.base.config import Config
    from rgr.base.proc import Launcher

PACKAGE = "opencode-ai"
#: The release the end-to-end suite runs (tests/e2e/opencode/package.json pins it).
PINNED = "1.18.33"
MIN_VERSION = (1, 18, 33)
INSTALL_COMMAND = locate.install_command(PACKAGE, PINNED)
INSTALL_HINT = f"install opencode: `{INSTALL_COMMAND}`, or set opencode_binary in tdd.toml"
LOGIN_HINT = "set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible API)"

KEY_VAR = "OPENAI_API_KEY"
BASE_URL_VAR = "OPENAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-5.5"
#: In a sealed session's environment: the gateway that holds the key (Backend.seal_api).
SEALED_URL_VAR = "RGR_OPENCODE_API_URL"
PROVIDER = "rgr"  # the provider's id in the session's config: models are "rgr/<model>"
AGENT = "rgr"
SESSION_HEADER = "x-rgr-session-id"
#: Never handed to opencode (beside every secret-named variable, ``_SECRET_NAME``): the
#: API's address, which is in its config, and variables that would bring in
#: configuration other than rgr's.
DROPPED_VARS = frozenset({BASE_URL_VAR, SEALED_URL_VAR, "OPENCODE_CONFIG_CONTENT",
                          "OPENCODE_CONFIG_DIR", "OPENCODE_PERMISSION", "OPENCODE_AUTH_CONTENT"})
#: What keeps opencode offline but for the model API, and to rgr's configuration.
QUIET_VARS = {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
              "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
              "OPENCODE_DISABLE_PROJECT_CONFIG": "1", "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
              "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
              "NO_COLOR": "1"}

EXCERPT_CHARS = 1500
VERSION_TIMEOUT_S = 60.0

#: rgr's tool names (agents/*.toml) -> opencode's. ``write`` works only beside ``edit``.
TOOLS = {"Read": ("read",), "Write": ("write", "edit"), "Edit": ("edit", "write"),
         "Bash": ("bash",), "Grep": ("grep",), "Glob": ("glob",)}

#: A tool left out when the session has the one named here, which does its job: every
#: tool's declaration travels in every request (bench/first_request_bench.py measures
#: the 16 KB a phase's first request may take), and the shell greps and lists too.
COVERED_BY = {"grep": "bash", "glob": "bash"}


def opencode_tools(names: tuple[str, ...] | list[str]) -> list[str]:
    """opencode's tools for an agent's rgr tools."""
    chosen = {tool for name in names for tool in TOOLS.get(name, ())}
    return sorted(tool for tool in chosen if COVERED_BY.get(tool) not in chosen)


LOGIN_MARKERS = ("401", "403", "unauthorized", "invalid api key", "incorrect api key",
                 "authentication")
TRANSIENT_MARKERS = ("429", "rate limit", "too many requests", "500", "502", "503", "529",
                     "overloaded", "unavailable", "server_error", "fetch failed",
                     "econnreset", "econnrefused", "socket hang up", "timeout")

#: Variables opencode is never handed, whoever set them: its key is in its config file,
#: so its shell's commands get no key, token or password variable at all.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL", re.IGNORECASE)
#: The platform packages npm installs beside ``opencode-ai`` (the first that holds an
#: executable wins; the launcher copies one of them at install time).
_PLATFORM_SUFFIXES = ("", "-baseline", "-musl", "-baseline-musl")


class OpencodeBackend:
    """Runs ``opencode run`` headless. ``env`` is rgr's environment (the key and base
    URL are read from it); None uses ``os.environ``."""

    name = OPENCODE
    env_keep: tuple[str, ...] = (KEY_VAR, BASE_URL_VAR)

    def __init__(self, binary: str = OPENCODE, *, env: Mapping[str, str] | None = None,
                 model: str | None = None) -> None:
        source = env if env is not None else os.environ
        # The native executable, not a node launcher: the sandbox shows that one
        # package, and the agent's sandbox needs no node.
        self.binary = native_executable(locate.resolve_cli(binary, source))
        self.env = env
        self.model = model

    @classmethod
    def from_config(cls, config: Config, env: Mapping[str, str]) -> OpencodeBackend:
        return cls(config.opencode_binary, env=env, model=config.model)

    def _source(self, env: Mapping[str, str] | None = None) -> Mapping[str, str]:
        return env if env is not None else (self.env if self.env is not None else os.environ)

    # -- the protocol ------------------------------------------------------------------

    def version(self) -> str:
        text = version_memo.remembered(self.binary, self._source(), self._read_version)
        return require_version(text, cli=OPENCODE, package=PACKAGE, minimum=MIN_VERSION,
                               update=INSTALL_COMMAND)

    def _read_version(self) -> str:
        with ThrowawayHome("rgr-opencode-", self._source().get("TMPDIR")) as home:
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
        env[SEALED_URL_VAR] = open_gateway(env.get(BASE_URL_VAR) or DEFAULT_BASE_URL,
                                           {"authorization": f"Bearer {key}"})
        env[KEY_VAR] = SEALED_KEY
        return []

    def prepare_home(self, home: Path, env: Mapping[str, str]) -> None:
        """Nothing of the user's: the provider and the agent are rgr's."""

    def check_login(self, cwd: Path) -> None:
        probe_login(self.run, probe_request(cwd))

    def run(self, request: AgentRequest) -> AgentResult:
        base_env = request.env if request.env is not None else self.env
        source = self._source(base_env)
        key = source.get(KEY_VAR)
        if not key:
            raise BackendError("not_logged_in", f"opencode has no API key: {KEY_VAR} is "
                               "not set", LOGIN_HINT)
        state = StreamState()
        started = time.monotonic()
        with ThrowawayHome("rgr-opencode-", source.get("TMPDIR")) as home:
            config = home / "opencode.json"
            config.write_text(json.dumps(self.config(request, source, key)))
            config.chmod(0o600)
            env = self._env(home, base_env)
            env["OPENCODE_CONFIG"] = str(config)
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
            raise session_timed_out(OPENCODE, request)
        duration_ms = int((time.monotonic() - started) * 1000)
        figures = state.figures(self._model(request), duration_ms)
        raw = {"type": "result", "backend": OPENCODE, "session_id": request.session_id,
               "opencode_session": state.session, "steps": state.steps}
        return to_result(state, done, request, raw, figures)

    # -- pieces ------------------------------------------------------------------------

    def argv(self, request: AgentRequest) -> list[str]:
        # The prompt comes on stdin; the message argument asks for it.
        return [self.binary, "run", "--pure", "--agent", AGENT, "--format", "json",
                "-m", f"{PROVIDER}/{self._model(request)}", "Do the task above."]

    def _model(self, request: AgentRequest) -> str:
        return request.model or self.model or DEFAULT_MODEL

    def config(self, request: AgentRequest, source: Mapping[str, str],
               key: str) -> dict[str, Any]:
        """The session's opencode.json: rgr's provider (its key in this file only), and
        rgr's agent with its prompt and only the phase's tools."""
        model = self._model(request)
        base_url = (source.get(SEALED_URL_VAR) or source.get(BASE_URL_VAR)
                    or DEFAULT_BASE_URL)
        tools: dict[str, bool] = {"*": False}
        tools.update({tool: True for tool in opencode_tools(request.tools)})
        return {
            "$schema": "https://opencode.ai/config.json",
            "autoupdate": False, "share": "disabled", "snapshot": False,
            "model": f"{PROVIDER}/{model}", "small_model": f"{PROVIDER}/{model}",
            "provider": {PROVIDER: {
                "npm": "@ai-sdk/openai-compatible", "name": "rgr",
                "options": {"baseURL": base_url.rstrip("/"), "apiKey": key,
                            "headers": {SESSION_HEADER: request.session_id}},
                "models": {model: {"name": model}}}},
            # The sandbox and the guards judge what the tools do; opencode asks no one.
            "permission": {"*": "allow"},
            "agent": {AGENT: {"mode": "primary",
                              "prompt": _read(request.system_prompt_file),
                              "steps": request.max_turns, "tools": tools}},
        }

    def _env(self, home: Path, base: Mapping[str, str] | None) -> dict[str, str]:
        source = self._source(base)
        env = {k: v for k, v in source.items()
               if k not in DROPPED_VARS and not _SECRET_NAME.search(k)}
        # Throwaway folders for opencode's config, data (its sessions' database), cache
        # and state: nothing of the user's opencode is read, nothing is left behind.
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            env[var] = str(home / var.lower())
        env.update(QUIET_VARS)
        return env

    def _run(self, argv: list[str], *, cwd: Path, timeout: float, env: Mapping[str, str],
             stdin_data: str | None = None, on_line: Callable[[str], None] | None = None,
             launcher: Launcher | None = None) -> Completed:
        return run_cli(OPENCODE, self.binary, argv, cwd=cwd, timeout=timeout, env=env,
                       install_hint=INSTALL_HINT, stdin_data=stdin_data, on_line=on_line,
                       on_start=(lambda: failpoints.hit("agent:spawned")) if on_line else None,
                       launcher=launcher)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def native_executable(binary: str) -> str:
    """The native opencode that npm's ``opencode`` resolves to. ``opencode-ai``'s
    install script copies the platform package's executable over its ``bin/opencode
    .exe``; where install scripts did not run, that file is not the executable and the
    platform package beside it holds it. Anything else is returned as it is."""
    real = Path(os.path.realpath(binary)) if "/" in binary else None
    if real is None or not real.is_file():
        return binary
    if _is_executable_file(real):
        return str(real)
    system = os.uname()
    machine = {"x86_64": "x64", "aarch64": "arm64"}.get(system.machine, system.machine)
    packages = real.parent.parent.parent  # node_modules/opencode-ai/bin/opencode.exe
    platform = f"opencode-{system.sysname.lower()}-{machine}"
    for suffix in _PLATFORM_SUFFIXES:
        native = packages / f"{platform}{suffix}" / "bin" / OPENCODE  # named as its backend
        if native.is_file() and _is_executable_file(native):
            return str(native)
    return binary


def _is_executable_file(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"\x7fELF" and os.access(path, os.X_OK)
    except OSError:
        return False



@dataclass
class StreamState:
    """What the ``--format json`` lines said so far."""

    started: bool = False
    session: str | None = None
    tool_calls: int = 0
    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    #: The model's text since its last tool call: the final message once it ends.
    message: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def reader(self, request: AgentRequest) -> Any:
        def handle(line: str) -> None:
            try:
                event = json.loads(line)
            except ValueError:
                return  # opencode's own log lines
            if not isinstance(event, dict):
                return
            self.take(event)
            if request.on_event is not None:
                for mapped in stream_events(event):
                    request.on_event({**mapped, "backend": OPENCODE})
        return handle

    def take(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        part = event.get("part") if isinstance(event.get("part"), Mapping) else {}
        assert isinstance(part, Mapping)
        if kind == "step_start":
            self.started = True
            self.session = str(event.get("sessionID") or self.session or "") or None
        elif kind == "text":
            self.message.append(str(part.get("text") or ""))
        elif kind == "tool_use":
            self.tool_calls += 1
            self.message = []
        elif kind == "step_finish":
            self.steps += 1
            tokens = part.get("tokens") or {}
            cache = tokens.get("cache") or {}
            self.input_tokens += int(tokens.get("input") or 0)
            self.output_tokens += int(tokens.get("output") or 0) + int(
                tokens.get("reasoning") or 0)
            self.cache_read += int(cache.get("read") or 0)
            self.cache_write += int(cache.get("write") or 0)
            self.cost += float(part.get("cost") or 0.0)
        elif kind == "error":
            error = event.get("error")
            if isinstance(error, Mapping):
                data = error.get("data")
                text = (data.get("message") if isinstance(data, Mapping) else None) or error
                self.errors.append(f"{error.get('name') or 'error'}: {text}")
            else:
                self.errors.append(str(event.get("message") or event))

    @property
    def final_message(self) -> str:
        return "".join(self.message).strip()

    def figures(self, model: str, duration_ms: int) -> SessionFigures:
        # opencode prices a model from its own catalogue; a provider of rgr's has no
        # price there, so 0 is "not reported", not free.
        return SessionFigures(
            backend=OPENCODE, model=model, num_turns=self.tool_calls + 1,
            duration_ms=duration_ms, input_tokens=self.input_tokens,
            output_tokens=self.output_tokens, cache_read_input_tokens=self.cache_read,
            cache_creation_input_tokens=self.cache_write,
            cost_usd=usd(self.cost) if self.cost > 0 else None)


#: How much of a tool's output a mapped tool_result keeps.
RESULT_CHARS = 2000


def stream_events(event: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An opencode event as the stream rgr's run folder and live view read (claude's
    stream-json shapes, as rgr.backends.codex_stream maps codex's): a tool call becomes
    an assistant ``tool_use`` and its ``tool_result``, a text an assistant text; other
    events pass as they are."""
    part = event.get("part")
    if not isinstance(part, Mapping):
        return [dict(event)]
    if event.get("type") == "tool_use":
        state = part.get("state") if isinstance(part.get("state"), Mapping) else {}
        assert isinstance(state, Mapping)
        call_id = str(part.get("callID") or part.get("id") or "")
        output = state.get("output") if state.get("status") == "completed" else state.get("error")
        return [{"type": "assistant", "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": call_id, "name": str(part.get("tool") or ""),
                     "input": state.get("input") or {}}]}},
                {"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": call_id,
                     "is_error": state.get("status") == "error",
                     "content": str(output or "")[-RESULT_CHARS:]}]}}]
    if event.get("type") == "text":
        return [{"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": str(part.get("text") or "")}]}}]
    return [dict(event)]


def classify_failure(state: StreamState, done: Completed, raw: dict[str, Any],
                     figures: SessionFigures) -> AgentRunError:
    text = "; ".join(state.errors) or (
        f"opencode exited with code {done.returncode}: {done.stderr.strip()[-EXCERPT_CHARS:]}")
    lowered = text.lower()
    if says_any(lowered, LOGIN_MARKERS):
        return AgentRunError("not_logged_in", f"opencode is not logged in: {text}",
                             LOGIN_HINT, raw=raw, figures=figures)
    if says_any(lowered, TRANSIENT_MARKERS):
        return AgentRunError("api_error", f"the model API failed: {text}",
                             "wait and run `rgr resume`", retryable=True, raw=raw,
                             figures=figures)
    return AgentRunError("execution_error", f"opencode failed: {text}", raw=raw,
                         figures=figures)


def to_result(state: StreamState, done: Completed, request: AgentRequest,
              raw: dict[str, Any], figures: SessionFigures) -> AgentResult:
    """A validated AgentResult, or the error that explains why there is none."""
    if not state.started and not state.errors:
        raise BackendError(
            "unparsable_output", f"opencode printed no JSON events (exit code "
            f"{done.returncode}):\n{done.describe(EXCERPT_CHARS)}",
            "run the same command by hand to see what opencode says")
    if done.returncode != 0 or state.errors:
        raise classify_failure(state, done, raw, figures)
    if figures.num_turns > request.max_turns:
        raise AgentRunError("max_turns", f"opencode made {state.tool_calls} tool calls, "
                            f"past max_turns ({request.max_turns})",
                            "raise max_turns for this agent", raw=raw, figures=figures)
    output, data = parse_answer(state.final_message, request, OPENCODE, raw, figures)
    raw["structured_output"] = data
    return AgentResult.of(figures, session_id=request.session_id, output=output, raw=raw)
