"""Where the acceptance file goes in the examined checkout: beside one of the run's test
files, named the way that file's runner collects (``test_*.py``, ``*_test.go``,
``*.test.js``, ``*_spec.rb`` ...), so the project's own test command runs it with the
same imports and configuration as the tests the run wrote."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection

STEM = "rgr_acceptance"

#: (how a test file's name is built, the acceptance file's name) — first match wins.
_NAMES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"test_.*\.py"), f"test_{STEM}.py"),
    (re.compile(r".*_test\.py"), f"{STEM}_test.py"),
    (re.compile(r".*_test\.go"), f"{STEM}_test.go"),
    (re.compile(r".*_spec\.rb"), f"{STEM}_spec.rb"),
    (re.compile(r".*_test\.rb"), f"{STEM}_test.rb"),
    (re.compile(r".*\.(test|spec)\.(m?[jt]sx?)"), ""),  # keeps the file's own suffix
    (re.compile(r".*Test\.(java|kt|php)"), ""),
)


def acceptance_path(test_file: str) -> str:
    """The acceptance file's path for a run whose tests include ``test_file``."""
    folder, name = posixpath.split(test_file)
    for pattern, made in _NAMES:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        if not made and name.endswith(("Test.java", "Test.kt", "Test.php")):
            made = "RgrAcceptanceTest" + name[name.rindex("."):]
        elif not made:
            made = f"{STEM}.{match.group(1)}.{match.group(2)}"
        return posixpath.join(folder, made)
    # Anything else (a Rust integration test in tests/, say): the same folder, its suffix.
    suffix = name[name.rindex("."):] if "." in name else ""
    return posixpath.join(folder, f"{STEM}{suffix}")


def belongs(test_id: str, path: str, names: Collection[str] = ()) -> bool:
    """Is ``test_id`` (as the runner reports it) one of the acceptance file's tests?
    ``names``: the tests the examiner declared, for Go, whose ids name the package and
    the test but no file (``example.com/calc::TestSums``; one package cannot hold two
    tests of one name, so the name alone is the acceptance file's test)."""
    name = posixpath.basename(path)
    stem = name.split(".")[0]
    if path.endswith(".go") and test_id.rsplit("::", 1)[-1] in names:
        return True
    return path in test_id or name in test_id or stem in test_id
