"""rgr's PreToolUse hook (rgr.sandbox.pretool) with the rules rgr.check.guards.edit_rules makes
per phase, and the after-the-fact guards it stands in front of (real git repositories)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from rgr.base.config import Config
from rgr.base.proc import run
from rgr.check.guards import check_scope, edit_rules
from rgr.sandbox.jail import PRETOOL
from rgr.sandbox.policy import SandboxPolicy
from rgr.sandbox.pretool import verdict
from rgr.sandbox.sealer import judge_files
from rgr.store.handoff import Phase
from tests.conftest import Repo, make_repo

ROOT = "/work/copy"


def _verdict(phase: Phase, path: str, **scope: object) -> str | None:
    rules = {**edit_rules(Config(), phase, **scope), "root": ROOT}  # type: ignore[arg-type]
    return verdict(json.loads(json.dumps(rules)),
                   {"tool_name": "Write", "tool_input": {"file_path": path}, "cwd": ROOT})


@pytest.mark.parametrize(("phase", "path", "refused"), [
    (Phase.PLAN, "test-list.md", None),
    (Phase.PLAN, "slug.py", "the planner may only change test-list.md"),
    (Phase.RED, "tests/test_slug.py", None),
    (Phase.RED, "slug.py", "RED may only change test files"),
    (Phase.GREEN, "slug.py", None),
    (Phase.GREEN, "tests/test_slug.py", "without changing any test file"),
    (Phase.GREEN, "test-list.md", "without changing any test file"),
    (Phase.GREEN, "conftest.py", "without changing any test file"),
    (Phase.GREEN, "pkg/sitecustomize.py", "decides how tests are collected"),
    (Phase.RED, "pyproject.toml", "decides how tests are collected"),
    (Phase.REFACTOR, "tdd.toml", "rgr's configuration"),
    (Phase.REFACTOR, ".rgr/agents/implementer.toml", "rgr's configuration"),
    (Phase.REFACTOR, ".git/hooks/pre-commit", "git's own files"),
    (Phase.REFACTOR, "/etc/passwd", "outside your working copy"),
    (Phase.REFACTOR, "../sibling/x.py", "outside your working copy"),
    (Phase.REFACTOR, f"{ROOT}/src/ok.py", None),
])
def test_edits_by_phase(phase: Phase, path: str, refused: str | None) -> None:
    reason = _verdict(phase, path)
    if refused is None:
        assert reason is None
    else:
        assert reason is not None and refused in reason


def test_a_refactor_batch_is_held_to_its_scope() -> None:
    scope = {"scope": ["shop/pricing.py"], "tests_allowed": False}
    assert _verdict(Phase.REFACTOR, "shop/pricing.py", **scope) is None
    assert "outside the batch's scope" in (_verdict(Phase.REFACTOR, "shop/orders.py", **scope)
                                           or "")
    assert "must not change" in (_verdict(Phase.REFACTOR, "tests/test_p.py",
                                          scope=["**"], tests_allowed=False) or "")


def test_the_hook_script_refuses_with_exit_code_2_and_a_reason(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({**edit_rules(Config(), Phase.GREEN), "root": str(tmp_path)}))
    call = {"tool_name": "Edit", "cwd": str(tmp_path),
            "tool_input": {"file_path": "tests/test_x.py", "old_string": "a", "new_string": "b"}}
    done = subprocess.run([sys.executable, "-I", "-S", str(PRETOOL), str(rules)],
                          input=json.dumps(call), capture_output=True, text=True)
    assert done.returncode == 2
    assert "rgr refuses this edit: tests/test_x.py: GREEN must" in done.stderr
    call["tool_input"] = {"file_path": "src/x.py"}
    done = subprocess.run([sys.executable, "-I", "-S", str(PRETOOL), str(rules)],
                          input=json.dumps(call), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_sandbox_shows_the_hook_its_judges_and_no_more_of_rgr(tmp_path: Path) -> None:
    """Each judge the rules name is shown as a file of its own (wherever its language put
    it), loads there with the standard library only, and judges; the rest of rgr, the
    folders around the judges included, stays out of the agent's sight."""
    places = {n: tmp_path / n for n in ("repo", "work", "home", "tmp", "control")}
    for folder in places.values():
        folder.mkdir()
    rules = {**edit_rules(Config(), Phase.REFACTOR), "root": str(places["work"])}
    (places["control"] / "rules.json").write_text(json.dumps(rules))
    judges = judge_files(json.loads(json.dumps(rules)))
    assert sorted(p.name for p in judges) == [
        "conftest_rules.py", "ignore_rules.py", "manifest_keys.py"]
    assert all(p.is_file() for p in judges)
    assert judge_files(None) == () and judge_files({"deny": []}) == ()
    jail = SandboxPolicy().agent_jail(
        repo_root=places["repo"], work=places["work"], home=places["home"],
        tmp=places["tmp"], executables=[Path(sys.executable)], forwards=(),
        extra_readable=(places["control"], PRETOOL.parent, *judges))

    def hook(path: str, content: str) -> tuple[int, str]:
        call = {"tool_name": "Write", "cwd": str(places["work"]),
                "tool_input": {"file_path": path, "content": content}}
        done = run([sys.executable, "-I", "-S", str(PRETOOL),
                    str(places["control"] / "rules.json")], cwd=places["work"], timeout=30,
                   stdin_data=json.dumps(call), launcher=jail)
        return done.returncode, done.stderr

    assert hook("tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef n():\n"
                "    return 1\n") == (0, "")
    code, said = hook("conftest.py", "def pytest_configure(config):\n    pass\n")
    assert code == 2 and "pytest_configure, a pytest hook" in said, said
    code, said = hook("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-q'\n")
    assert code == 2 and "a new pyproject.toml decides how rgr" in said, said
    rgr_root = Path(PRETOOL).parents[1]
    beside = [rgr_root / "check" / "guards.py", rgr_root / "ecosystems" / "registry.py",
              rgr_root / "ecosystems" / "python" / "cheats.py", rgr_root / "__init__.py"]
    done = run([sys.executable, "-I", "-S", "-c", "import os, sys; print([os.path.exists(p) "
                "for p in sys.argv[1:]])", *map(str, beside), *map(str, judges)],
               cwd=places["work"], timeout=30, launcher=jail)
    assert done.stdout.strip() == str([False] * len(beside) + [True] * len(judges)), done.stderr


