"""Honest work is let through in JavaScript (Vitest), Go and Rust, end to end: the real
rgr CLI, the real claude, real git, the real toolchain in bubblewrap; only the model is
scripted (the Python variants are in tests/e2e/test_referee_rules.py).

The calc kata, played honestly with what real projects do: RED writes a test-side
helper module and its tests in a second test file; GREEN's code uses a new dependency and
declares it in the manifest (a package already in ``node_modules`` for Vitest; a path
dependency on a crate already in the repository for Rust: the sandbox has no network,
and a new manifest is never an agent's to write). Go has no
dependency here: ``require`` needs the module proxy. Every write is accepted, nothing is
refused or rejected, and all of it is on the finished branch.

In JavaScript (and Go in the full sweep) the examiner is on, as for any user: it is
shown the declarations' heads the run's tests use (never a body), its hidden test passes
on the honest code, and the run completes at the first examination (one more session
and test run each, about 5 s on two busy cores; Go's with
``RGR_FULL_SWEEP=1 .venv/bin/python -m pytest tests/e2e/test_referee_honest_langs.py``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from ecosystems import (
    CALC_STUB,
    ECOSYSTEMS,
    Ecosystem,
    calc_files,
    calc_plan,
    make_project,
    refactor,
)
from harness import ensure_claude, full_sweep, sweep
from kata import git, notes_on_branch, rgr, rgr_env

from rgr.demo.kata import commit
from rgr.fake_model import FakeModelServer, SessionScript, read, structured, write

pytestmark = pytest.mark.e2e

IMPL = {"go": "calc.go", "rust": "src/lib.rs", "vitest": "src/calc.js"}

#: RED's files per language: a helper module and a second test file that uses it.
RED_FILES = {
    "vitest": {
        "test/pairs.js": "export const pairs = [[2, 3, 5], [1, 1, 2]];\n",
        "test/sum.test.js": "import { it, expect } from 'vitest';\n"
                            "import { add, shown } from '../src/calc.js';\n"
                            "import { pairs } from './pairs.js';\n\n"
                           "it.each(pairs)('adds %i and %i', (a, b, sum) => {\n"
                           "  expect(add(a, b)).toBe(sum);\n});\n\n"
                           "it('shows the sum', () => {\n"
                           "  expect(shown(2, 3)).toContain('5');\n});\n",
    },
    "go": {
        "pairs_test.go": "package calc\n\nvar pairs = [][3]int{{2, 3, 5}, {1, 1, 2}}\n",
        "sum_test.go": "package calc\n\nimport \"testing\"\n\n"
                       "func TestAddsPairs(t *testing.T) {\n"
                       "\tfor _, p := range pairs {\n"
                       "\t\tif got := Add(p[0], p[1]); got != p[2] {\n"
                       "\t\t\tt.Fatalf(\"Add(%d, %d) = %d\", p[0], p[1], got)\n\t\t}\n\t}\n}\n",
    },
    "rust": {
        "tests/common/mod.rs": "pub const PAIRS: [(i64, i64, i64); 2] = [(2, 3, 5), (1, 1, 2)];\n",
        "tests/sum.rs": "mod common;\n\n#[test]\nfn adds_pairs() {\n"
                        "    for (a, b, sum) in common::PAIRS {\n"
                        "        assert_eq!(calc::add(a, b), sum);\n    }\n}\n",
    },
}

#: GREEN's files per language: the code, and for Vitest and Rust a declared dependency.
GREEN_FILES = {
    "vitest": {
        "src/calc.js": "import pc from 'picocolors';\n\n"
                       "export function add(a, b) {\n  return a + b;\n}\n\n"
                       "export function shown(a, b) {\n  return pc.bold(String(add(a, b)));\n}\n",
    },
    "go": {"calc.go": "package calc\n\n// Add adds.\n"
                      "func Add(a, b int) int {\n\treturn a + b\n}\n"},
    "rust": {"src/lib.rs": "pub fn add(a: i64, b: i64) -> i64 {\n    util::sum(a, b)\n}\n"},
}

#: A crate of the repository before the run (a new manifest is never an agent's to
#: write: it could declare test targets), which Rust's GREEN declares as a dependency.
LOCAL_CRATE = {
    "util/Cargo.toml": '[package]\nname = "util"\nversion = "0.1.0"\nedition = "2021"\n',
    "util/src/lib.rs": "pub fn sum(a: i64, b: i64) -> i64 {\n    a + b\n}\n",
}


#: The examiner's hidden test per language (Rust runs without the examiner), the
#: interface it must be shown, and the behaviour it names.
ACCEPTANCE = {
    "vitest": ("rgr_acceptance.test.js",
               "import { it, expect } from 'vitest';\nimport { add } from '../src/calc.js';\n\n"
               "it('adds forty and two', () => {\n  expect(add(40, 2)).toBe(42);\n});\n",
               "adds forty and two",
               ["# src/calc.js (module ../src/calc.js)", "export function add(a, b)",
                "export function shown(a, b)",
                # the test's own helper module, by its name (a value's is never shown)
                "# test/pairs.js (module ./pairs.js)", "export const pairs"]),
    "go": ("rgr_acceptance_test.go",
           "package calc\n\nimport \"testing\"\n\nfunc TestAcceptanceAdds(t *testing.T) {\n"
           "\tif Add(40, 2) != 42 {\n\t\tt.Fatal(\"Add(40, 2)\")\n\t}\n}\n",
           "TestAcceptanceAdds", ["# calc.go (package calc)", "func Add(a, b int) int"]),
}


def examined(kind: str) -> bool:
    """Is the examiner on for ``kind``'s run (the default run samples JavaScript)?"""
    return kind == "vitest" or (kind in ACCEPTANCE and full_sweep())


