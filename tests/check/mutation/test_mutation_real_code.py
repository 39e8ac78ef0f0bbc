"""The mutation gate on what real projects do, found by bench/real_code_bench.py (the
whole corpus; this file is its cheap sample in the default run).

An editable install (``pip install -e .``, a src/ layout such as iniconfig's) imports the
project's code from the repository's own path, which rgr's sandbox shows as the pristine
checkout again (a bind mount: the same file at another path). The tracer watched only the
checkout's path, so every changed line looked unrun and an honest, fully tested GREEN was
rejected as over-implemented, with every mutant "uncovered". Here the second path is a
hard link made by the project's conftest.py (the same file at another path, as a bind
mount shows it), with real git and real pytest."""

from __future__ import annotations

from pathlib import Path

from tests.check.mutation.test_mutation import HONEST, STRONG_TEST, STUB, WEAK_TEST, gate
from tests.conftest import make_repo

#: The project imports ``calc`` from another path to the same file (the checkout's
#: alias under the sandbox; an editable install's finder leads there).
ALIASED = '''import os
import sys

# beside the checkout, in the gate's own temporary folder (removed with it)
_here = os.path.dirname(os.path.abspath(__file__))
_alias = os.path.join(os.path.dirname(_here), "alias-%d" % os.getpid())
os.makedirs(_alias)
os.link(os.path.join(os.path.dirname(os.path.abspath(__file__)), "calc.py"),
        os.path.join(_alias, "calc.py"))
sys.path.insert(0, _alias)
'''


def _project(tmp_path: Path, test: str) -> tuple[object, str, str]:
    repo = make_repo(tmp_path)
    base = repo.commit("test: add", {"calc.py": STUB, "tests/test_calc.py": test,
                                     "conftest.py": ALIASED, "pytest.ini": "[pytest]\n"})
    tip = repo.commit("feat: add", {"calc.py": HONEST})
    return repo, base, tip


def test_code_imported_from_another_path_to_the_same_file_is_traced(tmp_path: Path) -> None:
    repo, base, tip = _project(tmp_path, STRONG_TEST)
    note = gate(repo, base, tip)  # type: ignore[arg-type]
    assert note.decision == "pass", note
    assert note.uncovered == 0 and note.killed == note.tried == 2, note


def test_a_mutant_of_such_code_is_run_where_the_tests_load_it(tmp_path: Path) -> None:
    """The mutant's fork patches the module the tests loaded (found as the same file),
    so a weak test still lets ``a - b`` survive and a strong one kills it (above)."""
    repo, base, tip = _project(tmp_path, WEAK_TEST)
    note = gate(repo, base, tip)  # type: ignore[arg-type]
    survivors = {(m.original, m.replacement, m.status) for m in note.mutants}
    assert ("a + b", "a - b", "survived") in survivors, note
    assert note.decision == "test-too-weak"
