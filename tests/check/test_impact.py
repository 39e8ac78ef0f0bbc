"""Impact hints: the tests that ran a file, read from the mutation gate's coverage cache
as rgr writes it (rgr.ecosystems.traced.save), and how a phase's prompt carries them."""

from __future__ import annotations

import os
from pathlib import Path

from rgr.check import impact
from rgr.ecosystems.traced import Coverage, save
from rgr.loop.prompting import build_prompt
from rgr.store.handoff import HandoffState, Phase, TestCase


def coverage(by_test: dict[str, dict[str, set[int]]]) -> Coverage:
    return Coverage({t: {f: frozenset(lines) for f, lines in files.items()}
                     for t, files in by_test.items()})


def test_the_tests_that_ran_a_file_newest_cache_first_and_only_existing_ones(
        tmp_path: Path) -> None:
    save(tmp_path, "old", coverage({"tests/test_a.py::test_old": {"calc.py": {3}},
                                    "tests/test_a.py::test_gone": {"calc.py": {4}}}))
    save(tmp_path, "new", coverage({"tests/test_a.py::test_new": {"calc.py": {5}},
                                    "tests/test_b.py::test_other": {"other.py": {1}}}))
    os.utime(tmp_path / "rgr" / "coverage" / "old.json", (1, 1))  # older, whatever the clock
    existing = {"tests/test_a.py::test_old", "tests/test_a.py::test_new",
                "tests/test_b.py::test_other"}
    assert impact.tests_running(tmp_path, ["calc.py"], existing) == [
        "tests/test_a.py::test_new", "tests/test_a.py::test_old"]
    assert impact.tests_running(tmp_path, ["calc.py"]) == [
        "tests/test_a.py::test_new", "tests/test_a.py::test_gone", "tests/test_a.py::test_old"]
    assert impact.tests_running(tmp_path, ["nothing.py"], existing) == []


def test_the_hint_does_not_follow_the_order_the_tests_ran_in(tmp_path: Path) -> None:
    """Two runs of the same suite in another order (pytest-randomly) give the same hint:
    bench/same_behaviour.py saw the prompt change between two runs of one version."""
    ran = {"tests/test_slug.py::test_lowercases": {"slug.py": {1}},
           "tests/test_slug.py::test_joins": {"slug.py": {2}}}
    hints = []
    for order, key in ((list(ran), "first"), (list(reversed(ran)), "second")):
        save(tmp_path / key, key, coverage({test: ran[test] for test in order}))
        hints.append(impact.hint(tmp_path / key, ["slug.py"]))
    assert hints[0] == hints[1]
    assert hints[0].endswith("`tests/test_slug.py::test_joins`, "
                             "`tests/test_slug.py::test_lowercases`")


def test_no_cache_or_a_damaged_one_gives_no_hint(tmp_path: Path) -> None:
    assert impact.hint(tmp_path, ["calc.py"]) == ""
    folder = tmp_path / "rgr" / "coverage"
    folder.mkdir(parents=True)
    (folder / "broken.json").write_text("{not json")
    assert impact.hint(tmp_path, ["calc.py"]) == ""


def test_a_long_hint_is_cut_and_says_how_many_more(tmp_path: Path) -> None:
    many = {f"tests/test_calc.py::test_case_number_{n:03d}": {"calc.py": {1}}
            for n in range(40)}
    save(tmp_path, "k", coverage(many))
    text = impact.hint(tmp_path, ["calc.py"])
    assert text.startswith("Existing tests that run `calc.py`")
    shown = text.count("::test_case_number_")
    assert 0 < shown <= impact.MAX_TESTS and text.endswith(f"and {40 - shown} more")
    assert len(text) < impact.MAX_CHARS + 200


def test_a_phase_prompt_carries_the_hint(tmp_path: Path) -> None:
    state = HandoffState(phase=Phase.RED, feature="add numbers", summary="wrote a test",
                         current_test=TestCase(description="adds", test_file="t.py",
                                               impl_file="calc.py"))
    hint = "Existing tests that run `calc.py` (from rgr's coverage; run these first): `x`"
    common = dict(phase=Phase.GREEN, state=state, cycle=2, branch="b", head="0" * 40,
                  test_argv=("pytest",), test_list="- [ ] adds", failure_brief=None)
    with_hint = build_prompt(tmp_path, **common, impact=hint)  # type: ignore[arg-type]
    without = build_prompt(tmp_path, **common)  # type: ignore[arg-type]
    assert hint in with_hint and "Existing tests" not in without
    assert with_hint.index(hint) > with_hint.index("implementation file: calc.py")
