"""The eval katas (bench/eval/katas.py) and the public task set built from them
(bench/eval/public.jsonl): the shipped file is what the generator writes, every line
loads as a task, and (RGR_FULL_SWEEP=1) in each language whose runner is here the code the scripted
profiles write does what its name says: the honest code passes the hidden tests, the
lazy and the special-caser's do not, and each passes its own visible tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harness import sweep_only

from bench.eval import make_kata
from bench.eval.katas import (
    FUNCTIONS,
    LANGS,
    PUBLIC,
    KataTask,
    Lang,
    build_project,
    tdd_toml,
    write_files,
)
from rgr.evaluate.tasks import load_tasks


def test_the_shipped_public_set_is_what_the_generator_writes() -> None:
    assert make_kata.PUBLIC_TASKS.read_text() == make_kata.tasks_text(), (
        "run: python bench/eval/make_kata.py --write-tasks")


def test_the_public_set_holds_twenty_tasks_in_five_languages(tmp_path: Path) -> None:
    tasks = load_tasks(make_kata.PUBLIC_TASKS)
    assert len(tasks) == len(PUBLIC) == 20
    assert {t.ecosystem for t in tasks} == set(LANGS)
    for task in tasks:
        assert task.repo == str(make_kata.HERE / "repos" / task.ecosystem)
        (hidden,) = task.hidden_tests.files
        assert hidden.text is not None and make_kata.MARK in hidden.text
        assert task.hidden_tests.count == 3


def test_the_generator_builds_the_projects_the_tasks_name(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(Path(make_kata.__file__)), str(tmp_path),
                           "--langs", "python,go"], capture_output=True, text=True,
                          check=True)
    assert "built" in done.stdout
    tasks = load_tasks(tmp_path / "public.jsonl")
    assert tasks[0].repo == str(tmp_path / "repos" / "python")
    log = subprocess.run(["git", "log", "--format=%s", "main"], cwd=tmp_path / "repos" / "go",
                         capture_output=True, text=True, check=True).stdout.split()
    assert log == ["util:", "shout", "initial"]
    assert (tmp_path / "repos" / "go" / "slug.go").read_text().startswith("package kata")


def _run(argv: list[str], cwd: Path) -> int:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                          timeout=120).returncode


def check_language(lang: Lang, root: Path) -> None:
    """Every function's honest, lazy and special-cased code against the visible and
    the hidden tests, in a real project of ``lang``, with its real runner."""
    project = build_project(root, lang, tdd_toml(lang, sys.executable))
    suite = [sys.executable if w == "{python}" else w for w in lang.test_command]
    assert _run(suite, project) == 0
    for function in FUNCTIONS:
        task = KataTask(lang, function)
        for code, done, solves in ((task.honest(2), 2, True), (task.honest(1), 1, False),
                                   (task.special(2), 2, False)):
            hidden = project / task.hidden_path
            hidden.unlink(missing_ok=True)
            write_files(project, {task.impl_file: code, task.test_file: task.tests_up_to(done)})
            assert _run(suite, project) == 0, (task.id, code)
            write_files(project, {task.hidden_path: task.hidden()})
            passed = _run(lang.hidden_command(function, sys.executable), project) == 0
            assert passed == solves, (task.id, code)
            hidden.unlink()
    impl, test = lang.shout_files
    write_files(project, {impl: lang.shout(bang=False)})
    assert _run(suite, project) != 0  # the regression-maker's shout fails the suite
    write_files(project, {test: lang.shout_test(want="HI")})
    assert _run(suite, project) == 0  # ... and the test-editor's edit hides it


@sweep_only("tests/bench/test_eval_katas.py", "every kata's code in every language")
@pytest.mark.parametrize("lang", list(LANGS.values()), ids=lambda lang: lang.name)
def test_each_profile_writes_what_its_name_says(tmp_path: Path, lang: Lang) -> None:
    program = lang.test_command[0]
    if program != "{python}" and shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    check_language(lang, tmp_path / lang.name)
