"""One Backend that runs each session on the CLI its request names.

A run uses its default backend (``--backend``, ``TDD_BACKEND``, ``backend`` in
tdd.toml) for every agent whose ``agents/*.toml`` names none, and the named one for the
others: the planner on claude and the implementer on codex, say. The orchestrator sees
one Backend; only this module and the backends themselves know which CLI runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from rgr.backends.base import AgentRequest, AgentResult, Backend, OpenGateway
from rgr.base.config import Config
from rgr.base.errors import ConfigError
from rgr.store.agents import OVERRIDE_DIR, load_agent, packaged_dir

BackendFactory = Callable[[], Backend]


class BackendRouter:
    """Dispatches ``run`` by ``request.backend`` (None: ``default``). ``version`` and
    ``check_login`` cover every backend in ``used``; backends are built on first use."""

    def __init__(self, factories: Mapping[str, BackendFactory], default: str,
                 used: Iterable[str] = ()) -> None:
        if default not in factories:
            raise ConfigError(f"unknown backend {default!r}",
                              f"use one of: {', '.join(sorted(factories))}")
        self.factories = dict(factories)
        self.default = default
        self.used = list(dict.fromkeys([default, *used]))
        self._built: dict[str, Backend] = {}
        self.name = "+".join(self.used)

    def backend(self, name: str | None) -> Backend:
        key = name or self.default
        if key not in self._built:
            factory = self.factories.get(key)
            if factory is None:
                raise ConfigError(f"unknown backend {key!r}",
                                  f"use one of: {', '.join(sorted(self.factories))}")
            self._built[key] = factory()
        return self._built[key]

    # The sandbox around a session is made before the request says which CLI runs in
    # it: it admits what every CLI of the run needs (each backend then passes its own
    # CLI only what is its: claude never gets the codex key, nor codex claude's).

    @property
    def binary(self) -> str:
        return self.backend(None).binary

    @property
    def binaries(self) -> tuple[str, ...]:
        return tuple(self.backend(name).binary for name in self.used)

    @property
    def env_keep(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(k for name in self.used for k in self.backend(name).env_keep))

    def api_urls(self, env: Mapping[str, str]) -> list[str]:
        return list(dict.fromkeys(u for name in self.used
                                  for u in self.backend(name).api_urls(env)))

    def seal_api(self, env: dict[str, str], open_gateway: OpenGateway) -> list[str]:
        direct: list[str] = []
        for name in self.used:
            direct += self.backend(name).seal_api(env, open_gateway)
        return list(dict.fromkeys(direct))

    def prepare_home(self, home: Path, env: Mapping[str, str]) -> None:
        for name in self.used:
            self.backend(name).prepare_home(home, env)

    def version(self) -> str:
        if len(self.used) == 1:
            return self.backend(self.default).version()
        return "; ".join(f"{name} {self.backend(name).version()}" for name in self.used)

    def check_login(self, cwd: Path) -> None:
        for name in self.used:
            self.backend(name).check_login(cwd)

    def run(self, request: AgentRequest) -> AgentResult:
        return self.backend(request.backend).run(request)


def make_backend(config: Config, env: Mapping[str, str], root: Path) -> BackendRouter:
    """The run's backend: the configured default, plus any an agent file names."""
    from rgr.backends.claude import ClaudeBackend
    from rgr.backends.codex import CodexBackend

    factories: dict[str, BackendFactory] = {
        "claude": lambda: ClaudeBackend(config.agent_binary, env=env,
                                        binary_setting=config.setting("agent_binary")),
        "codex": lambda: CodexBackend(config.codex_binary, env=env, settings=config.codex,
                                      run_model=config.model,
                                      binary_setting=config.setting("codex_binary")),
    }
    return BackendRouter(factories, config.backend, agent_backends(root))


def agent_backends(root: Path) -> list[str]:
    """The backends the agent files (packaged or overridden under .rgr/agents) name."""
    names = {p.stem for d in (packaged_dir("agents"), root / OVERRIDE_DIR / "agents")
             if d.is_dir() for p in d.glob("*.toml")}
    found: list[str] = []
    for name in sorted(names):
        try:
            spec = load_agent(root, name)
        except ConfigError:
            continue  # reported where the agent is used
        if spec.backend:
            found.append(spec.backend)
    return found
