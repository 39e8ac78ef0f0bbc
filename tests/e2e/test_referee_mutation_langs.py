"""The mutation gate end to end in Go, Rust and JavaScript (Vitest): the real rgr CLI,
the real claude, real git, the real toolchain in bubblewrap; only the model is scripted.

The one-item calc kata of tests/e2e/test_referee_mutation.py (Python), in each language,
played two ways: a RED whose test only asserts ``add(2, 3) != 0`` (the gate sends the
cycle back to RED; the test is strengthened before the feature completes, and on the
finished branch ``a - b`` and ``return 0`` fail the project's own test command), and a
GREEN that carries ``if a == 1337 { return 0 }`` (rejected with its unrun line named,
then retried honestly).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from ecosystems import (
    CALC_HONEST,
    CALC_OVER,
    CALC_STUB,
    ECOSYSTEMS,
    Ecosystem,
    calc_files,
    refactor,
    run_kata,
)
from ecosystems import calc_plan as plan
from harness import full_sweep, sweep
from kata import git, kept_attempts, notes_on_branch

from rgr.demo.kata import commit
from rgr.fake_model import SessionScript, Step, read, structured, write

pytestmark = pytest.mark.e2e

KINDS = ["go", "rust", "vitest"]
IMPL = {"go": "calc.go", "rust": "src/lib.rs", "vitest": "src/calc.js"}
TEST = {"go": "calc_test.go", "rust": "tests/calc.rs", "vitest": "src/calc.test.js"}


def calc(kind: str) -> Ecosystem:
    """The calc project: ``add`` a stub, no test yet."""
    files = {path: text for path, text in calc_files(kind, CALC_STUB[kind], True).items()
             if path != TEST[kind]}
    return replace(ECOSYSTEMS[kind], files=files, test_file=TEST[kind], impl_file=IMPL[kind])


def red(kind: str, strong: bool, again: bool = False) -> SessionScript:
    test = calc_files(kind, "", strong)[TEST[kind]]
    steps: list[Step] = [read(TEST[kind])] if again else []
    steps += [write(TEST[kind], test), commit("test: add", TEST[kind]),
              structured({"summary": "strengthened the test" if again else "added a test"})]
    return SessionScript(steps, expect_system_contains="You are the TESTER", name="red")


def green(kind: str, body: str) -> SessionScript:
    return SessionScript([read(IMPL[kind]), write(IMPL[kind], calc_files(kind, body, True)[
        IMPL[kind]]), commit("feat: add", IMPL[kind]),
        structured({"summary": "implemented add"})],
        expect_system_contains="You are the IMPLEMENTER", name="green")


def run(kind: str, scripts: list[SessionScript], tmp_path: Path,
        eco: Ecosystem | None = None) -> tuple[Path, str, list[str], dict[str, str]]:
    """``rgr run`` of the calc project (``eco``, by default ``calc(kind)``) against
    ``scripts``: it must finish; the repository, rgr's output, the prompts, the env."""
    done = run_kata(eco or calc(kind), tmp_path / "calc", scripts, "add numbers")
    return done.repo, done.done.stdout, done.prompts, done.env


def suite_passes_with(kind: str, repo: Path, body: str, env: dict[str, str]) -> bool:
    """Whether the finished branch's own test command passes with ``add``'s body
    replaced by ``body``."""
    impl = repo / IMPL[kind]
    original = impl.read_text()
    impl.write_text(calc_files(kind, body, True)[IMPL[kind]])
    try:
        done = subprocess.run(ECOSYSTEMS[kind].check, cwd=repo, env=env, capture_output=True,
                              text=True, timeout=600)
    finally:
        impl.write_text(original)
    return done.returncode == 0


#: The default run proves each language once through the real claude: a weak RED in
#: Rust and JavaScript, an over-implementing GREEN in Go; the other kind in each language
#: runs in the full sweep. Each language's mutants and probes are also run on its real
#: toolchain by tests/check/mutation/test_textual.py and
#: tests/check/mutation/test_mutation_probe_exit.py.
WEAK_SAMPLE, OVER_SAMPLE = ("vitest",), ("go",)
WHERE = "tests/e2e/test_referee_mutation_langs.py"


@pytest.mark.parametrize("kind", sweep(KINDS, lambda k: full_sweep() or k in WEAK_SAMPLE,
                                       WHERE))
