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
    interface=INTERFACE, syntax_cheats=cheats.findings,
    framework_hooks=(r"^\s*(import|from)\s+(_?pytest|_pytest\.\w+|unittest)\b",
                     r"\bpytest_\w+\s*\(", r"\batexit\b", r"\bos\._exit\s*\(",
                     r"sys\.modules\[\s*['\"]_?pytest", "PYTEST_ADDOPTS",
                     r"builtins\.__import__", r"sys\.settrace", r"sys\.setprofile",
                     "faulthandler"),
    skip_markers=(r"@pytest\.mark\.(skip|skipif|xfail)\b", r"\bpytest\.(skip|xfail)\s*\(",
                  r"@unittest\.(skip|skipIf|skipUnless|expectedFailure)\b",
                  r"\bself\.skipTest\s*\("))
