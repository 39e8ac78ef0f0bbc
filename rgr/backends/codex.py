"""The Codex CLI backend: one ``codex exec`` session per phase, its result classified.

Facts measured with codex-cli 0.169.0 (npm ``@openai/codex``, a static musl binary)
driven by ``rgr.fake_model.responses``:

Invocation
- ``codex exec --json`` prints JSONL: ``thread.started{thread_id}``, ``turn.started``,
  ``item.started|completed`` (``command_execution{command, aggregated_output,
  exit_code}``, ``file_change{changes[{path, kind}]}``, ``agent_message{text}``,
  ``reasoning``, ``error{message}``), ``error{message}`` for each of its own retries
  ("Reconnecting... 1/5 (...)"), and last ``turn.completed{usage}`` or
  ``turn.failed{error{message}}``. Usage is tokens only (input, cached input, output,
  reasoning output): Codex reports no cost.
- ``--output-schema FILE`` sends the schema as ``text.format`` (``strict: true``); the
  answer is the last ``agent_message``, a JSON string. OpenAI's strict mode wants every
  object closed (``additionalProperties: false``) with every property required, and
  knows no ``minLength``/``maxLength``/``default``: ``strict_schema`` adapts the
  pydantic schema (an optional property becomes required and nullable), and the answer
  is validated with the pydantic model itself, once ``nulls_to_defaults`` has turned
  each such ``null`` back into the property's default (rgr.backends.strict_output).
- The prompt goes on stdin (``-``). ``-c model_instructions_file=PATH`` replaces
  Codex's built-in instructions with rgr's system prompt (the first developer message).
  ``--ignore-user-config`` skips ``$CODEX_HOME/config.toml``; ``project_doc_max_bytes=0``
  keeps the repository's ``AGENTS.md`` out of the prompt; features rgr's agents do not
  use (sub-agents, goals, apps, plugins, skills, web search, image tools) are switched
  off so the first request is about 6 KB instead of about 40 KB.
- A model API is a ``[model_providers.rgr]`` table given with ``-c`` (``base_url``,
  ``env_key = "CODEX_API_KEY"``, ``wire_api = "responses"``, ``supports_websockets =
  false``): the ``OPENAI_BASE_URL`` variable is gone from recent versions.
- Exit code 0 with ``turn.completed`` when the turn ends, 1 with ``turn.failed`` on an
  API failure after Codex's own retries (``request_max_retries``, ``stream_max_retries``
  of the provider). 401: "unexpected status 401 Unauthorized: ..."; 429: "exceeded
  retry limit, last status: 429 Too Many Requests"; 500: "We're currently experiencing
  high demand ..."; 503: "unexpected status 503 ..."; 400: the API's JSON error body; a
  dropped stream: "stream disconnected before completion: ...". A turn that ends with
  plain text (no JSON) still exits 0.

Permissions: Codex has no per-tool allow-list. Its ``workspace-write`` sandbox keeps
``.git`` read-only, so an agent could not commit; rgr runs it with ``--sandbox
danger-full-access`` and relies on its own boundary (the sealed scratch copy and the OS
sandbox around the agent) and on the after-the-fact guards, as for claude. The agent
files' ``allowed_tools``/``disallowed_tools`` are claude permission rules and do not
apply here.

Secrets: each session gets a throwaway ``CODEX_HOME`` (no ``auth.json``, no user
config, no history) unless ``[codex] login = true`` asks for the user's own login. The
API key goes only to the codex process, as ``CODEX_API_KEY``; Codex's
``shell_environment_policy`` keeps it (and every ``*KEY*``/``*TOKEN*``/``*SECRET*``
variable) from the commands the agent runs.

Turns and budget: Codex has no turn limit; rgr counts tool calls in the stream and
kills the session past ``max_turns`` (kind ``max_turns``). It reports no cost, so
``max_budget_usd`` cannot stop a Codex session: the run's time limit and the session
timeout do.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Callable, Mapping
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
from rgr.backends.cli_process import ThrowawayHome, run_cli, session_timed_out
from rgr.backends.codex_stream import StreamState, stream_reader
from rgr.backends.strict_output import nulls_to_defaults, strict_schema
from rgr.base import failpoints
from rgr.base.backend_names import CODEX
from rgr.base.config import CodexConfig, Config
from rgr.base.errors import BackendError
from rgr.base.proc import Completed
from rgr.base.processes import REPO_MARK_VAR, SESSION_MARK_VAR, kill_marked_processes

if TYPE_CHECKING:  # a Protocol, so only for the type checker (rgr.base.proc)
    from rgr.base.proc import Launcher

PACKAGE = "@openai/codex"
LOGIN_HINT = (
    "set CODEX_API_KEY (or OPENAI_API_KEY) in rgr's environment, or `codex login` and "
    "`[codex] login = true` in tdd.toml"
)

#: Versions whose flags rgr uses: --ignore-user-config, model_instructions_file,
#: [features]/[agents] switches, the JSONL event names. Newer versions run with a note.
MIN_VERSION = (0, 169, 0)
#: Where a throwaway CODEX_HOME is made (in the run's TMPDIR).
_HOME_PREFIX = "rgr-codex-home-"
VERIFIED_VERSIONS = ("0.169.0",)
#: The README's install line for the verified release (no root: into ~/.local/bin).
INSTALL_COMMAND = locate.install_command(PACKAGE, VERIFIED_VERSIONS[0])


def install_hint(setting: str = "codex_binary in tdd.toml") -> str:
    """How to get a codex rgr can run; ``setting`` is where codex_binary is changed
    (rgr.base.config.Config.setting: TDD_CODEX_BINARY overrides tdd.toml)."""
    return (f"install the Codex CLI (needs Node.js 18+): `{INSTALL_COMMAND}` (rgr finds it "
            f"in ~/.local/bin), or set {setting}")


EXCERPT_CHARS = 1500
VERSION_TIMEOUT_S = 30.0
CHECK_LOGIN_TIMEOUT_S = 120.0

#: The provider table rgr defines (unless the user's own login is used).
PROVIDER = "rgr"
DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: What a ChatGPT login (``[codex] login = true``) talks to.
CHATGPT_API_URL = "https://chatgpt.com/backend-api/codex"
CHATGPT_AUTH_URL = "https://auth.openai.com"

#: In a sealed session's environment: the gateway that holds the key (Backend.seal_api).
SEALED_URL_VAR = "RGR_CODEX_API_URL"
#: Where rgr takes the key from, in order; only CODEX_API_KEY reaches codex.
KEY_VARS = ("CODEX_API_KEY", "OPENAI_API_KEY")
#: Never passed to codex as such (the key is passed under its own name).
DROPPED_VARS = frozenset({*KEY_VARS, "OPENAI_BASE_URL", "CODEX_HOME", "ANTHROPIC_API_KEY",
                          "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"})

#: Turn-failure texts that mean the key is missing or rejected.
LOGIN_MARKERS = ("401", "unauthorized", "incorrect api key", "invalid api key",
                 "missing environment variable", "not logged in", "invalid_api_key")
#: ... that a later attempt may not meet: rate limits, overload, dropped connections.
TRANSIENT_MARKERS = ("429", "too many requests", "rate limit", "high demand", "overloaded",
                     "500", "502", "503", "504", "stream disconnected", "transport error",
                     "timed out", "timeout", "connection", "exceeded retry limit")

#: Codex settings rgr always sets: nothing but the phase's own prompt in the context.
BASE_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("approval_policy", '"never"'),
    ("project_doc_max_bytes", "0"),
    ("include_apps_instructions", "false"),
    ("web_search", '"disabled"'),
    ("check_for_update_on_startup", "false"),
    ("analytics.enabled", "false"),
    ("agents.enabled", "false"),
    ("skills.include_instructions", "false"),
    ("tools.experimental_request_user_input.enabled", "false"),
    ("features.goals", "false"),
    ("features.apps", "false"),
    ("features.plugins", "false"),
    ("features.memories", "false"),
    ("features.hooks", "false"),
    ("features.image_generation", "false"),
    ("features.view_image", "false"),
    ("features.tool_suggest", "false"),
    ("features.skill_search", "false"),
    ("features.shell_snapshot", "false"),
    # Commands the agent runs see rgr's environment minus anything secret-looking
    # (Codex's default excludes: *KEY*, *SECRET*, *TOKEN*), and never the API key.
    ("shell_environment_policy.inherit", '"all"'),
    ("shell_environment_policy.ignore_default_excludes", "false"),
    ("shell_environment_policy.exclude", '["CODEX_API_KEY", "OPENAI_API_KEY", "CODEX_HOME"]'),
)

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


class CodexBackend:
    """Runs ``codex exec`` headless. ``env`` is rgr's environment (the key and base URL
    are read from it); None uses ``os.environ``."""

    name = CODEX
    #: What codex needs of the session's environment (the sandbox drops the rest): the
    #: key, which only the codex process gets (as CODEX_API_KEY).
    env_keep: tuple[str, ...] = KEY_VARS

    def __init__(self, binary: str = CODEX, *, env: Mapping[str, str] | None = None,
                 settings: CodexConfig | None = None, run_model: str | None = None,
                 binary_setting: str = "codex_binary in tdd.toml") -> None:
        source = env if env is not None else os.environ
        # The native executable, not npm's node launcher: no node needed in the sandbox,
        # and the sandbox shows exactly the package that holds it.
        # A bare name is also looked for where the README's install puts it.
        self.binary = native_executable(locate.resolve_cli(binary, source), source.get("PATH"))
        self.env = env
        self.settings = settings or CodexConfig()
        #: tdd.toml's ``model`` (for every agent): ``[codex] model`` comes before it, an
        #: agent file's own model before both.
        self.run_model = run_model
        #: How to fix a missing codex (names TDD_CODEX_BINARY when that set it).
        self.install_hint = install_hint(binary_setting)

    @classmethod
    def from_config(cls, config: Config, env: Mapping[str, str]) -> CodexBackend:
        return cls(config.codex_binary, env=env, settings=config.codex, run_model=config.model,
                   binary_setting=config.setting("codex_binary"))

    # -- the protocol ------------------------------------------------------------------

    def version(self) -> str:
        env = self.env if self.env is not None else os.environ
        text = version_memo.remembered(self.binary, env, self._read_version)
        check_version(text)
        if not is_verified(text):
            return f"{text} (newer than rgr has verified: {', '.join(VERIFIED_VERSIONS)})"
        return text

    def _read_version(self) -> str:
        with self._home() as home:
            done = self._run([self.binary, "--version"], cwd=Path.cwd(),
                             timeout=VERSION_TIMEOUT_S, env=self._env(home, None))
        if done.returncode != 0 or done.timed_out:
            raise BackendError("missing_binary", f"`{self.binary} --version` failed:\n"
                               f"{done.describe(EXCERPT_CHARS)}", self.install_hint)
        return done.stdout.strip()

    def api_urls(self, env: Mapping[str, str]) -> list[str]:
        if self.settings.login:
            return [CHATGPT_API_URL, CHATGPT_AUTH_URL]
        return [self._base_url(env)]

    def seal_api(self, env: dict[str, str], open_gateway: OpenGateway) -> list[str]:
        if self.settings.login:
            return self.api_urls(env)  # the login's token is codex's own, in its CODEX_HOME
        key = next((env[v] for v in KEY_VARS if env.get(v)), None)
        if key is None:
            return []  # no key, no session: run() says not_logged_in
        for var in KEY_VARS:
            if var in env:
                env[var] = SEALED_KEY
        env[SEALED_URL_VAR] = open_gateway(self._base_url(),
                                           {"authorization": f"Bearer {key}"})
        return []

    def prepare_home(self, home: Path, env: Mapping[str, str]) -> None:
        """With ``[codex] login = true``: the user's login (auth.json only) in the
        session's own CODEX_HOME; otherwise nothing: the key comes by environment."""
        if not self.settings.login:
            return
        source = self._user_home(env) / "auth.json"
        if source.is_file() and not source.is_symlink():
            target = home / ".codex" / "auth.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            target.chmod(0o600)

    def check_login(self, cwd: Path) -> None:
        with self._home() as home:
            argv = [*self._base_argv(cwd, home), "-"]
            done = self._run(argv, cwd=cwd, timeout=CHECK_LOGIN_TIMEOUT_S,
                             env=self._env(home, None), stdin_data="Reply with the word OK.")
        if done.timed_out:
            raise BackendError(
                "timeout",
                f"codex did not answer a trivial request within {CHECK_LOGIN_TIMEOUT_S:.0f}s",
                "check the network and [codex] base_url in tdd.toml", retryable=True)
        state = StreamState()
        reader = stream_reader(state, None)
        for line in done.stdout.splitlines():
            reader(line)
        if state.failure is not None or done.returncode != 0:
            raise classify_failure(state, done)

    def run(self, request: AgentRequest) -> AgentResult:
        base_env = request.env if request.env is not None else self.env
        state = StreamState(max_turns=request.max_turns, session_mark=request.session_id,
                            model=self._model(request))
        started = time.monotonic()
        with self._home(base_env) as home:
            # Beside the session's CODEX_HOME: inside the sandbox when there is one.
            schema_file = home / "rgr-output-schema.json"
            schema_file.write_text(json.dumps(strict_schema(
                request.output_model.model_json_schema())))
            env = self._env(home, base_env)
            env[SESSION_MARK_VAR] = request.session_id
            env[REPO_MARK_VAR] = str(request.cwd)
            try:
                done = self._run(
                    self.argv(request, home, schema_file), cwd=request.cwd,
                    timeout=request.timeout_s, env=env, stdin_data=request.prompt,
                    on_line=stream_reader(state, request.on_event),
                    on_start=lambda: failpoints.hit("agent:spawned"),
                    launcher=request.launcher)
            finally:
                # Codex starts each command in a session of its own: the group kill
                # misses them; the mark in their environment finds them.
                kill_marked_processes(SESSION_MARK_VAR, request.session_id)
        if done.timed_out:
            raise session_timed_out(CODEX, request)
        duration_ms = int((time.monotonic() - started) * 1000)
        raw = state.result(request, self._model(request), duration_ms)
        try:
            return to_result(state, done, request, raw,
                             state.figures(self._model(request), duration_ms))
        finally:
            if request.on_event is not None and state.started:
                # The stream ends with the session's result, as claude's does.
                request.on_event(dict(raw))

    # -- pieces ------------------------------------------------------------------------

    def argv(self, request: AgentRequest, home: Path, schema_file: Path) -> list[str]:
        """The command line of one session (the prompt goes on stdin)."""
        argv = self._base_argv(request.cwd, home, request.env)
        argv += ["--output-schema", str(schema_file),
                 "-c", f"model_instructions_file={_toml(str(request.system_prompt_file))}"]
        model = self._model(request)
        if model:
            argv += ["-m", model]
        return [*argv, "-"]

    def _base_argv(self, cwd: Path, home: Path,
                   env: Mapping[str, str] | None = None) -> list[str]:
        argv = [self.binary, "exec", "--json", "--ephemeral", "--skip-git-repo-check",
                "--ignore-user-config", "--ignore-rules", "--color", "never",
                # rgr's sealed copy and OS sandbox are the boundary; Codex's own would
                # keep .git read-only and stop the agent from committing.
                "--sandbox", "danger-full-access", "-C", str(cwd)]
        for key, value in BASE_OVERRIDES:
            argv += ["-c", f"{key}={value}"]
        if not self.settings.login:
            argv += ["-c", f"model_provider={_toml(PROVIDER)}",
                     "-c", f"model_providers.{PROVIDER}={self._provider(env)}"]
        for override in self.settings.config:
            argv += ["-c", override]
        return argv

    def _base_url(self, env: Mapping[str, str] | None = None) -> str:
        source = env if env is not None else (self.env if self.env is not None
                                              else os.environ)
        return self.settings.base_url or source.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL

    def _provider(self, env: Mapping[str, str] | None) -> str:
        """The provider table as inline TOML: in a sealed session, the gateway's URL."""
        base_url = (env or {}).get(SEALED_URL_VAR) or self._base_url()
        fields: dict[str, str | int | bool] = {
            "name": "rgr", "base_url": base_url, "env_key": "CODEX_API_KEY",
            "wire_api": "responses", "supports_websockets": False}
        for key in ("request_max_retries", "stream_max_retries", "stream_idle_timeout_ms"):
            value = getattr(self.settings, key)
            if value is not None:
                fields[key] = value
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in fields.items()) + "}"

    def _model(self, request: AgentRequest | None) -> str | None:
        asked = request.model if request is not None else None
        if asked and (asked != self.run_model or not self.settings.model):
            return asked
        return self.settings.model or asked

    def _home(self, env: Mapping[str, str] | None = None) -> ThrowawayHome:
        """The session's CODEX_HOME: a fresh folder in the session's TMPDIR (its own,
        inside the sandbox); with ``login = true`` the one ``prepare_home`` filled, or
        the user's own for a call outside a sealed session."""
        source = env if env is not None else (self.env if self.env is not None
                                              else os.environ)
        if self.settings.login:
            seat = Path(source.get("HOME", "~")).expanduser() / ".codex"
            return ThrowawayHome(_HOME_PREFIX, None, fixed=seat if (seat / "auth.json").is_file()
                                 else self._user_home(source))
        return ThrowawayHome(_HOME_PREFIX, source.get("TMPDIR") or None)

    def _user_home(self, env: Mapping[str, str] | None = None) -> Path:
        source = env if env is not None else (self.env if self.env is not None
                                              else os.environ)
        value = source.get("CODEX_HOME") or str(Path(source.get("HOME", "~")) / ".codex")
        return Path(value).expanduser()

    def _env(self, home: Path, base: Mapping[str, str] | None) -> dict[str, str]:
        """rgr's environment without any key, plus CODEX_HOME and the one key codex
        needs. Raises not_logged_in when there is no key to pass."""
        source = base if base is not None else (self.env if self.env is not None
                                                else os.environ)
        env = {k: v for k, v in source.items() if k not in DROPPED_VARS}
        env["CODEX_HOME"] = str(home)
        if not self.settings.login:
            key = next((source[v] for v in KEY_VARS if source.get(v)), None)
            if key is not None:
                env["CODEX_API_KEY"] = key
        return env

    def _run(self, argv: list[str], *, cwd: Path, timeout: float, env: Mapping[str, str],
             stdin_data: str | None = None, on_line: Callable[[str], None] | None = None,
             on_start: Callable[[], None] | None = None,
             launcher: Launcher | None = None) -> Completed:
        if argv[1:2] == ["exec"] and not self.settings.login and "CODEX_API_KEY" not in env:
            raise BackendError("not_logged_in", "codex has no API key: neither CODEX_API_KEY "
                               "nor OPENAI_API_KEY is set", LOGIN_HINT)
        return run_cli(CODEX, self.binary, argv, cwd=cwd, timeout=timeout, env=env,
                       install_hint=self.install_hint, stdin_data=stdin_data,
                       on_line=on_line, on_start=on_start, launcher=launcher)



