"""Go, apart from its runner (runner)."""

from __future__ import annotations

import re

from rgr.ecosystems.go.cheats import IDIOMS
from rgr.ecosystems.go.interface import INTERFACE
from rgr.ecosystems.language import AcceptanceName, Language

LANGUAGE = Language(
    "Go", (".go",),
    acceptance_names=(AcceptanceName(re.compile(r".*_test\.go"), "{stem}_test.go"),),
    ids_name_no_file=True, interface=INTERFACE, cheats=IDIOMS,
    skip_markers=(r"\bt\.Skip(Now|f)?\s*\(",))
