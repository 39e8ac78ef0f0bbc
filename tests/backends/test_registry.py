"""One list of backend names (rgr.base.backend_names), one registry of the classes that
run them (rgr.backends.registry): the two agree, and every place that accepts a backend
name (the configuration, the agent files, the CLI) accepts exactly those."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from rgr.backends import registry
from rgr.backends.router import make_backend
from rgr.base import backend_names
from rgr.base.config import load_config
from rgr.base.errors import ConfigError
from rgr.cli import cli
from rgr.store.agents import load_agent
from tests.conftest import REPO_ROOT


def test_the_registry_lists_every_name_once_and_nothing_else() -> None:
    assert tuple(registry.BACKENDS) == backend_names.NAMES
    assert backend_names.DEFAULT in backend_names.NAMES


@pytest.mark.parametrize("name", backend_names.NAMES)
def test_each_registered_class_is_the_backend_of_its_name(name: str, tmp_path: Path) -> None:
    entry = registry.BACKENDS[name]
    assert entry.module.startswith("rgr.backends.")  # the registry imports its own layer
    built = registry.load(name).from_config(load_config(tmp_path, env={}), {"PATH": ""})
    assert built.name == name
    router = make_backend(load_config(tmp_path, env={}, flags={"backend": name}), {},
                          tmp_path)
    assert router.backend(None).name == name


@pytest.mark.parametrize("name", backend_names.NAMES)
def test_config_accepts_each_registered_name(name: str, tmp_path: Path) -> None:
    (tmp_path / "tdd.toml").write_text(f'backend = "{name}"\n')
    assert load_config(tmp_path, env={}).backend == name
    assert load_config(tmp_path, env={"TDD_BACKEND": name}).backend == name


def test_config_refuses_an_unknown_name_listing_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, env={"TDD_BACKEND": "cursor"})
    assert f"must be one of {backend_names.one_of()}" in caught.value.message


def _agent_with_backend(root: Path, backend: str) -> None:
    packaged = REPO_ROOT / "agents" / "implementer.toml"
    override = root / ".rgr" / "agents" / "implementer.toml"
    override.parent.mkdir(parents=True, exist_ok=True)
    override.write_text(packaged.read_text().replace('model = ""', f'backend = "{backend}"'))


@pytest.mark.parametrize("name", backend_names.NAMES)
def test_an_agent_file_may_name_each_registered_backend(name: str, tmp_path: Path) -> None:
    _agent_with_backend(tmp_path, name)
    assert load_agent(tmp_path, "implementer").backend == name


def test_an_agent_file_naming_an_unknown_backend_is_refused(tmp_path: Path) -> None:
    _agent_with_backend(tmp_path, "cursor")
    with pytest.raises(ConfigError) as caught:
        load_agent(tmp_path, "implementer")
    assert "unknown backend 'cursor'" in caught.value.message
    assert backend_names.one_of() in caught.value.message


def test_the_cli_offers_exactly_the_registered_backends() -> None:
    result = CliRunner().invoke(cli, ["run", "--help"])
    assert result.exit_code == 0
    assert "[" + "|".join(backend_names.NAMES) + "]" in " ".join(result.output.split())
    refused = CliRunner().invoke(cli, ["run", "--backend", "cursor", "x"])
    assert refused.exit_code == 2
    assert "'cursor' is not one of" in refused.output


def test_the_demo_offers_the_backends_the_registry_marks_and_has_a_replay_for_each() -> None:
    from rgr.commands import demo

    assert set(demo.REPLAYS) == set(registry.with_demo())
    assert backend_names.DEFAULT in registry.with_demo()
    result = CliRunner().invoke(cli, ["demo", "--help"])
    assert result.exit_code == 0
    assert "[" + "|".join(registry.with_demo()) + "]" in " ".join(result.output.split())
    refused = [n for n in backend_names.NAMES if n not in registry.with_demo()]
    for name in refused:  # a backend without a recorded replay is refused by click
        assert CliRunner().invoke(cli, ["demo", "--backend", name]).exit_code == 2
