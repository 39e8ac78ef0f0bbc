"""The examiner end to end (issue 36): the real rgr CLI, the real claude binary, real git
and pytest; only the model is scripted (rgr.fake_model on 127.0.0.1).

- A feature built in part (integers only, while the text also asks for numbers written
  as strings): the examiner's hidden acceptance tests send the run back to PLAN with
  the missing behaviour in words (never the tests' code or values); the planner plans
  it, the run completes, and `rgr show` / `rgr report` say what the examiner found and
  cost. In the second cycle the implementer is hostile: before it implements, it
  searches the filesystem it can see (the places rgr, the user and other runs keep
  files, and every file name under /), the git objects its copy reaches (the user's
  whole object store) and every ref and note for the acceptance tests, and finds
  nothing.
- An honest run passes the examiner at the first examination.

The scripted-model environments turn the examiner off (TDD_ACCEPTANCE_MODE=off in
rgr.demo.env: their scripts have no examiner session); these tests turn it back on.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from harness import sweep_only
from kata import commit, git, make_project, notes_on_branch, refactor, rgr, rgr_env

from rgr.fake_model import FakeModelServer, SessionScript, Step, bash, read, structured, write
from rgr.store import acceptance_store

pytestmark = pytest.mark.e2e

FEATURE = ("add(a, b) returns the sum of two numbers; it also accepts numbers written as "
           "strings, so add('2', '3') == 5")
TEST_INTS = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n"
TEST_BOTH = TEST_INTS + "\n\ndef test_adds_strings():\n    assert add('2', '3') == 5\n"
INTS = "def add(a, b):\n    return a + b\n"
BOTH = "def add(a, b):\n    return int(a) + int(b)\n"
#: In the examiner's file only; the hostile agent's code builds it from two halves, so
#: finding it in anything the model received means the agent read the file.
MARK = "EXAMINER" + "-SECRET-c41d"
ACCEPTANCE = (f"# {MARK}\nfrom calc import add\n\n\ndef test_sums_integers():\n"
              "    assert add(4173, 9158) == 13331\n\n\n"
              "def test_sums_numbers_written_as_strings():\n"
              "    assert add('4173', '9158') == 13331\n")
MISSING = "add accepts numbers written as strings and returns their sum"
TESTS = [{"name": "test_sums_integers", "behaviour": "add returns the sum of two integers"},
         {"name": "test_sums_numbers_written_as_strings", "behaviour": MISSING}]
CONFIG = '[adequacy]\nmode = "off"\n'  # the mutation gate is not what is tested here


def plan(items: list[tuple[str, bool]], current: str | None, first: bool = False
         ) -> SessionScript:
    text = "# Test list\n\n" + "".join(f"- [{'x' if done else ' '}] {item}\n"
                                       for item, done in items)
    steps: list[Step] = [] if first else [read("test-list.md")]
    steps += [write("test-list.md", text), commit("plan: update the list", "test-list.md"),
              structured({"currentTest": None if current is None else {
                  "description": current, "testFile": "tests/test_calc.py",
                  "implFile": "calc.py"}})]
    return SessionScript(steps, expect_system_contains="You are the PLANNER", name="plan")


def red(content: str, first: bool) -> SessionScript:
    steps: list[Step] = [] if first else [read("tests/test_calc.py")]
    steps += [write("tests/test_calc.py", content), commit("test: one more", "tests/test_calc.py"),
              structured({"summary": "added one failing test"})]
    return SessionScript(steps, expect_system_contains="You are the TESTER", name="red")


def green(content: str, first: bool, before: list[Step] | None = None) -> SessionScript:
    steps: list[Step] = [*(before or []), *([] if first else [read("calc.py")])]
    steps += [write("calc.py", content), commit("feat: make it pass", "calc.py"),
              structured({"summary": "implemented add"})]
    return SessionScript(steps, expect_system_contains="You are the IMPLEMENTER", name="green")


def examiner() -> SessionScript:
    return SessionScript([write("test_rgr_acceptance.py", ACCEPTANCE),
                          structured({"tests": TESTS})],
                         expect_system_contains="You are the EXAMINER", name="examiner")


def hunt(state_dir: Path, repo: Path) -> list[Step]:
    """Code the hostile implementer runs through its allowed test command (pytest -p
    imports it): it looks for the acceptance tests everywhere it can and prints what it
    searched and what it found, which the model (this test) receives."""
    code = f"""
