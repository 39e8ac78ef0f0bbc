"""Surviving Python mutants put to CrossHair (rgr.ecosystems.python.equivalence): proved
equivalent, told apart by an input the strengthening RED is given, or undecided (a remark
unless a test of the item demonstrably should kill it: rgr.check.mutation.rule). Real
CrossHair (the ``equivalence`` extra, in the ``test`` extra), real pytest, real git, and
one run inside the real bubblewrap sandbox."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from rgr.base.installed import install_extra
from rgr.check.mutation.rule import demonstrably_killable
from rgr.check.mutation.score import lines as score_lines
from rgr.check.mutation.verdicts import strengthen_brief, violations_of
from rgr.ecosystems.mutant import apply
from rgr.ecosystems.python import equivalence
from rgr.ecosystems.python.mutants import mutants_of
from rgr.store.handoff import MutantFinding
from tests.check.mutation.test_mutation import gate
from tests.conftest import make_repo

TYPED_CLAMP = '''def clamp(value: int, low: int, high: int) -> int:
    if low > high:
        raise ValueError("low must not exceed high")
    if value < low:
        return low
    if value > high:
        return high
    return value
'''
MAGNITUDE = '''def magnitude(value):
    if value < 0:
        return -value
    return value
'''
MAGNITUDE_TESTS = '''from signs import magnitude


def test_negative():
    assert magnitude(-3) == 3


def test_positive():
    assert magnitude(4) == 4
'''
CLAMP_TESTS = '''import pytest

from ranges import clamp


def test_inside():
    assert clamp(3, 1, 5) == 3


def test_below():
    assert clamp(0, 1, 5) == 1


def test_above():
    assert clamp(9, 1, 5) == 5


def test_bad_bounds():
    with pytest.raises(ValueError):
        clamp(3, 5, 1)
'''
INI = "[pytest]\npythonpath = .\n"


def _mutant(source: str, original: str, replacement: str):  # type: ignore[no-untyped-def]
    return next(m for m in mutants_of("ranges.py", source, set(range(1, 40)))
                if (m.original, m.replacement) == (original, replacement))


def test_crosshair_is_installed_for_the_tests() -> None:
    assert equivalence.available() and equivalence.version()


def test_a_typed_boundary_gap_is_told_apart_by_an_input(tmp_path: Path) -> None:
    mutant = _mutant(TYPED_CLAMP, "low > high", "low >= high")
    (tmp_path / "ranges.py").write_text(TYPED_CLAMP)
    answer = equivalence.decide("ranges.py", TYPED_CLAMP, apply(TYPED_CLAMP, mutant),
                                mutant.line, tmp_path, None, dict(os.environ))
    assert answer.kind == "differs", answer
    assert "the original returns" in answer.detail and "the mutant raises ValueError" \
        in answer.detail, answer
    assert list(tmp_path.iterdir()) == [tmp_path / "ranges.py"]  # nothing left behind


def test_untyped_code_is_typed_from_the_tests_values_or_left_undecided(
        tmp_path: Path) -> None:
    mutant = next(m for m in mutants_of("signs.py", MAGNITUDE, {2})
                  if m.replacement == "value <= 0")
    (tmp_path / "signs.py").write_text(MAGNITUDE)
    typed = equivalence.decide("signs.py", MAGNITUDE, apply(MAGNITUDE, mutant), 2,
                               tmp_path, None, dict(os.environ), {"value": ["int"]})
    assert typed.kind == "equivalent", typed  # -0 == 0
    untyped = equivalence.decide("signs.py", MAGNITUDE, apply(MAGNITUDE, mutant), 2,
                                 tmp_path, None, dict(os.environ))
    assert untyped.kind == "undecided" and "no types" in untyped.detail


def test_crosshair_output_is_read_as_a_decision() -> None:
    same = equivalence.read("All paths exhausted, functions are likely the same!\n", "")
    assert same.kind == "equivalent"
    differs = equivalence.read(
        "Given: (value=0, low=0, high=0),\n  m.clamp : returns 0\n  n.clamp : raises "
        "ValueError('x')\n", "", ("m.clamp", "n.clamp"))
    assert differs == equivalence.Decision(
        "differs", "(value=0, low=0, high=0): the original returns 0 against the mutant "
        "raises ValueError('x')")
    unsure = equivalence.read("No differences found. (attempted 10 iterations)\n", "")
    assert unsure.kind == "undecided" and "attempted 10 iterations" in unsure.detail


def test_the_gate_counts_a_proved_equivalent_apart_and_passes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    base = repo.commit("test: magnitude", {"tests/test_signs.py": MAGNITUDE_TESTS,
                                           "signs.py": "def magnitude(value):\n    "
                                           "raise NotImplementedError\n", "pytest.ini": INI})
    tip = repo.commit("feat: magnitude", {"signs.py": MAGNITUDE})
    note = gate(repo, base, tip)
    assert note.decision == "pass", note
    proved = [m for m in note.mutants if m.status == "equivalent-by-crosshair"]
    # for integers, value < 0, value <= 0 and value < 1 all give the same magnitude
    assert {(m.original, m.replacement) for m in proved} == {("value < 0", "value <= 0"),
                                                              ("0", "1")}, note
    assert note.equivalent_by_cross_hair == 2 and note.survivors == []
    dumped = note.model_dump(mode="json", by_alias=True)
    assert dumped["equivalentByCrossHair"] == 2
    assert "2 equivalent (CrossHair)" in score_lines(dumped)[0]


def test_the_telling_input_reaches_the_strengthening_red(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    base = repo.commit("test: clamp", {"tests/test_ranges.py": CLAMP_TESTS, "pytest.ini": INI,
                                       "ranges.py": "def clamp(value: int, low: int, "
                                       "high: int) -> int:\n    raise NotImplementedError\n"})
    tip = repo.commit("feat: clamp", {"ranges.py": TYPED_CLAMP})
    note = gate(repo, base, tip)
    assert note.decision == "test-too-weak", note
    [gap] = note.survivors
    assert (gap.original, gap.replacement) == ("low > high", "low >= high")
    assert gap.telling_input and "raises ValueError" in gap.telling_input, gap
    brief = strengthen_brief(note)
    assert f"called with {gap.telling_input}" in brief


def test_without_crosshair_survivors_block_as_before(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # The one boundary faked: an install without the optional extra.
    monkeypatch.setattr(equivalence, "available", lambda: False)
    repo = make_repo(tmp_path)
    base = repo.commit("test: magnitude", {"tests/test_signs.py": MAGNITUDE_TESTS,
                                           "signs.py": "def magnitude(value):\n    "
                                           "raise NotImplementedError\n", "pytest.ini": INI})
    tip = repo.commit("feat: magnitude", {"signs.py": MAGNITUDE})
    note = gate(repo, base, tip)
    assert note.decision == "test-too-weak"
    assert "CrossHair is not installed" in (note.remark or "")


def test_demonstrably_a_raising_guards_twin_with_a_test_running_it() -> None:
    mutant = _mutant(TYPED_CLAMP, "low > high", "low >= high")
    covered = MutantFinding(path="ranges.py", line=mutant.line, col=mutant.col,
                            operator="comparison", original="low > high",
                            replacement="low >= high", status="survived",
                            tests=["tests/test_ranges.py::test_bad_bounds"])
    assert demonstrably_killable(mutant, TYPED_CLAMP, covered)
    # no test known to run it: not demonstrable
    assert not demonstrably_killable(mutant, TYPED_CLAMP, covered.updated(tests=[]))
    # the other comparison mutant of the same guard is no boundary twin
    negated = _mutant(TYPED_CLAMP, "low > high", "low <= high")
    assert not demonstrably_killable(negated, TYPED_CLAMP, covered)


def test_an_undecided_survivor_is_a_remark_not_a_rejection() -> None:
    from rgr.check.mutation.rule import decide
    from rgr.store.handoff import AdequacyNote

    finding = MutantFinding(path="a.py", line=2, col=5, operator="arithmetic",
                            original="a * b", replacement="a / b", status="undecided",
                            reason="CrossHair's time budget (4s) ran out")
    note = AdequacyNote(phase="GREEN", tried=1, undecided=1, mutants=[finding])
    assert decide(note) == "pass" and violations_of(note.updated(decision="pass")) == []


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_crosshair_runs_the_projects_code_inside_the_sandbox(tmp_path: Path) -> None:
    """The project's code sees what the sandbox shows, not the host: a function that
    answers whether a file of the host exists is equivalent to ``return 1`` outside (the
    file is there) and told apart inside rgr's sandbox (it hides the host's /tmp)."""
    from rgr.check.verify import Confinement
    from rgr.sandbox.policy import SandboxPolicy

    marker = tmp_path / "on-the-host"
    marker.write_text("")
    repo, checkout, home, tmp = (tmp_path / "work" / "repo", tmp_path / "checkout",
                                 tmp_path / "home", tmp_path / "tmp")
    for folder in (repo, checkout, home, tmp):
        folder.mkdir(parents=True)
    original = (f"import os\n\n\ndef seen(x: int) -> int:\n    return 1 if "
                f"os.path.exists({str(marker)!r}) else 0\n")
    mutated = "import os\n\n\ndef seen(x: int) -> int:\n    return 1\n"
    (checkout / "host.py").write_text(original)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(tmp)}
    outside = equivalence.decide("host.py", original, mutated, 5, checkout, None, env)
    assert outside.kind == "equivalent", outside
    jail = SandboxPolicy().test_jail(repo_root=repo, checkout=checkout, home=home, tmp=tmp,
                                     executables=[Path(sys.executable)])
    inside = equivalence.decide("host.py", original, mutated, 5, checkout,
                                Confinement(jail, tmp), env)
    assert inside.kind == "differs" and "the original returns 0" in inside.detail, inside


def test_doctor_says_whether_crosshair_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    from rgr.commands import doctor

    assert f"CrossHair {equivalence.version()}" in doctor._equivalence_line()
    monkeypatch.setattr(equivalence, "available", lambda: False)
    assert install_extra("equivalence") in doctor._equivalence_line()


def test_the_gate_asks_pythons_language_for_its_prover() -> None:
    """The prover is the language's (``Language.prover``), found by the file's path."""
    from rgr.ecosystems import registry

    python = registry.language_of("pkg/ranges.py")
    assert python is not None and python.prover is equivalence.PROVER
    assert python.prover.name == "CrossHair" and python.prover.available()
    assert python.prover.function_at(TYPED_CLAMP, 3) == "clamp"
    assert all(language.prover is None for language in registry.LANGUAGES
               if language is not python)
