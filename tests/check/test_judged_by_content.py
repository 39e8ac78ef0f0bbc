"""Precise rules that let honest work through (issue 25, item 3), at work in each phase: a
conftest.py judged by what it does (the rules: tests/ecosystems/python/test_conftest_rules.py), a
manifest judged key by key (test_manifest_keys.py), ignore rules that would hide rgr's
configuration (test_ignore_rules.py), through check_scope on real commits, and rgr's
PreToolUse hook run as the process claude runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from rgr.base.config import Config
from rgr.check.guards import check_scope, edit_rules
from rgr.ecosystems import registry
from rgr.sandbox.jail import PRETOOL
from rgr.store.handoff import Phase
from tests.conftest import Repo, make_repo
from tests.ecosystems.python.test_conftest_rules import FIXTURES_ONLY, HOOKS
from tests.ecosystems.test_manifest_keys import PYPROJECT

# -- after the fact: check_scope on real commits ------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path)
    repo.commit("code", {"slug.py": "def slugify(t):\n    return t\n",
                         "tests/test_slug.py": "def test_x():\n    pass\n",
                         "pyproject.toml": PYPROJECT, ".gitignore": "dist/\n"})
    return repo


def test_the_judges_are_the_ecosystems_own() -> None:
    """The guards name no file judged by content: each comes from its ecosystem
    (``Ecosystem.judged_by_content``), at any level, by its whole name."""
    judge = registry.content_judge("pkg/tests/conftest.py")
    assert judge is not None and judge.test_code
    assert Path(judge.module_file).name == "conftest_rules.py"
    assert registry.content_judge("conftest.py") is judge
    assert registry.content_judge("my_conftest.py") is None
    assert registry.content_judge("conftest.py.orig") is None


def _rules(repo: Repo, phase: Phase, files: dict[str, str]) -> list[str]:
    base = repo.head()
    head = repo.commit("change", files)
    found = check_scope(pygit2.Repository(str(repo.path)), Config(), phase,
                        pygit2.Oid(hex=base), pygit2.Oid(hex=head))
    return [v.rule for v in found]


CODE = {"slug.py": "def slugify(t):\n    return t.lower()\n"}


@pytest.mark.parametrize(("phase", "files", "expected"), [
    (Phase.RED, {"tests/conftest.py": FIXTURES_ONLY}, []),
    (Phase.RED, {"conftest.py": HOOKS["a collection hook"]}, ["test-infra-changed"]),
    (Phase.REFACTOR, {"tests/conftest.py": FIXTURES_ONLY}, []),
    (Phase.GREEN, {**CODE, "tests/conftest.py": FIXTURES_ONLY}, ["green-touches-tests"]),
    (Phase.PLAN, {"tests/conftest.py": FIXTURES_ONLY}, ["plan-scope"]),
    (Phase.GREEN, {**CODE, "pyproject.toml": PYPROJECT.replace(
        '["requests>=2"]', '["requests>=2", "attrs"]')}, []),
    (Phase.GREEN, {**CODE, "pyproject.toml": PYPROJECT.replace('"-q"', '"-q -x"')},
     ["test-infra-changed"]),
    (Phase.RED, {"tests/test_slug.py": "def test_y():\n    assert 0\n",
                 "pyproject.toml": PYPROJECT.replace('["requests>=2"]',
                                                     '["requests>=2", "attrs"]')},
     ["test-infra-changed"]),
    (Phase.GREEN, {**CODE, ".gitignore": "dist/\ntdd.toml\n.rgr/\n"},
     ["hides-configuration"]),
    (Phase.REFACTOR, {".gitignore": "dist/\n*.toml\n"}, ["hides-configuration"]),
    (Phase.GREEN, {**CODE, ".gitignore": "dist/\n__pycache__/\n"}, []),
    (Phase.RED, {"tests/test_slug.py": "def test_y():\n    assert 0\n",
                 "tests/.gitignore": "*.toml\n"}, []),  # it cannot hide the root's tdd.toml
])
def test_each_phase_judges_what_a_change_does(
        project: Repo, phase: Phase, files: dict[str, str], expected: list[str]) -> None:
    assert _rules(project, phase, files) == expected


def test_rules_already_ignoring_configuration_are_not_the_agents_doing(project: Repo) -> None:
    project.commit("user", {".gitignore": "dist/\n*.toml\n"})
    assert _rules(project, Phase.GREEN, {**CODE, ".gitignore": "dist/\n*.toml\nbuild/\n"}) == []


# -- before the fact: the PreToolUse hook, run as claude runs it ---------------------------


def _hook(root: Path, phase: Phase, call: dict[str, object]) -> subprocess.CompletedProcess[str]:
    rules = root.parent / "rules.json"
    rules.write_text(json.dumps({**edit_rules(Config(), phase), "root": str(root)}))
    return subprocess.run([sys.executable, "-I", "-S", str(PRETOOL), str(rules)],
                          input=json.dumps({"cwd": str(root), **call}), capture_output=True,
                          text=True)


def test_the_hook_judges_the_content_an_edit_leaves(tmp_path: Path) -> None:
    root = tmp_path / "work"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)

    def write(phase: Phase, path: str, content: str) -> subprocess.CompletedProcess[str]:
        return _hook(root, phase, {"tool_name": "Write",
                                   "tool_input": {"file_path": path, "content": content}})

    def edit(phase: Phase, path: str, old: str, new: str) -> subprocess.CompletedProcess[str]:
        return _hook(root, phase, {"tool_name": "Edit", "tool_input": {
            "file_path": path, "old_string": old, "new_string": new}})

    assert write(Phase.RED, "tests/conftest.py", FIXTURES_ONLY).returncode == 0
    refused = write(Phase.RED, "conftest.py", HOOKS["a report hook"])
    assert refused.returncode == 2
    assert "defines pytest_runtest_makereport, a pytest hook" in refused.stderr
    assert "may only define fixtures" in refused.stderr
    assert "without changing any test file" in write(Phase.GREEN, "tests/conftest.py",
                                                     FIXTURES_ONLY).stderr
    assert edit(Phase.GREEN, "pyproject.toml", '["requests>=2"]',
                '["requests>=2", "attrs"]').returncode == 0
    refused = edit(Phase.GREEN, "pyproject.toml", '"-q"', '"-q -k slug"')
    assert refused.returncode == 2 and "tool.pytest.ini_options.addopts" in refused.stderr
    assert "only dependency declarations may change" in refused.stderr
    refused = edit(Phase.RED, "pyproject.toml", '["requests>=2"]', '["requests>=2", "attrs"]')
    assert refused.returncode == 2 and "decides how tests are collected" in refused.stderr
    refused = write(Phase.GREEN, ".gitignore", "dist/\ntdd.toml\n")
    assert refused.returncode == 2 and "would hide rgr's configuration" in refused.stderr
    assert "tdd.toml" in refused.stderr
    refused = write(Phase.GREEN, "package.json", '{"dependencies": {}}')
    assert refused.returncode == 2 and "a new package.json decides how rgr" in refused.stderr
    assert write(Phase.GREEN, ".gitignore", "dist/\n").returncode == 0


# -- the run summary counts refusals and rejections apart ----------------------------------

#: A refusal as claude 2.1.197 put it in its stream (recorded in an e2e run, trimmed).
REFUSAL_LINE = {"type": "user", "message": {"role": "user", "content": [{
    "type": "tool_result", "is_error": True, "tool_use_id": "toolu_1",
    "content": "PreToolUse:Write hook error: [python -I -S pretool.py rules.json]: rgr refuses "
               "this edit: conftest.py: this conftest.py would decide how tests are collected"}]}}


def test_the_summary_counts_refused_edits_and_rejected_attempts_apart() -> None:
    from rgr.observe.events import from_json
    from rgr.observe.stream import parse, refused_edits
    from rgr.observe.summary import summarize

    forged = json.loads(json.dumps(REFUSAL_LINE))
    forged["message"]["content"][0]["content"] = "Exit code 1\nrgr refuses this edit: (echo)"
    assert (refused_edits(parse(REFUSAL_LINE)), refused_edits(parse(forged))) == (1, 0)
    where = {"phase": "RED", "cycle": 1, "attempt": 1, "sessionId": "s"}
    events = [
        {"type": "phase_started", "ts": "2026-11-24T10:00:00Z", **where},
        {"type": "agent_call", "ts": "2026-11-24T10:00:01Z", **where, "ok": True,
         "refusedEdits": 2},
        {"type": "guard_verdict", "ts": "2026-11-24T10:00:02Z", **where, "ok": False},
    ]
    totals = summarize([from_json(e) for e in events])["totals"]
    assert (totals["refusedEdits"], totals["guardRejections"]) == (2, 1)
