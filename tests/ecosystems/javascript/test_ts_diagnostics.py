"""TypeScript under a type-checking runner: a RED's test of an export, a module or a
method not written yet gives TS2305/TS2307/TS2339 errors naming only those, a right RED;
any other type error is the test's own (rgr.ecosystems.javascript.ts_diagnostics). Real Vitest with
``--typecheck`` (its cases with RGR_FULL_SWEEP=1: tsc is slow); ts-jest's and tsc's
printed diagnostics read from their text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import sweep_only
from toolchains import ensure_js_runners

from rgr.check.guards import check_tests
from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.javascript.ts_diagnostics import diagnostic_kind
from rgr.ecosystems.registry import detect_test_command
from rgr.store.handoff import Phase

CALC = ("export function add(a: number, b: number): number { return a + b }\n"
        "export class Box { constructor(public v: number) {} }\n")
CONFIG = ("import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: "
          "{ typecheck: { enabled: true, include: ['test/**/*.test.ts'] } } })\n")
TSCONFIG = json.dumps({"compilerOptions": {
    "strict": True, "module": "esnext", "moduleResolution": "bundler", "target": "es2022",
    "noEmit": True}, "include": ["src", "test"]})
HEAD = "import { expect, test } from 'vitest'\n"
CALC_TEST = HEAD + ("import { add } from '../src/calc'\n"
                    "test('adds', () => { expect(add(1, 2)).toBe(3) })\n")
#: Only code not written yet: an export of an existing module, a module, a method.
RIGHT = HEAD + ("import { double, Box } from '../src/calc'\nimport { up } from '../src/words'\n"
                "test('doubles', () => { expect(double(2)).toBe(4) })\n"
                "test('ups', () => { expect(up('a')).toBe('A') })\n"
                "test('twice', () => { expect(new Box(2).twice()).toBe(4) })\n")
#: The test's own type errors: a wrong argument, a method of a library type.
WRONG = HEAD + ("import { add } from '../src/calc'\n"
                "test('mistyped', () => { expect(add('1', 2)).toBe(3) })\n"
                "test('shouts', () => { expect('a'.shout()).toBe('A') })\n")


def write(root: Path, contents: dict[str, str]) -> Path:
    for name, text in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def vitest(root: Path) -> TestReport:
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == "vitest", cmd
    return run_tests(cmd, root, timeout=300, env=dict(os.environ))


@sweep_only("tests/ecosystems/javascript/test_ts_diagnostics.py", "Vitest --typecheck runs tsc")
def test_vitest_typecheck_judges_each_type_error(tmp_path: Path) -> None:
    modules = ensure_js_runners()
    root = write(tmp_path / "ts", {
        "package.json": json.dumps({"type": "module", "scripts": {"test": "vitest run"}}),
        "tsconfig.json": TSCONFIG, "vitest.config.ts": CONFIG, "src/calc.ts": CALC,
        "test/calc.test.ts": CALC_TEST})
    (root / "node_modules").symlink_to(modules)
    start = vitest(root)
    assert start.all_passed and set(start.outcomes) == {"test/calc.test.ts::adds"}, \
        start.output_excerpt
    write(root, {"test/right.test.ts": RIGHT})
    red = vitest(root)
    failed = {i: o.kind for i, o in red.outcomes.items() if o.status == "failed"}
    # the missing module stops the file at run time (a load error); the type-check
    # pass names the method Box lacks
    assert red.load_kinds == {"test/right.test.ts": "missing-code"}, red.output_excerpt
    assert failed == {"test/right.test.ts::twice": "missing-code"}, red.outcomes
    assert check_tests(Phase.RED, start, red) == []
    (root / "test/right.test.ts").unlink()
    write(root, {"test/wrong.test.ts": WRONG})
    wrong = vitest(root)
    failed = {i: o.kind for i, o in wrong.outcomes.items() if o.status == "failed"}
    assert failed == {"test/wrong.test.ts::mistyped": "test-error",
                      "test/wrong.test.ts::shouts": "test-error"}, wrong.outcomes
    assert {v.rule for v in check_tests(Phase.RED, start, wrong)} == {"red-wrong-failure"}


# ------------------------------------------------------------------ the diagnostics' words


def project(tmp_path: Path) -> Path:
    return write(tmp_path, {"src/calc.ts": CALC, "src/shapes.ts": "export interface Shape {}\n",
                            "test/helpers.ts": "export class Fixture {}\n"})


@pytest.mark.parametrize(("text", "kind"), [
    # ts-jest (diagnostics on) fails the file with tsc's own lines
    ("test/more.test.ts:2:10 - error TS2305: Module '\"../src/calc\"' has no exported "
     "member 'double'.", "missing-code"),
    ("test/more.test.ts:3:20 - error TS2307: Cannot find module '../src/words' or its "
     "corresponding type declarations.", "missing-code"),
    ("test/more.test.ts(4,30): error TS2339: Property 'twice' does not exist on type 'Box'.",
     "missing-code"),
    ("error TS2339: Property 'area' does not exist on type 'Shape'.", "missing-code"),
    ("error TS2339: Property 'double' does not exist on type 'typeof import(\"/p/src/calc\")'.",
     "missing-code"),
    ("error TS2724: '\"../src/calc\"' has no exported member named 'ad'. Did you mean 'add'?",
     "missing-code"),
    # both errors must be missing code
    ("error TS2305: Module '\"../src/calc\"' has no exported member 'double'.\n"
     "error TS2345: Argument of type 'string' is not assignable to parameter of type "
     "'number'.", "test-error"),
    ("error TS2307: Cannot find module 'left-pad' or its corresponding type declarations.",
     "test-error"),
    ("error TS2307: Cannot find module './helpers2' or its corresponding type declarations.",
     "test-error"),
    ("error TS2339: Property 'shout' does not exist on type 'string'.", "test-error"),
    ("error TS2339: Property 'make' does not exist on type 'Fixture'.", "test-error"),
    ("error TS2304: Cannot find name 'double'.", "test-error"),
    ("TypeCheckError: Property 'twice' does not exist on type 'Box'.", "missing-code"),
    ("TypeCheckError: Expected 2 arguments, but got 1.", "test-error"),
    ("AssertionError: expected 3 to be 4", None),
])
def test_typescript_diagnostics_by_kind(tmp_path: Path, text: str, kind: str | None) -> None:
    root = project(tmp_path)
    text = text.replace("/p/", f"{root}/")
    assert diagnostic_kind(text, "test/more.test.ts", root) == kind
