"""``test-list.md``: the planner's checklist of behaviours, as markdown checkboxes.

The orchestrator reads it itself to decide completion; it never takes the planner's
word that the work is done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FILENAME = "test-list.md"

#: One checklist line: ``- [ ] text`` (pending) or ``- [x] text`` (done).
ITEM = re.compile(r"^\s*[-*+]\s+\[(?P<mark>[ xX])\]\s+(?P<text>.+?)\s*$")


@dataclass(frozen=True)
class TestList:
    __test__ = False
    done: tuple[str, ...]
    pending: tuple[str, ...]

    @property
    def total(self) -> int:
        return len(self.done) + len(self.pending)

    @property
    def complete(self) -> bool:
        """Every box ticked, and at least one box: an empty list finishes nothing."""
        return self.total > 0 and not self.pending

    def progress(self) -> str:
        return f"{len(self.done)}/{self.total} done"


def parse_test_list(text: str | None) -> TestList:
    done: list[str] = []
    pending: list[str] = []
    for line in (text or "").splitlines():
        match = ITEM.match(line)
        if match:
            (done if match["mark"] in "xX" else pending).append(match["text"])
    return TestList(tuple(done), tuple(pending))
