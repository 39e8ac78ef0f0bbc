"""Why a test failed, in one word every runner shares: what RED's check judges a new
failing test by.

A RED test must fail for the right reason: on an assertion, or because the code under
test does not exist yet (a missing module, function, method or symbol). A failure of the
test's own making (a fixture or helper that does not exist, a test-only module that is
not there, an error raised while setting the test up) or a test that ran out of time can
never be fixed by GREEN, which may not touch tests.

Each runner adapter (rgr.ecosystems) reads the kind from what its runner reports and puts
it on the test's outcome; where it cannot tell it says ``unknown``, which RED accepts as
it accepted every failure before the kinds existed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Literal

FailureKind = Literal["assertion", "missing-code", "test-error", "timeout", "unknown"]

#: The kinds a new RED test may fail with; ``unknown`` is accepted too (see is_right_red).
RIGHT_RED: frozenset[FailureKind] = frozenset({"assertion", "missing-code"})
#: The kinds that reject a new RED test: GREEN, which may not touch tests, cannot fix them.
WRONG_RED: frozenset[FailureKind] = frozenset({"test-error", "timeout"})

#: One line per kind, for briefs and the manual (docs/).
MEANING: dict[FailureKind, str] = {
    "assertion": "an assertion failed (or the code under test raised)",
    "missing-code": "the code under test does not exist yet (a missing module, function, "
                    "method or symbol)",
    "test-error": "an error of the test's own making (a fixture or helper that does not "
                  "exist, a test-only module that is not there, an error while setting the "
                  "test up)",
    "timeout": "the test ran out of time",
    "unknown": "the runner's report does not say why",
}


def is_right_red(kind: FailureKind | None) -> bool:
    """Whether a new failing test failed for a reason GREEN can fix. A runner that cannot
    tell (``unknown``), a report written before the kinds existed (None) and a kind this
    rgr does not know (a newer one's report) are accepted, as every failure was before."""
    return kind not in WRONG_RED


#: Path parts and names that mark test code, across the ecosystems rgr detects.
_TEST_DIRS = frozenset({"test", "tests", "testing", "spec", "specs", "__tests__", "__mocks__",
                        "testdata", "fixtures", "conftest", "testutils", "test_helpers",
                        "helpers_test"})
_TEST_NAME = re.compile(
    r"^((test|spec)[_-].*|.*[_-]tests?|.*[._-](test|spec)(\.[jt]sx?|\.[cm][jt]s)?|conftest)$")


def is_test_path(path: str) -> bool:
    """Whether ``path`` (relative, forward slashes) names test code: a file in a test
    folder or named like a test (``test_x.py``, ``x_test.go``, ``x.test.ts``,
    ``x_spec.rb``, ``conftest.py``)."""
    pure = PurePosixPath(path)
    if any(part in _TEST_DIRS for part in pure.parts[:-1]):
        return True
    stem = pure.name
    for suffix in (".py", ".rb", ".go", ".rs", ".java", ".kt", ".php"):
        stem = stem.removesuffix(suffix)
    return bool(_TEST_NAME.match(stem))


def is_test_module(dotted: str) -> bool:
    """Whether a module path (``tests.helpers``, ``./helpers.test``, ``test_utils``)
    names test code: any part a test folder, or named like a test."""
    parts = [p for p in re.split(r"[./\\:]+", dotted) if p]
    return any(part in _TEST_DIRS or bool(_TEST_NAME.match(part)) for part in parts)


def first_match(text: str, table: Sequence[tuple[re.Pattern[str], FailureKind]]) -> FailureKind:
    """The kind of the first pattern of ``table`` found in ``text``, else ``unknown``."""
    for pattern, kind in table:
        if pattern.search(text):
            return kind
    return "unknown"
