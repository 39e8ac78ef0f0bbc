"""Survivors inside a fake are GREEN's fake-it, not RED's weak test
(rgr.check.fakeit.blame)."""

from __future__ import annotations

from rgr.check.fakeit.blame import fake_lines, survivors_of_fakes
from rgr.store.handoff import AdequacyNote, FakeItDebt, MutantFinding


def test_survivors_inside_a_fake_are_greens_debt_not_a_weak_test() -> None:
    """rgr.check.fakeit.blame: a test-too-weak gate whose survivors all lie in a function
    the new fake-it debt names is lifted (GREEN owes the debt); one survivor elsewhere
    keeps RED's gap."""
    source = ("package p\n\nfunc Add(a int) int {\n\treturn a + 1\n}\n\n"
              "func Count(name string) int {\n"
              '\treturn map[string]int{"a": 4, "c": 0}[name]\n}\n')
    debt = [FakeItDebt(path="p.go", line=8, function="Count", kind="input-table",
                       value='{"a", "c"}', test="p_test.go:9", inputs='"a"')]

    def note(*lines: int) -> AdequacyNote:
        return AdequacyNote(phase="GREEN", mode="reject", decision="test-too-weak",
                            survived=len(lines), mutants=[
                                MutantFinding(path="p.go", line=n, col=2, operator="constant",
                                              original='"c"', replacement='""',
                                              status="survived", tests=["TestCount"])
                                for n in lines])

    lifted = survivors_of_fakes(note(8), debt, {"p.go": source})
    assert lifted.decision == "pass" and "fake-it" in (lifted.remark or ""), lifted
    assert survivors_of_fakes(note(8, 4), debt, {"p.go": source}).decision == "test-too-weak"
    assert survivors_of_fakes(note(8), [], {"p.go": source}).decision == "test-too-weak"


def test_a_fakes_lines_are_its_functions_whole_in_python_too() -> None:
    source = ("def add(a, b):\n    return a + b\n\n\n"
              "def count(name):\n    table = {'a': 4}\n    return table[name]\n")
    debt = [FakeItDebt(path="tally.py", line=6, function="count", kind="input-table",
                       value="{'a'}", test="t.py::test_count", inputs="'a'")]
    assert fake_lines("tally.py", source, debt) == {5, 6, 7}
    assert fake_lines("other.py", source, debt) == set()
