"""A rename batch and the tests that use the renamed symbol (issue 15): rope renames the
calls in the tests too; that change is allowed when it is only the identifier, the plan
validator agrees with the batch checks, and a deterministic rename that failed is not
run again. Real git repositories, real rope."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2
import pytest
from messy import TESTS, batch, make_messy_project

from rgr.base.config import RefactorConfig, load_config
from rgr.refactor.checks import check_batch_commits
from rgr.refactor.index import build_index
from rgr.refactor.plan import Batch, RefactorPlanOutput, validate_plan
from rgr.refactor.rename import is_pure_rename, rope_rename

TRACKED = ["shop/__init__.py", "shop/pricing.py", "shop/orders.py", "tests/test_shop.py"]


def rename_total(scope: list[str]) -> Batch:
    return Batch.model_validate(batch(
        "rename-total", "rename total to grand_total", scope, ["rename"],
        rename={"path": "shop/pricing.py", "symbol": "total", "new_name": "grand_total"}))


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return make_messy_project(tmp_path / "shop")


def _commit_all(root: Path, message: str) -> None:
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=root, check=True)


def test_pure_rename_is_the_identifier_and_nothing_else() -> None:
    old = 'from m import total\n\n\ndef test_t():\n    assert total([1]) == 1  # total\n'
    new = old.replace("import total", "import grand_total").replace(
        "assert total(", "assert grand_total(")
    assert is_pure_rename(old, new, "total", "grand_total")
    assert not is_pure_rename(old, new.replace("== 1", "== 2"), "total", "grand_total")
    assert not is_pure_rename(old, new.replace("# total", "# grand_total"), "total",
                              "grand_total")  # a comment is not a use
    assert not is_pure_rename('x = "total"\n', 'x = "grand_total"\n', "total", "grand_total")
    assert not is_pure_rename("subtotal = 1\n", "subgrand_total = 1\n", "total", "grand_total")
    assert not is_pure_rename(old, new + "\n", "total", "grand_total")


@pytest.mark.parametrize("scope", [["shop/*.py"], ["shop/*.py", "tests/*.py"]])
def test_rope_renaming_a_symbol_the_tests_use_passes_the_checks(shop: Path,
                                                                scope: list[str]) -> None:
    repo = pygit2.Repository(str(shop))
    base = repo.head.target
    config = load_config(shop, env={})
    changed = rope_rename(shop, rename_total(scope).rename, TRACKED)  # type: ignore[arg-type]
    assert "tests/test_shop.py" in changed
    _commit_all(shop, "refactor(rename-total): rename total to grand_total")
    found = check_batch_commits(repo, config, rename_total(scope), base, repo.head.target)
    assert found.violations == []


def test_a_rename_that_also_changes_an_assertion_is_refused(shop: Path) -> None:
    repo = pygit2.Repository(str(shop))
    base = repo.head.target
    config = load_config(shop, env={})
    rope_rename(shop, rename_total(["shop/*.py"]).rename, TRACKED)  # type: ignore[arg-type]
    test_file = shop / "tests" / "test_shop.py"
    test_file.write_text(test_file.read_text().replace("== 8.0", "== 8"))
    _commit_all(shop, "refactor(rename-total): rename total to grand_total")
    rules = [v.rule for v in check_batch_commits(repo, config, rename_total(["shop/*.py"]),
                                                 base, repo.head.target).violations]
    assert rules == ["out-of-scope"]
    assert TESTS in subprocess.run(["git", "show", f"{base}:tests/test_shop.py"], cwd=shop,
                                   capture_output=True, text=True).stdout


def test_the_validator_agrees_with_the_checks(shop: Path) -> None:
    repo = pygit2.Repository(str(shop))
    index = build_index(repo, repo.head.target)

    def codes(*batches: Batch) -> list[str]:
        plan = RefactorPlanOutput.model_validate(
            {"batches": [b.model_dump(mode="json") for b in batches]})
        return [e.code for e in validate_plan(plan, index, RefactorConfig())]

    # the tests use `total`, outside the scope: allowed (a pure rename in a test)
    assert codes(rename_total(["shop/*.py"])) == []
    # shop/orders.py imports `total` and is outside the scope: rope would change it there
    assert codes(rename_total(["shop/pricing.py"])) == ["E009"]
