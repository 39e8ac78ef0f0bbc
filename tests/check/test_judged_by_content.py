"""Precise rules that let honest work through (issue 25, item 3): a conftest.py judged by
what it does, a manifest judged key by key, ignore rules that would hide rgr's
configuration. Real sources, real manifests parsed by tomllib/json, real pytest, real git
repositories, and rgr's PreToolUse hook run as the process claude runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from rgr.base.config import Config
from rgr.check import conftest_rules, ignore_rules, manifest_keys
from rgr.check.guards import check_scope, edit_rules
from rgr.sandbox.jail import PRETOOL
from rgr.store.handoff import Phase
from tests.conftest import Repo, make_repo

# -- conftest.py: what it does, not its name -----------------------------------------------

FIXTURES_ONLY = '''"""Shared fixtures for the slug tests."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

DATA = Path(__file__).resolve().parent / "data"
WORDS: tuple[str, ...] = ("a", "b")


@pytest.fixture
def words() -> list[str]:
    return list(WORDS)


@pytest.fixture(params=["Hello World", "  spaced  "], ids=["plain", "spaced"])
def title(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", ""))


@pytest.fixture(autouse=True)
def tmp_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"sep": "-"}))
    monkeypatch.setenv("SLUG_SETTINGS", str(path))
    yield path


def expected(text: str, sep: str = "-") -> str:
    return sep.join(text.lower().split())


class Sample:
    """A helper class."""

    size = 3

    def values(self) -> list[int]:
        return list(range(self.size))
