"""Which test ran which line (rgr.ecosystems.traced): the line data's cache by tree, the
tests a mutant faces, and the tracer the checks get without naming its language."""

from __future__ import annotations

from pathlib import Path

from rgr.ecosystems import registry
from rgr.ecosystems.mutant import Mutant
from rgr.ecosystems.traced import FOLDER, Coverage, cache_key, load, save


def _mutant(line: int, module_level: bool = False) -> Mutant:
    return Mutant("calc.py", line, 1, "boundary", "<", "<=", 0, 1, statement_line=line,
                  module_level=module_level)


def test_the_cache_keeps_the_lines_and_types_by_tree_and_files(tmp_path: Path) -> None:
    ran = Coverage({"t::a": {"calc.py": frozenset({3, 4})}}, report="the run",
                   arg_types={"calc.py:add": {"a": ["int"]}}, last={"t::a": ("calc.py", 4)})
    key = cache_key("tree1", ["calc.py", "util.py"])
    assert key == cache_key("tree1", ["util.py", "calc.py"])  # the files' order is no key
    assert key not in {cache_key("tree2", ["calc.py", "util.py"]),
                       cache_key("tree1", ["calc.py"])}
    save(tmp_path, key, ran)
    kept: Coverage[str] | None = load(tmp_path, key)
    # what the run said of the lines, not the run itself nor the tests' last lines
    assert kept == Coverage({"t::a": {"calc.py": frozenset({3, 4})}},
                            arg_types={"calc.py:add": {"a": ["int"]}})
    assert load(tmp_path, cache_key("tree2", ["calc.py"])) is None
    (tmp_path / FOLDER / f"{key}.json").write_text("{not json", encoding="utf-8")
    assert load(tmp_path, key) is None


def test_a_mutant_faces_the_tests_that_run_its_line_or_its_module() -> None:
    lines = Coverage({"t::a": {"calc.py": frozenset({3})},
                      "t::b": {"calc.py": frozenset({5}), "util.py": frozenset({3})},
                      "t::c": {"util.py": frozenset({1})}})
    assert lines.tests_for(_mutant(3)) == ["t::a"]
    assert lines.tests_for(_mutant(9)) == []
    # a module-level statement runs at import: every test that ran its file can see it
    assert lines.tests_for(_mutant(1, module_level=True)) == ["t::a", "t::b"]


def test_the_tracer_is_the_languages_and_its_traced_runners() -> None:
    tree = registry.tree_mutation("calc.py")
    assert tree is not None
    assert registry.line_tracer("pytest") is tree.tracer
    assert registry.line_tracer("unittest") is tree.tracer
    assert registry.line_tracer("mocha") is None
    assert registry.line_tracer("custom") is None
