"""Tests that skip or fail for a capability the sandbox drops, when rgr runs as root.

The sandbox drops every capability (``--cap-drop ALL``: the narrowest permissions), so
inside it even uid 0 has none. Run as root, the project's own command keeps root's
capabilities: a test that needs one (golang.org/x/sys's ``open_by_handle_at`` needs
``CAP_DAC_READ_SEARCH``) passes there and skips or fails in rgr's run, and the counts
differ. A non-root user's own run has no capabilities either and sees what rgr sees.
This module finds such tests in a report, so ``rgr verify`` can say why the counts
differ instead of leaving the user to guess.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

#: A capability named in a test's message (``CAP_DAC_READ_SEARCH``), or what a call
#: without it says (``EPERM``, ``operation not permitted``).
_CAPABILITY = re.compile(r"\bCAP_[A-Z_]+\b")
_NOT_PERMITTED = re.compile(r"\bEPERM\b|operation not permitted", re.IGNORECASE)


@dataclass(frozen=True)
class CapabilityTests:
    """Tests that skipped or failed for want of a capability."""

    tests: tuple[str, ...]
    #: The capabilities their messages name (empty when they only say EPERM).
    capabilities: tuple[str, ...]

    def note(self) -> str:
        """What ``rgr verify`` says about them, run as root."""
        named = f" ({', '.join(self.capabilities)})" if self.capabilities else ""
        shown = ", ".join(self.tests[:5]) + (
            f" and {len(self.tests) - 5} more" if len(self.tests) > 5 else "")
        return (f"note: {len(self.tests)} test(s) skipped or failed for a capability the "
                f"sandbox drops{named}: {shown}. You run rgr as root: root's own run of "
                "the tests has capabilities rgr's sandbox drops (every one), so there they "
                "may pass; a non-root user's own run has none and sees the same as rgr")


def find(outcomes: Iterable[tuple[str, str, str]]) -> CapabilityTests | None:
    """Among ``(test id, status, message)``, the skipped or failed tests whose message
    names a capability or says the operation was not permitted; None if there are none."""
    tests: list[str] = []
    names: list[str] = []
    for test_id, status, message in outcomes:
        if status not in ("skipped", "failed", "error"):
            continue
        named = _CAPABILITY.findall(message)
        if named or _NOT_PERMITTED.search(message):
            tests.append(test_id)
            names += named
    if not tests:
        return None
    return CapabilityTests(tuple(tests), tuple(dict.fromkeys(names)))


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
