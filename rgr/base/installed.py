"""How rgr itself was installed, so that a hint to add an optional extra names a command
that works there: ``pipx inject rgr ...`` in pipx's environment (the README's install),
``uv tool install --with ...`` in uv's, the virtualenv's own pip in a virtualenv, and
pip's ``--user`` install elsewhere. ``pip install 'rgr[extra]'`` works in none of the
first three (rgr is not on PyPI, and a system Python under PEP 668 refuses it).

Each installer leaves a marker in the environment it made: pipx a ``pipx_metadata.json``
beside ``bin/``, uv a ``uv-receipt.toml``; a virtualenv is a ``sys.prefix`` other than
``sys.base_prefix``."""

from __future__ import annotations

import re
import shlex
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

#: rgr's own pyproject.toml, in a source tree run without installing: where the extras
#: are read when rgr's installed metadata is not there (no copy of the lists here).
SOURCE_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


@dataclass(frozen=True)
class Installation:
    """Where rgr runs from: the environment's prefix and the one it was made from."""

    prefix: Path
    base_prefix: Path
    executable: str

    @classmethod
    def current(cls) -> Installation:
        return cls(Path(sys.prefix), Path(sys.base_prefix), sys.executable)

    @property
    def kind(self) -> str:
        """``pipx``, ``uv``, ``venv`` or ``system``."""
        if (self.prefix / "pipx_metadata.json").is_file():
            return "pipx"
        if (self.prefix / "uv-receipt.toml").is_file():
            return "uv"
        if self.prefix != self.base_prefix:
            return "venv"
        return "system"

    def add_command(self, packages: tuple[str, ...]) -> str:
        """The command that installs ``packages`` beside rgr, where rgr is."""
        words = " ".join(shlex.quote(p) for p in packages)
        kind = self.kind
        if kind == "pipx":
            return f"pipx inject rgr {words}"
        if kind == "uv":
            source = _uv_source(self.prefix / "uv-receipt.toml")
            withs = " ".join(f"--with {shlex.quote(p)}" for p in packages)
            return f"uv tool install {withs} {shlex.quote(source)}"
        # the interpreter running rgr: a virtualenv's own, whose pip installs there
        python = shlex.quote(self.executable)
        if kind == "venv":
            return f"{python} -m pip install {words}"
        return f"{python} -m pip install --user {words}"


def extra_packages(extra: str) -> tuple[str, ...]:
    """The packages of rgr's optional ``extra``, with their version floors."""
    try:
        requires = metadata.requires("rgr") or []
    except metadata.PackageNotFoundError:
        requires = []
    found = []
    for requirement in requires:
        spec, _, marker = requirement.partition(";")
        named = _EXTRA_MARKER.search(marker)
        if named is not None and named.group(1) == extra and not spec.strip().startswith("rgr"):
            found.append(spec.strip().replace(" ", ""))
    return tuple(found) or source_extras(SOURCE_PYPROJECT).get(extra) or (f"rgr[{extra}]",)


def source_extras(pyproject: Path) -> dict[str, tuple[str, ...]]:
    """Each optional extra's packages as ``pyproject`` declares them (rgr's own extras
    left out); empty when the file is not there or not readable."""
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    extras = project.get("optional-dependencies", {})
    return {name: tuple(p.replace(" ", "") for p in packages if not p.startswith("rgr"))
            for name, packages in extras.items() if isinstance(packages, list)}


def install_extra(extra: str, installation: Installation | None = None) -> str:
    """The command that adds rgr's optional ``extra`` to the rgr that is running."""
    return (installation or Installation.current()).add_command(extra_packages(extra))


def _uv_source(receipt: Path) -> str:
    """What ``uv tool install`` was given for rgr (a clone's directory, a path), from
    the receipt uv keeps; ``rgr`` when the receipt does not say."""
    try:
        tool = tomllib.loads(receipt.read_text(encoding="utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return "rgr"
    for requirement in tool.get("requirements", []):
        if isinstance(requirement, dict) and requirement.get("name") == "rgr":
            for key in ("directory", "path", "editable", "git", "url"):
                if isinstance(requirement.get(key), str):
                    return str(requirement[key])
    return "rgr"
