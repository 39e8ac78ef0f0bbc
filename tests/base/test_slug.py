"""A feature's words as a branch name (rgr.base.slug)."""

from __future__ import annotations

import subprocess
import sys

from rgr.base.slug import slugify


def test_latin_accents_are_dropped_and_other_scripts_kept() -> None:
    assert slugify("Add a Slugify function!") == "add-a-slugify-function"
    assert slugify("Crème brûlée") == "creme-brulee"
    assert slugify("日本語の機能") == "日本語の機能"
    assert slugify("  __snake_case__ and/or  spaces ") == "snake-case-and-or-spaces"


def test_a_cut_or_unreadable_slug_gets_a_hash_of_the_whole_text() -> None:
    long = "word " * 20
    cut = slugify(long)
    assert len(cut) <= 40 and cut.startswith("word-word") and cut != slugify(long + "x")
    assert slugify("!!!").startswith("feature-") and slugify("!!!") != slugify("???")
    assert slugify(long) == cut  # the same text, the same branch


def test_naming_a_branch_imports_nothing_of_the_run() -> None:
    """``rgr queue add`` names its job's branch without the run's start (half a second
    of imports): the module needs the standard library only."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, rgr.base.slug; "
         "print(sorted(m for m in sys.modules if m.startswith('rgr.')))"],
        capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['rgr.base', 'rgr.base.slug']"
