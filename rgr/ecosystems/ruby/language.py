"""Ruby, apart from its runner (runner)."""

from __future__ import annotations

import re

from rgr.ecosystems.language import AcceptanceName, Language

LANGUAGE = Language(
    "Ruby", (".rb",),
    acceptance_names=(AcceptanceName(re.compile(r".*_spec\.rb"), "{stem}_spec.rb"),
                      AcceptanceName(re.compile(r".*_test\.rb"), "{stem}_test.rb")))
