"""Where the acceptance file goes in the examined checkout: beside one of the run's test
files, named the way that file's runner collects (each language's naming:
rgr.ecosystems.language.AcceptanceName), so the project's own test command runs it with
the same imports and configuration as the tests the run wrote."""

from __future__ import annotations

import posixpath
from collections.abc import Collection

from rgr.ecosystems import registry

STEM = "rgr_acceptance"


def acceptance_path(test_file: str) -> str:
    """The acceptance file's path for a run whose tests include ``test_file``."""
    folder, name = posixpath.split(test_file)
    for naming in registry.acceptance_names():
        made = naming.name_beside(name, STEM)
        if made is not None:
            return posixpath.join(folder, made)
    # Anything else (a Rust integration test in tests/, say): the same folder, its suffix.
    suffix = name[name.rindex("."):] if "." in name else ""
    return posixpath.join(folder, f"{STEM}{suffix}")


def belongs(test_id: str, path: str, names: Collection[str] = ()) -> bool:
    """Is ``test_id`` (as the runner reports it) one of the acceptance file's tests?
    ``names``: the tests the examiner declared, for a language whose ids name the
    package and the test but no file (Go: ``example.com/calc::TestSums``; one package
    cannot hold two tests of one name, so the name alone is the acceptance file's test)."""
    name = posixpath.basename(path)
    stem = name.split(".")[0]
    if registry.ids_name_no_file(path) and test_id.rsplit("::", 1)[-1] in names:
        return True
    return path in test_id or name in test_id or stem in test_id
