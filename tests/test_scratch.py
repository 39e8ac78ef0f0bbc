"""The git side of a sealed attempt on real repositories: the scratch copy, what comes
back from it (and what does not), pristine checkouts, the compare-and-swap branch move."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest
from conftest import Repo, git, make_repo

from rgr import scratch
from rgr.errors import RgrError
from rgr.scratch import ImportRefused, checkout_pristine, import_branch, make_scratch

WHO = pygit2.Signature("Agent", "agent@example.com")


@pytest.fixture
def user(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path, commits=2)
    repo.commit("add code", {"src/app.py": "print('hi')\n"})
    return repo


def _scratch(user: Repo, tmp_path: Path) -> tuple[pygit2.Repository, scratch.Scratch]:
    repo = pygit2.Repository(str(user.path))
    base = repo.head.peel(pygit2.Commit)
    made = make_scratch(repo, base, "main", tmp_path / "attempt" / "work", WHO)
    return repo, made


def test_the_scratch_copy_has_its_own_git_at_the_base(user: Repo, tmp_path: Path) -> None:
    _, made = _scratch(user, tmp_path)
    assert (made.work / "src/app.py").read_text() == "print('hi')\n"
    assert git(made.work, "rev-parse", "HEAD") == user.head()
    assert git(made.work, "status", "--porcelain") == ""
    assert git(made.work, "log", "--format=%s") == git(user.path, "log", "--format=%s")
    assert Path(git(made.work, "rev-parse", "--absolute-git-dir")) == made.work / ".git"
    assert git(made.work, "config", "user.email") == "agent@example.com"


def test_only_the_attempt_branch_comes_back(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    work = made.work
    (work / "src/app.py").write_text("print('changed')\n")
    git(work, "commit", "-qam", "feat: change")
    git(work, "switch", "-qc", "side")
    (work / "side.txt").write_text("side\n")
    git(work, "add", "side.txt")
    git(work, "commit", "-qm", "side work")
    side = git(work, "rev-parse", "HEAD")
    git(work, "switch", "-q", "main")
    git(work, "notes", "add", "-m", "forged", "HEAD")
    refs_before = user.git("for-each-ref")
    tip = import_branch(repo, made, repo.head.target)
    assert str(tip) == git(work, "rev-parse", "main")
    assert user.git("cat-file", "-t", str(tip)) == "commit"
    assert user.git("show", f"{tip}:src/app.py") == "print('changed')"
    assert pygit2.Oid(hex=side) not in repo.odb  # the side commit stayed out
    assert user.git("for-each-ref") == refs_before  # no ref was made or moved


def test_nothing_committed_gives_the_base(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    (made.work / "stray.txt").write_text("uncommitted\n")
    assert import_branch(repo, made, repo.head.target) == repo.head.target
    git(made.work, "branch", "-qm", "main", "renamed")
    assert import_branch(repo, made, repo.head.target) == repo.head.target


def test_tampered_alternates_are_rewritten_before_reading(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    (made.work / "a.txt").write_text("a\n")
    git(made.work, "add", "a.txt")
    git(made.work, "commit", "-qm", "feat: a")
    other = make_repo(tmp_path, name="other")
    alternates = made.git_dir / "objects" / "info" / "alternates"
    alternates.write_text(f"{other.path}/.git/objects\n")
    tip = import_branch(repo, made, repo.head.target)
    assert alternates.read_text().strip() == str(Path(repo.path) / "objects")
    assert user.git("cat-file", "-t", str(tip)) == "commit"


def test_a_replaced_object_store_is_refused(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    objects = made.git_dir / "objects"
    objects.rename(made.git_dir / "objects-real")
    os.symlink(made.git_dir / "objects-real", objects)
    with pytest.raises(ImportRefused, match="replaced"):
        import_branch(repo, made, repo.head.target)


def test_the_import_budget(user: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, made = _scratch(user, tmp_path)
    (made.work / "big.bin").write_bytes(os.urandom(64 * 1024))
    git(made.work, "add", "big.bin")
    git(made.work, "commit", "-qm", "feat: big")
    monkeypatch.setattr(scratch, "MAX_IMPORT_BYTES", 32 * 1024)
    with pytest.raises(ImportRefused, match="exceed"):
        import_branch(repo, made, repo.head.target)


def test_a_pristine_checkout_is_the_commit_and_nothing_else(user: Repo, tmp_path: Path) -> None:
    (user.path / "untracked.py").write_text("import os\n")
    (user.path / ".git" / "info" / "exclude").write_text("ignored.pth\n")
    (user.path / "ignored.pth").write_text("import os\n")
    repo = pygit2.Repository(str(user.path))
    target = tmp_path / "pristine"
    checkout_pristine(repo, repo.head.target, target)
    listed = sorted(str(p.relative_to(target)) for p in target.rglob("*"))
    assert listed == sorted(user.git("ls-tree", "-r", "-t", "--name-only", "HEAD").split())
    assert user.git("status", "--porcelain") == "?? untracked.py"  # the user's index untouched
    with pytest.raises(RgrError, match="not empty"):
        checkout_pristine(repo, repo.head.target, target)


def test_the_branch_moves_only_from_where_rgr_left_it(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    base = repo.head.target
    (made.work / "new.txt").write_text("new\n")
    git(made.work, "add", "new.txt")
    git(made.work, "commit", "-qm", "feat: new")
    tip = import_branch(repo, made, base)
    user.commit("the user commits meanwhile")
    with pytest.raises(RgrError, match="moved while rgr worked"):
        scratch.update_worktree(repo, "main", base, tip, "rgr: test")
    user.git("reset", "-q", "--hard", str(base))
    scratch.update_worktree(repo, "main", base, tip, "rgr: test")
    assert user.head() == str(tip)
    assert (user.path / "new.txt").read_text() == "new\n"
    assert user.git("status", "--porcelain") == ""
