"""Refactor mode without an agent: the plan validator's codes, the index, the public API
snapshot, rope renames, the [gate] config, `rgr verify` and the refusals of
`rgr refactor`. Real git repositories, real pytest, real rope."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pygit2
import pytest
from kata import rgr
from messy import (
    DEDUPE,
    ORDERS,
    PRICING,
    PRICING_API,
    PRICING_DRY,
    RENAME,
    batch,
    make_messy_project,
)

from rgr.base.config import RefactorConfig, load_config
from rgr.base.errors import ConfigError
from rgr.ecosystems.python.modules import module_of
from rgr.refactor.api import compare, module_api, renamed
from rgr.refactor.checks import check_batch_commits
from rgr.refactor.index import build_index, context_packet, overview
from rgr.refactor.plan import Batch, RefactorPlanOutput, RenameSpec, validate_plan
from rgr.refactor.rename import rope_rename
from tests.conftest import REPO_ROOT, clean_env


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return make_messy_project(tmp_path / "shop")


def _index(root: Path) -> Any:
    repo = pygit2.Repository(str(root))
    return repo, build_index(repo, repo.head.target)


def _codes(root: Path, *batches: dict[str, Any], **caps: Any) -> list[str]:
    _, index = _index(root)
    plan = RefactorPlanOutput.model_validate({"batches": list(batches)})
    return [e.code for e in validate_plan(plan, index, RefactorConfig(**caps))]


# --------------------------------------------------------------------- validator --


def test_a_good_plan_has_no_errors(shop: Path) -> None:
    assert _codes(shop, DEDUPE, RENAME) == []


@pytest.mark.parametrize(("batches", "caps", "code"), [
    ([], {}, "E000"),
    ([batch("Not A Slug", "g", ["shop/pricing.py"], ["dedupe"])], {}, "E001"),
    ([DEDUPE, DEDUPE], {}, "E002"),
    ([batch(f"b{i}", "g", ["shop/pricing.py"], ["dedupe"]) for i in range(3)],
     {"max_batches": 2}, "E003"),
    ([batch("b", "g", ["shop/pricing.py"], ["dedupe"], budget=500)], {}, "E004"),
    ([batch("b", "g", ["shop/pricing.py"], ["dedupe"], budget=0)], {}, "E004"),
    ([batch("b", "g", ["src/**/*.py"], ["dedupe"])], {}, "E005"),
    ([batch("b", "g", ["tdd.toml"], ["dedupe"])], {}, "E006"),
    ([batch("b", "g", ["shop/pricing.py"], ["teleport"])], {}, "E007"),
    ([DEDUPE, batch("b", "g", ["shop/*.py"], ["simplify"])], {"allow_overlap": False}, "E008"),
    ([batch("b", "g", ["shop/*.py"], ["rename", "dedupe"], rename=RENAME["rename"])], {},
     "E009"),
    ([batch("b", "g", ["shop/*.py"], ["rename"],
            rename={"path": "shop/pricing.py", "symbol": "nope", "new_name": "x"})], {}, "E009"),
    ([batch("b", "g", ["shop/orders.py"], ["rename"], rename=RENAME["rename"])], {}, "E009"),
    ([batch("b", "g", ["shop/*.py"], ["rename"],
            rename={"path": "shop/pricing.py", "symbol": "calc", "new_name": "1x"})], {},
     "E009"),
    ([batch("late", "g", ["shop/pricing.py"], ["restructure"]), DEDUPE], {}, "E010"),
])
def test_each_error_code(shop: Path, batches: list[dict[str, Any]], caps: dict[str, Any],
                         code: str) -> None:
    assert code in _codes(shop, *batches, **caps)


def test_overlap_is_allowed_by_default(shop: Path) -> None:
    assert _codes(shop, DEDUPE, batch("b", "g", ["shop/*.py"], ["simplify"])) == []


# ------------------------------------------------------------------------- index --


def test_index_symbols_imports_fan_in_and_packets(shop: Path) -> None:
    repo, index = _index(shop)
    pricing = index.files["shop/pricing.py"]
    assert pricing.module == "shop.pricing"
    assert pricing.blob == str(repo.revparse_single("HEAD:shop/pricing.py").id)
    assert [s.signature for s in pricing.symbols] == [
        "def total(items)", "def total_with_tax(items, rate)", "def calc(x)"]
    assert "shop.pricing" in index.files["shop/orders.py"].imports
    # imported by orders.py and the tests
    assert index.fan_in["shop.pricing"] == 2
    assert index.hotspots(1)[0][0] == "shop/pricing.py"
    assert index.files["tdd.toml"].module is None
    text = overview(index)
    assert "shop/pricing.py: imported by 2 file(s)" in text
    packet = context_packet(repo, index, ["shop/pricing.py", "shop/orders.py"])
    assert packet.index("### shop/pricing.py") < packet.index("### shop/orders.py")
    assert "L15 def calc(x)" in packet
    only_pricing = context_packet(repo, index, ["shop/pricing.py"])
    assert "Related files outside the scope" in only_pricing
    # orders.py and the tests import pricing: their signatures come along, not their code
    assert "shop/orders.py:\n    L4 def order_summary(items)" in only_pricing
    assert "tests/test_shop.py:" in only_pricing
    assert '"total: " + str(' not in only_pricing
    small = context_packet(repo, index, ["shop/pricing.py", "shop/orders.py"], max_chars=300)
    assert "L15 def calc(x)" in small and "[excerpt left out: context budget]" in small
    assert "context budget reached: 1 file(s) left out" in small
    assert len(small) < 400


@pytest.mark.parametrize(("path", "module"), [
    ("shop/pricing.py", "shop.pricing"), ("src/shop/pricing.py", "shop.pricing"),
    ("shop/__init__.py", "shop"), ("src.py", "src"), ("__init__.py", None),
    ("shop/pricing.pyi", None), ("tdd.toml", None), ("web/app.js", None)])
def test_the_index_names_python_modules_as_they_import(path: str, module: str | None) -> None:
    assert module_of(path) == module


def test_index_survives_a_file_that_does_not_parse(tmp_path: Path) -> None:
    root = make_messy_project(tmp_path / "p")
    (root / "shop" / "broken.py").write_text("def (:\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "broken"], cwd=root, check=True)
    _, index = _index(root)
    assert index.files["shop/broken.py"].parse_error is not None
    assert "does not parse" in overview(index)


# --------------------------------------------------------------------------- API --


def test_api_snapshot_names_signatures_and_all() -> None:
    api = module_api("__all__ = ['a', 'K']\ndef a(x, *, y=1): ...\ndef b(): ...\n"
                     "class K(Base):\n    def m(self): ...\n    def _p(self): ...\n")
    assert api == {"a": "def a(x, *, y=1)", "K": "class K(Base)", "K.m": "def m(self)"}
    assert module_api("def f(:") is None
    plain = module_api("X = 1\n_Y = 2\ndef _h(): ...\ndef g() -> int: ...\n")
    assert plain == {"X": "variable", "g": "def g() -> int"}


def test_api_compare_reports_every_change_and_rename_expects_one() -> None:
    before = {"m": {"f": "def f(x)", "g": "def g()"}}
    assert compare(before, before) == []
    after = {"m": {"f": "def f(x, y=None)", "h": "def h()"}, "n": {}, "o": {"k": "variable"}}
    assert compare(before, after) == [
        "m.f changed: `def f(x)` -> `def f(x, y=None)`",
        "m.g removed (was `def g()`)", "m.h added (`def h()`)", "module o added (public: k)"]
    assert compare(before, {}) == ["module m removed"]
    spec = RenameSpec(path="m.py", symbol="g", new_name="h")
    assert compare(renamed(before, spec), {"m": {"f": "def f(x)", "h": "def h()"}}) == []


def test_batch_checks_on_real_commits(shop: Path) -> None:
    repo = pygit2.Repository(str(shop))
    base = repo.head.target
    config = load_config(shop, env={})
    dedupe = Batch.model_validate(DEDUPE)

    def attempt(files: dict[str, str], message: str = "refactor(dedupe-pricing): x") -> list[str]:
        for name, text in files.items():
            (shop / name).write_text(text)
        subprocess.run(["git", "add", "-A"], cwd=shop, check=True)
        subprocess.run(["git", "commit", "-qm", message], cwd=shop, check=True)
        found = check_batch_commits(repo, config, dedupe, base, repo.head.target)
        subprocess.run(["git", "reset", "-q", "--hard", str(base)], cwd=shop, check=True)
        return [v.rule for v in found.violations]

    assert attempt({"shop/pricing.py": PRICING_DRY}) == []
    assert attempt({"shop/pricing.py": PRICING_DRY}, "tidy") == ["commit-prefix"]
    assert attempt({"shop/pricing.py": PRICING_API}) == ["api-changed"]
    assert attempt({"shop/orders.py": ORDERS + "\n"}) == ["out-of-scope"]
    assert attempt({"shop/pricing.py": PRICING + "\n" * 50}) == ["diff-budget"]
    assert attempt({"shop/pricing.py": PRICING + "import pytest\n@pytest.mark.skip\n"
                    "def _x(): ...\n"}) == ["hooks-test-framework", "skip-marker"]
    # judged by what the change does (tests/check/test_judged_by_content.py has the rules
    # themselves)
    assert attempt({".gitignore": "*.toml\n"}) == ["out-of-scope", "hides-configuration"]
    assert attempt({"shop/conftest.py": "import pytest\n\n@pytest.fixture\ndef n():\n"
                    "    return 1\n"}) == ["out-of-scope"]
    assert attempt({"shop/conftest.py": "def pytest_configure(config):\n    pass\n"}) == [
        "test-infra-changed"]
    wide = Batch.model_validate({**DEDUPE, "scope_globs": ["**"]})
    (shop / "shop" / "logo.bin").write_bytes(b"\x00\x01\x02" * 10)
    (shop / "tests" / "test_shop.py").write_text("")
    subprocess.run(["git", "add", "-A"], cwd=shop, check=True)
    subprocess.run(["git", "commit", "-qm", "refactor(dedupe-pricing): x"], cwd=shop, check=True)
    rules = [v.rule for v in check_batch_commits(repo, config, wide, base,
                                                 repo.head.target).violations]
    assert "binary-file" in rules and "test-file-changed" in rules


# ------------------------------------------------------------------------ rename --


def test_rope_renames_the_definition_and_every_reference(shop: Path) -> None:
    # an untracked file (think: a virtualenv inside the project) is left alone
    (shop / "scratch.py").write_text("from shop.pricing import calc\n")
    tracked = ["shop/__init__.py", "shop/pricing.py", "shop/orders.py",
               "tests/test_shop.py"]
    changed = rope_rename(shop, RenameSpec(path="shop/pricing.py", symbol="calc",
                                           new_name="round_money"), tracked)
    assert changed == ["shop/orders.py", "shop/pricing.py"]
    assert (shop / "scratch.py").read_text() == "from shop.pricing import calc\n"
    (shop / "scratch.py").unlink()
    assert "def round_money(x)" in (shop / "shop/pricing.py").read_text()
    assert "from shop.pricing import round_money, total" in (shop / "shop/orders.py").read_text()
    assert not (shop / ".ropeproject").exists()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                          cwd=shop, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


# --------------------------------------------------------------------- [gate] config --


def test_gate_and_refactor_tables(tmp_path: Path) -> None:
    (tmp_path / "tdd.toml").write_text(
        '[gate]\nfast = ["ruff check ."]\nfull = [["mypy", "src"]]\nfull_every = 2\n'
        '[refactor]\nmax_batches = 5\non_failure = "skip"\n')
    config = load_config(tmp_path, env={})
    assert config.gate.fast == ["ruff check ."] and config.gate.full_every == 2
    assert config.refactor.max_batches == 5 and config.refactor.on_failure == "skip"


@pytest.mark.parametrize(("text", "expected"), [
    ("[gate]\nfastt = []\n", "unknown key [gate].fastt"),
    ("[gate]\nfast = [\"\"]\n", "[gate].fast"),
    ("[refactor]\non_failure = \"retry\"\n", "[refactor].on_failure"),
    ("gate = 3\n", "'gate' must be a table"),
])
def test_gate_config_errors_name_the_key(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "tdd.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, env={})
    assert expected in caught.value.message


# ----------------------------------------------------------------- CLI, no agent --


def test_verify_runs_the_gate_and_fails_when_a_command_fails(shop: Path,
                                                               tmp_path: Path) -> None:
    env = clean_env(tmp_path / "home")
    done = rgr(["verify", "--json"], shop, env)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["ok"] is True and result["level"] == "full"
    assert result["tests"]["passed"] == 3 and len(result["commands"]) == 2
    fast = json.loads(rgr(["verify", "--fast", "--json"], shop, env).stdout)
    assert len(fast["commands"]) == 1
    (shop / "shop" / "orders.py").write_text("import shop.missing\n")
    # verify checks HEAD as a run would start from it, says what it left out, and that a
    # run would not start with the change uncommitted (in the run's words).
    uncommitted = rgr(["verify"], shop, env)
    assert uncommitted.returncode == 1, uncommitted.stdout + uncommitted.stderr
    assert "1 uncommitted path(s) are not checked" in uncommitted.stdout
    assert "tests: 3 passed" in uncommitted.stdout
    assert "error: the working tree has uncommitted changes (shop/orders.py)" \
        in uncommitted.stdout
    subprocess.run(["git", "commit", "-qam", "break an import"], cwd=shop, check=True)
    failed = rgr(["verify"], shop, env)
    assert failed.returncode == 1
    assert "tests/test_shop.py" in failed.stdout


def test_refactor_refuses_dirty_tree_and_red_baseline(shop: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path / "home")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=shop, capture_output=True,
                          text=True).stdout
    (shop / "shop" / "pricing.py").write_text(PRICING.replace("* i[\"qty\"]", ""))
    dirty = rgr(["refactor", "--yes", "--skip-preflight", "tidy"], shop, env)
    assert dirty.returncode == 1
    assert "uncommitted changes (shop/pricing.py)" in dirty.stderr and "fix:" in dirty.stderr
    subprocess.run(["git", "commit", "-qam", "break a test"], cwd=shop, check=True)
    red = rgr(["refactor", "--yes", "--skip-preflight", "tidy"], shop, env)
    assert red.returncode == 1
    assert "the baseline gate fails before any change: the tests fail" in red.stderr
    assert "rgr verify" in red.stderr
    branches = subprocess.run(["git", "branch", "--format=%(refname:short)"], cwd=shop,
                              capture_output=True, text=True).stdout.split()
    assert branches == ["main"]
    assert head != ""
    missing = rgr(["refactor", "--yes", "--brief", "nope.md"], shop, env)
    assert missing.returncode == 1 and "cannot read the brief nope.md" in missing.stderr
    twice = rgr(["refactor", "--yes", "--brief", "nope.md", "tidy"], shop, env)
    assert twice.returncode == 2 and "not both" in twice.stderr
    empty = rgr(["refactor", "--yes", "   "], shop, env)
    assert empty.returncode == 2 and "goal is empty" in empty.stderr
    both = rgr(["refactor", "--accept"], shop, env)
    assert both.returncode == 1 and "not a finished refactor" in both.stderr


def test_the_root_tdd_toml_documents_every_gate_refactor_and_sandbox_key() -> None:
    import tomllib

    from rgr.base.config import Config, GateConfig, SandboxConfig

    root = REPO_ROOT
    data = tomllib.loads((root / "tdd.toml").read_text())
    assert set(data["gate"]) == set(GateConfig.model_fields)
    assert set(data["refactor"]) == set(RefactorConfig.model_fields)
    assert set(data["sandbox"]) == set(SandboxConfig.model_fields)
    config = load_config(root, env={})
    assert config.gate == Config().gate and config.refactor == Config().refactor
    assert config.sandbox == Config().sandbox


def test_three_invalid_plans_end_with_the_codes_and_nothing_changed(shop: Path) -> None:
    from rgr.backends.base import AgentRequest, AgentResult
    from rgr.refactor.engine import PlanRejected, RefactorEngine
    from rgr.store.workspace import open_workspace
    from tests.fake_backend import FakeBackend, answer

    prompts: list[str] = []

    def plans(request: AgentRequest) -> AgentResult:  # the agent's answer, nothing else
        prompts.append(request.prompt)
        assert request.tools == ("Read", "Grep", "Glob")
        return answer(request, cost=0.0, batches=[batch("b", "g", ["nowhere/*.py"], ["dedupe"])])

    ws = open_workspace(shop, env=clean_env(shop.parent / "home"))
    from rgr.ecosystems.registry import resolve_test_command
    from rgr.sandbox.sealer import Sealer

    planner = FakeBackend(plans, plans, plans)
    test_command = resolve_test_command(ws.config, shop)
    engine = RefactorEngine(ws, planner, test_command, lambda message: None,
                            Sealer(ws, planner, test_command, None))
    with pytest.raises(PlanRejected) as caught:
        engine.make_plan("tidy")
    assert "no valid plan after 3 planner sessions" in caught.value.message
    assert "[E005]" in caught.value.message and caught.value.hint
    assert len(prompts) == 3 and "[E005]" not in prompts[0] and "[E005]" in prompts[2]
    assert "shop/pricing.py: imported by 2 file(s)" in prompts[0]


def test_resume_asks_about_unnoted_commits_then_rope_finishes_without_an_agent(
        shop: Path, tmp_path: Path) -> None:
    """A refactor whose next batch is a rename needs no model: rgr resume sets the
    user's commit aside only when told to, then rope does the batch and the gate runs."""
    from rgr.store.handoff import HandoffState, Phase, RefactorProgress
    from rgr.store.notes import NotesStore

    env = clean_env(tmp_path / "home")
    repo = pygit2.Repository(str(shop))
    start = str(repo.head.target)
    subprocess.run(["git", "switch", "-qc", "rgr/refactor-x"], cwd=shop, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "rgr: refactor x"],
                   cwd=shop, check=True)
    marker = str(repo.head.target)
    NotesStore(repo).write(marker, HandoffState(
        phase=Phase.PLAN, next_phase=Phase.REFACTOR, mode="refactor", run_id="r1",
        refactor=RefactorProgress(goal="x", plan=[RENAME], source_branch="main",
                                  start_commit=start)))
    (shop / "mine.txt").write_text("my own work\n")
    subprocess.run(["git", "add", "mine.txt"], cwd=shop, check=True)
    subprocess.run(["git", "commit", "-qm", "my commit"], cwd=shop, check=True)
    mine = str(repo.head.target)
    asked = rgr(["resume", "--yes", "--skip-preflight"], shop, env)
    assert asked.returncode == 1 and "--unnoted" in asked.stderr, asked.stderr
    assert str(repo.head.target) == mine  # not moved without a choice
    done = rgr(["resume", "--yes", "--skip-preflight", "--unnoted", "set-aside"], shop, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rope renamed calc -> round_money in 2 file(s)" in done.stdout
    kept = subprocess.run(["git", "for-each-ref", "--format=%(objectname)",
                           "refs/rgr/attempts/"], cwd=shop, capture_output=True,
                          text=True).stdout.split()
    assert kept == [mine]
    assert not (shop / "mine.txt").exists()
    assert "def round_money(x)" in (shop / "shop/pricing.py").read_text()
    final = NotesStore(repo).read(str(repo.head.target))
    assert final is not None and final.state is not None
    assert final.state.phase == Phase.COMPLETE
    assert final.state.refactor is not None
    assert final.state.refactor.applied == ["rename-calc"]