'''

HOOKS = {
    "a collection hook": "def pytest_collection_modifyitems(items):\n    items[:] = []\n",
    "a report hook": "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\n"
                     "def pytest_runtest_makereport(item, call):\n    yield\n",
    "a hookimpl on another name": "from pytest import hookimpl\n\n@hookimpl(tryfirst=True)\n"
                                  "def anything(config):\n    pass\n",
    "plugins": 'pytest_plugins = ["evil_plugin"]\n',
    "collection ignores": 'collect_ignore = ["tests/test_old.py"]\n',
    "a hook imported from elsewhere": "from helpers import pytest_runtest_logreport\n",
    "a star import": "from helpers import *\n",
    "pytest internals": "import _pytest.runner\n",
    "the plugin manager in a fixture": (
        "import pytest\n\n@pytest.fixture(autouse=True, scope='session')\n"
        "def patch(request):\n    request.config.pluginmanager.register(object())\n"),
    "code at import": "import os\nos.environ['PYTEST_ADDOPTS'] = '-k nothing'\n",
    "a call at import": "import os\nos.system('sed -i s/failed/passed/ report.xml')\n",
    "a decorator that runs code": "import atexit\n\n@atexit.register\ndef bye():\n    pass\n",
    "a computed attribute": ("import pytest\n\n@pytest.fixture\ndef sneaky(request):\n"
                             "    return getattr(request.config, 'plugin' + 'manager')\n"),
}


def test_a_conftest_of_fixtures_and_helpers_does_nothing_else() -> None:
    assert conftest_rules.problems(FIXTURES_ONLY) == []
    assert conftest_rules.refusal("tests/conftest.py", None, FIXTURES_ONLY) is None


@pytest.mark.parametrize("what", sorted(HOOKS))
def test_a_conftest_that_reaches_into_pytest_is_refused(what: str) -> None:
    found = conftest_rules.problems(HOOKS[what])
    assert found, what
    reason = conftest_rules.refusal("conftest.py", None, HOOKS[what])
    assert reason is not None and "may only define fixtures" in reason


def test_replacing_a_hooked_conftest_with_fixtures_is_refused_too() -> None:
    """Removing a hook changes collection as much as adding one."""
    hooked = HOOKS["a collection hook"]
    reason = conftest_rules.refusal("conftest.py", hooked, FIXTURES_ONLY)
    assert reason is not None and "keep" in reason


def test_the_fixtures_only_conftest_really_serves_pytest(tmp_path: Path) -> None:
    """The allowed sample is a working conftest, not a toy: real pytest uses its
    parametrized fixture (two tests), its autouse fixture and its helper."""
    (tmp_path / "conftest.py").write_text(FIXTURES_ONLY)
    (tmp_path / "test_it.py").write_text(
        "import os\nfrom conftest import expected\n\n"
        "def test_title(title, words, tmp_settings):\n"
        "    assert os.environ['SLUG_SETTINGS'] == str(tmp_settings)\n"
        "    assert expected(title) == '-'.join(title.lower().split())\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr


# -- manifests: key by key -----------------------------------------------------------------

PYPROJECT = """[project]
name = "slug"
version = "0.1"
dependencies = ["requests>=2"]

[project.optional-dependencies]
web = ["flask"]

[tool.pytest.ini_options]
addopts = "-q"
testpaths = ["tests"]
"""

PACKAGE_JSON = json.dumps({"name": "slug", "version": "1.0.0",
                           "scripts": {"test": "vitest run"},
                           "dependencies": {"left-pad": "^1.3.0"},
                           "devDependencies": {"vitest": "^2.0.0"}}, indent=2)

CARGO = """[package]
name = "slug"
version = "0.1.0"
edition = "2021"

[dependencies]
regex = "1"

[profile.test]
opt-level = 0
"""

GO_MOD = """module example.com/slug

go 1.22

require (
\tgolang.org/x/text v0.14.0
)
"""


@pytest.mark.parametrize(("path", "old", "new", "expected"), [
    ("pyproject.toml", PYPROJECT, PYPROJECT.replace('["requests>=2"]',
                                                    '["requests>=2", "attrs>=23"]'),
     [("project.dependencies", "dependency")]),
    ("pyproject.toml", PYPROJECT, PYPROJECT.replace('web = ["flask"]',
                                                    'web = ["flask"]\ncli = ["click"]'),
     [("project.optional-dependencies.cli", "dependency")]),
    ("pyproject.toml", PYPROJECT, PYPROJECT.replace('"-q"', '"-q -p no:randomly"'),
     [("tool.pytest.ini_options.addopts", "test configuration")]),
    ("pyproject.toml", PYPROJECT, PYPROJECT.replace('["requests>=2"]',
                                                    '["requests>=2", "pytest-randomly"]'),
     [("project.dependencies", "test configuration")]),
    ("pyproject.toml", PYPROJECT, PYPROJECT.replace('version = "0.1"', 'version = "0.2"'),
     [("project.version", "other")]),
    ("package.json", PACKAGE_JSON, PACKAGE_JSON.replace(
        '"left-pad": "^1.3.0"', '"left-pad": "^1.3.0",\n    "slugify": "^1.6.6"'),
     [("dependencies.slugify", "dependency")]),
    ("package.json", PACKAGE_JSON, PACKAGE_JSON.replace('"vitest run"', '"vitest run -t x"'),
     [("scripts.test", "test configuration")]),
    ("package.json", PACKAGE_JSON, PACKAGE_JSON.replace('"left-pad": "^1.3.0"',
                                                        '"left-pad": "^1.3.0", "jest": "29"'),
     [("dependencies.jest", "test configuration")]),
    ("Cargo.toml", CARGO, CARGO.replace('regex = "1"', 'regex = "1"\nserde = "1"'),
     [("dependencies.serde", "dependency")]),
    ("Cargo.toml", CARGO, CARGO.replace("opt-level = 0", "opt-level = 3"),
     [("profile.test.opt-level", "test configuration")]),
    ("go.mod", GO_MOD, GO_MOD.replace(")", "\tgithub.com/google/uuid v1.6.0\n)"),
     [("require github.com/google/uuid", "dependency")]),
    ("go.mod", GO_MOD, GO_MOD + "\nreplace golang.org/x/text => ../text\n",
     [("replace golang.org/x/text", "other")]),
])
def test_manifest_changes_are_classified_key_by_key(
        path: str, old: str, new: str, expected: list[tuple[str, str]]) -> None:
    found = manifest_keys.changes(path, old, new)
    assert [(c.key, c.kind) for c in found] == expected
    refused = manifest_keys.refusal(path, old, new)
    assert (refused is None) == all(kind == "dependency" for _, kind in expected), refused


def test_a_dependency_and_test_configuration_in_one_change_is_refused_naming_the_key() -> None:
    new = PYPROJECT.replace('["requests>=2"]', '["requests>=2", "attrs"]').replace(
        'testpaths = ["tests"]', 'testpaths = ["nowhere"]')
    reason = manifest_keys.refusal("pyproject.toml", PYPROJECT, new)
    assert reason is not None and "tool.pytest.ini_options.testpaths" in reason
    assert "project.dependencies" not in reason.split(":")[0]


def test_unreadable_new_and_deleted_manifests_are_refused() -> None:
    assert "not valid TOML" in (manifest_keys.refusal("pyproject.toml", PYPROJECT, "[x") or "")
    assert "a new package.json" in (manifest_keys.refusal("package.json", None, "{}") or "")
    assert "deleting" in (manifest_keys.refusal("go.mod", GO_MOD, None) or "")


# -- ignore rules that hide rgr's configuration --------------------------------------------


@pytest.mark.parametrize(("rule", "hides"), [
    ("tdd.toml", True), ("/tdd.toml", True), ("*.toml", True), ("**/tdd.toml", True),
    (".rgr/", True), (".rgr", True), ("/.rgr/*", True), (".r?r/", True), ("*", True),
    ("dist/", False), ("*.pyc", False), ("src/tdd.toml", False), ("!tdd.toml", False),
    ("# tdd.toml", False), (".rgr-cache/", False),
])
def test_the_hook_reads_ignore_rules_as_git_does(tmp_path: Path, rule: str, hides: bool) -> None:
    """The hook's reading of a rule agrees with git's own (`git check-ignore`)."""
    assert (ignore_rules.refusal(".gitignore", "", rule + "\n") is not None) == hides
    repo = make_repo(tmp_path)
    (repo.path / ".gitignore").write_text(rule + "\n")
    probes = list(ignore_rules.PROBES)
    done = subprocess.run(["git", "check-ignore", "--no-index", *probes], cwd=repo.path,
                          capture_output=True, text=True)
    assert bool(done.stdout.strip()) == hides, (rule, done.stdout)


# -- after the fact: check_scope on real commits ------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path)
    repo.commit("code", {"slug.py": "def slugify(t):\n    return t\n",
                         "tests/test_slug.py": "def test_x():\n    pass\n",
                         "pyproject.toml": PYPROJECT, ".gitignore": "dist/\n"})
    return repo


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
