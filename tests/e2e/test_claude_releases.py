"""The Claude Code releases rgr supports (rgr.backends.claude_release names them): the
pinned one the e2e suite runs on, and a sample of the suite on the newest, so CI sees a
new release break rgr without running everything twice. The whole suite on the newest:
``RGR_E2E_CLAUDE=newest python -m pytest -m e2e``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from harness import NODE_DIR, ensure_claude, sweep_only
from kata import (
    ASSERT_1,
    IMPL_1,
    TEST_FILE_1,
    edit_past_the_hook,
    git,
    green,
    notes_on_branch,
    one_test_kata_tail,
    plan,
    red,
    rgr,
    rgr_env,
    two_test_kata,
)

from rgr.backends.claude_release import NEWEST, PINNED, parse, range_warning
from rgr.demo import kata as _kata
from rgr.fake_model import FakeModelServer

#: The first request of a phase, on every supported release (issue 15).
FIRST_REQUEST_LIMIT = 16 * 1024


def test_the_releases_are_named_in_one_place() -> None:
    package = json.loads((NODE_DIR / "package.json").read_text())
    lock = json.loads((NODE_DIR / "package-lock.json").read_text())
    assert package["dependencies"]["@anthropic-ai/claude-code"] == PINNED
    assert lock["packages"]["node_modules/@anthropic-ai/claude-code"]["version"] == PINNED
    assert parse(PINNED) < parse(NEWEST)  # type: ignore[operator]


def test_preflight_words_for_a_release_outside_the_range() -> None:
    assert range_warning(f"{PINNED} (Claude Code)") is None
    assert range_warning(f"{NEWEST} (Claude Code)") is None
    older = range_warning("2.0.5 (Claude Code)")
    assert older is not None and "older" in older and f"@{NEWEST}" in older
    newer = range_warning("9.0.0 (Claude Code)")
    assert newer is not None and "newer" in newer and f"{PINNED} to {NEWEST}" in newer
    assert range_warning("garbage") is not None


def _release_next_to(version: str, step: int) -> str:
    """The release ``step`` patch versions from ``version`` (2.1.197, -1: 2.1.196)."""
    parts = parse(version)
    assert parts is not None
    return ".".join(map(str, (*parts[:-1], parts[-1] + step)))


@pytest.mark.parametrize(("version", "warned"), [
    (_release_next_to(PINNED, -1), "older"),
    (PINNED, None),
    (NEWEST, None),
    (_release_next_to(NEWEST, +1), "newer"),
])
def test_rgr_run_warns_about_a_claude_outside_the_range(tmp_path: Path, version: str,
                                                        warned: str | None) -> None:
    """The real ``rgr run`` on either side of each bound of the range. A real claude of
    every such release would be a 245 MB download each, so the claude here is a script
    that answers ``--version`` only: the version check is the one thing it stands in
    for. Its login check then fails, so the run stops before the baseline."""
    fake = tmp_path / "bin" / "claude"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n"
                    f'[ "$1" = --version ] && echo "{version} (Claude Code)" && exit 0\n'
                    'echo "a stand-in for claude --version only" >&2\nexit 1\n')
    fake.chmod(0o755)
    repo = _kata.make_project(tmp_path / "kata", [sys.executable, "-m", "pytest", "-q"],
                              str(fake))
    done = rgr(["run", "--yes", "slugify"], repo, rgr_env(tmp_path / "home", "http://127.0.0.1:9"))
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert f"agent backend: claude {version} (Claude Code)" in out
    assert "a stand-in for claude --version only" in out  # stopped by the login check
    warnings = [line for line in done.stdout.splitlines() if "warning:" in line]
    if warned is None:
        assert warnings == [], out
    else:
        assert len(warnings) == 1, out
        assert (f"Claude Code {version} is {warned} than the releases rgr is tested with "
                f"({PINNED} to {NEWEST})") in warnings[0]
        assert f"npm install -g @anthropic-ai/claude-code@{NEWEST}" in warnings[0]
    assert notes_on_branch(repo) == []  # nothing started: no start marker, no note


def _project(root: Path) -> Path:
    return _kata.make_project(root, [sys.executable, "-m", "pytest", "-q"],
                              str(ensure_claude(NEWEST)))


@pytest.mark.e2e
def test_the_kata_on_the_newest_release(tmp_path: Path) -> None:
    repo = _project(tmp_path / "kata")
    with FakeModelServer(two_test_kata()) as server:
        done = rgr(["run", "--yes", "add a slugify function"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [] and server.remaining == 0
        first: dict[str, int] = {}
        for record in server.requests:
            if record.session_id and "StructuredOutput" in record.tools:
                first.setdefault(record.session_id, record.body_bytes)
    assert f"claude {NEWEST}" in done.stdout and "warning:" not in done.stdout
    sizes = list(first.values())
    print(f"first request per phase on {NEWEST} (bytes):", sizes)
    assert len(sizes) == 9 and max(sizes) <= FIRST_REQUEST_LIMIT, sizes
    assert [n["phase"] for n in notes_on_branch(repo)][-1] == "COMPLETE"


# The full sweep's since 2026-12-02 (third pass): the edit is put past the hook by code,
# so it is the commit's check that rejects it, the same on every release; that check is
# test_tdd_loop.py::test_green_that_edits_the_test_is_rejected_and_retried's, in every
# run, and the newest release plays the whole kata in every run (above).
@pytest.mark.e2e
@sweep_only("tests/e2e/test_claude_releases.py", "the commit's check on the newest release")
def test_a_green_that_edits_the_test_is_rejected_on_the_newest_release(tmp_path: Path) -> None:
    repo = _project(tmp_path / "kata")
    weakened = TEST_FILE_1.replace(ASSERT_1, "assert True")
    # past rgr's edit hook (an honest agent is stopped by it): the commit's check judges
    cheat = green(IMPL_1, first=True, extra=edit_past_the_hook("tests/test_slug.py", weakened))
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True), cheat,
               *one_test_kata_tail()]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
    assert "green-touches-tests" in done.stdout
    assert ASSERT_1 in (repo / "tests" / "test_slug.py").read_text()
    assert len(git(repo, "for-each-ref", "refs/rgr/attempts/").splitlines()) == 1
