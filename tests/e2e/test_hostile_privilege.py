"""Least privilege end to end (issue 42): the real claude, installed as rgr's README
installs it (``npm install -g --prefix ~/.local``, rgr running ``~/.local/bin/claude``),
drives a full `rgr run` whose RED session runs a hunter through the allowed test
command. The hunter walks every folder its sandbox shows and reads every file, plus
each planted path by name: canaries where users keep secrets, in another project, and
a stand-in for the examiner's hidden tests in rgr's state folder. What it finds goes
back to the model, so the check is the scripted server's record: no canary reached it.

The unit-level sweep of layouts and jails is tests/sandbox/test_least_privilege.py.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from harness import NODE_DIR
from hostile import (
    PYTHON,
    HostileModel,
    attack_report,
    attacked,
    dumps,
    find_marks,
    honest_red,
    play,
    run_code,
)
from kata import git, make_project, notes_on_branch

#: Planted under the user's HOME: each holds its token.
CANARIES = {
    ".ssh/id_ed25519": "CANARY-ssh-4c1e",
    ".aws/credentials": "CANARY-aws-9d20",
    ".config/gh/hosts.yml": "CANARY-gh-71b3",
    ".netrc": "CANARY-netrc-0e5a",
    ".git-credentials": "CANARY-gitcred-b2f8",
    ".npmrc": "CANARY-npmrc-63cd",
    ".docker/config.json": "CANARY-docker-18fa",
    ".bash_history": "CANARY-history-5a07",
    ".local/share/keyrings/login.keyring": "CANARY-keyring-e914",
    ".cargo/credentials.toml": "CANARY-cargo-2b6d",
    "projects/other/.env": "CANARY-otherenv-c3a1",
    ".local/state/rgr/acceptance/0123456789abcdef/run-1/tests.txt": "CANARY-acceptance-7e42",
}

HUNTER = """\
import os
tokens = set()
def read(path):
    try:
        with open(path, 'rb') as handle:
            data = handle.read(1 << 16)
    except OSError:
        return
    for word in data.split():
        if word.startswith(b'CANARY-'):
            tokens.add(word.decode())
for top in os.listdir('/'):
    if top in ('usr', 'proc', 'sys', 'dev', 'bin', 'sbin', 'lib', 'lib64', 'lib32'):
        continue
    for folder, dirs, files in os.walk('/' + top):
        dirs[:] = [d for d in dirs if d not in ('site-packages', 'node_modules')]
        for name in files:
            read(os.path.join(folder, name))
for path in PATHS:
    read(path)
print('hunted:', len(tokens), 'found', sorted(tokens))
"""


def _install_claude_in_home(home: Path) -> Path:
    """The pinned claude package under ``~/.local`` as npm's global install lays it
    out (hard links of the e2e suite's copy: the same files, no download)."""
    package = home / ".local/lib/node_modules/@anthropic-ai/claude-code"
    package.parent.mkdir(parents=True)
    subprocess.run(["cp", "-al", str(NODE_DIR / "node_modules/@anthropic-ai/claude-code"),
                    str(package)], check=True)
    claude = home / ".local/bin/claude"
    claude.parent.mkdir(parents=True)
    claude.symlink_to("../lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe")
    return claude


def test_a_hunter_in_red_reads_no_canary_with_claude_installed_as_the_readme_says(
        tmp_path: Path) -> None:
    repo = make_project(tmp_path / "kata")
    home = tmp_path / "home"
    claude = _install_claude_in_home(home)
    toml = repo / "tdd.toml"
    text = toml.read_text()
    start = text.index("agent_binary = ")
    end = text.index("\n", start)
    toml.write_text(text[:start] + f'agent_binary = "{claude}"' + text[end:])
    git(repo, "commit", "-q", "-am", "claude from ~/.local/bin")
    for rel, token in CANARIES.items():
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{token}\n")
    paths = [str(home / rel) for rel in CANARIES]
    hunt = {"hunt": f"PATHS = {paths!r}\n" + HUNTER}
    with attacked(tmp_path, repo) as (places, recorder):
        model = HostileModel({("RED", 1, 1): honest_red(
            run_code("tests/test_hunt_mod.py", hunt, PYTHON))})
        done, bodies = play(places, "claude", model, ["run", "--yes", "add a slugify function"])
        marks = find_marks(places, bodies, recorder)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert notes_on_branch(repo)[-1]["phase"] == "COMPLETE"
    report = attack_report(bodies, ["hunt"])
    assert "ran" in report.get("hunt", ""), dumps(report)
    seen = b"\n".join(bodies).decode(errors="replace")
    hunted = re.findall(r"hunted: \d+ found \[[^\]]*\]", seen)
    assert hunted and all(h == "hunted: 0 found []" for h in hunted), hunted
    leaked = [token for token in CANARIES.values() if token in seen]
    assert leaked == [], leaked
    assert marks == [], marks
    assert os.path.islink(claude)  # the run used the README's layout
