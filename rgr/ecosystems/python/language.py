"""Python, apart from its runners (pytest_runner, unittest_runner)."""

from __future__ import annotations

import re

from rgr.ecosystems.language import AcceptanceName, Language
from rgr.ecosystems.python import cheats
from rgr.ecosystems.python.interface import INTERFACE

LANGUAGE = Language(
    "Python", (".py",),
    acceptance_names=(AcceptanceName(re.compile(r"test_.*\.py"), "test_{stem}.py"),
                      AcceptanceName(re.compile(r".*_test\.py"), "{stem}_test.py")),
    interface=INTERFACE, syntax_cheats=cheats.findings)
