"""The mutation gate's score in words, from a note's plain JSON (``adequacy``).

Standard library only: ``rgr show`` and ``rgr history`` print it without loading
pydantic (see tests/test_startup.py), and ``rgr report`` through the model's dump.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def score(adequacy: Mapping[str, Any]) -> str:
    """``1/2 killed (1 survived)``, ``nothing to mutate`` or ``not measured``."""
    if adequacy.get("decision") == "not-measured":
        return "not measured"
    tried = adequacy.get("tried", 0)
    if not tried:
        return "nothing to mutate"
    extra = [f"{adequacy.get(key, 0)} {what}" for key, what in (
        ("survived", "survived"), ("uncovered", "uncovered"),
        ("equivalent", "equivalent (claimed)"), ("notRun", "not run: budget"),
        ("unviable", "did not build"), ("equivalentByRule", "equivalent (by rule)"),
        ("equivalentByCrossHair", "equivalent (CrossHair)"),
        ("undecided", "undecided: remark"))
        if adequacy.get(key, 0)]
    text = f"{adequacy.get('killed', 0)}/{tried} killed"
    return text + (f" ({', '.join(extra)})" if extra else "")


def lines(adequacy: Mapping[str, Any], limit: int = 12) -> list[str]:
    """The score and decision, then one line per mutant that was not killed."""
    out = [f"{score(adequacy)}: {adequacy.get('decision', '-')}"
           + (f" ({adequacy['remark']})" if adequacy.get("remark") else "")]
    mutants = adequacy.get("mutants") or []
    for mutant in mutants[:limit]:
        text = (f"{mutant.get('status')}: {mutant.get('path')}:{mutant.get('line')}:"
                f"{mutant.get('col')} {mutant.get('original')!r} -> "
                f"{mutant.get('replacement')!r} ({mutant.get('operator')})")
        if mutant.get("reason") and mutant.get("status") in (
                "equivalent-by-rule", "equivalent-by-crosshair", "undecided"):
            text += f"; {mutant['reason']}"
        elif mutant.get("reason"):
            text += f"; claimed equivalent: {mutant['reason']}"
        if mutant.get("tellingInput"):
            text += f"; told apart by {mutant['tellingInput']}"
        out.append(text)
    if len(mutants) > limit:
        out.append(f"... and {len(mutants) - limit} more")
    return out
