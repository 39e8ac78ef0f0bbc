"""Java and Kotlin, apart from their runners (runner, direct)."""

from __future__ import annotations

import re

from rgr.ecosystems.jvm.cheats import IDIOMS
from rgr.ecosystems.language import AcceptanceName, Language

LANGUAGE = Language(
    "Java", (".java", ".kt"),
    acceptance_names=(AcceptanceName(re.compile(r".*Test\.(java|kt)"), "RgrAcceptanceTest.{0}"),),
    cheats=IDIOMS, framework_hooks=("junit",), skip_markers=(r"@Disabled\b", r"@Ignore\b"))