def examiner(kind: str) -> list[SessionScript]:
    if not examined(kind):
        return []
    name, text, test, _ = ACCEPTANCE[kind]
    return [SessionScript([write(name, text), structured({"tests": [
        {"name": test, "behaviour": "add returns the sum of two numbers"}]})],
        expect_system_contains="You are the EXAMINER", name="examiner")]


def project(kind: str) -> Ecosystem:
    files = {path: text for path, text in calc_files(kind, CALC_STUB[kind], True).items()
             if "test" not in path}
    if kind == "rust":
        files.update(LOCAL_CRATE)
    return replace(ECOSYSTEMS[kind], files=files, test_file=next(
        p for p in RED_FILES[kind] if "sum" in p), impl_file=IMPL[kind])


def green_manifest(kind: str, repo: Path) -> dict[str, str]:
    """GREEN's manifest: the project's own, with the new dependency declared."""
    if kind == "vitest":
        manifest = json.loads((repo / "package.json").read_text())
        manifest["dependencies"] = {"picocolors": "^1.1.1"}
        return {"package.json": json.dumps(manifest, indent=2) + "\n"}
    if kind == "rust":
        return {"Cargo.toml": (repo / "Cargo.toml").read_text()
                + '\n[dependencies]\nutil = { path = "util" }\n'}
    return {}


def scripts(kind: str, eco: Ecosystem, repo: Path) -> list[SessionScript]:
    red = SessionScript([*(write(p, t) for p, t in RED_FILES[kind].items()),
                         commit("test: add pairs", *RED_FILES[kind]),
                         structured({"summary": "a helper and a test of pairs"})],
                        expect_system_contains="You are the TESTER", name="red")
    changes = {**GREEN_FILES[kind], **green_manifest(kind, repo)}
    # Claude Code overwrites only a file it has read
    existing = [read(p) for p in changes if (repo / p).exists()]
    green = SessionScript([*existing, *(write(p, t) for p, t in changes.items()),
                           commit("feat: add", *changes),
                           structured({"summary": "add, with a dependency"})],
                          expect_system_contains="You are the IMPLEMENTER", name="green")
    return [calc_plan(eco, False), red, green, refactor(), calc_plan(eco, True),
            *examiner(kind)]


# Vitest in every run; Go and Rust in the full sweep (their honest katas with helpers and
# dependencies also run in tests/e2e/test_ecosystem_katas.py's sweep, and their gates on the
# real toolchains in tests/check/mutation/test_textual.py).
@pytest.mark.parametrize("kind", sweep(["vitest", "go", "rust"],
                                       lambda k: full_sweep() or k == "vitest",
                                       "tests/e2e/test_referee_honest_langs.py"))
def test_honest_helpers_second_files_and_dependencies_pass(kind: str, tmp_path: Path) -> None:
    eco = project(kind)
    home = tmp_path / "home"
    toolchain = eco.setup(home)
    repo = make_project(eco, tmp_path / "calc", str(ensure_claude()), toolchain)
    eco.link(repo)
    with FakeModelServer(scripts(kind, eco, repo)) as server:
        env = {**rgr_env(home, server.url), **toolchain.env}
        if examined(kind):
            del env["TDD_ACCEPTANCE_MODE"]  # on, as for any user
        done = rgr(["run", "--yes", "--skip-preflight", "add numbers"], repo, env,
                   timeout=1200)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [] and server.remaining == 0, server.errors
    assert ": rejected:" not in done.stdout and "0 rejected attempt(s)" in done.stdout, \
        done.stdout
    assert "0 edit(s) refused before the fact" in done.stdout, done.stdout
    final = notes_on_branch(repo)[-1]
    assert final["phase"] == "COMPLETE"
    if examined(kind):
        assert "acceptance (on): pass: 1 of 1 acceptance test(s) passed (round 1" in \
            done.stdout, done.stdout
        assert final["acceptance"]["interface"] == ACCEPTANCE[kind][3], final["acceptance"]
    on_branch = set(git(repo, "ls-files").split())
    written = {*RED_FILES[kind], *GREEN_FILES[kind]}
    assert written <= on_branch, written - on_branch
    if kind == "vitest":
        assert json.loads(git(repo, "show", "HEAD:package.json"))["dependencies"] == {
            "picocolors": "^1.1.1"}
    if kind == "rust":
        assert 'util = { path = "util" }' in git(repo, "show", "HEAD:Cargo.toml")
