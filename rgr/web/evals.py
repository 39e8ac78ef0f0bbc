"""The eval page of `rgr serve`: every `rgr eval` whose results lie in the repository's
``rgr-eval/`` folder (the default ``--out`` of an eval started at its root), each mode's
figures with their intervals, read by the same service the command's report uses
(rgr.evaluate.report)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from rgr.evaluate import report, results
from rgr.web import plots

EVAL_DIR = "rgr-eval"


@dataclass(frozen=True)
class EvalView:
    name: str
    folder: str
    runs: int
    tasks: int
    columns: tuple[str, ...]
    rows: list[list[str]]
    solved: Markup
    regressed: Markup


def read(root: Path) -> list[EvalView]:
    found = []
    for folder in sorted(p for p in (root / EVAL_DIR).glob("*") if p.is_dir()):
        runs = results.load_all(folder)
        if not runs:
            continue
        modes = report.aggregate(runs)
        found.append(EvalView(
            name=folder.name, folder=str(folder), runs=len(runs),
            tasks=len({m.task for m in runs}), columns=report.COLUMNS,
            rows=report.table_rows(modes),
            solved=plots.bars("runs whose hidden tests all pass (%)",
                              _shares(modes, "solved")),
            regressed=plots.bars("runs with a regression (%)",
                                 _shares(modes, "regressed"))))
    return found


def _shares(modes: dict[str, dict[str, object]], key: str) -> list[tuple[str, float]]:
    """(mode, the rate ``key`` in percent) per mode."""
    out = []
    for mode, row in modes.items():
        rate = row[key]
        assert isinstance(rate, dict)
        out.append((mode, 100 * float(rate["value"])))
    return out
