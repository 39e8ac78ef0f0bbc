"""Why a Ruby test failed (RED's failure kinds), from its exception's class and message:
the same words under RSpec and Minitest."""

from __future__ import annotations

import re

from rgr.ecosystems.base import TestOutcome
from rgr.ecosystems.failure_kind import FailureKind, first_match

#: A test's exception, ``Class: message``. An RSpec ``let`` or helper that does not
#: exist is a NameError whose receiver is the example group itself.
_KINDS: tuple[tuple[re.Pattern[str], FailureKind], ...] = (
    (re.compile(r"Timeout::Error|execution expired"), "timeout"),
    (re.compile(r"ExpectationNotMetError|MultipleExpectationsNotMetError|"
                r"Minitest::Assertion"), "assertion"),
    (re.compile(r"^(NameError|NoMethodError): .*(for #<RSpec::ExampleGroups|"
                r"for an instance of RSpec::ExampleGroups)", re.MULTILINE), "test-error"),
    (re.compile(r"^(NameError|NoMethodError|NotImplementedError|LoadError): ", re.MULTILINE),
     "missing-code"),
)


def failure_kind(outcome: TestOutcome) -> FailureKind:
    """Why a Ruby test failed, from its exception's class and message."""
    return first_match(outcome.message, _KINDS)
