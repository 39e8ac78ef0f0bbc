"""The referee on the wider corpus (issue 44): each change of bench/corpus/changes.py
(parsing that raises, formatting with options, a class with state, and async code in
the styles whose language has it: bench/corpus/changes_async.py) and each of its
cheats, committed on a real project as its users have it (iniconfig's pytest,
@fastify/error's ``c8 --100 node --test`` and type test, google/uuid's Go tests, semver's
``cargo test`` with its own test helpers, minitest testing itself, json-simple's
``mvn test`` offline from Debian's Maven repository with JUnit 4), judged
as ``rgr run`` judges each phase (bench/referee_corpus.py): an honest change meets no
rule; a cheat meets one of its rules, blamed on the phase that cheated, at a
``file:line``; and every kill the gate claims on an honest change is confirmed by the
project's own whole test command, read per test (no false kill).

The default run plays one case (iniconfig, a skipped test: RED's skip marker named at
its line; semver's, minitest's and json-simple's cheapest cases take more than the 8 s
a default test may, so they run in the sweep only); the full sweep plays them all:

    RGR_FULL_SWEEP=1 RGR_CORPUS_CACHE=/tmp/corpus-cache .venv/bin/python -m pytest \
        tests/e2e/test_referee_corpus.py

Cases the referee gets wrong today are strict expected failures with the reason (the
figures: docs/referee.md, "The wider corpus").
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import full_sweep, sweep

from bench.corpus.changes import TEXTS, variants_of
from bench.corpus.placements import PLACEMENTS
from bench.corpus.projects import by_name
from bench.real_code_bench import prepare
from bench.referee_corpus import DEFAULT_PROJECTS, Referee

pytestmark = pytest.mark.e2e

WHERE = "tests/e2e/test_referee_corpus.py"
SAMPLE = ("iniconfig", "duration", "skipped")
#: What the referee gets wrong today, measured with bench/referee_corpus.py (2026-12-02;
#: docs/referee.md, "The wider corpus"), each a strict expected failure with its reason.
#: Empty since every project's gaps were fixed by rule.
KNOWN_GAPS: dict[tuple[str, str, str], str] = {
}


def _cases() -> list[object]:
    cases = [(name, change, variant) for name in DEFAULT_PROJECTS for change in TEXTS
             for variant in variants_of(change, PLACEMENTS[name].style)]
    params = sweep(cases, lambda case: case == SAMPLE or full_sweep(), WHERE,
                   env="RGR_CORPUS_CACHE=/tmp/corpus-cache")
    return [pytest.param(*p.values, marks=(*p.marks, pytest.mark.xfail(
                strict=True, reason=KNOWN_GAPS[tuple(p.values)])))  # type: ignore[index]
            if tuple(p.values) in KNOWN_GAPS else p for p in params]


class Built:
    """Each project built once for the module (under a HOME of its own): its checkout
    and the environment its user has; the test process's own environment left as it
    was."""

    def __init__(self, homes: pytest.TempPathFactory) -> None:
        self.homes = homes
        self.projects: dict[str, tuple[Path, dict[str, str]]] = {}

    def __call__(self, name: str) -> tuple[Path, dict[str, str]]:
        if name not in self.projects:
            saved = dict(os.environ)
            home = self.homes.mktemp(name.replace("/", "_").lstrip("@"))
            try:
                where = prepare(by_name(name), home)
                self.projects[name] = (where, dict(os.environ))
            finally:
                os.environ.clear()
                os.environ.update(saved)
        return self.projects[name]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return Built(tmp_path_factory)


@pytest.mark.parametrize(("name", "change", "variant"), _cases())
def test_each_change_is_judged_right(name: str, change: str, variant: str, built: Built,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    where, env = built(name)
    for key in set(os.environ) - set(env):
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    referee = Referee(by_name(name), where)
    verdict, kills = referee.judge(change, variant, jobs=2, check_kills=variant == "honest")
    assert verdict.right == "yes", verdict
    if kills is not None:
        assert not kills.false, kills
        # the gate's unviable mutants are run too: each builds no better whole
        assert kills.confirmed + kills.unviable == kills.claimed + kills.claimed_unviable, \
            kills
