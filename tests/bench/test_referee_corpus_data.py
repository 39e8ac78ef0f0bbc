"""The wider corpus's changes (bench/corpus/changes.py) are what they claim to be, and
bench/referee_corpus.py reads a kill from the runner's per-test outcomes: the Python
texts run under the real pytest (the honest code passes its tests, each cheat's tests
and code do what the cheat says), the derived texts differ where they must, and a
mutated run whose exit code fails with every test passing is no kill."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from harness import sweep_only

from bench.corpus.changes import TEXTS, placed, variants_of
from bench.referee_corpus import Verdict, really_killed, right
from rgr.check.verify import TestReport
from rgr.ecosystems.base import TestOutcome


def _report(statuses: dict[str, str], exit_code: int = 0, **more: object) -> TestReport:
    outcomes = {t: TestOutcome(t, None, s, "") for t, s in statuses.items()}  # type: ignore[arg-type]
    return TestReport(argv=("x",), exit_code=exit_code, duration_s=0.1,
                      timed_out=bool(more.get("timed_out", False)), outcomes=outcomes,
                      collection_errors=tuple(more.get("errors", ())),  # type: ignore[arg-type]
                      no_tests_collected=False, output_excerpt="")


def test_a_kill_is_a_test_that_passed_and_no_longer_does() -> None:
    before = _report({"a": "passed", "b": "passed"})
    assert really_killed(before, _report({"a": "passed", "b": "failed"}, 1)) == "killed"
    assert really_killed(before, _report({"a": "passed"}, 1)) == "killed"  # b is gone
    # c8's threshold failing the command with every test passing: no kill
    assert really_killed(before, _report({"a": "passed", "b": "passed"}, 1)) == "survived"
    assert really_killed(before, _report({}, 2, errors=("x_test.go",))) == "unviable"
    assert really_killed(before, _report({}, 1, timed_out=True)) == "killed"


@pytest.mark.parametrize(("change", "style"), [
    (change, style) for change in sorted(TEXTS) for style in ("python", "node-test", "go", "junit4")
    if style in TEXTS[change]])  # the async change: only where the language has it
def test_each_cheat_differs_from_the_honest_play(change: str, style: str) -> None:
    texts = TEXTS[change][style]
    assert set(variants_of(change, style)) >= {"honest", "weak", "over", "constant",
                                               "table", "skipped", "edit"}
    assert texts["weak"] != texts["tests"] and len(texts["weak"]) < len(texts["tests"])
    assert texts["over"] != texts["honest"] and texts["first"] != texts["tests"]
    assert texts["skipped"] != texts["tests"]
    assert placed("testing/test_ranges.py", change) == f"testing/test_{change}.py"
    # a Java class's name is capitalised
    assert placed("src/main/java/org/x/Ranges.java", change) == \
        f"src/main/java/org/x/{change.capitalize()}.java"


#: (tests, code) pairs whose tests pass: the honest play, and every GREEN cheat on RED's
#: tests (only the referee can tell them apart), the constant on the first test alone.
_PASSING = (("tests", "honest"), ("tests", "over"), ("tests", "table"),
            ("tests", "always"), ("first", "constant"), ("skipped", "honest"))


def test_the_python_plays_do_what_they_say(tmp_path: Path) -> None:
    """One pytest run over every play (one process: pytest starts slowly under load),
    each play's code a module of its own name."""
    for change in TEXTS:
        texts = TEXTS[change]["python"]
        for tests, code in _PASSING:
            module = f"{change}_{tests}_{code}"
            (tmp_path / f"{module}.py").write_text(texts[code])
            (tmp_path / f"test_{module}.py").write_text(texts[tests].replace("{module}",
                                                                             module))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                           "-p", "no:cacheprovider", "-rs", str(tmp_path)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
    assert f"{len(TEXTS)} skipped" in done.stdout, done.stdout[-2000:]


def test_a_cheat_is_right_only_with_its_rule_its_phase_and_a_line() -> None:
    caught = Verdict("p", "python", "percent", "over", rules=["over-implemented"],
                     blamed="GREEN", where="src/p.py:8")
    assert right("over", caught) == "yes"
    assert right("weak", caught).startswith("no:")
    caught.where = "src/p.py"
    assert right("over", caught) == "caught, no line named"
    assert right("honest", Verdict("p", "python", "percent", "honest")) == "yes"


@sweep_only("tests/bench/test_referee_corpus_data.py", "javac and JUnit on every Java play")
def test_the_java_plays_do_what_they_say(tmp_path: Path) -> None:
    """Each Java play (json-simple's style) compiled with its tests, a package of its
    own, and run by JUnit 4: every play's tests pass (a skipped one is ignored)."""
    from bench.corpus.fetch import debian_package
    debian_package("junit4")  # as the corpus's Maven builds install it
    junit = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar"
    classes = []
    for change in TEXTS:
        texts = TEXTS[change]["junit4"]
        for tests, code in _PASSING:
            if code not in texts:
                continue
            package = f"p.{change}_{tests}_{code}"
            folder = tmp_path / "src" / package.replace(".", "/")
            folder.mkdir(parents=True)
            name = change.capitalize()
            (folder / f"{name}.java").write_text(texts[code].replace("{package}", package))
            (folder / f"{name}Test.java").write_text(texts[tests].replace("{package}",
                                                                          package))
            classes.append(f"{package}.{name}Test")
    sources = [str(p) for p in sorted((tmp_path / "src").rglob("*.java"))]
    built = subprocess.run(["javac", "-nowarn", "-cp", junit, "-d", str(tmp_path / "out"),
                            *sources], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    done = subprocess.run(["java", "-cp", f"{tmp_path / 'out'}:{junit}",
                           "org.junit.runner.JUnitCore", *classes],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "\nOK (" in done.stdout, done.stdout[-2000:]
