"""Python, apart from its runners (pytest_runner, unittest_runner)."""

from __future__ import annotations

import re

from rgr.ecosystems.language import AcceptanceName, FakeItTree, Language, Names, TreeMutation
from rgr.ecosystems.python import (
    boundary,
    cheats,
    equivalence,
    facts,
    lines,
    mutants,
    probe,
    special_cases,
    telling,
)
from rgr.ecosystems.python.interface import INTERFACE

#: Extension modules built in place (``pip install -e .``, ``setup.py build_ext -i``).
EXTENSION_SUFFIXES = (".so", ".pyd")
#: What a module Python could not import is named in.
_MODULE_NAMED = re.compile(r"No module named '([\w.]+)'")
#: Where a project's packages start.
_SOURCE_ROOTS = ("", "src/", "lib/")


def missing_files(text: str, names: Names) -> list[str]:
    """The sources and extension modules that each module ``text`` says Python could not
    import may be, under each of the usual source roots."""
    found: list[str] = []
    for match in _MODULE_NAMED.finditer(text):
        stem = match.group(1).replace(".", "/")
        found += [f"{top}{stem}{end}" for top in _SOURCE_ROOTS
                  for end in (".py", "/__init__.py")]
        found += [f"{top}{stem}.{name.split('.', 1)[1]}"
                  for top in _SOURCE_ROOTS
                  for name in names(f"{top}{stem}".rpartition("/")[0])
                  if name.startswith(stem.rpartition("/")[2] + ".")
                  and name.endswith(EXTENSION_SUFFIXES)]
    return found


#: The mutation gate's traced path: rgr's own AST mutator and what it reads on the tree.
TREE_MUTATION = TreeMutation(
    tracer=lines.TRACER, mutants=mutants.mutants_of, probe=probe.probe_at,
    telling=telling.find, telling_seconds=telling.WALL_S,
    proved_not_equivalent=boundary.proved_not_equivalent, readers=mutants.readers)

LANGUAGE = Language(
    "Python", (".py",),
    acceptance_names=(AcceptanceName(re.compile(r"test_.*\.py"), "test_{stem}.py"),
                      AcceptanceName(re.compile(r".*_test\.py"), "{stem}_test.py")),
    interface=INTERFACE, syntax_cheats=cheats.findings,
    fakeit_tree=FakeItTree(facts.facts_of, special_cases.special_cases,
                           special_cases.function_lines),
    framework_hooks=(r"^\s*(import|from)\s+(_?pytest|_pytest\.\w+|unittest)\b",
                     r"\bpytest_\w+\s*\(", r"\batexit\b", r"\bos\._exit\s*\(",
                     r"sys\.modules\[\s*['\"]_?pytest", "PYTEST_ADDOPTS",
                     r"builtins\.__import__", r"sys\.settrace", r"sys\.setprofile",
                     "faulthandler"),
    skip_markers=(r"@pytest\.mark\.(skip|skipif|xfail)\b", r"\bpytest\.(skip|xfail)\s*\(",
                  r"@unittest\.(skip|skipIf|skipUnless|expectedFailure)\b",
                  r"\bself\.skipTest\s*\("),
    built_in_place=EXTENSION_SUFFIXES, missing_files=missing_files,
    tree_mutation=TREE_MUTATION, prover=equivalence.PROVER)
