"""`rgr eval`'s numbers: each mode's runs aggregated with 95 % intervals
(rgr.evaluate.stats), as JSON (versioned) and as a Markdown table."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rgr.evaluate.results import MODES, Measures
from rgr.evaluate.stats import mean_interval, wilson

REPORT_VERSION = 1


def _rate(hits: int, trials: int) -> dict[str, float]:
    value, low, high = wilson(hits, trials)
    return {"hits": hits, "trials": trials, "value": round(value, 4), "low": round(low, 4),
            "high": round(high, 4)}


def _mean(values: Sequence[float]) -> dict[str, float]:
    """Every measure averaged here is a count, a cost or a time: never below 0."""
    value, low, high = mean_interval(values)
    low = max(low, 0.0)
    return {"n": len(values), "value": round(value, 4), "low": round(low, 4),
            "high": round(high, 4)}


def aggregate(runs: Sequence[Measures]) -> dict[str, dict[str, object]]:
    """Per mode (in MODES order): the rates and means the report shows."""
    found: dict[str, dict[str, object]] = {}
    for mode in MODES:
        mine = [m for m in runs if m.mode == mode]
        if not mine:
            continue
        rejections: Counter[str] = Counter()
        for m in mine:
            rejections.update(m.rejections)
        checked = [m for m in mine if m.regression_checked]
        ended = [m for m in mine if m.rgr_exit is not None]
        found[mode] = {
            "runs": len(mine),
            "tasks": len({m.task for m in mine}),
            "solved": _rate(sum(m.solved for m in mine), len(mine)),
            "hiddenTestsPassed": _rate(sum(m.hidden_passed for m in mine),
                                       sum(m.hidden_total for m in mine)),
            "regressed": _rate(sum(bool(m.regressions) for m in checked), len(checked)),
            "testsEditedOrRemoved": _rate(
                sum(bool(m.tests_edited or m.tests_removed) for m in mine), len(mine)),
            "testsWritten": _mean([float(m.tests_written) for m in mine]),
            "costUsd": _mean([m.cost_usd for m in mine]),
            "costKnown": all(m.cost_known for m in mine),
            "tokens": _mean([float(m.input_tokens + m.output_tokens) for m in mine]),
            "wallS": _mean([m.wall_s for m in mine]),
            "sessions": _mean([float(m.sessions) for m in mine]),
            "rejections": dict(sorted(rejections.items())),
            "rgrSaidComplete": _rate(sum(m.rgr_exit == 0 for m in ended), len(ended)),
            "agentFailed": sum(m.status == "agent-failed" for m in mine),
        }
    return found


def as_json(runs: Sequence[Measures], label: str = "") -> dict[str, object]:
    return {"version": REPORT_VERSION, "label": label, "modes": aggregate(runs),
            "runs": [m.model_dump(mode="json") for m in runs]}


def _pct(rate: object) -> str:
    assert isinstance(rate, dict)
    if not rate["trials"]:
        return "-"
    return (f"{rate['hits']}/{rate['trials']} {100 * rate['value']:.0f}% "
            f"[{100 * rate['low']:.0f}–{100 * rate['high']:.0f}]")


def _avg(mean: object, digits: int = 1, unit: str = "") -> str:
    assert isinstance(mean, dict)
    if mean["n"] < 2:
        return f"{unit}{mean['value']:.{digits}f}"
    return (f"{unit}{mean['value']:.{digits}f} "
            f"[{unit}{mean['low']:.{digits}f}–{unit}{mean['high']:.{digits}f}]")


COLUMNS = ("mode", "runs", "solved (all hidden pass)", "hidden tests passed",
           "runs with a regression", "runs that edited/removed tests", "tests written",
           "cost", "wall s", "sessions", "referee rejections", "rgr said complete")


def table_rows(modes: dict[str, dict[str, object]], first: str = "") -> list[list[str]]:
    rows = []
    for mode, row in modes.items():
        rejections = row["rejections"]
        assert isinstance(rejections, dict)
        cost = _avg(row["costUsd"], 4, "$") + ("" if row["costKnown"] else " (partly unknown)")
        rows.append([*([first] if first else []), mode, str(row["runs"]),
                     _pct(row["solved"]), _pct(row["hiddenTestsPassed"]),
                     _pct(row["regressed"]), _pct(row["testsEditedOrRemoved"]),
                     _avg(row["testsWritten"]), cost, _avg(row["wallS"]),
                     _avg(row["sessions"]),
                     ", ".join(f"{k} {v}" for k, v in rejections.items()) or "-",
                     _pct(row["rgrSaidComplete"])])
    return rows


def markdown_table(rows: Sequence[Sequence[str]], columns: Sequence[str]) -> str:
    head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
    return head + "".join("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |\n"
                          for row in rows)


def markdown(runs: Sequence[Measures], label: str = "") -> str:
    modes = aggregate(runs)
    title = f"# rgr eval{': ' + label if label else ''}\n\n"
    legend = ("Rates: hits/trials, the share, and its 95 % Wilson interval in brackets. "
              "Means: over runs, with a 95 % t interval when there are two or more.\n\n")
    per_run = markdown_table(
        [[m.task, m.mode, str(m.repeat), f"{m.hidden_passed}/{m.hidden_total}",
          ", ".join(m.regressions) or "-", ", ".join(m.tests_edited + m.tests_removed) or "-",
          str(m.tests_written), f"${m.cost_usd:.4f}", f"{m.wall_s:.1f}", str(m.sessions),
          ", ".join(f"{k} {v}" for k, v in sorted(m.rejections.items())) or "-",
          m.detail or m.hidden_problem or ""] for m in runs],
        ("task", "mode", "#", "hidden", "regressions", "tests edited/removed", "written",
         "cost", "wall s", "sessions", "rejections", "note"))
    return (title + legend + markdown_table(table_rows(modes), COLUMNS)
            + "\n## Runs\n\n" + per_run)


def write(out: Path, runs: Sequence[Measures], label: str = "") -> tuple[Path, Path]:
    md, js = out / "report.md", out / "report.json"
    md.write_text(markdown(runs, label), encoding="utf-8")
    js.write_text(json.dumps(as_json(runs, label), indent=2) + "\n", encoding="utf-8")
    return md, js