def _commit(repo: Repo, files: dict[str, str], links: dict[str, str] | None = None) -> str:
    for name, target in (links or {}).items():
        (repo.path / name).symlink_to(target)
        repo.git("add", name)
    return repo.commit("change", files)


@pytest.fixture
def project(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path)
    repo.commit("code", {"slug.py": "def slugify(t):\n    return t\n",
                         "tests/test_slug.py": "def test_x():\n    pass\n"})
    return repo


def _rules(repo: Repo, phase: Phase, base: str, head: str) -> list[str]:
    git_repo = pygit2.Repository(str(repo.path))
    return [v.rule for v in check_scope(git_repo, Config(), phase, pygit2.Oid(hex=base),
                                        pygit2.Oid(hex=head))]


def test_links_that_lead_out_are_rejected(project: Repo) -> None:
    base = project.head()
    head = _commit(project, {}, {"ok_link": "slug.py", "up": "../../x", "abs": "/etc/passwd"})
    assert sorted(_rules(project, Phase.GREEN, base, head)) == ["link-escapes", "link-escapes"]


def test_code_under_test_may_not_hook_the_framework(project: Repo) -> None:
    base = project.head()
    head = _commit(project, {"slug.py": "import atexit\ndef slugify(t):\n    return t\n"})
    assert _rules(project, Phase.GREEN, base, head) == ["hooks-test-framework"]
    # a test file may use the framework freely
    head2 = project.commit("t", {"tests/test_slug.py": "import pytest\ndef test_x():\n    "
                                 "pass\n"})
    assert _rules(project, Phase.RED, head, head2) == []


def test_green_must_change_code(project: Repo) -> None:
    base = project.head()
    head = project.commit("empty")
    assert _rules(project, Phase.GREEN, base, head) == ["green-no-code"]
    assert _rules(project, Phase.REFACTOR, base, head) == []
