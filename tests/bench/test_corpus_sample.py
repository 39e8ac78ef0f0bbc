"""The corpus sample in the default run (issue 35): one real project of the corpus
(bench/corpus/projects.py), fetched from PyPI through the cached fetcher and built as its
users have it under a fresh HOME; `rgr verify` must read the same passed count and give
the same verdict as the project's own test command. The whole corpus:
`python bench/verify_corpus.py` (docs/notes-corpus.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.corpus.projects import by_name
from bench.verify_corpus import measure

#: The unittest-only project: its own command is `python -m unittest discover tests` in
#: its own venv, which rgr must use rather than a pytest found on PATH.
SAMPLE = "markdown"


def test_rgr_verify_agrees_with_a_real_projects_own_test_command(tmp_path: Path) -> None:
    rgr = Path(sys.executable).parent / "rgr"
    # The own command runs as the sandbox runs it, without any capability (as root too);
    # its run with root's capabilities is the bench's extra column, not needed here.
    row = measure(by_name(SAMPLE), tmp_path, rgr, root_too=False)
    assert row.own_ok and row.own_count is not None and row.own_count > 1000, row
    assert row.agree, (row, (tmp_path / f"{SAMPLE}.rgr.json").read_text())
