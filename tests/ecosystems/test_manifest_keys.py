"""A manifest judged key by key (rgr.check.manifest_keys; issue 25, item 3): a dependency
added is the change's own, test configuration is refused naming its key. Real manifests
parsed by tomllib/json. The rules at work in each phase: tests/check/test_judged_by_content.py."""

from __future__ import annotations

import json

import pytest

from rgr.ecosystems import manifest_keys

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
