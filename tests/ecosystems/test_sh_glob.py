"""rgr's pathname expansion of a script word (rgr.ecosystems.sh_glob) gives what real
dash gives: one dash process prints the expansion of every pattern below on a tree of
nested folders, hidden names, bracket-like names and links, and each must be equal,
in order. Then what rgr refuses to reproduce."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rgr.ecosystems.sh_glob import accepts, expand

#: Every pattern rgr accepts, each compared with dash.
PATTERNS = (
    "test/**/*.js", "test/*.js", "test/*", "test/*/*.js", "test/*/*/*.js",
    "test/**/**/*.js", "test/**", "test/?.js", "test/??.js", "test/a*", "test/a*/*",
    "test/.*", "test/.h/*", "test/.??*", "test/.[a-z]*/*.js",
    "test/[abx].js", "test/[!abx].js", "test/[a-c].js", "test/[!a-c].js",
    "test/[a-].js", "test/[-a].js", "test/[a-c-e].js", "test/[b-a].js", "test/[!b-a].js",
    "test/[.]*", "test/[_-]*", "test/*[0-9].js",
    "test/*/", "test/*.js/", "test//*.js", "./test/*.js", "test/./*.js",
    "test/nomatch/*.js", "nomatch/*", "test/*.ts", "test/a/b/*", "test/a/b/two.js*",
    "test/*/one.js", "test/*/b", "test/*/b/", "test/link*/*", "test/broken*",
    "test/x.js/*", "test/*.spec.js", "test/**/*.spec.js", "test/*_z*",
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for folder in ("test/a/b", "test/.h", "test/sub.spec.js", "test/ab"):
        (root / folder).mkdir(parents=True)
    for name in ("x.js", "Y.js", "_z.js", ".hid.js", "a/one.js", "a/b/two.js",
                 ".h/three.js", "[x].js", "a.js", "b.txt", "B.js", "-d.js", "^c.js",
                 "ab.js", "-.js", "e.js", "c.js", "1.js", "x.spec.js", "a/y.spec.js",
                 "ab/one.js", "!.js", "?.js", "*.js", "file9.js", ".js"):
        (root / "test" / name).write_text("")
    (root / "test" / "link").symlink_to("a")
    (root / "test" / "broken").symlink_to("gone")
    (root / "top.js").write_text("")
    return root


def dash_expansions(root: Path, patterns: tuple[str, ...]) -> list[list[str]]:
    """Each pattern's words as dash expands them in ``root`` (one process for all)."""
    shell = shutil.which("dash")
    assert shell is not None, "dash is the sh npm runs scripts with on Debian: apt install dash"
    script = "".join(f"printf '%s\\n' {p}; echo '<end>'\n" for p in patterns)
    done = subprocess.run([shell, "-c", script], cwd=root, capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"},
                          check=True)
    return [chunk.strip("\n").split("\n") for chunk in done.stdout.split("<end>\n")[:-1]]


def test_rgr_expands_every_accepted_pattern_as_dash_does(tree: Path) -> None:
    assert all(accepts(p) for p in PATTERNS), [p for p in PATTERNS if not accepts(p)]
    wanted = dash_expansions(tree, PATTERNS)
    got = [expand(p, tree) for p in PATTERNS]
    assert dict(zip(PATTERNS, got, strict=True)) == dict(zip(PATTERNS, wanted, strict=True))
    # the cases the expansion exists for, spelled out
    assert got[0] == ["test/a/one.js", "test/a/y.spec.js", "test/ab/one.js",
                      "test/link/one.js", "test/link/y.spec.js"]  # no globstar
    assert expand("test/nomatch/*.js", tree) == ["test/nomatch/*.js"]


def test_a_removed_file_is_no_longer_expanded(tree: Path) -> None:
    """The gate expands a word in the checkout as it is for the run (test files left
    out): a file gone is not an argument."""
    before = expand("test/*.js", tree)
    assert before is not None and "test/x.js" in before
    (tree / "test" / "x.js").unlink()
    after = expand("test/*.js", tree)
    assert after is not None and "test/x.js" not in after
    assert after == dash_expansions(tree, ("test/*.js",))[0]


@pytest.mark.parametrize("word", [
    "test/[[:upper:]].js",  # a character class
    "test/[]x].js",  # a ``]`` first in the bracket
    "test/[x", "test/x]", "test/[].js", "test/[!].js",
    "test/[^x].js",  # ``^`` is no negation in dash, but is in bash: refused
    "/abs/*.js", "../*.js", "test/../*.js",
    "test/\\*.js", "test/!x*",
    "*.js", "*/x.js", "./*.js", ".*",  # a wildcard at the top, where mount points are
    "node_modules/*/test/*.js",  # into a mount point
    "test/x.js",  # no wildcard: not a pattern at all
])
def test_patterns_outside_the_subset_are_refused(tree: Path, word: str) -> None:
    assert not accepts(word)
    assert expand(word, tree) is None


def test_a_folder_the_sandbox_maps_in_is_never_matched(tree: Path) -> None:
    """A workspace package's node_modules is an empty mount point on rgr's side."""
    (tree / "test" / "a" / "node_modules").mkdir()
    assert expand("test/a/*", tree) is None
    assert expand("test/a/*.js", tree) == ["test/a/one.js", "test/a/y.spec.js"]
    assert expand("test/.*/*.js", tree) is None  # through test/.. to the top


def test_a_name_that_is_not_ascii_is_refused(tree: Path) -> None:
    """dash matches bytes, a shell in a UTF-8 locale characters: ``?`` could differ."""
    (tree / "test" / "é.js").write_text("")
    assert expand("test/*.js", tree) is None
    assert expand("test/a/*.js", tree) == ["test/a/one.js", "test/a/y.spec.js"]