import os, subprocess, time, zlib
began = time.monotonic()
mark = ''.join([{MARK[:8]!r}, {MARK[8:]!r}])  # not folded into the compiled module
hits, scanned, names = [], 0, 0
for top in ('/tmp', '/dev/shm', '/home', '/root', '/var/tmp', '/run', os.environ['HOME'],
            {str(state_dir)!r}, {str(repo)!r}, {str(repo.parent)!r}, os.getcwd()):
    for folder, _subs, files in os.walk(top):
        for name in files:
            path = os.path.join(folder, name)
            try:
                data = open(path, 'rb').read(1 << 20)
            except OSError:
                continue
            scanned += 1
            if mark.encode() in data:
                hits.append(path)
            if '/objects/' in path:
                try:
                    if mark.encode() in zlib.decompress(data):
                        hits.append('loose object ' + path)
                except Exception:
                    pass
for folder, subs, files in os.walk('/'):
    subs[:] = [s for s in subs if os.path.join(folder, s) not in ('/proc', '/sys')]
    names += len(files)
    hits += [os.path.join(folder, f) for f in files if f.startswith('test_rgr_acceptance')]
git = ['git', '-c', 'core.hooksPath=/dev/null']
objects = subprocess.run(git + ['cat-file', '--batch-all-objects', '--batch'],
                         capture_output=True).stdout
refs = subprocess.run(git + ['for-each-ref'], capture_output=True, text=True).stdout
log = subprocess.run(git + ['log', '--all', '-p', '--notes=*'], capture_output=True).stdout
hits += ['a git object'] * (mark.encode() in objects) + ['the log'] * (mark.encode() in log)
print('HUNT files', scanned, 'names', names, 'object bytes', len(objects), 'refs',
      len(refs.splitlines()), 'hits', hits, 'seconds', round(time.monotonic() - began, 1))