#: npm's platform packages of @openai/codex: (package suffix, target triple).
_PLATFORMS = {("linux", "x86_64"): ("linux-x64", "x86_64-unknown-linux-musl"),
              ("linux", "aarch64"): ("linux-arm64", "aarch64-unknown-linux-musl"),
              ("darwin", "x86_64"): ("darwin-x64", "x86_64-apple-darwin"),
              ("darwin", "arm64"): ("darwin-arm64", "aarch64-apple-darwin")}


def native_executable(binary: str, path: str | None) -> str:
    """The native codex that npm's ``codex`` launcher (bin/codex.js, a node script)
    would start, when ``binary`` is that launcher; otherwise ``binary`` unchanged."""
    found = shutil.which(binary, path=path) if "/" not in binary else binary
    if found is None:
        return binary
    real = Path(found).resolve()
    if real.name != "codex.js" or real.parent.name != "bin":
        return binary
    package = real.parent.parent  # node_modules/@openai/codex
    system = os.uname()
    platform = _PLATFORMS.get((system.sysname.lower(), system.machine))
    if platform is None:
        return binary
    suffix, triple = platform
    # npm puts the platform package beside the launcher's (a project's node_modules)
    # or inside it (``npm install -g``: the README's ``~/.local``, nvm, Homebrew ...).
    platform_package = f"codex-{suffix}"
    for vendor in (package.parent / platform_package / "vendor",
                   package / "node_modules" / package.parent.name / platform_package / "vendor",
                   package / "vendor"):
        native = vendor / triple / "bin" / CODEX  # the executable is named as its backend
        if native.is_file() and os.access(native, os.X_OK):
            return str(native)
    return binary