def test_a_weak_red_test_is_strengthened_in_each_language(kind: str, tmp_path: Path) -> None:
    scripts = [plan(calc(kind), False), red(kind, strong=False), green(kind, CALC_HONEST[kind]),
               red(kind, strong=True, again=True), refactor(), plan(calc(kind), True)]
    repo, stdout, prompts, env = run(kind, scripts, tmp_path)
    assert "test-too-weak" in stdout, stdout
    assert any("sent this cycle back to RED" in p and "'+' -> '-'" in p for p in prompts), \
        prompts
    notes = notes_on_branch(repo)
    assert [n["phase"] for n in notes[1:]] == ["PLAN", "RED", "GREEN", "RED", "REFACTOR",
                                               "COMPLETE"]
    weak, strengthened = notes[3]["adequacy"], notes[4]["adequacy"]
    assert isinstance(weak, dict) and isinstance(strengthened, dict)
    assert weak["decision"] == "test-too-weak", weak
    assert ("+", "-", "survived") in {(m["original"], m["replacement"], m["status"])
                                      for m in weak["mutants"]}, weak
    assert strengthened["decision"] == "pass" and strengthened["killed"] >= 1, strengthened
    assert kept_attempts(repo) == []
    # The finished branch pins add: its own test command fails on either mutant.
    assert suite_passes_with(kind, repo, CALC_HONEST[kind], env)
    assert not suite_passes_with(kind, repo, CALC_HONEST[kind].replace("+", "-"), env)
    assert not suite_passes_with(kind, repo, CALC_STUB[kind], env)


@pytest.mark.parametrize("kind", sweep(KINDS, lambda k: full_sweep() or k in OVER_SAMPLE,
                                       WHERE))
def test_an_over_implementing_green_is_rejected_in_each_language(kind: str,
                                                                 tmp_path: Path) -> None:
    scripts = [plan(calc(kind), False), red(kind, strong=True), green(kind, CALC_OVER[kind]),
               green(kind, CALC_HONEST[kind]), refactor(), plan(calc(kind), True)]
    repo, stdout, prompts, _env = run(kind, scripts, tmp_path)
    assert "over-implemented" in stdout, stdout
    retry = [p for p in prompts if "over-implemented" in p]
    assert retry and "no test runs this line" in retry[0] and "remove it" in retry[0], prompts
    [kept] = kept_attempts(repo)
    note = json.loads(git(repo, "notes", "--ref=refs/notes/tdd-handoffs", "show", kept))
    assert note["errorDetails"]["type"] == "over-implemented"
    uncovered = [m for m in note["adequacy"]["mutants"] if m["status"] == "uncovered"]
    assert uncovered and all(m["original"] in ("0", "return 0") for m in uncovered), note
    green_note = next(n for n in notes_on_branch(repo) if n["phase"] == "GREEN")
    assert green_note["adequacy"]["decision"] == "pass"  # type: ignore[index]
    assert "1337" not in (repo / IMPL[kind]).read_text()


#: The code file before ``add`` exists at all (nothing for a test of it to compile against).
EMPTY = {"go": "package calc\n", "rust": "\n"}


@pytest.mark.parametrize("kind", sweep(["go", "rust"], lambda k: full_sweep() or k == "go",
                                         "tests/e2e/test_referee_mutation_langs.py"))
def test_a_red_test_of_code_not_written_yet_may_fail_to_compile(kind: str,
                                                                tmp_path: Path) -> None:
    """No stub: RED's test calls ``add``, which does not exist, so the package (Go) or
    crate (Rust) does not compile. That is the right reason: RED is accepted at once,
    GREEN writes ``add``, and the run completes with no rejection."""
    eco = replace(calc(kind), files={**calc(kind).files, IMPL[kind]: EMPTY[kind]})
    scripts = [plan(eco, False), red(kind, strong=True), green(kind, CALC_HONEST[kind]),
               refactor(), plan(eco, True)]
    repo, stdout, _prompts, _env = run(kind, scripts, tmp_path, eco)
    assert ": rejected:" not in stdout and "0 rejected attempt(s)" in stdout, stdout
    notes = notes_on_branch(repo)
    red_note = next(n for n in notes if n["phase"] == "RED")
    assert red_note["retryCount"] == 0 and red_note["testResult"] == "FAIL", red_note
    assert notes[-1]["phase"] == "COMPLETE", notes[-1]
    assert kept_attempts(repo) == []
