"""The Vitest calc project and its scripted sessions, shared by the JavaScript e2e files
that run it through `rgr run` (fake-it and cheats: test_referee_fakeit_js.py; the
examiner: test_examiner_js.py): ``add`` a stub, no test yet, and PLAN, RED and GREEN
sessions that write what each case gives them."""

from __future__ import annotations

from dataclasses import replace

from ecosystems import CALC_STUB, ECOSYSTEMS, Ecosystem, calc_files

from rgr.demo.kata import commit
from rgr.fake_model import SessionScript, Step, read, structured, write

IMPL, TEST = "src/calc.js", "src/calc.test.js"
HEAD = "import { it, expect } from 'vitest';\nimport { add } from './calc.js';\n"
TEST_1 = HEAD + "\nit('adds two and three', () => {\n  expect(add(2, 3)).toEqual(5);\n});\n"


def calc() -> Ecosystem:
    """The Vitest calc project: ``add`` a stub, no test yet."""
    files = {path: text for path, text in calc_files("vitest", CALC_STUB["vitest"],
                                                     True).items() if path != TEST}
    return replace(ECOSYSTEMS["vitest"], files=files, test_file=TEST, impl_file=IMPL)


def plan(titles: list[str], items: int, done: int) -> SessionScript:
    """The planner listing the first ``items`` of ``titles`` with ``done`` of them done,
    naming the next one (or none when all are done)."""
    text = "# Test list\n\n" + "".join(
        f"- [{'x' if i < done else ' '}] {item}\n" for i, item in enumerate(titles[:items]))
    steps: list[Step] = [read("test-list.md")] if done else []
    steps += [write("test-list.md", text), commit(f"plan: {done} done", "test-list.md"),
              structured({"currentTest": None} if done >= items else {"currentTest": {
                  "description": titles[done], "testFile": TEST, "implFile": IMPL}})]
    return SessionScript(steps, expect_system_contains="You are the PLANNER", name="plan")


def red(content: str, again: bool) -> SessionScript:
    steps: list[Step] = [read(TEST)] if again else []
    steps += [write(TEST, content), commit("test: add", TEST),
              structured({"summary": "added a failing test"})]
    return SessionScript(steps, expect_system_contains="You are the TESTER", name="red")


def green(content: str) -> SessionScript:
    return SessionScript([read(IMPL), write(IMPL, content), commit("feat: add", IMPL),
                          structured({"summary": "implemented add"})],
                         expect_system_contains="You are the IMPLEMENTER", name="green")
