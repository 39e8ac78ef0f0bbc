"""PHP, apart from its runner (runner)."""

from __future__ import annotations

import re

from rgr.ecosystems.language import AcceptanceName, Language

LANGUAGE = Language(
    "PHP", (".php",),
    acceptance_names=(AcceptanceName(re.compile(r".*Test\.php"), "RgrAcceptanceTest.php"),),
    skip_markers=(r"\bmarkTest(Skipped|Incomplete)\s*\(",))
