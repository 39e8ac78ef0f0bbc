"""The manual builds: `mkdocs build --strict` (what CI runs) into tmp_path, offline. A
broken link or anchor, a page missing from the menu's files or a hook that fails stops the
build; the command reference comes out of rgr's own click commands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rgr.cli import cli
from tests.conftest import REPO_ROOT


def _build(site: Path, config: Path = REPO_ROOT / "mkdocs.yml") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--config-file", str(config), "--site-dir", str(site)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, check=False)


def test_the_manual_builds_strict_with_every_command_in_its_reference(tmp_path: Path) -> None:
    done = _build(tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    reference = (tmp_path / "site" / "reference" / "commands" / "index.html").read_text()
    for name, command in cli.commands.items():
        if not command.hidden:
            assert f"Usage: rgr {name} [OPTIONS]" in reference, name
    # no font or script fetched from the network by the pages
    home = (tmp_path / "site" / "index.html").read_text()
    assert "fonts.googleapis.com" not in home and "fonts.gstatic.com" not in home


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """--strict is what catches a link to a page that moved: proved on a copy of the
    manual with one bad link added."""
    docs = tmp_path / "docs"
    subprocess.run(["cp", "-r", str(REPO_ROOT / "docs"), str(docs)], check=True)
    with (docs / "index.md").open("a", encoding="utf-8") as page:
        page.write("\n[gone](install.md#no-such-heading)\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text((REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
                      .replace("docs_dir: docs", f"docs_dir: {docs}")
                      .replace("docs/hooks/", f"{docs}/hooks/"), encoding="utf-8")
    done = _build(tmp_path / "site", config)
    assert done.returncode != 0
    assert "no-such-heading" in done.stdout + done.stderr
