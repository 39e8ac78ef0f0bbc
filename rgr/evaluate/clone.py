"""A fresh clone of a task's repository for one run: exactly the task's commit and its
history, on a branch ``main``, with no remote. Fetched by commit, not cloned whole: a
repository's later commits (the feature done, its tests) under any branch or tag would
be readable by the agent working in it.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from rgr.base.errors import RgrError
from rgr.store.gitcli import Git, git_env

BRANCH = "main"
IDENTITY = (("user.name", "rgr eval"), ("user.email", "eval@rgr.invalid"),
            ("commit.gpgsign", "false"))


def fresh_clone(repo: str, commit: str, dest: Path, env: Mapping[str, str]) -> str:
    """Make ``dest`` a repository holding ``repo`` at ``commit``; its full commit id."""
    if dest.exists():
        shutil.rmtree(dest)  # a run interrupted before its result: start it again
    dest.mkdir(parents=True)
    git = Git(dest, git_env(env))
    git.out("init", "-q", "-b", BRANCH)
    for key, value in IDENTITY:
        git.out("config", key, value)
    done = git.run("fetch", "-q", "--no-tags", repo, commit)
    if done.returncode != 0:
        # A branch or tag name fetches under its own name; a commit id needs the
        # server's permission (local paths and most hosts give it).
        raise RgrError(f"cannot fetch {commit!r} from {repo}: {done.describe(600)}",
                       "check the task's repo and commit (docs/eval.md)")
    git.out("checkout", "-q", "-B", BRANCH, "FETCH_HEAD")
    # FETCH_HEAD names where the commit came from; the task's source is not the agent's.
    (dest / ".git" / "FETCH_HEAD").unlink(missing_ok=True)
    return git.out("rev-parse", "HEAD").strip()
