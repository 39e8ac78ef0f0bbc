"""Ruby, apart from its runner (runner)."""

from __future__ import annotations

import re

from rgr.ecosystems.language import AcceptanceName, Language
from rgr.ecosystems.ruby.cheats import IDIOMS
from rgr.ecosystems.ruby.interface import INTERFACE

LANGUAGE = Language(
    "Ruby", (".rb",),
    acceptance_names=(AcceptanceName(re.compile(r".*_spec\.rb"), "{stem}_spec.rb"),
                      AcceptanceName(re.compile(r".*_test\.rb"), "{stem}_test.rb")),
    interface=INTERFACE, cheats=IDIOMS)