"""
    return [write("rgr_hunt.py", code),
            bash(f"{sys.executable} -m pytest -q -p rgr_hunt --co")]


def examined_env(home: Path, url: str) -> dict[str, str]:
    env = rgr_env(home, url)
    del env["TDD_ACCEPTANCE_MODE"]  # on, as for any user
    return env


def test_a_feature_built_in_part_is_sent_back_in_words_and_no_implementer_can_find_the_tests(
        tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata", extra_config=CONFIG)
    home = tmp_path / "home"
    state_dir = acceptance_store.state_root({"HOME": str(home)}) / "acceptance"
    ints, strings = "adds two integers", "adds numbers written as strings"
    scripts = [
        plan([(ints, False)], ints, first=True), red(TEST_INTS, first=True),
        green(INTS, first=True), refactor(), plan([(ints, True)], None), examiner(),
        # sent back: the planner adds the missing behaviour
        plan([(ints, True), (strings, False)], strings), red(TEST_BOTH, first=False),
        green(BOTH, first=False, before=hunt(state_dir, repo)), refactor(),
        plan([(ints, True), (strings, True)], None)]
    with FakeModelServer(scripts, keep_bodies=True) as server:
        env = examined_env(home, server.url)
        done = rgr(["run", "--yes", "--skip-preflight", FEATURE], repo, env)
        out = " ".join((done.stdout + done.stderr).split())
        assert done.returncode == 0, out
        assert server.errors == [] and server.remaining == 0
        records = list(server.requests)
    assert "acceptance (on): fail: 1 of 2" in out and "acceptance (on): pass: 2 of 2" in out
    # the planner after the examination was told the missing behaviour, in words only
    told = next(r.first_user_text for r in records if r.turn == 0 and r.attempt == 0
                and "You are the PLANNER" in r.system and "Acceptance tests you cannot" in
                r.first_user_text)
    assert MISSING in " ".join(told.split())
    # ... and where the production code it ran stopped: the line add returned from last
    # (rgr's tracer on the acceptance run), never the test's file, code or values
    assert f"{MISSING} (the code it ran last: calc.py:2)" in " ".join(told.split())
    assert "4173" not in told and "13331" not in told and MARK not in told
    assert "test_rgr_acceptance" not in told and "test_sums_numbers" not in told
    noted: list[Any] = notes_on_branch(repo)
    sent_back = next(n for n in noted if (n.get("acceptance") or {}).get("verdict") == "fail")
    assert [t.get("ranLast") for t in sent_back["acceptance"]["tests"]] == [
        [], ["calc.py:2"]], sent_back["acceptance"]
    assert "calc.py:2" in sent_back["summary"] and "4173" not in sent_back["summary"]
    # the examiner was shown the feature and the signature, nothing of the code
    [asked] = [r.first_user_text for r in records if "You are the EXAMINER" in r.system
               and r.turn == 0]
    assert FEATURE in asked and "def add(a, b)" in asked and "a + b" not in asked
    # the hostile implementer searched and found nothing
    hunted = [r.body for r in records if r.body is not None and "You are the IMPLEMENTER"
              in r.system]
    text = "\n".join(json.dumps(b) for b in hunted)
    assert MARK not in text
    found = set(re.findall(r"HUNT files (\d+) names (\d+) object bytes (\d+) refs (\d+) "
                           r"hits (\[[^\]]*\])", text))
    assert len(found) == 1, found  # it ran once, and the model saw what it printed
    [(files, names, object_bytes, refs, hits)] = found
    assert int(files) > 0 and int(names) > 1000 and int(refs) > 0  # it searched
    assert int(object_bytes) > 10_000  # the whole object store its copy reaches
    assert hits == "[]", re.findall(r"seconds [0-9.]+", text)
    # kept outside the repository; the note, show and report say what was found
    head = git(repo, "rev-parse", "HEAD").strip()
    note = json.loads(git(repo, "notes", "--ref=refs/notes/tdd-handoffs", "show", head))
    acceptance = note["acceptance"]
    assert (acceptance["verdict"], acceptance["round"], acceptance["sessions"]) == (
        "pass", 2, 1)
    # the note keeps a key, never a path (every scratch copy reads the notes); the file
    # it names lies in rgr's state folder under HOME
    stored = acceptance["stored"]
    assert not Path(stored).is_absolute() and str(home) not in stored, stored
    kept = acceptance_store.state_root({"HOME": str(home)}) / "acceptance" / stored
    assert kept.is_dir() and kept.is_relative_to(home.resolve()), kept
    assert MARK not in git(repo, "log", "--all", "-p", "--notes=*")
    offline = rgr_env(home, "http://127.0.0.1:9")
    shown = " ".join(rgr(["show"], repo, offline).stdout.split())
    assert "pass: 2 of 2 acceptance test(s) passed" in shown and MISSING in shown
    report = " ".join(rgr(["report"], repo, offline).stdout.split())
    assert "of the run's agent cost" in report
    as_json = json.loads(rgr(["report", "--json"], repo, offline).stdout)
    assert as_json["status"] == "complete" and as_json["acceptance"]["verdict"] == "pass"


@sweep_only("tests/e2e/test_examiner.py", "the honest run's one examiner session")
def test_an_honest_run_passes_the_examiner(tmp_path: Path) -> None:
    """One cycle, one examiner session, kept short: the feature asks for integers only.
    The full sweep's since 2026-12-02 (third pass): the run sent back in words (above)
    ends with the examiner's pass and the report's, in every run; and the examiner
    passes the honest Vitest run of test_referee_honest_langs.py in every run."""
    repo = make_project(tmp_path / "kata", extra_config=CONFIG)
    ints = "adds two integers"
    honest = [TESTS[0]]
    scripts = [
        plan([(ints, False)], ints, first=True), red(TEST_INTS, first=True),
        green(INTS, first=True), refactor(), plan([(ints, True)], None),
        SessionScript([write("test_rgr_acceptance.py", ACCEPTANCE.split("\n\n\ndef test_sums_"
                                                                      "numbers")[0] + "\n"),
                       structured({"tests": honest})],
                      expect_system_contains="You are the EXAMINER", name="examiner")]
    with FakeModelServer(scripts) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "add(a, b) returns the sum of two "
                    "integers"], repo, examined_env(tmp_path / "home", server.url))
        out = " ".join((done.stdout + done.stderr).split())
        assert done.returncode == 0, out
        assert server.errors == [] and server.remaining == 0
    assert "acceptance (on): pass: 1 of 1 acceptance test(s) passed (round 1" in out
    report = json.loads(rgr(["report", "--json"], repo,
                            rgr_env(tmp_path / "home", "http://127.0.0.1:9")).stdout)
    assert report["status"] == "complete" and report["acceptance"]["verdict"] == "pass"
