"""The backend point of the e2e kata helpers (tests/e2e/kata.py).

A test that takes ``agent_backend`` runs once per agent CLI named in RGR_E2E_BACKENDS
(comma-separated; default: claude only, to keep CI short). ``RGR_E2E_BACKENDS=claude,codex``
runs such a suite on both; the helpers take the name: ``make_project(root, agent_backend)``,
``model_server(agent_backend)(scripts)``, ``rgr_env(home, server.url, agent_backend)``.
"""

from __future__ import annotations

import os

import pytest
from kata import AGENT_BACKENDS


def _backends() -> list[str]:
    names = [n.strip() for n in os.environ.get("RGR_E2E_BACKENDS", "claude").split(",")
             if n.strip()]
    unknown = sorted(set(names) - set(AGENT_BACKENDS))
    if unknown:
        raise pytest.UsageError(f"RGR_E2E_BACKENDS: unknown backend(s) {unknown}; "
                                f"known: {', '.join(AGENT_BACKENDS)}")
    return names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "agent_backend" in metafunc.fixturenames:
        metafunc.parametrize("agent_backend", _backends())
