"""Scripted sessions for daemon jobs: job "make <name>" is a one-test kata writing
tests/test_<name>.py and <name>.py, chosen per session from the prompt (feature, role
and cycle), so jobs running at once, in any order, each get their own script, and a
phase redone after a kill gets the same one again."""

from __future__ import annotations

import re

from rgr.fake_model import SessionScript, Step, bash, read, structured, write

#: The job names the tests use: a feature is "make <name>".
NAMES = ("alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta")


def _commit(message: str, *paths: str) -> Step:
    return bash(f"git add {' '.join(paths) or '-A'} && git commit -q -m '{message}'")


def test_file(name: str) -> str:
    return f"def test_{name}_is_one():\n    from {name} import value\n\n    assert value() == 1\n"


def impl_file(name: str, branch: str) -> str:
    # The branch in a comment: two jobs "make alpha" write different alpha.py files,
    # a real conflict when the second one lands.
    return f"# written on {branch}\ndef value():\n    return 1\n"


def item(name: str) -> str:
    return f"{name} value is one"


#: What the merge-fixer makes of two jobs' conflicting alpha.py.
MERGED_ALPHA = "# written on both branches\ndef value():\n    return 1\n"


def merge_fix(name: str = "alpha", cheat: bool = False) -> SessionScript:
    """The merge-fixer's session: resolve <name>.py; ``cheat`` also weakens the test
    both jobs wrote (its assertion replaced by one that cannot fail)."""
    steps: list[Step] = [read(f"{name}.py"), write(f"{name}.py", MERGED_ALPHA)]
    if cheat:
        steps += [read(f"tests/test_{name}.py"),
                  write(f"tests/test_{name}.py", test_file(name).replace(
                      "assert value() == 1", "assert value() is not None or True"))]
    steps += [bash("git add -A && git commit -q --no-edit"),
              structured({"summary": "kept both sides"})]
    return SessionScript(steps, expect_system_contains="You are the MERGE-FIXER",
                         name=f"fix-{name}")


def choose(system: str, prompt: str) -> SessionScript:
    if "You are the MERGE-FIXER" in system:
        return merge_fix()
    role = re.search(r"You are the (\w+)", system)
    cycle = re.search(r"cycle (\d+)", prompt)
    feature = re.search(rf"\bmake ({'|'.join(NAMES)})\b", prompt)
    branch = re.search(r"branch `([^`]+)`", prompt)
    assert role and cycle and feature and branch, (system[:200], prompt[:300])
    name, number = feature.group(1), int(cycle.group(1))
    who = role.group(1)
    if who == "PLANNER":
        done = number > 1
        # Read first, always: a job that starts after another one landed finds its
        # test-list.md on the base already (Write refuses a file it has not read).
        steps: list[Step] = [read("test-list.md")]
        steps += [write("test-list.md", f"# Test list\n\n- [{'x' if done else ' '}] "
                                        f"{item(name)}\n"),
                  _commit(f"plan: {name}", "test-list.md")]
        steps.append(structured({"currentTest": None} if done else {"currentTest": {
            "description": item(name), "testFile": f"tests/test_{name}.py",
            "implFile": f"{name}.py"}}))
        return SessionScript(steps, expect_system_contains="You are the PLANNER",
                             name=f"plan-{name}-{number}")
    if who == "TESTER":
        return SessionScript([write(f"tests/test_{name}.py", test_file(name)),
                              _commit(f"test: {name}", f"tests/test_{name}.py"),
                              structured({"summary": "added one failing test"})],
                             expect_system_contains="You are the TESTER", name=f"red-{name}")
    if who == "IMPLEMENTER":
        return SessionScript([write(f"{name}.py", impl_file(name, branch.group(1))),
                              _commit(f"feat: {name}", "-A"),
                              structured({"summary": "implemented"})],
                             expect_system_contains="You are the IMPLEMENTER",
                             name=f"green-{name}")
    return SessionScript([bash('git commit -q --allow-empty -m "refactor: nothing"'),
                          structured({"summary": "nothing to improve"})],
                         expect_system_contains="You are the REFACTORER",
                         name=f"refactor-{name}")
