"""A mode (a ``Work``) that misses one of the kernel's hooks without a default is
caught by mypy, before anything runs: the hooks are abstract. And a verdict's evidence
is the mode's own type, which mypy checks where it is read."""

from __future__ import annotations

from pathlib import Path

import mypy.api
import pytest

from rgr.loop.kernel import Work

HALF_A_MODE = '''
from rgr.loop.kernel import Verdict, Work
from rgr.store.handoff import AdequacyNote


class Half(Work[None]):
    def label(self, number: int) -> str:
        return f"half-{number}"


Half()


def tried(verdict: Verdict[AdequacyNote]) -> int:
    return verdict.evidence.tried  # a rejection before the gate has no evidence


def gate_of(verdict: Verdict[AdequacyNote]) -> object:
    return verdict.evidence.gate if verdict.evidence else None  # a refactor batch's
'''


def test_mypy_names_the_hooks_a_mode_misses_and_misread_evidence(tmp_path: Path) -> None:
    mode = tmp_path / "half_mode.py"
    mode.write_text(HALF_A_MODE, encoding="utf-8")
    out, _, status = mypy.api.run([str(mode), "--cache-dir", str(tmp_path / "cache"),
                                   "--follow-imports", "silent", "--config-file", "",
                                   "--no-error-summary"])
    assert status == 1, out
    assert 'Cannot instantiate abstract class "Half"' in out
    for hook in ("accepted_messages", "judge", "output_model", "request"):
        assert f'"{hook}"' in out
    assert '"label"' not in out
    assert 'Item "None" of "AdequacyNote | None" has no attribute "tried"' in out
    assert '"AdequacyNote" has no attribute "gate"' in out


def test_the_hooks_without_a_default_are_exactly_the_abstract_ones() -> None:
    assert Work.__abstractmethods__ == {"label", "request", "output_model", "judge",
                                        "accepted_messages"}
    half = type("Half", (Work,), {"label": lambda self, number: "h"})
    with pytest.raises(TypeError, match="abstract"):
        half()