def _toml(value: str | int | bool) -> str:
    """A TOML scalar (JSON strings are valid TOML basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = _VERSION.search(text)
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def check_version(text: str) -> None:
    """BackendError("unsupported_version") for a codex older than rgr's flags need."""
    found = parse_version(text)
    if found is None or found < MIN_VERSION:
        raise BackendError(
            "unsupported_version",
            f"codex reports {text!r}; rgr needs codex-cli "
            f">= {'.'.join(map(str, MIN_VERSION))} (verified: {', '.join(VERIFIED_VERSIONS)})",
            "update it: `npm install -g @openai/codex@latest`")


def is_verified(text: str) -> bool:
    found = parse_version(text)
    return found is not None and ".".join(map(str, found)) in VERIFIED_VERSIONS


# -- classification (pure functions) ---------------------------------------------------


def classify_failure(state: StreamState, done: Completed,
                     raw: dict[str, Any] | None = None,
                     figures: SessionFigures | None = None) -> AgentRunError:
    """The error for a session that did not end with ``turn.completed``, with what the
    session used when it ran at all."""
    error = _classify(state, done, raw)
    error.figures = figures
    return error


def _classify(state: StreamState, done: Completed,
              raw: dict[str, Any] | None) -> AgentRunError:
    if state.turns_exceeded:
        return AgentRunError(
            "max_turns", f"codex made more than {state.max_turns} tool calls; rgr stopped it",
            "raise max_turns for this agent, or make the task smaller", raw=raw)
    if state.failure is None and not state.started:
        raise BackendError(
            "unparsable_output",
            f"codex printed no JSON events (exit code {done.returncode}):\n"
            f"{done.describe(EXCERPT_CHARS)}",
            "run the same command by hand to see what codex says")
    text = state.failure or (state.errors[-1] if state.errors else
                             f"codex exited with code {done.returncode} before the turn ended")
    lowered = text.lower()
    if says_any(lowered, LOGIN_MARKERS):
        return AgentRunError("not_logged_in", f"codex is not logged in: {text}", LOGIN_HINT,
                             raw=raw)
    if says_any(lowered, TRANSIENT_MARKERS):
        return AgentRunError("api_error", f"the model API failed: {text}",
                             "wait and run `rgr resume`", retryable=True, raw=raw)
    if '"error"' in lowered or "400" in lowered or "bad request" in lowered:
        return AgentRunError("api_error", f"the model API refused the request: {text}",
                             raw=raw)
    return AgentRunError("execution_error", f"codex failed: {text}", raw=raw)


def to_result(state: StreamState, done: Completed, request: AgentRequest,
              raw: dict[str, Any], figures: SessionFigures) -> AgentResult:
    """A validated AgentResult, or the BackendError that explains why there is none."""
    if not state.completed or state.turns_exceeded:
        raise classify_failure(state, done, raw, figures)
    text = state.final_message
    if text is None:
        raise AgentRunError("no_structured_output",
                            "codex finished without a final message", raw=raw, figures=figures)
    try:
        data = json.loads(text)
    except ValueError:
        raise AgentRunError(
            "no_structured_output",
            f"codex's final message is not JSON; it said: {text[:EXCERPT_CHARS]!r}",
            raw=raw, figures=figures) from None
    try:
        output = request.output_model.model_validate(
            nulls_to_defaults(request.output_model.model_json_schema(), data))
    except pydantic.ValidationError as exc:
        problems = "\n".join(
            f"  {'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors())
        raise AgentRunError(
            "invalid_output",
            f"codex's answer is not a valid {request.output_model.__name__}:\n{problems}",
            raw=raw, figures=figures) from exc
    raw["structured_output"] = data
    return AgentResult.of(figures, session_id=request.session_id, output=output, raw=raw)
