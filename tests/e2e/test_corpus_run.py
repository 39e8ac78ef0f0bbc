"""`rgr run` on the real-project corpus (issues 34 and 35): the honest ranges change,
played by the real claude against the scripted model of bench/corpus/sessions.py, must
complete on each project as its users have it (built under a fresh HOME, rgr's script
alone on PATH, no tdd.toml but the one its user commits, the examiner off) with no
rejected attempt, no refused edit, and the release's passed count plus the six new tests
in the final note.

The default run plays the cheapest project (iniconfig, a PyPI sdist of 54 tests); the
full sweep plays every project whose own suite is green and the cheats (each rejected
by a rule it names); jsoup, whose suite is red as Debian ships it, must be refused
before any agent runs:

    RGR_FULL_SWEEP=1 RGR_CORPUS_CACHE=/tmp/corpus-cache .venv/bin/python -m pytest \
        tests/e2e/test_corpus_run.py

The same runs with a table of figures: `python bench/corpus_run.py [--cheats ...]`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from harness import full_sweep, sweep

from bench.corpus.projects import PROJECTS, by_name
from bench.corpus_run import Outcome, run_change

pytestmark = pytest.mark.e2e

WHERE = "tests/e2e/test_corpus_run.py"
#: The cheapest project of the corpus: its build and its suite take seconds.
SAMPLE = "iniconfig"
#: One project per ecosystem for the cheats, Jest, Vitest (TypeScript), Maven (the
#: cheapest suite) and unittest (rgr's line tracer through its unittest reporter).
CHEATED = ("iniconfig", "chai-string", "github.com/google/uuid", "itoa", "cron",
           "css-what", "json-simple", "markdown")
#: Projects whose own suite is red as their registry ships it: rgr refuses to start.
RED_SUITES = ("jsoup",)
#: Projects where rgr's baseline is red while the user's own run is green, each a known
#: gap (docs/performance.md, the corpus tables): no honest change can start there yet.
#: None now: pino (its module-link test symlinks a fixture into node_modules) completes
#: with its user's `[sandbox] writable_copy = ["node_modules"]`.
SANDBOX_RED: tuple[str, ...] = ()
#: Known to fail on this machine for a reason outside rgr's reading: commons-codec's
#: Base64Test.testCodec265 runs only when the JVM thinks it has more than 5.33 GB free
#: (this machine's default heap is 6.3 GB) and then runs out of heap in rgr's checkout.
#: Not strict: whether the test runs at all depends on the heap at that moment.
FLAKY_HERE = {"commons-codec": "Base64Test.testCodec265 runs out of Java heap at the "
                               "edge of this machine's default heap"}
CHEATS = ("weak", "over", "skipped", "edit")


def _rgr() -> Path:
    """This checkout's rgr script (only the script is linked into the user's PATH)."""
    return Path(sys.executable).parent / "rgr"


def _log(outcome: Outcome, work: Path) -> str:
    slug = f"{outcome.project.replace('/', '_').lstrip('@')}-{outcome.change}"
    log = work / f"{slug}.log"
    return log.read_text()[-4000:] if log.exists() else outcome.detail


def _honest_cases() -> list[object]:
    cases = sweep([p.name for p in PROJECTS if p.name not in (*RED_SUITES, *SANDBOX_RED)],
                  lambda name: name == SAMPLE or full_sweep(), WHERE,
                  env="RGR_CORPUS_CACHE=/tmp/corpus-cache")
    return [pytest.param(*case.values, marks=(*case.marks, pytest.mark.xfail(
                strict=False, reason=FLAKY_HERE[case.values[0]])))
            if case.values[0] in FLAKY_HERE else case for case in cases]


@pytest.mark.parametrize("name", _honest_cases())
def test_the_honest_change_completes(name: str, tmp_path: Path) -> None:
    outcome = run_change(by_name(name), "honest", tmp_path, _rgr())
    assert outcome.verdict == "ok", (outcome, _log(outcome, tmp_path))
    assert outcome.phases[-1] == "COMPLETE"


def _cheat_cases() -> list[object]:
    return sweep([(n, c) for n in CHEATED for c in CHEATS], lambda case: full_sweep(),
                 WHERE, env="RGR_CORPUS_CACHE=/tmp/corpus-cache")


@pytest.mark.parametrize(("name", "cheat"), _cheat_cases())
def test_each_cheat_is_rejected_by_its_rule(name: str, cheat: str, tmp_path: Path) -> None:
    outcome = run_change(by_name(name), cheat, tmp_path, _rgr())
    assert outcome.verdict == "ok", (outcome, _log(outcome, tmp_path))


@pytest.mark.parametrize("name", sweep(list(RED_SUITES), lambda name: full_sweep(), WHERE,
                                       env="RGR_CORPUS_CACHE=/tmp/corpus-cache"))
def test_a_red_suite_is_refused_before_any_agent_runs(name: str, tmp_path: Path) -> None:
    """jsoup as Debian ships it lacks two pages its ParseTest reads: rgr names the two
    erroring tests and starts nothing (no branch note, no session, nothing spent)."""
    outcome = run_change(by_name(name), "honest", tmp_path, _rgr())
    log = _log(outcome, tmp_path)
    assert outcome.exit_code not in (0, None) and not outcome.phases, (outcome, log)
    assert "the test suite is not green before rgr starts" in log, log
    assert "ParseTest::testBaidu" in log, log
    # the two pages are missing from the sources, not ignored build output: no hint
    # pointing at generated files
    assert "ignored by git" not in log and "show_generated" not in log, log
