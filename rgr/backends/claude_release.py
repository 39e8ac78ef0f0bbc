"""The Claude Code releases rgr is tested with: named here and nowhere else.

rgr drives ``claude -p`` through flags and output formats that change between releases
(``--json-schema`` and ``StructuredOutput``, stream-json events, ``--tools``), so the
supported range is the range the end-to-end suite runs against: ``PINNED`` (the default
of ``tests/e2e``, locked in ``tests/e2e/node/package-lock.json``; a test checks the two
agree) up to ``NEWEST`` (the newest release the registry served when it was last
checked; CI runs a sample of the suite on it, ``RGR_E2E_CLAUDE=newest`` the whole
suite). Preflight says when the installed claude is outside that range.
"""

from __future__ import annotations

import re

PACKAGE = "@anthropic-ai/claude-code"
PINNED = "2.1.197"
NEWEST = "2.1.330"

Version = tuple[int, ...]


def parse(text: str) -> Version | None:
    """``2.1.330`` from ``claude --version``'s ``2.1.330 (Claude Code)``."""
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(part) for part in match.groups()) if match else None


def supported_range() -> str:
    return f"{PINNED} to {NEWEST}"


def range_warning(version_text: str) -> str | None:
    """What to tell the user when ``claude --version`` is outside the tested range."""
    version = parse(version_text)
    low, high = parse(PINNED), parse(NEWEST)
    assert low is not None and high is not None
    if version is None:
        return (f"cannot read a version in `claude --version` ({version_text.strip()!r}); "
                f"rgr is tested with Claude Code {supported_range()}")
    shown = ".".join(map(str, version))
    if version < low:
        return (f"Claude Code {shown} is older than the releases rgr is tested with "
                f"({supported_range()}): upgrade with `npm install -g {PACKAGE}@{NEWEST}`")
    if version > high:
        return (f"Claude Code {shown} is newer than the releases rgr is tested with "
                f"({supported_range()}): it will probably work; if a phase fails in a way "
                f"that looks like the CLI changed, `npm install -g {PACKAGE}@{NEWEST}`")
    return None
