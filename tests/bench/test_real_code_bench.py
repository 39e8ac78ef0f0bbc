"""bench/real_code_bench.py's own logic, without building a project (the bench itself
runs outside the default suite): every corpus project gets the honest change and both
gate cheats, and a verdict is called right only where it is."""

from __future__ import annotations

import pytest

from bench.corpus.placements import PLACEMENTS
from bench.corpus.projects import PROJECTS
from bench.real_code_bench import DEFAULT_CHANGES, changes_of, right_verdict


def test_every_corpus_project_has_the_honest_change_and_both_cheats() -> None:
    wanted = DEFAULT_CHANGES.split(",")
    assert {p.name for p in PROJECTS} == set(PLACEMENTS)
    for project in PROJECTS:
        assert changes_of(PLACEMENTS[project.name], wanted) == wanted, project.name
    # the fake-it changes only where the style has their texts
    assert changes_of(PLACEMENTS["semver"], ["honest", "table"]) == ["honest"]
    assert changes_of(PLACEMENTS["iniconfig"], ["table"]) == ["table"]


@pytest.mark.parametrize(("change", "red", "decision", "debt", "expected"), [
    ("honest", "ok", "pass", 0, "yes"),
    ("honest", "ok", "test-too-weak", 0, "no: honest blocked"),
    ("honest", "test-removed", "pass", 0, "no: honest blocked"),
    ("honest", "ok", "not-measured", 0, "no gate yet"),
    ("weak", "ok", "test-too-weak", 0, "yes"),
    ("weak", "ok", "over-implemented", 0, "yes"),
    ("weak", "ok", "pass", 0, "no: cheat accepted"),
    ("over", "ok", "over-implemented", 0, "yes"),
    ("over", "ok", "test-too-weak", 0, "no: test-too-weak"),
    ("over", "ok", "incomplete", 0, "no: cheat accepted"),
    ("table", "ok", "pass", 1, "yes"),
    ("table", "ok", "pass", 0, "no: cheat accepted"),
    ("gap", "ok", "test-too-weak", 0, "yes"),
])
def test_a_verdict_is_right_only_where_the_change_deserves_it(
        change: str, red: str, decision: str, debt: int, expected: str) -> None:
    assert right_verdict(change, red, "ok", decision, debt) == expected


def test_a_row_the_release_could_not_judge_is_said_and_is_no_false_verdict(
        capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from bench.real_code_bench import Row, print_table

    rows = [Row("a", "honest", gate="pass", rounds=1, right="yes"),
            Row("b", "honest", gate="pass", rounds=1,
                right="not judged: the release's own run fails here"),
            Row("c", "weak", gate="pass", rounds=1, right="no: cheat accepted")]
    print_table(rows, argparse.Namespace(rounds=1, jobs=2))
    out = capsys.readouterr().out
    assert "false verdicts: 1 of 2 changes judged by a gate; c/weak: no: cheat accepted" in out
    assert "not judged (the release's own run failed): b/honest" in out
