"""`rgr eval`'s numbers without an agent: the intervals, the aggregation, the Markdown and
JSON report, the PNG, the page of `rgr serve`, the budget that stops runs before they
start, and the usage errors (rgr.evaluate.stats, report, plot, runner; rgr.web.evals)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from rgr.evaluate import plot, report, results
from rgr.evaluate.results import Measures
from rgr.evaluate.stats import mean_interval, wilson
from rgr.web import evals
from rgr.web.app import _environment


def test_wilson_matches_the_textbook_values() -> None:
    # Wilson (1927) / Newcombe (1998): 5 of 10 -> 0.2366..0.7634; 0 of 10 -> 0..0.2775.
    _, low, high = wilson(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    rate, low, high = wilson(0, 10)
    assert (rate, round(low, 4), round(high, 4)) == (0.0, 0.0, 0.2775)
    assert wilson(10, 10)[1:] == (pytest.approx(0.7225, abs=1e-4), 1.0)
    assert wilson(0, 0) == (0.0, 0.0, 1.0)


def test_the_t_interval_of_a_mean() -> None:
    centre, low, high = mean_interval([1.0, 2.0, 3.0])
    # mean 2, sd 1, n 3: 2 +- 4.303 / sqrt(3)
    assert centre == 2.0 and high - centre == pytest.approx(4.303 / 3 ** 0.5, abs=1e-6)
    assert low == pytest.approx(2 * centre - high)
    assert mean_interval([5.0]) == (5.0, 5.0, 5.0)


def measures(mode: str, repeat: int, task: str = "t1", **fields: object) -> Measures:
    base: dict[str, object] = {"task": task, "mode": mode, "repeat": repeat,
                               "hidden_passed": 3, "hidden_total": 3, "cost_usd": 0.01,
                               "regression_checked": True, "sessions": 1, "wall_s": 2.0}
    base.update(fields)
    return Measures.model_validate(base)


def sample(out: Path) -> list[Measures]:
    runs = [measures("bare", 1), measures("bare", 2, regressions=["t::a"]),
            measures("bare", 3, hidden_passed=1, tests_edited=["tests/test_a.py"]),
            measures("rgr", 1, sessions=9, cost_usd=0.09, rejections={"test-modified": 2},
                     rgr_exit=0),
            measures("rgr", 2, sessions=9, cost_usd=0.11, rgr_exit=4)]
    for run in runs:
        results.save(out, run)
    return runs


def test_the_report_aggregates_each_mode(tmp_path: Path) -> None:
    runs = sample(tmp_path)
    assert results.load_all(tmp_path) == sorted(runs, key=lambda m: (m.task, m.mode,
                                                                     m.repeat))
    modes = report.aggregate(runs)
    assert list(modes) == ["bare", "rgr"]
    bare, rgr = modes["bare"], modes["rgr"]
    assert bare["solved"] == {"hits": 2, "trials": 3, **_w(2, 3)}
    assert bare["hiddenTestsPassed"]["hits"] == 7 and bare["hiddenTestsPassed"]["trials"] == 9
    assert bare["regressed"]["hits"] == 1 and bare["testsEditedOrRemoved"]["hits"] == 1
    assert rgr["rejections"] == {"test-modified": 2}
    assert rgr["rgrSaidComplete"]["hits"] == 1 and rgr["rgrSaidComplete"]["trials"] == 2
    assert bare["rgrSaidComplete"]["trials"] == 0
    assert rgr["costUsd"]["value"] == pytest.approx(0.1)

    md, js = report.write(tmp_path, runs)
    text = md.read_text()
    assert "| bare | 3 | 2/3 67% [" in text
    assert "test-modified 2 | 1/2 50% [" in text
    assert text.splitlines()[6].endswith("| - |")  # bare: no rgr run to say anything
    data = json.loads(js.read_text())
    assert data["version"] == 1 and len(data["runs"]) == 5


def _w(hits: int, trials: int) -> dict[str, float]:
    value, low, high = wilson(hits, trials)
    return {"value": round(value, 4), "low": round(low, 4), "high": round(high, 4)}


def test_the_plot_is_a_valid_png(tmp_path: Path) -> None:
    modes = report.aggregate(sample(tmp_path))
    data = plot.draw(modes)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = plot.sizes(data)
    # IHDR, then one IDAT whose pixels decompress to height rows of 1 + 3 * width bytes.
    length = struct.unpack(">I", data[33:37])[0]
    assert data[37:41] == b"IDAT"
    pixels = zlib.decompress(data[41:41 + length])
    assert len(pixels) == height * (1 + 3 * width)
    # The rgr bar's green is drawn (the bare bar's orange too).
    assert bytes(plot.COLOURS["rgr"]) in pixels and bytes(plot.COLOURS["bare"]) in pixels


def test_the_serve_page_shows_every_eval_under_rgr_eval(tmp_path: Path) -> None:
    sample(tmp_path / evals.EVAL_DIR / "nightly")
    found = evals.read(tmp_path)
    assert [e.name for e in found] == ["nightly"]
    html = _environment().get_template("eval.html").render(
        evals=found, repo=str(tmp_path), title="eval", actions=False, csrf="x",
        remote=None, fetch_problem=None)
    assert "<td>rgr</td>" in html and "test-modified 2" in html and "<svg" in html
    assert evals.read(tmp_path / "nowhere") == []


def rgr_eval(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "rgr", "eval", *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def tasks_file(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({
        "version": 1, "id": "t1", "repo": "nowhere", "commit": "main", "feature": "f",
        "hidden_tests": {"files": [{"path": "tests/test_h.py", "text": "x"}],
                         "command": ["pytest"]}}) + "\n")
    return path


def test_the_budget_stops_runs_before_they_start(tmp_path: Path) -> None:
    tasks = tasks_file(tmp_path)
    done = rgr_eval(tmp_path, str(tasks), "--modes", "bare,rgr", "--budget-usd", "0.4",
                    "--session-usd", "0.5", "--yes", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stdout + done.stderr
    said = " ".join(done.stdout.split())  # as a person reads it, however it wrapped
    # The estimate is said before anything runs, then the cap stops the first run.
    assert "bare 1 run(s) x ~$0.50" in said
    assert "rgr 1 run(s) x ~$6.00" in said
    assert "estimated ~$6.50; budget $0.40" in said
    assert "would exceed $0.40" in said and "2 run(s) not started" in said
    assert not (tmp_path / "out" / "runs").exists()
    assert not (tmp_path / "out" / "work").exists()  # nothing cloned


def test_usage_errors_name_the_problem(tmp_path: Path) -> None:
    tasks = tasks_file(tmp_path)
    done = rgr_eval(tmp_path, str(tasks), "--modes", "bare,yolo", "--yes")
    assert done.returncode == 2 and "yolo is no mode" in done.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"version": 1, "id": "x"}\n')
    done = rgr_eval(tmp_path, str(bad), "--yes")
    assert done.returncode == 1
    assert "bad.jsonl:1: field 'repo': Field required" in done.stderr + done.stdout
    done = rgr_eval(tmp_path, str(tasks), "--out", str(tmp_path / "o"))
    assert done.returncode != 0 and "--yes" in done.stderr + done.stdout
