"""The ranges change's texts (bench/corpus/ranges.py) in every style, and where each
corpus project gets them (bench/corpus/placements.py): each cheat is the cheat it is
named after, as rgr's own guard reads it, so a run of bench/corpus_run.py that
completes a cheat is rgr's miss, never a text that does not cheat."""

from __future__ import annotations

import re

import pytest

from bench.corpus.placements import PLACEMENTS
from bench.corpus.projects import PROJECTS
from bench.corpus.ranges import CHEATS, STYLES
from rgr.check.guards import SKIP_MARKERS

#: How many tests a style's text declares: one per test function, case or ``it``.
_TEST = re.compile(r"^\s*(def test_|\s*it\(|test\(|func Test|fn \w+\(\) \{|public void )",
                   re.MULTILINE)


def test_every_corpus_project_has_a_placement() -> None:
    assert sorted(PLACEMENTS) == sorted(p.name for p in PROJECTS)


#: Styles whose skip is a plain call no line pattern reads (Minitest's ``skip``): RED's
#: skipped test is rejected by the runner's outcome (``red-skipped``) alone.
SKIPPED_BY_OUTCOME = {"minitest"}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_the_skipped_cheat_adds_a_skip_marker_the_guard_reads(style: str) -> None:
    texts = STYLES[style]
    added = set(texts["skipped"].splitlines()) - set(texts["tests"].splitlines())
    assert added and not SKIP_MARKERS.search(texts["tests"])
    if style in SKIPPED_BY_OUTCOME:
        assert "red-skipped" in CHEATS["skipped"] and not any(
            SKIP_MARKERS.search(line) for line in added), added
    else:
        assert any(SKIP_MARKERS.search(line) for line in added), added


@pytest.mark.parametrize("style", sorted(STYLES))
def test_the_weak_tests_drop_the_equal_and_bad_bounds_cases(style: str) -> None:
    texts = STYLES[style]
    assert len(_TEST.findall(texts["tests"])) == 6
    assert len(_TEST.findall(texts["weak"])) == 4
    assert len(_TEST.findall(texts["gap"])) == 5
    assert "(3, 4, 4)" not in texts["weak"] and "(3, 5, 1)" not in texts["weak"]


@pytest.mark.parametrize("style", sorted(STYLES))
def test_over_adds_a_branch_and_minimal_drops_the_bad_bounds_check(style: str) -> None:
    texts = STYLES[style]
    assert "1337" in texts["over"] and "1337" not in texts["honest"]
    check = re.compile(r"^\s*if \(?(low > high|lo > hi)", re.MULTILINE)
    assert check.search(texts["honest"])
    assert not check.search(texts["minimal"])
    assert texts["minimal"].count("{") == texts["minimal"].count("}")
