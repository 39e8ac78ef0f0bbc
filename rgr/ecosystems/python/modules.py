"""Python's module names: the dotted module a source file of a repository imports as
(``src/shop/pricing.py`` is ``shop.pricing``, a package's ``__init__.py`` the package),
read by rgr refactor's index (rgr.refactor.index), which parses Python's modules."""

from __future__ import annotations

from rgr.ecosystems.python.language import LANGUAGE

#: Folders a project's packages sit in without being part of their names.
_SOURCE_FOLDERS = ("src",)


def module_of(path: str) -> str | None:
    """The dotted module ``path`` (relative to the repository) imports as; None when it is
    no Python source file."""
    suffix = next((s for s in LANGUAGE.suffixes if path.endswith(s)), None)
    if suffix is None:
        return None
    parts = path[:-len(suffix)].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if len(parts) > 1 and parts[0] in _SOURCE_FOLDERS:
        parts = parts[1:]
    return ".".join(parts) if parts else None
