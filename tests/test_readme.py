"""The README is what a newcomer reads first: the two commands (install and demo, the
tests), a short tour and links into the manual (docs/, tests/test_docs.py checks it).
Its first command says where it runs, its second is exactly what CI runs, it stays short,
and every link into docs/ reaches a page that exists."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```", README, re.DOTALL | re.MULTILINE)
#: The manual lives in docs/; the README points there rather than growing again.
MAX_LINES = 300


def test_no_path_of_the_writers_machine_and_no_internal_documents() -> None:
    for needle in ("/work/", "/root/", "wt-", "/tmp/exp", "pytest-of-"):
        assert needle not in README, needle
    assert not re.search(r"\bseed(s|-era)? ?\d*\b", README, re.IGNORECASE)
    assert not re.search(r"\bissues? \d", README, re.IGNORECASE)


def test_the_first_command_says_where_it_runs() -> None:
    start = README[: README.index("```sh")]
    assert "clone" in start


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    """The README's second fenced command (the tests) is the command .ci/run runs: what
    a newcomer runs is what CI proves."""
    commands = [body.strip() for lang, body in BLOCKS if lang == "sh"]
    assert len(commands) >= 2, "the README starts with two sh blocks: install+run, tests"
    ci_lines = (REPO_ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci_lines[-1].strip() == commands[1]


def test_the_readme_stays_short() -> None:
    lines = README.count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines: move the detail into docs/"


def test_every_link_into_the_manual_reaches_a_page() -> None:
    targets = re.findall(r"\]\((docs/[^)#\s]+)(?:#[^)\s]*)?\)", README)
    assert len(targets) >= 10, targets  # the tour and the map of the manual
    missing = sorted({t for t in targets if not (REPO_ROOT / t).is_file()})
    assert not missing, missing


def test_every_anchor_of_a_link_into_the_manual_is_a_heading_there() -> None:
    """GitHub renders the README; a link such as docs/first-run.md#limits must land on a
    heading of that page (mkdocs --strict checks the pages' own links, not the README's)."""
    from markdown.extensions.toc import slugify

    for page, anchor in re.findall(r"\]\((docs/[^)#\s]+)#([^)\s]+)\)", README):
        text = (REPO_ROOT / page).read_text(encoding="utf-8")
        slugs = {slugify(h, "-") for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}
        assert anchor in slugs, (page, anchor)
