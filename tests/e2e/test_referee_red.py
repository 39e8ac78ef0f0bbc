"""RED fails for the right reason, end to end: the real rgr CLI, the real claude binary,
real git and real pytest; only the model is scripted (rgr.fake_model on 127.0.0.1).

A RED test that uses a fixture which does not exist fails, but no implementation can
ever make it pass: rgr rejects it (``red-wrong-failure``, naming ``test-error`` and
pytest's own words), the retry reads why in its prompt and writes a proper test, and the
run goes on to completion.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kata import (
    NOTES,
    TEST_FILE_1,
    git,
    make_project,
    notes_on_branch,
    one_test_kata_tail,
    plan,
    red,
    rgr,
    rgr_env,
)

from rgr.fake_model import FakeModelServer

pytestmark = pytest.mark.e2e

#: The kata's first test, asking for a fixture nobody defines.
MISSING_FIXTURE = """def test_lowercases_a_single_word(words):
    from slug import slugify

    assert slugify(words[0]) == "hello"
"""


def test_red_with_a_missing_fixture_is_rejected_as_a_test_error(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    scripts = [plan(0, first=True, total=1), red(MISSING_FIXTURE, first=True),
               red(TEST_FILE_1, first=True), *one_test_kata_tail()]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [], server.errors
        assert server.remaining == 0
        prompts = {r.first_user_text for r in server.requests}  # one per session
    assert "red-wrong-failure" in done.stdout, done.stdout

    # The rejected attempt is kept, its note naming the rule, the kind and pytest's words.
    [kept] = git(repo, "for-each-ref", "--format=%(objectname)", "refs/rgr/attempts/").split()
    note = json.loads(git(repo, "notes", f"--ref={NOTES}", "show", kept))
    assert note["errorDetails"]["type"] == "red-wrong-failure", note
    message = note["errorDetails"]["message"]
    assert "tests/test_slug.py::test_lowercases_a_single_word fails with test-error" in message
    assert "fixture 'words' not found" in message

    # The retry's prompt carried the brief: which test, which kind, what a right RED is.
    retry = [p for p in prompts if "red-wrong-failure" in p]
    assert len(retry) == 1, prompts
    assert "fails with test-error" in retry[0]
    assert "fixture 'words' not found" in retry[0]
    assert "A right RED fails on an assertion" in retry[0]

    # The proper test was accepted (it fails on the missing module) and the run finished.
    notes = notes_on_branch(repo)
    red_note = next(n for n in notes if n["phase"] == "RED")
    assert red_note["retryCount"] == 1 and red_note["nextPhase"] == "GREEN"
    assert notes[-1]["phase"] == "COMPLETE", notes[-1]
    assert git(repo, "show", "HEAD:tests/test_slug.py") == TEST_FILE_1


#: The kata's first test, importing the module under test at the top, before it exists.
TOP_LEVEL_IMPORT = """from slug import slugify


def test_lowercases_a_single_word():
    assert slugify("Hello") == "hello"
"""


def test_red_whose_file_misses_only_the_code_under_test_is_accepted(tmp_path: Path) -> None:
    """``from slug import slugify`` at the top of a new test file, before slug.py: the
    file does not load, for the right reason. RED is accepted at once, GREEN's run
    collects the file's test, and the run completes with no rejection."""
    repo = make_project(tmp_path / "kata")
    scripts = [plan(0, first=True, total=1), red(TOP_LEVEL_IMPORT, first=True),
               *one_test_kata_tail()]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp_path / "home", server.url))
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.errors == [] and server.remaining == 0, server.errors
    assert ": rejected:" not in done.stdout and "0 rejected attempt(s)" in done.stdout, \
        done.stdout
    notes = notes_on_branch(repo)
    red_note = next(n for n in notes if n["phase"] == "RED")
    assert red_note["retryCount"] == 0 and red_note["testResult"] == "FAIL", red_note
    green_note = next(n for n in notes if n["phase"] == "GREEN")
    assert green_note["tests"]["passed"] == 1, green_note  # type: ignore[index]
    assert notes[-1]["phase"] == "COMPLETE", notes[-1]
    assert git(repo, "show", "HEAD:tests/test_slug.py") == TOP_LEVEL_IMPORT
