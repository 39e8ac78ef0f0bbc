"""rgr.base.installed: the command that adds an optional extra names the way rgr was
installed, read from the markers each installer leaves in the environment it made (real
files in a temporary prefix; the interpreter's own prefix is the one thing given)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from rgr.base.installed import (
    SOURCE_PYPROJECT,
    Installation,
    extra_packages,
    install_extra,
    source_extras,
)


def _env(tmp_path: Path, marker: str | None = None, text: str = "") -> Installation:
    prefix = tmp_path / "env"
    (prefix / "bin").mkdir(parents=True)
    if marker is not None:
        (prefix / marker).write_text(text)
    return Installation(prefix, Path("/usr"), str(prefix / "bin" / "python"))


def test_pipx_is_told_to_inject(tmp_path: Path) -> None:
    where = _env(tmp_path, "pipx_metadata.json", '{"main_package": {"package": "rgr"}}')
    assert where.kind == "pipx"
    assert install_extra("equivalence", where) == "pipx inject rgr 'crosshair-tool>=0.0.100'"


def test_uv_tool_is_reinstalled_with_the_extra_from_its_own_source(tmp_path: Path) -> None:
    where = _env(tmp_path, "uv-receipt.toml",
                 '[tool]\nrequirements = [{ name = "rgr", directory = "/src/rgr" }]\n')
    assert where.kind == "uv"
    assert install_extra("equivalence", where) == (
        "uv tool install --with 'crosshair-tool>=0.0.100' /src/rgr")


def test_a_virtualenv_uses_its_own_pip(tmp_path: Path) -> None:
    where = _env(tmp_path)
    assert where.kind == "venv"
    assert install_extra("demo", where) == f"{where.prefix}/bin/python -m pip install 'pytest>=8.0'"


def test_a_system_python_installs_for_the_user() -> None:
    where = Installation(Path("/usr"), Path("/usr"), "/usr/bin/python3")
    assert where.kind == "system"
    assert install_extra("demo", where) == "/usr/bin/python3 -m pip install --user 'pytest>=8.0'"


def test_the_extras_are_the_ones_pyproject_declares() -> None:
    """The source tree's pyproject.toml, read when rgr runs uninstalled, agrees with the
    installed metadata (this checkout's)."""
    def names(packages: tuple[str, ...]) -> set[tuple[str, frozenset[str]]]:
        return {(re.split(r"[<>=]", p, maxsplit=1)[0],
                 frozenset(p[len(re.split(r"[<>=]", p, maxsplit=1)[0]):].split(",")))
                for p in packages}

    extras = source_extras(SOURCE_PYPROJECT)
    for extra in ("demo", "web", "equivalence"):  # the extras rgr's hints name
        assert names(extra_packages(extra)) == names(extras[extra]), extra
    assert source_extras(SOURCE_PYPROJECT.parent / "no-such.toml") == {}


def test_this_interpreter_is_read_as_it_is() -> None:
    here = Installation.current()
    assert here.prefix == Path(sys.prefix)
    assert here.kind == ("venv" if sys.prefix != sys.base_prefix else "system")
