"""The public task set of `rgr eval` (bench/eval/public.jsonl): 20 tasks, four small
functions (slugify, count_words, count_vowels, capitalize_words) to add to a kata project
in each of Python (pytest), JavaScript (node --test), Go, Rust and Ruby (RSpec). Each
project has an existing, tested behaviour (``shout``): its suite is the regression check.
Three hidden tests a task, with inputs no visible test uses (bench/eval/katas.py).

    python bench/eval/make_kata.py                # the projects under bench/eval/repos/
    rgr eval bench/eval/public.jsonl --modes bare,tdd-prompt,rgr --budget-usd 20

    python bench/eval/make_kata.py DIR            # a copy: DIR/public.jsonl, DIR/repos/
    python bench/eval/make_kata.py --write-tasks  # public.jsonl again, from katas.py

Each project is a git repository (``main``, two commits) with a tdd.toml naming its test
command; a Rust project's also shows rustup's folders (CARGO_HOME, RUSTUP_HOME) to the
sandbox. A language whose toolchain is missing still gets its project: its tasks fail
to measure until the toolchain is installed (``rgr doctor`` in the project says what is
missing). ``--langs`` builds only some.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.eval.katas import LANGS, PUBLIC, RUST, Lang, build_project, tdd_toml  # noqa: E402

HERE = Path(__file__).resolve().parent
PUBLIC_TASKS = HERE / "public.jsonl"
#: The interpreter the Python tasks name: a user's, not this one's virtual environment.
PYTHON = "python3"
#: The first line of every hidden test file of the public set.
MARK = "A hidden test of rgr eval's public task set: no agent may read it."


def tasks_text() -> str:
    """public.jsonl: every task, its hidden test inline, its repo ``repos/<language>``."""
    header = ("// rgr eval's public task set: build its projects with "
              "`python bench/eval/make_kata.py` (docs/eval.md)\n")
    return header + "".join(json.dumps(task.line(f"repos/{task.lang.name}", PYTHON, mark=MARK),
                                       sort_keys=True) + "\n" for task in PUBLIC)


def toolchain(lang: Lang) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(variables to keep, folders to show read-only) for ``lang``'s sealed runs: rustup's
    proxies find their toolchain through CARGO_HOME and RUSTUP_HOME, which default to a
    HOME the sandbox masks."""
    if lang is not RUST:
        return (), ()
    home = Path.home()
    folders = (os.environ.get("CARGO_HOME", str(home / ".cargo")),
               os.environ.get("RUSTUP_HOME", str(home / ".rustup")))
    shown = tuple(f for f in folders if Path(f).is_dir())
    return (("CARGO_HOME", "RUSTUP_HOME") if shown else ()), shown


def build(folder: Path, langs: list[str]) -> list[Path]:
    made = []
    for name in langs:
        target = folder / "repos" / name
        if target.exists():
            shutil.rmtree(target)
        lang = LANGS[name]
        made.append(build_project(target, lang, tdd_toml(lang, PYTHON, None,
                                                         *toolchain(lang))))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path, nargs="?", help="where to write a copy "
                        "(default: beside public.jsonl)")
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--write-tasks", action="store_true",
                        help="rewrite bench/eval/public.jsonl from bench/eval/katas.py")
    args = parser.parse_args()
    if args.write_tasks:
        PUBLIC_TASKS.write_text(tasks_text())
        print(f"{PUBLIC_TASKS}: {len(PUBLIC)} tasks")
        return
    langs = [n for n in args.langs.split(",") if n]
    unknown = [n for n in langs if n not in LANGS]
    if unknown:
        raise SystemExit(f"--langs: {', '.join(unknown)} unknown; the languages are "
                         f"{', '.join(LANGS)}")
    folder = (args.dir or HERE).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    tasks = folder / "public.jsonl"
    if tasks != PUBLIC_TASKS:
        tasks.write_text(tasks_text())
    for project in build(folder, langs):
        print(f"built {project}")
    print(f"tasks: {tasks} ({len(PUBLIC)}); run: rgr eval {tasks} --modes "
          "bare,tdd-prompt,rgr --budget-usd 20")


if __name__ == "__main__":
    main()
